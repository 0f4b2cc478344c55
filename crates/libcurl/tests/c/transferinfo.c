/* Options and infos curl's libtest programs check: CURLOPT_PORT, CURLOPT_CURLU,
   CURLOPT_FILETIME with CURLINFO_FILETIME(_T), CURLINFO_RETRY_AFTER, CURLINFO_PROTOCOL,
   CURLINFO_CONDITION_UNMET, CURLINFO_TLS_SSL_PTR/TLS_SESSION between transfers, the codes of
   CURLOPT_HTTP_VERSION and CURLOPT_(REDIR_)PROTOCOLS_STR set to NULL, and the length limit of
   string options.
   HTTPPOST/MIMEPOST set to NULL are an empty POST; a proxy gets no default port in the URL.
   Usage: transferinfo HOST PORT (a server answering /lm, /304, /form, /echo and /curlu). */
#define CURL_DISABLE_DEPRECATION /* CURLINFO_PROTOCOL */
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CURL_MAX_INPUT_LENGTH 8000000 /* lib/urldata.h */

static size_t sink(char *p, size_t size, size_t n, void *u)
{
  fwrite(p, size, n, (FILE *)u);
  return size * n;
}

static int read_calls;

/* always has more: the transfer must stop at CURLOPT_INFILESIZE */
static size_t endless(char *p, size_t size, size_t n, void *u)
{
  static const char text[] = "Hello Cloud!\n";
  (void)u;
  read_calls++;
  if(size * n < sizeof(text) - 1)
    return 0;
  memcpy(p, text, sizeof(text) - 1);
  return sizeof(text) - 1;
}

static void show(CURL *c, const char *what, CURLcode rc)
{
  long filetime = 0, protocol = 0, unmet = 0, code = 0;
  curl_off_t filetime_t = 0, retry = 0;
  char *url = NULL;
  curl_easy_getinfo(c, CURLINFO_FILETIME, &filetime);
  curl_easy_getinfo(c, CURLINFO_FILETIME_T, &filetime_t);
  curl_easy_getinfo(c, CURLINFO_RETRY_AFTER, &retry);
  curl_easy_getinfo(c, CURLINFO_PROTOCOL, &protocol);
  curl_easy_getinfo(c, CURLINFO_CONDITION_UNMET, &unmet);
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
  curl_easy_getinfo(c, CURLINFO_EFFECTIVE_URL, &url);
  printf("%s: rc=%d code=%ld filetime=%ld/%ld retry_after=%ld protocol=%ld unmet=%ld url=%s\n",
         what, (int)rc, code, filetime, (long)filetime_t, (long)retry, protocol, unmet,
         url ? url : "(null)");
}

