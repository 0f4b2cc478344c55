/* CURLINFO_PROXY_ERROR after each step, on one handle. Usage: proxyerror STEP...
 * where a STEP is URL,PROXY (perform URL through PROXY), "dup" (the rest runs on a
 * duplicate of the handle) or "reset" (curl_easy_reset, no perform). */
#include <curl/curl.h>
#include <stdio.h>
#include <string.h>

static size_t sink(char *p, size_t s, size_t n, void *u)
{
  (void)p;
  (void)u;
  return s * n;
}

static void show(CURL *h, const char *step, int rc)
{
  long px = -1;
  CURLcode g = curl_easy_getinfo(h, CURLINFO_PROXY_ERROR, &px);
  printf("%s rc=%d getinfo=%d proxy_error=%ld\n", step, rc, (int)g, px);
}

int main(int argc, char **argv)
{
  CURL *h;
  int i;
  curl_global_init(CURL_GLOBAL_DEFAULT);
  h = curl_easy_init();
  show(h, "fresh", 0);
  for(i = 1; i < argc; i++) {
    char url[512];
    const char *comma = strchr(argv[i], ',');
    if(!strcmp(argv[i], "dup")) {
      CURL *d = curl_easy_duphandle(h);
      curl_easy_cleanup(h);
      h = d;
      show(h, "dup", 0);
      continue;
    }
    if(!strcmp(argv[i], "reset")) {
      curl_easy_reset(h);
      show(h, "reset", 0);
      continue;
    }
    if(!comma || (size_t)(comma - argv[i]) >= sizeof(url))
      return 2;
    memcpy(url, argv[i], comma - argv[i]);
    url[comma - argv[i]] = 0;
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_PROXY, comma + 1);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, sink);
    show(h, comma + 1, (int)curl_easy_perform(h));
  }
  curl_easy_cleanup(h);
  curl_global_cleanup();
  return 0;
}
