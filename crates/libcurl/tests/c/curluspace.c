/* CURLOPT_CURLU with a URL set with CURLU_ALLOW_SPACE: the request's path goes URL-encoded,
 * and a redirect resolves against it. Usage: curluspace URL-WITH-SPACES */
#include <curl/curl.h>
#include <stdio.h>

static size_t sink(char *p, size_t s, size_t n, void *ud)
{
  (void)p; (void)ud;
  return s * n;
}

int main(int argc, char **argv)
{
  CURLU *u;
  CURL *h;
  char *eff = NULL;
  long redirects = -1;
  int rc;
  if(argc < 2)
    return 2;
  u = curl_url();
  printf("set=%d\n", (int)curl_url_set(u, CURLUPART_URL, argv[1], CURLU_ALLOW_SPACE));
  h = curl_easy_init();
  curl_easy_setopt(h, CURLOPT_CURLU, u);
  curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, sink);
  rc = (int)curl_easy_perform(h);
  curl_easy_getinfo(h, CURLINFO_EFFECTIVE_URL, &eff);
  curl_easy_getinfo(h, CURLINFO_REDIRECT_COUNT, &redirects);
  printf("rc=%d redirects=%ld effective=%s\n", rc, redirects, eff ? eff : "(nil)");
  curl_easy_cleanup(h);
  curl_url_cleanup(u);
  return 0;
}
