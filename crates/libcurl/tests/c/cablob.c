/* CURLOPT_CAINFO_BLOB and CURLOPT_SSL_CTX_FUNCTION: a transfer trusting the CA from memory
 * (the application's copy wiped right after setopt), one with a blob holding no certificate,
 * one after the blob is unset, one on a duplicate of a handle with the blob (the original
 * freed first), and the SSL_CTX callback: whether setopt takes it, how often it is called
 * (not for a reused connection), with what, and what its error does.
 * Usage: cablob URL CAFILE */
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char errbuf[CURL_ERROR_SIZE];
static int ctx_calls;
static CURLcode ctx_result;
static char ctx_data[] = "the data";

static size_t sink(char *p, size_t s, size_t n, void *u)
{
  (void)p; (void)u;
  return s * n;
}

static CURLcode ctx_cb(CURL *h, void *ssl_ctx, void *data)
{
  ctx_calls++;
  printf("ctx callback: handle=%d ctx=%d data=[%s]\n", h != NULL, ssl_ctx != NULL,
         (const char *)data);
  return ctx_result;
}

static CURL *handle(const char *url)
{
  CURL *h = curl_easy_init();
  curl_easy_setopt(h, CURLOPT_URL, url);
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, sink);
  curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
  return h;
}

static void perform(CURL *h, const char *what)
{
  CURLcode rc;
  errbuf[0] = 0;
  rc = curl_easy_perform(h);
  printf("%s: rc=%d err=[%s]\n", what, (int)rc, errbuf);
}

static CURLcode set_blob(CURL *h, CURLoption opt, const char *data, size_t len)
{
  struct curl_blob b;
  char *copy = malloc(len + 1);
  CURLcode rc;
  memcpy(copy, data, len);
  b.data = copy;
  b.len = len;
  b.flags = CURL_BLOB_COPY;
  rc = curl_easy_setopt(h, opt, &b);
  memset(copy, 'x', len);
  free(copy);
  return rc;
}

int main(int argc, char **argv)
{
  CURL *h, *dup;
  FILE *f;
  char *ca;
  long n;
  const char *junk = "this blob holds no certificate";
  if(argc < 3)
    return 2;
  f = fopen(argv[2], "rb");
  if(!f)
    return 2;
  fseek(f, 0, SEEK_END);
  n = ftell(f);
  rewind(f);
  ca = malloc(n);
  if(fread(ca, 1, n, f) != (size_t)n)
    return 2;
  fclose(f);
  curl_global_init(CURL_GLOBAL_DEFAULT);

  h = handle(argv[1]);
  printf("setopt blob=%d\n", (int)set_blob(h, CURLOPT_CAINFO_BLOB, ca, n));
  perform(h, "ca blob");
  printf("setopt junk=%d\n", (int)set_blob(h, CURLOPT_CAINFO_BLOB, junk, strlen(junk)));
  curl_easy_setopt(h, CURLOPT_FRESH_CONNECT, 1L);
  perform(h, "junk blob");
  curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 0L);
  perform(h, "junk blob, no verify");
  curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 1L);
  printf("unset=%d\n", (int)curl_easy_setopt(h, CURLOPT_CAINFO_BLOB, NULL));
  curl_easy_setopt(h, CURLOPT_CAINFO, argv[2]);
  perform(h, "unset, CAINFO");
  curl_easy_cleanup(h);

  h = handle(argv[1]);
  set_blob(h, CURLOPT_CAINFO_BLOB, ca, n);
  dup = curl_easy_duphandle(h);
  curl_easy_cleanup(h);
  perform(dup, "duplicate");
  curl_easy_cleanup(dup);

  h = handle(argv[1]);
  curl_easy_setopt(h, CURLOPT_CAINFO, argv[2]);
  {
    CURLcode a = curl_easy_setopt(h, CURLOPT_SSL_CTX_FUNCTION, ctx_cb);
    CURLcode b = curl_easy_setopt(h, CURLOPT_SSL_CTX_DATA, (void *)ctx_data);
    printf("setopt ctx function=%d data=%d\n", (int)a, (int)b);
    if(a == CURLE_OK) {
      perform(h, "ctx callback ok");
      perform(h, "ctx callback, reused");
      ctx_result = CURLE_SSL_CERTPROBLEM;
      curl_easy_setopt(h, CURLOPT_FRESH_CONNECT, 1L);
      perform(h, "ctx callback error");
      curl_easy_setopt(h, CURLOPT_SSL_CTX_FUNCTION, NULL);
      perform(h, "ctx callback unset");
    }
  }
  printf("ctx calls=%d\n", ctx_calls);
  curl_easy_cleanup(h);
  free(ca);
  curl_global_cleanup();
  return 0;
}
