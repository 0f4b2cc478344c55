/* CURLOPT_VERBOSE without a debug callback: libcurl's own trace on stderr. Usage: verbose URL */
#include <curl/curl.h>
#include <stdio.h>

static size_t sink(char *p, size_t s, size_t n, void *u) { (void)p; (void)u; return s * n; }

int main(int argc, char **argv)
{
  CURL *h;
  if(argc < 2)
    return 2;
  h = curl_easy_init();
  curl_easy_setopt(h, CURLOPT_URL, argv[1]);
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, sink);
  curl_easy_setopt(h, CURLOPT_VERBOSE, 1L);
  printf("rc=%d\n", (int)curl_easy_perform(h));
  curl_easy_cleanup(h);
  return 0;
}
