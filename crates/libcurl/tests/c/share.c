/* Share handles: "cookies URL" (a cookie set for one handle is sent by the other), "dns URL
 * PORT" (a CURLOPT_RESOLVE entry and a connection of one handle used by the other) and
 * "errors" (curl_share_* codes, attach/detach, the CURL_LOCK_DATA_SHARE lock calls). */
#include <curl/curl.h>
#include <stdio.h>
#include <string.h>

static CURL *first;

static const char *who(CURL *h)
{
  return !h ? "null" : h == first ? "first" : "other";
}

static void lockcb(CURL *h, curl_lock_data d, curl_lock_access a, void *u)
{
  (void)u;
  if(d == CURL_LOCK_DATA_SHARE)
    printf("  lock share %s access=%d\n", who(h), (int)a);
}

static void unlockcb(CURL *h, curl_lock_data d, void *u)
{
  (void)u;
  if(d == CURL_LOCK_DATA_SHARE)
    printf("  unlock share %s\n", who(h));
}

static size_t body(char *p, size_t s, size_t n, void *u)
{
  (void)u;
  printf("  body: %.*s\n", (int)(s * n), p);
  return s * n;
}

static void get(CURL *h, const char *url)
{
  long conns = -1;
  CURLcode rc;
  curl_easy_setopt(h, CURLOPT_URL, url);
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, body);
  rc = curl_easy_perform(h);
  curl_easy_getinfo(h, CURLINFO_NUM_CONNECTS, &conns);
  printf("  rc=%d connects=%ld\n", (int)rc, conns);
}

static int cookies(const char *url)
{
  char u[512];
  CURLSH *sh = curl_share_init();
  CURL *a = curl_easy_init(), *b = curl_easy_init(), *c = curl_easy_init();
  curl_share_setopt(sh, CURLSHOPT_SHARE, CURL_LOCK_DATA_COOKIE);
  curl_easy_setopt(a, CURLOPT_SHARE, sh);
  curl_easy_setopt(b, CURLOPT_SHARE, sh);
  curl_easy_setopt(c, CURLOPT_SHARE, sh);
  /* the shared jar is used by handles with the cookie engine on */
  curl_easy_setopt(a, CURLOPT_COOKIEFILE, "");
  curl_easy_setopt(b, CURLOPT_COOKIEFILE, "");
  printf("a sets:\n");
  snprintf(u, sizeof(u), "%s/set", url);
  get(a, u);
  printf("b sends:\n");
  snprintf(u, sizeof(u), "%s/echo", url);
  get(b, u);
  printf("c without the engine sends:\n");
  get(c, u);
  curl_easy_cleanup(c);
  curl_easy_setopt(b, CURLOPT_SHARE, NULL);
  printf("b detached sends:\n");
  get(b, u);
  curl_easy_cleanup(a);
  curl_easy_cleanup(b);
  printf("cleanup=%d\n", (int)curl_share_cleanup(sh));
  return 0;
}

static int dns(const char *port)
{
  char u[512], r[256];
  struct curl_slist *res;
  CURLSH *sh = curl_share_init();
  CURL *a = curl_easy_init(), *b = curl_easy_init();
  curl_share_setopt(sh, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
  curl_share_setopt(sh, CURLSHOPT_SHARE, CURL_LOCK_DATA_CONNECT);
  snprintf(r, sizeof(r), "shared.example:%s:127.0.0.1", port);
  res = curl_slist_append(NULL, r);
  curl_easy_setopt(a, CURLOPT_RESOLVE, res);
  curl_easy_setopt(a, CURLOPT_SHARE, sh);
  curl_easy_setopt(b, CURLOPT_SHARE, sh);
  snprintf(u, sizeof(u), "http://shared.example:%s/a", port);
  printf("a resolves:\n");
  get(a, u);
  snprintf(u, sizeof(u), "http://shared.example:%s/b", port);
  printf("b reuses:\n");
  get(b, u);
  curl_easy_cleanup(a);
  curl_easy_cleanup(b);
  curl_slist_free_all(res);
  printf("cleanup=%d\n", (int)curl_share_cleanup(sh));
  return 0;
}

static int errors(void)
{
  CURLSH *sh = curl_share_init();
  CURL *e;
  int i;
  printf("init=%s\n", sh ? "ok" : "null");
  curl_share_setopt(sh, CURLSHOPT_LOCKFUNC, lockcb);
  curl_share_setopt(sh, CURLSHOPT_UNLOCKFUNC, unlockcb);
  curl_share_setopt(sh, CURLSHOPT_USERDATA, NULL);
  for(i = 0; i <= 8; i++)
    printf("share %d=%d\n", i, (int)curl_share_setopt(sh, CURLSHOPT_SHARE, i));
  printf("share 99=%d\n", (int)curl_share_setopt(sh, CURLSHOPT_SHARE, 99));
  printf("unshare hsts=%d\n",
         (int)curl_share_setopt(sh, CURLSHOPT_UNSHARE, CURL_LOCK_DATA_HSTS));
  printf("unshare 0=%d\n", (int)curl_share_setopt(sh, CURLSHOPT_UNSHARE, 0));
  printf("unshare 99=%d\n", (int)curl_share_setopt(sh, CURLSHOPT_UNSHARE, 99));
  printf("option 0=%d\n", (int)curl_share_setopt(sh, CURLSHOPT_NONE, 0L));
  printf("option 99=%d\n", (int)curl_share_setopt(sh, (CURLSHoption)99, 0L));
  printf("null setopt=%d\n",
         (int)curl_share_setopt(NULL, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS));
  printf("null cleanup=%d\n", (int)curl_share_cleanup(NULL));
  first = e = curl_easy_init();
  printf("attach=%d\n", (int)curl_easy_setopt(e, CURLOPT_SHARE, sh));
  printf("setopt in use=%d\n",
         (int)curl_share_setopt(sh, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS));
  printf("cleanup in use=%d\n", (int)curl_share_cleanup(sh));
  printf("attach again=%d\n", (int)curl_easy_setopt(e, CURLOPT_SHARE, sh));
  printf("detach=%d\n", (int)curl_easy_setopt(e, CURLOPT_SHARE, NULL));
  printf("setopt detached=%d\n",
         (int)curl_share_setopt(sh, CURLSHOPT_UNSHARE, CURL_LOCK_DATA_DNS));
  printf("attach=%d\n", (int)curl_easy_setopt(e, CURLOPT_SHARE, sh));
  curl_easy_reset(e);
  printf("cleanup after reset=%d\n", (int)curl_share_cleanup(sh));
  curl_easy_cleanup(e);
  printf("cleanup=%d\n", (int)curl_share_cleanup(sh));
  for(i = -1; i <= 6; i++)
    printf("strerror %d: %s\n", i, curl_share_strerror((CURLSHcode)i));
  return 0;
}

int main(int argc, char **argv)
{
  int rc = 1;
  curl_global_init(CURL_GLOBAL_ALL);
  if(argc > 2 && !strcmp(argv[1], "cookies"))
    rc = cookies(argv[2]);
  else if(argc > 2 && !strcmp(argv[1], "dns"))
    rc = dns(argv[2]);
  else if(argc > 1 && !strcmp(argv[1], "errors"))
    rc = errors();
  curl_global_cleanup();
  return rc;
}
