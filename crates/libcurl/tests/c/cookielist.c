/* CURLOPT_COOKIELIST and CURLINFO_COOKIELIST: cookie lines in both formats, SESS, ALL,
 * RELOAD, FLUSH, and CURLOPT_COOKIEFILE set to NULL; every step prints the cookie list, and
 * the transfers print the Cookie header the server saw.
 * Usage: cookielist URL FILE JAR (FILE holds cookies to RELOAD; JAR is written by FLUSH) */
#include <curl/curl.h>
#include <stdio.h>
#include <string.h>

static size_t on_write(char *p, size_t size, size_t n, void *ud)
{
  (void)ud;
  fwrite(p, size, n, stdout);
  return size * n;
}

static void list(CURL *h, const char *what)
{
  struct curl_slist *l = NULL, *p;
  CURLcode rc = curl_easy_getinfo(h, CURLINFO_COOKIELIST, &l);
  printf("-- %s (getinfo %d, %s)\n", what, (int)rc, l ? "list" : "NULL");
  for(p = l; p; p = p->next)
    printf("%s\n", p->data);
  curl_slist_free_all(l);
}

static void set(CURL *h, const char *arg)
{
  CURLcode rc = curl_easy_setopt(h, CURLOPT_COOKIELIST, arg);
  printf("COOKIELIST %s -> %d\n", arg, (int)rc);
}

int main(int argc, char **argv)
{
  CURL *h;
  FILE *f;
  char buf[1024];
  size_t n;
  if(argc < 4)
    return 2;
  curl_global_init(CURL_GLOBAL_ALL);
  h = curl_easy_init();
  curl_easy_setopt(h, CURLOPT_URL, argv[1]);
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_write);
  list(h, "fresh handle");
  /* Keywords without a cookie engine do nothing. */
  set(h, "ALL");
  set(h, "FLUSH");
  list(h, "after keywords");
  /* A line turns the engine on. */
  set(h, "Set-Cookie: sess=one; domain=127.0.0.1; path=/");
  set(h, "127.0.0.1\tFALSE\t/\tFALSE\t4102444800\tkept\ttwo");
  set(h, "#HttpOnly_127.0.0.1\tFALSE\t/\tFALSE\t0\thttponly\tthree");
  set(h, "not a cookie");
  list(h, "after three lines");
  printf("perform=%d\n", (int)curl_easy_perform(h));
  set(h, "SESS");
  list(h, "after SESS");
  printf("perform=%d\n", (int)curl_easy_perform(h));
  set(h, "ALL");
  list(h, "after ALL");
  curl_easy_setopt(h, CURLOPT_COOKIEFILE, argv[2]);
  set(h, "RELOAD");
  list(h, "after RELOAD");
  curl_easy_setopt(h, CURLOPT_COOKIEJAR, argv[3]);
  set(h, "FLUSH");
  f = fopen(argv[3], "r");
  printf("-- jar after FLUSH\n");
  if(f) {
    while((n = fread(buf, 1, sizeof(buf), f)) > 0)
      fwrite(buf, 1, n, stdout);
    fclose(f);
    remove(argv[3]);
  }
  printf("perform=%d\n", (int)curl_easy_perform(h));
  /* No more cookie engine: nothing is sent, the list is empty. */
  curl_easy_setopt(h, CURLOPT_COOKIEFILE, NULL);
  list(h, "after COOKIEFILE NULL");
  printf("perform=%d\n", (int)curl_easy_perform(h));
  curl_easy_setopt(h, CURLOPT_COOKIEJAR, NULL);
  curl_easy_cleanup(h);
  curl_global_cleanup();
  return 0;
}
