/* CURLOPT_CA_CACHE_TIMEOUT: two transfers on new connections in one multi (and two performs
 * on one easy handle), the CA file rewritten in between from one that trusts the server to
 * one that does not; whether the second transfer uses the loaded store shows in its result.
 * Usage: cacache URL CAFILE GOOD-PEM BAD-PEM */
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static const char *url, *cafile, *good, *bad;

static size_t sink(char *p, size_t s, size_t n, void *u)
{
  (void)p; (void)u;
  return s * n;
}

static void copy(const char *from)
{
  char buf[65536];
  size_t n;
  FILE *in = fopen(from, "rb");
  FILE *out = fopen(cafile, "wb");
  if(!in || !out)
    exit(3);
  while((n = fread(buf, 1, sizeof(buf), in)) > 0)
    fwrite(buf, 1, n, out);
  fclose(in);
  fclose(out);
}

/* timeout -2: not set */
static CURL *handle(long timeout, int capath)
{
  CURL *h = curl_easy_init();
  curl_easy_setopt(h, CURLOPT_URL, url);
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, sink);
  curl_easy_setopt(h, CURLOPT_CAINFO, cafile);
  curl_easy_setopt(h, CURLOPT_FORBID_REUSE, 1L);
  /* a resumed session would verify nothing */
  curl_easy_setopt(h, CURLOPT_SSL_SESSIONID_CACHE, 0L);
  if(!capath)
    curl_easy_setopt(h, CURLOPT_CAPATH, NULL);
  if(timeout != -2)
    printf(" setopt=%d", (int)curl_easy_setopt(h, CURLOPT_CA_CACHE_TIMEOUT, timeout));
  return h;
}

static int run(CURLM *m, CURL *h)
{
  int still = 1, q;
  CURLMsg *msg;
  int rc = -1;
  curl_multi_add_handle(m, h);
  while(still) {
    curl_multi_perform(m, &still);
    if(still)
      curl_multi_poll(m, NULL, 0, 1000, NULL);
  }
  while((msg = curl_multi_info_read(m, &q)))
    if(msg->msg == CURLMSG_DONE)
      rc = (int)msg->data.result;
  curl_multi_remove_handle(m, h);
  return rc;
}

static void multi_case(long timeout, int capath, long timeout2, unsigned pause)
{
  CURLM *m = curl_multi_init();
  CURL *a, *b;
  int r1, r2;
  printf("multi timeout=%ld/%ld capath=%d pause=%u:", timeout, timeout2, capath, pause);
  copy(good);
  a = handle(timeout, capath);
  r1 = run(m, a);
  copy(bad);
  if(pause)
    sleep(pause);
  b = handle(timeout2, capath);
  r2 = run(m, b);
  printf(" first=%d second=%d\n", r1, r2);
  curl_easy_cleanup(a);
  curl_easy_cleanup(b);
  curl_multi_cleanup(m);
}

static void easy_case(long timeout, int capath)
{
  CURL *h;
  int r1, r2;
  printf("easy timeout=%ld capath=%d:", timeout, capath);
  copy(good);
  h = handle(timeout, capath);
  r1 = (int)curl_easy_perform(h);
  copy(bad);
  r2 = (int)curl_easy_perform(h);
  printf(" first=%d second=%d\n", r1, r2);
  curl_easy_cleanup(h);
}

int main(int argc, char **argv)
{
  CURL *h;
  if(argc < 5)
    return 2;
  url = argv[1];
  cafile = argv[2];
  good = argv[3];
  bad = argv[4];
  h = curl_easy_init();
  printf("setopt -2=%d -1=%d 0=%d big=%d\n",
         (int)curl_easy_setopt(h, CURLOPT_CA_CACHE_TIMEOUT, -2L),
         (int)curl_easy_setopt(h, CURLOPT_CA_CACHE_TIMEOUT, -1L),
         (int)curl_easy_setopt(h, CURLOPT_CA_CACHE_TIMEOUT, 0L),
         (int)curl_easy_setopt(h, CURLOPT_CA_CACHE_TIMEOUT, 0x7fffffffL + 5));
  curl_easy_cleanup(h);
  multi_case(-2, 0, -2, 0);  /* default: the store is reused */
  multi_case(-1, 0, -1, 0);  /* forever */
  multi_case(0, 0, 0, 0);    /* never reused */
  multi_case(-2, 0, 0, 0);   /* the second handle says never */
  multi_case(0, 0, -2, 0);   /* the first did not keep it */
  multi_case(1, 0, 1, 2);    /* expired */
  multi_case(-2, 1, -2, 0);  /* a CA path: never cached */
  multi_case(-1, 1, -1, 0);
  easy_case(-2, 0);
  easy_case(0, 0);
  easy_case(-2, 1);
  return 0;
}
