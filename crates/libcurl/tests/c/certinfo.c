/* CURLOPT_CERTINFO / CURLINFO_CERTINFO: the list before any transfer, after a transfer with
 * it on (every entry of every certificate), after a second transfer on the reused connection
 * (no handshake: none), after one with it off, with "fresh" after one on a new connection
 * (which resumes the TLS session), and after curl_easy_reset.
 * Usage: certinfo URL CAFILE [fresh] */
#include <curl/curl.h>
#include <stdio.h>
#include <string.h>

static size_t sink(char *p, size_t s, size_t n, void *u)
{
  (void)p; (void)u;
  return s * n;
}

static void show(CURL *h, const char *when)
{
  struct curl_certinfo *ci = NULL;
  CURLcode rc = curl_easy_getinfo(h, CURLINFO_CERTINFO, &ci);
  int i;
  printf("%s: rc=%d set=%d", when, (int)rc, ci != NULL);
  if(!ci) {
    printf("\n");
    return;
  }
  printf(" num=%d list=%d\n", ci->num_of_certs, ci->certinfo != NULL);
  for(i = 0; i < ci->num_of_certs; i++) {
    struct curl_slist *s;
    printf("cert %d\n", i);
    for(s = ci->certinfo[i]; s; s = s->next)
      printf("[%s]\n", s->data);
  }
}

int main(int argc, char **argv)
{
  CURL *h;
  CURLcode rc;
  if(argc < 3)
    return 2;
  curl_global_init(CURL_GLOBAL_DEFAULT);
  h = curl_easy_init();
  show(h, "fresh");
  curl_easy_setopt(h, CURLOPT_URL, argv[1]);
  curl_easy_setopt(h, CURLOPT_CAINFO, argv[2]);
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, sink);
  printf("setopt=%d\n", (int)curl_easy_setopt(h, CURLOPT_CERTINFO, 1L));
  rc = curl_easy_perform(h);
  printf("perform=%d\n", (int)rc);
  show(h, "first");
  show(h, "again");
  rc = curl_easy_perform(h);
  printf("perform=%d\n", (int)rc);
  show(h, "reused");
  curl_easy_setopt(h, CURLOPT_FRESH_CONNECT, 1L);
  curl_easy_setopt(h, CURLOPT_CERTINFO, 0L);
  rc = curl_easy_perform(h);
  printf("perform=%d\n", (int)rc);
  show(h, "off");
  if(argc > 3 && !strcmp(argv[3], "fresh")) {
    curl_easy_setopt(h, CURLOPT_CERTINFO, 1L);
    rc = curl_easy_perform(h);
    printf("perform=%d\n", (int)rc);
    show(h, "fresh connection");
  }
  curl_easy_reset(h);
  show(h, "reset");
  curl_easy_cleanup(h);
  curl_global_cleanup();
  return 0;
}
