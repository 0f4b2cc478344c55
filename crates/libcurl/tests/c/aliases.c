/* CURLOPT_HTTP200ALIASES: a response whose first line starts like one of the aliases is an
 * HTTP/1.0 200; and CURLINFO_REFERER, which answers CURLOPT_REFERER from when it is set. Usage: aliases URL [ALIAS...] (no alias: the list is not set). Prints the
 * result, the response code, the HTTP version and the body. */
#include <curl/curl.h>
#include <stdio.h>

static size_t on_write(char *p, size_t size, size_t n, void *ud)
{
  (void)ud;
  fwrite(p, size, n, stdout);
  return size * n;
}

int main(int argc, char **argv)
{
  CURL *h;
  CURLcode rc;
  long code = -1, version = -1;
  struct curl_slist *aliases = NULL;
  int i;
  if(argc < 2)
    return 2;
  for(i = 2; i < argc; i++)
    aliases = curl_slist_append(aliases, argv[i]);
  curl_global_init(CURL_GLOBAL_ALL);
  h = curl_easy_init();
  curl_easy_setopt(h, CURLOPT_URL, argv[1]);
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_write);
  if(aliases)
    curl_easy_setopt(h, CURLOPT_HTTP200ALIASES, aliases);
  {
    char *ref = NULL;
    curl_easy_getinfo(h, CURLINFO_REFERER, &ref);
    printf("referer before: %s\n", ref ? ref : "(null)");
    curl_easy_setopt(h, CURLOPT_REFERER, "http://example.com/from");
    curl_easy_getinfo(h, CURLINFO_REFERER, &ref);
    printf("referer set: %s\n", ref ? ref : "(null)");
  }
  rc = curl_easy_perform(h);
  curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
  curl_easy_getinfo(h, CURLINFO_HTTP_VERSION, &version);
  printf("rc=%d code=%ld version=%ld\n", (int)rc, code, version);
  {
    char *ref = NULL;
    curl_easy_getinfo(h, CURLINFO_REFERER, &ref);
    printf("referer after: %s\n", ref ? ref : "(null)");
  }
  curl_easy_cleanup(h);
  curl_slist_free_all(aliases);
  curl_global_cleanup();
  return 0;
}
