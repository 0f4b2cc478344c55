/* POST with POSTFIELDS and a custom header; response headers through HEADERFUNCTION, the
 * body through WRITEFUNCTION, both to stdout with markers. Usage: post URL */
#include <curl/curl.h>
#include <stdio.h>
#include <string.h>

static size_t on_header(char *p, size_t size, size_t n, void *ud)
{
  int *count = ud;
  (*count)++;
  printf("H: %.*s", (int)(size * n), p);
  return size * n;
}

static size_t on_body(char *p, size_t size, size_t n, void *ud)
{
  (void)ud;
  printf("B: %.*s\n", (int)(size * n), p);
  return size * n;
}

int main(int argc, char **argv)
{
  CURL *h;
  CURLcode rc;
  struct curl_slist *hdrs = NULL;
  int count = 0;
  char err[CURL_ERROR_SIZE];
  static const char data[] = "name=oxcurl&x=1";
  if(argc < 2)
    return 2;
  h = curl_easy_init();
  hdrs = curl_slist_append(hdrs, "X-Test: yes");
  hdrs = curl_slist_append(hdrs, "Accept: text/plain");
  curl_easy_setopt(h, CURLOPT_URL, argv[1]);
  curl_easy_setopt(h, CURLOPT_POSTFIELDS, data);
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdrs);
  curl_easy_setopt(h, CURLOPT_USERAGENT, "cabi-test/1");
  curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(h, CURLOPT_HEADERDATA, &count);
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(h, CURLOPT_ERRORBUFFER, err);
  rc = curl_easy_perform(h);
  printf("rc=%d headers=%d\n", (int)rc, count);
  /* an error lands in the error buffer: a closed port */
  curl_easy_setopt(h, CURLOPT_URL, "http://127.0.0.1:1/");
  rc = curl_easy_perform(h);
  printf("rc=%d errbuf_set=%d\n", (int)rc, err[0] != 0);
  curl_easy_cleanup(h);
  curl_slist_free_all(hdrs);
  return 0;
}
