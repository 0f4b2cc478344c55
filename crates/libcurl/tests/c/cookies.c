/* COOKIEFILE turns the engine on, COOKIEJAR is written at curl_easy_cleanup; the second
 * request sends the cookie back. Usage: cookies URL JARFILE */
#include <curl/curl.h>
#include <stdio.h>

static size_t sink(char *p, size_t s, size_t n, void *u) { (void)p; (void)u; return s * n; }

int main(int argc, char **argv)
{
  CURL *h;
  if(argc < 3)
    return 2;
  h = curl_easy_init();
  curl_easy_setopt(h, CURLOPT_URL, argv[1]);
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, sink);
  curl_easy_setopt(h, CURLOPT_COOKIEFILE, "");
  curl_easy_setopt(h, CURLOPT_COOKIEJAR, argv[2]);
  printf("first=%d\n", (int)curl_easy_perform(h));
  printf("second=%d\n", (int)curl_easy_perform(h));
  curl_easy_cleanup(h);
  return 0;
}