int main(int argc, char **argv)
{
  char url[256], other[256];
  CURL *c;
  CURLU *u;
  struct curl_slist *h;
  char *big;
  CURLcode rc;
  if(argc < 3)
    return 2;
  curl_global_init(CURL_GLOBAL_ALL);
  c = curl_easy_init();
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, sink);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, stdout);
  show(c, "fresh", CURLE_OK);

  snprintf(url, sizeof(url), "http://%s:%s/lm", argv[1], argv[2]);
  curl_easy_setopt(c, CURLOPT_URL, url);
  rc = curl_easy_perform(c);
  show(c, "lm without FILETIME", rc);
  curl_easy_setopt(c, CURLOPT_FILETIME, 1L);
  rc = curl_easy_perform(c);
  show(c, "lm with FILETIME", rc);

  /* If-Modified-Since suppressed, the server answers 304: the condition is still unmet */
  snprintf(url, sizeof(url), "http://%s:%s/304", argv[1], argv[2]);
  curl_easy_setopt(c, CURLOPT_URL, url);
  curl_easy_setopt(c, CURLOPT_TIMECONDITION, (long)CURL_TIMECOND_IFMODSINCE);
  curl_easy_setopt(c, CURLOPT_TIMEVALUE, 1566210680L);
  h = curl_slist_append(NULL, "If-Modified-Since:");
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
  rc = curl_easy_perform(c);
  show(c, "304 with time condition", rc);
  curl_easy_setopt(c, CURLOPT_TIMECONDITION, (long)CURL_TIMECOND_NONE);
  rc = curl_easy_perform(c);
  show(c, "304 without time condition", rc);
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, NULL);
  curl_slist_free_all(h);
  curl_easy_reset(c);
  /* no WRITEDATA: the callback gets stdout, as curl's default */
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, sink);
  show(c, "after reset", CURLE_OK);

  /* HTTPPOST or MIMEPOST set to NULL still POST: an empty body without a type */
  snprintf(url, sizeof(url), "http://%s:%s/form", argv[1], argv[2]);
  curl_easy_setopt(c, CURLOPT_URL, url);
  curl_easy_setopt(c, CURLOPT_HTTPPOST, NULL);
  rc = curl_easy_perform(c);
  printf("HTTPPOST NULL: %d\n", (int)rc);
  curl_easy_setopt(c, CURLOPT_MIMEPOST, NULL);
  rc = curl_easy_perform(c);
  printf("MIMEPOST NULL: %d\n", (int)rc);
  h = curl_slist_append(NULL, "Content-Type: text/mine");
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
  rc = curl_easy_perform(c);
  printf("MIMEPOST NULL with a type: %d\n", (int)rc);
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, NULL);
  curl_slist_free_all(h);
  curl_easy_setopt(c, CURLOPT_HTTPGET, 1L);
  rc = curl_easy_perform(c);
  printf("HTTPGET: %d\n", (int)rc);

  /* a known upload size ends the body, however much the callback has */
  snprintf(url, sizeof(url), "http://%s:%s/form", argv[1], argv[2]);
  curl_easy_setopt(c, CURLOPT_URL, url);
  curl_easy_setopt(c, CURLOPT_UPLOAD, 1L);
  curl_easy_setopt(c, CURLOPT_READFUNCTION, endless);
  curl_easy_setopt(c, CURLOPT_INFILESIZE, 26L);
  rc = curl_easy_perform(c);
  printf("UPLOAD of 26: %d read calls=%d\n", (int)rc, read_calls);
  curl_easy_setopt(c, CURLOPT_UPLOAD, 0L);
  curl_easy_setopt(c, CURLOPT_READFUNCTION, NULL);

  /* CURLOPT_PORT replaces the URL's port (and so the Host header) */
  snprintf(url, sizeof(url), "http://%s:1/echo", argv[1]);
  curl_easy_setopt(c, CURLOPT_URL, url);
  printf("port -1: %d\n", (int)curl_easy_setopt(c, CURLOPT_PORT, -1L));
  printf("port 65536: %d\n", (int)curl_easy_setopt(c, CURLOPT_PORT, 65536L));
  curl_easy_setopt(c, CURLOPT_PORT, atol(argv[2]));
  rc = curl_easy_perform(c);
  show(c, "PORT", rc);
  curl_easy_setopt(c, CURLOPT_PORT, 0L);

  /* through a proxy, the default port is left out of the request target */
  snprintf(other, sizeof(other), "http://%s:%s", argv[1], argv[2]);
  curl_easy_setopt(c, CURLOPT_PROXY, other);
  curl_easy_setopt(c, CURLOPT_URL, "http://example.com:80/proxied");
  rc = curl_easy_perform(c);
  printf("proxy: %d\n", (int)rc);
  curl_easy_setopt(c, CURLOPT_PROXY, NULL);

  /* CURLOPT_CURLU wins over CURLOPT_URL, and is read again at each perform */
  u = curl_url();
  snprintf(other, sizeof(other), "http://%s:%s/curlu?one", argv[1], argv[2]);
  curl_url_set(u, CURLUPART_URL, other, 0);
  curl_easy_setopt(c, CURLOPT_CURLU, u);
  rc = curl_easy_perform(c);
  show(c, "CURLU", rc);
  curl_url_set(u, CURLUPART_QUERY, "two", 0);
  rc = curl_easy_perform(c);
  show(c, "CURLU changed", rc);
  curl_easy_setopt(c, CURLOPT_CURLU, NULL);
  curl_url_cleanup(u);

  {
    struct curl_tlssessioninfo *tsi = NULL;
    printf("HTTP_VERSION 22: %d, -1: %d, 30: %d\n",
           (int)curl_easy_setopt(c, CURLOPT_HTTP_VERSION, 22L),
           (int)curl_easy_setopt(c, CURLOPT_HTTP_VERSION, -1L),
           (int)curl_easy_setopt(c, CURLOPT_HTTP_VERSION, 30L));
    printf("PROTOCOLS_STR NULL: %d, REDIR_PROTOCOLS_STR NULL: %d\n",
           (int)curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, NULL),
           (int)curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, NULL));
    rc = curl_easy_getinfo(c, CURLINFO_TLS_SSL_PTR, &tsi);
    /* the backends differ (rustls here by default): only that there is one */
    printf("TLS_SSL_PTR: %d backend=%d internals=%p\n", (int)rc, tsi ? tsi->backend > 0 : -1,
           tsi ? tsi->internals : NULL);
    tsi = NULL;
    rc = curl_easy_getinfo(c, CURLINFO_TLS_SESSION, &tsi);
    printf("TLS_SESSION: %d backend=%d internals=%p\n", (int)rc, tsi ? tsi->backend > 0 : -1,
           tsi ? tsi->internals : NULL);
  }

  big = malloc(CURL_MAX_INPUT_LENGTH + 2);
  memset(big, 'a', CURL_MAX_INPUT_LENGTH + 1);
  big[CURL_MAX_INPUT_LENGTH + 1] = 0;
  printf("long URL: %d\n", (int)curl_easy_setopt(c, CURLOPT_URL, big));
  printf("long USERAGENT: %d\n", (int)curl_easy_setopt(c, CURLOPT_USERAGENT, big));
  big[CURL_MAX_INPUT_LENGTH] = 0;
  printf("longest USERAGENT: %d\n", (int)curl_easy_setopt(c, CURLOPT_USERAGENT, big));
  free(big);
  curl_easy_cleanup(c);
  curl_global_cleanup();
  return 0;
}
