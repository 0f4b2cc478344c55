/* CURLOPT_CURLU with a URL set with CURLU_ALLOW_SPACE: the request's path goes URL-encoded,
 * a redirect resolves against it, and the effective URL of a transfer that is not
 * redirected keeps the spaces. Usage: curluspace URL-WITH-SPACES... (one transfer each) */
#include <curl/curl.h>
#include <stdio.h>

static size_t sink(char *p, size_t s, size_t n, void *ud)
{
  (void)p; (void)ud;
  return s * n;
}

int main(int argc, char **argv)
{
  int i;
  if(argc < 2)
    return 2;
  for(i = 1; i < argc; i++) {
    CURLU *u = curl_url();
    CURL *h;
    char *eff = NULL;
    long redirects = -1;
    int rc;
    printf("set=%d\n", (int)curl_url_set(u, CURLUPART_URL, argv[i], CURLU_ALLOW_SPACE));
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
  }
  return 0;
}
