/* curl_global_init_mem: memory handed to the application (escape results, slist nodes)
 * comes from the given allocator and goes back to it through curl_free/slist_free_all. */
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long mallocs, frees;

static void *my_malloc(size_t n) { mallocs++; return malloc(n); }
static void my_free(void *p) { if(p) frees++; free(p); }
static void *my_realloc(void *p, size_t n) { if(!p) mallocs++; return realloc(p, n); }
static char *my_strdup(const char *s) { mallocs++; return strdup(s); }
static void *my_calloc(size_t a, size_t b) { mallocs++; return calloc(a, b); }

int main(void)
{
  char *e;
  struct curl_slist *l = NULL;
  long before;
  printf("null_callback=%d\n", (int)curl_global_init_mem(CURL_GLOBAL_DEFAULT, my_malloc, NULL,
                                                       my_realloc, my_strdup, my_calloc));
  printf("init=%d\n", (int)curl_global_init_mem(CURL_GLOBAL_DEFAULT, my_malloc, my_free,
                                                my_realloc, my_strdup, my_calloc));
  before = mallocs;
  e = curl_easy_escape(NULL, "a b", 0);
  printf("escape=%s via_app_malloc=%d\n", e, mallocs > before);
  before = frees;
  curl_free(e);
  printf("free_via_app_free=%d\n", frees > before);
  before = mallocs;
  l = curl_slist_append(l, "x");
  printf("slist_via_app_malloc=%d\n", mallocs > before);
  before = frees;
  curl_slist_free_all(l);
  printf("slist_free_via_app_free=%d\n", frees > before);
  curl_global_cleanup();
  return 0;
}
