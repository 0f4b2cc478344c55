/* Plain functions whose output both libraries must agree on: escaping, dates, slists, the
   TLS session export of a build without it. */
#include <curl/curl.h>
#include <stdio.h>

static int pushcb(CURL *parent, CURL *easy, size_t num_headers,
                  struct curl_pushheaders *headers, void *userp)
{
  (void)parent; (void)easy; (void)num_headers; (void)headers; (void)userp;
  return CURL_PUSH_DENY;
}

int main(void)
{
  static const char *dates[] = {
    "Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT",
    "Sun Nov  6 08:49:37 1994", "20040912 15:05:58 -0700", "nonsense", ""
  };
  static const char *strs[] = { "abc", "a b&c=d/e?f~g_h.i-j", "\xc3\xa5\xff", "%41%4a%zz%4", "" };
  unsigned i;
  int n;
  struct curl_slist *l = NULL, *p;
  for(i = 0; i < sizeof(strs) / sizeof(strs[0]); i++) {
    char *e = curl_easy_escape(NULL, strs[i], 0);
    char *u = curl_easy_unescape(NULL, strs[i], 0, &n);
    char *e2 = curl_escape(strs[i], strs[i][0] && strs[i][1] ? 2 : 0);
    printf("escape[%u]=%s unescape=%s len=%d escape2=%s\n", i, e, u, n, e2);
    curl_free(e);
    curl_free(u);
    curl_free(e2);
  }
  for(i = 0; i < sizeof(dates) / sizeof(dates[0]); i++)
    printf("date[%u]=%ld\n", i, (long)curl_getdate(dates[i], NULL));
  l = curl_slist_append(l, "one");
  l = curl_slist_append(l, "two");
  l = curl_slist_append(l, "");
  for(p = l; p; p = p->next)
    printf("slist=[%s]\n", p->data);
  curl_slist_free_all(l);
  {
    CURL *h = curl_easy_init();
    static const unsigned char blob[4] = { 1, 2, 3, 4 };
    printf("ssls_export=%d null=%d\n", (int)curl_easy_ssls_export(h, NULL, NULL),
           (int)curl_easy_ssls_export(NULL, NULL, NULL));
    printf("ssls_import=%d null=%d\n",
           (int)curl_easy_ssls_import(h, "key", blob, sizeof(blob), blob, sizeof(blob)),
           (int)curl_easy_ssls_import(NULL, NULL, NULL, 0, NULL, 0));
    printf("protocols_str file=%d bogus=%d mask=%d\n",
           (int)curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "file,http"),
           (int)curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "gopherx"),
           (int)curl_easy_setopt(h, (CURLoption)181 /* CURLOPT_PROTOCOLS, deprecated */,
                                 (long)CURLPROTO_FILE));
    curl_easy_cleanup(h);
  }
  {
    CURLM *m = curl_multi_init();
    printf("push=%d pushdata=%d unset=%d\n",
           (int)curl_multi_setopt(m, CURLMOPT_PUSHFUNCTION, pushcb),
           (int)curl_multi_setopt(m, CURLMOPT_PUSHDATA, (void *)m),
           (int)curl_multi_setopt(m, CURLMOPT_PUSHFUNCTION, NULL));
    printf("pushheader null=%d\n", curl_pushheader_bynum(NULL, 0) == NULL &&
           curl_pushheader_byname(NULL, ":path") == NULL);
    curl_multi_cleanup(m);
  }
  return 0;
}
