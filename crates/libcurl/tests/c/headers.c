/* The header API over several responses: each URL argument is fetched (redirects followed)
 * and its stored headers printed per request and origin, then lookups and their error
 * codes. Usage: headers [proxy=HOST:PORT] URL... (with a proxy, through a CONNECT tunnel) */
#include <curl/curl.h>
#include <curl/header.h>
#include <stdio.h>
#include <string.h>

#define ORIGINS (CURLH_HEADER | CURLH_TRAILER | CURLH_CONNECT | CURLH_1XX | CURLH_PSEUDO)

static size_t sink(char *p, size_t size, size_t n, void *ud)
{
  (void)p;
  (void)ud;
  return size * n;
}

static void dump(CURL *h, unsigned int origin, int request)
{
  struct curl_header *prev = NULL, *hd;
  printf(" origin=%u request=%d:\n", origin, request);
  while((hd = curl_easy_nextheader(h, origin, request, prev))) {
    printf("  %s: %s (%u/%u) origin=%u reserved=%d\n", hd->name, hd->value,
           (unsigned)hd->index, (unsigned)hd->amount,
           hd->origin & ORIGINS, (hd->origin & ~ORIGINS) != 0);
    prev = hd;
  }
}

static void lookup(CURL *h, const char *name, size_t index, unsigned int origin,
                   int request)
{
  struct curl_header *hd = NULL;
  CURLHcode rc = curl_easy_header(h, name, index, origin, request, &hd);
  printf(" header(%s,%u,%u,%d)=%d", name ? name : "NULL", (unsigned)index, origin,
         request, (int)rc);
  if(rc == CURLHE_OK)
    printf(" %s: %s (%u/%u) origin=%u", hd->name, hd->value, (unsigned)hd->index,
           (unsigned)hd->amount, hd->origin & ORIGINS);
  printf("\n");
}

int main(int argc, char **argv)
{
  CURL *h = curl_easy_init();
  struct curl_header *hd = NULL;
  int i, r;
  printf("fresh: %d next=%s\n",
         (int)curl_easy_header(h, "Server", 0, CURLH_HEADER, -1, &hd),
         curl_easy_nextheader(h, CURLH_HEADER, -1, NULL) ? "header" : "NULL");
  curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, sink);
  i = 1;
  if(argc > 1 && !strncmp(argv[1], "proxy=", 6)) {
    /* through a CONNECT tunnel */
    curl_easy_setopt(h, CURLOPT_PROXY, argv[1] + 6);
    curl_easy_setopt(h, CURLOPT_HTTPPROXYTUNNEL, 1L);
    i = 2;
  }
  for(; i < argc; i++) {
    CURLcode rc;
    long redirects = 0;
    curl_easy_setopt(h, CURLOPT_URL, argv[i]);
    rc = curl_easy_perform(h);
    curl_easy_getinfo(h, CURLINFO_REDIRECT_COUNT, &redirects);
    printf("url %d: rc=%d redirects=%ld\n", i, (int)rc, redirects);
    dump(h, ORIGINS, -1);
    for(r = 0; r <= (int)redirects; r++) {
      dump(h, CURLH_CONNECT, r);
      dump(h, CURLH_HEADER, r);
      dump(h, CURLH_1XX, r);
      dump(h, CURLH_TRAILER, r);
    }
    lookup(h, "x-rep", 0, CURLH_HEADER, -1);
    lookup(h, "X-REP", 2, CURLH_HEADER, -1);
    lookup(h, "X-Rep", 3, CURLH_HEADER, -1);
    lookup(h, "Location", 0, CURLH_HEADER, 0);
    lookup(h, "Location", 0, CURLH_HEADER, -1);
    lookup(h, "Link", 0, CURLH_1XX, -1);
    lookup(h, "Link", 0, CURLH_HEADER, -1);
    lookup(h, "X-Trailer", 0, CURLH_TRAILER, -1);
    lookup(h, "X-Missing", 0, CURLH_HEADER, -1);
    lookup(h, "Content-Length", 0, CURLH_HEADER, 7);
    lookup(h, NULL, 0, CURLH_HEADER, -1);
    lookup(h, "X-Rep", 0, 0, -1);
    lookup(h, "X-Rep", 0, 1 << 5, -1);
    lookup(h, "X-Rep", 0, CURLH_HEADER, -2);
    printf(" hout NULL=%d\n", (int)curl_easy_header(h, "X-Rep", 0, CURLH_HEADER, -1, NULL));
    printf(" next beyond=%s\n",
           curl_easy_nextheader(h, CURLH_HEADER, 7, NULL) ? "header" : "NULL");
  }
  printf("NULL handle=%d\n", (int)curl_easy_header(NULL, "X", 0, CURLH_HEADER, -1, &hd));
  curl_easy_cleanup(h);
  return 0;
}
