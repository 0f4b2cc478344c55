/* A handle that performs again keeps the authentication it found: Digest goes at once on
 * the next perform, on curl_easy_perform and on a multi alike; curl_easy_reset forgets it.
 * Usage: authagain URL (the server challenges requests without a Digest Authorization) */
#include <curl/curl.h>
#include <stdio.h>
#include <string.h>

static size_t sink(char *p, size_t s, size_t n, void *ud)
{
  (void)p; (void)ud;
  return s * n;
}

static void setup(CURL *h, const char *base, const char *path, long auth)
{
  char url[1024];
  snprintf(url, sizeof(url), "%s%s", base, path);
  curl_easy_setopt(h, CURLOPT_URL, url);
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, sink);
  curl_easy_setopt(h, CURLOPT_USERPWD, "user:secret");
  curl_easy_setopt(h, CURLOPT_HTTPAUTH, auth);
}

static void report(CURL *h, const char *what, int rc)
{
  long code = 0, avail = 0, used = -1, pused = -1;
  curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
  curl_easy_getinfo(h, CURLINFO_HTTPAUTH_AVAIL, &avail);
  curl_easy_getinfo(h, CURLINFO_HTTPAUTH_USED, &used);
  curl_easy_getinfo(h, CURLINFO_PROXYAUTH_USED, &pused);
  printf("%s rc=%d code=%ld avail=%ld used=%ld proxy_used=%ld\n", what, rc, code, avail, used,
         pused);
}

int main(int argc, char **argv)
{
  CURL *h;
  CURLM *m;
  int running = 1, rounds = 0, left;
  CURLMsg *msg;
  if(argc < 2)
    return 2;
  curl_global_init(CURL_GLOBAL_DEFAULT);
  h = curl_easy_init();
  setup(h, argv[1], "/first", CURLAUTH_DIGEST);
  report(h, "first", (int)curl_easy_perform(h));
  setup(h, argv[1], "/second", CURLAUTH_DIGEST);
  report(h, "second", (int)curl_easy_perform(h));
  /* Basic is not wanted any more than it was: Digest stays picked only while wanted */
  setup(h, argv[1], "/third", CURLAUTH_DIGEST | CURLAUTH_BASIC);
  report(h, "third", (int)curl_easy_perform(h));
  m = curl_multi_init();
  setup(h, argv[1], "/multi", CURLAUTH_DIGEST);
  curl_multi_add_handle(m, h);
  while(running && rounds++ < 2000) {
    curl_multi_perform(m, &running);
    if(running)
      curl_multi_poll(m, NULL, 0, 100, NULL);
  }
  while((msg = curl_multi_info_read(m, &left)))
    report(h, "multi", (int)msg->data.result);
  curl_multi_remove_handle(m, h);
  curl_multi_cleanup(m);
  setup(h, argv[1], "/after-multi", CURLAUTH_DIGEST);
  report(h, "after-multi", (int)curl_easy_perform(h));
  curl_easy_reset(h);
  setup(h, argv[1], "/after-reset", CURLAUTH_DIGEST);
  report(h, "after-reset", (int)curl_easy_perform(h));
  curl_easy_cleanup(h);
  curl_global_cleanup();
  return 0;
}
