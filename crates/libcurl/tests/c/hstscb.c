/* CURLOPT_HSTSREADFUNCTION and CURLOPT_HSTSWRITEFUNCTION: entries the application preloads
 * (one with includeSubDomains, one without an expiry), a plain-HTTP URL under the
 * subdomain entry switched to HTTPS, and the entries handed back at cleanup.
 * Usage: hstscb PORT MODE
 * MODE: all (the write callback takes every entry), stop (it answers CURLSTS_DONE after the
 * first), fail (the read callback fails the transfer). */
#include <curl/curl.h>
#include <stdio.h>
#include <string.h>

static const char *mode;
static int reads;

static CURLSTScode on_read(CURL *h, struct curl_hstsentry *e, void *ud)
{
  static const struct {
    const char *name, *expire;
    int sub;
  } list[] = {
    {"sub.example", "20990102 03:04:05", 1},
    {"plain.example", "", 0},
    {"past.example", "20000101 00:00:00", 0},
  };
  (void)h;
  (void)ud;
  if(strcmp(mode, "fail") == 0)
    return CURLSTS_FAIL;
  if(reads == 0)
    printf("read: namelen %zu, expire [%s], sub %d\n", e->namelen, e->expire,
           (int)e->includeSubDomains);
  if(reads >= 3)
    return CURLSTS_DONE;
  strcpy(e->name, list[reads].name);
  strcpy(e->expire, list[reads].expire);
  e->includeSubDomains = list[reads].sub;
  reads++;
  return CURLSTS_OK;
}

static CURLSTScode on_write(CURL *h, struct curl_hstsentry *e, struct curl_index *i, void *ud)
{
  (void)h;
  (void)ud;
  printf("write [%zu/%zu] %s (namelen %zu) %s sub %d\n", i->index, i->total, e->name,
         e->namelen, e->expire, (int)e->includeSubDomains);
  return strcmp(mode, "stop") == 0 ? CURLSTS_DONE : CURLSTS_OK;
}

int main(int argc, char **argv)
{
  CURL *h;
  CURLcode rc;
  char url[200], resolve[200];
  char *eff = NULL;
  struct curl_slist *res;
  if(argc < 3)
    return 2;
  mode = argv[2];
  snprintf(url, sizeof(url), "http://www.sub.example:%s/", argv[1]);
  snprintf(resolve, sizeof(resolve), "www.sub.example:%s:127.0.0.1", argv[1]);
  res = curl_slist_append(NULL, resolve);
  curl_global_init(CURL_GLOBAL_ALL);
  h = curl_easy_init();
  curl_easy_setopt(h, CURLOPT_URL, url);
  curl_easy_setopt(h, CURLOPT_RESOLVE, res);
  curl_easy_setopt(h, CURLOPT_HSTS_CTRL, CURLHSTS_ENABLE);
  curl_easy_setopt(h, CURLOPT_HSTSREADFUNCTION, on_read);
  curl_easy_setopt(h, CURLOPT_HSTSWRITEFUNCTION, on_write);
  rc = curl_easy_perform(h);
  curl_easy_getinfo(h, CURLINFO_EFFECTIVE_URL, &eff);
  printf("rc=%d scheme %s reads=%d\n", (int)rc, eff && !strncmp(eff, "https:", 6) ? "https" : "http", reads);
  /* A second perform does not read again. */
  rc = curl_easy_perform(h);
  printf("again rc=%d reads=%d\n", (int)rc, reads);
  curl_easy_cleanup(h);
  curl_slist_free_all(res);
  curl_global_cleanup();
  return 0;
}
