/* CURLOPT_FRESH_CONNECT is for the first request of a transfer: the request answering an
 * authentication challenge and a followed redirect may use the same connection.
 * Usage: freshauth URL */
#include <curl/curl.h>
#include <stdio.h>

static size_t sink(char *p, size_t s, size_t n, void *ud)
{
  (void)p; (void)ud;
  return s * n;
}

int main(int argc, char **argv)
{
  CURL *h;
  long code = 0, connects = -1;
  int rc;
  if(argc < 2)
    return 2;
  h = curl_easy_init();
  curl_easy_setopt(h, CURLOPT_URL, argv[1]);
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, sink);
  curl_easy_setopt(h, CURLOPT_FRESH_CONNECT, 1L);
  curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(h, CURLOPT_USERPWD, "user:secret");
  curl_easy_setopt(h, CURLOPT_HTTPAUTH, CURLAUTH_DIGEST);
  rc = (int)curl_easy_perform(h);
  curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
  curl_easy_getinfo(h, CURLINFO_NUM_CONNECTS, &connects);
  printf("rc=%d code=%ld connects=%ld\n", rc, code, connects);
  curl_easy_cleanup(h);
  return 0;
}
