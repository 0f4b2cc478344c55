/* curl_strequal, curl_strnequal, curl_getenv and curl_global_trace, which libtest programs
   call: both libraries must print the same. */
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
  static const char *pairs[][2] = {
    { "abc", "ABC" }, { "abc", "abd" }, { "abc", "ab" }, { "ab", "abc" }, { "", "" },
    { "Content-Type", "content-TYPE" }, { "\xc3\xa5", "\xc3\x85" }, { "a", NULL },
    { NULL, "a" }, { NULL, NULL }
  };
  static const size_t maxes[] = { 0, 1, 2, 3, 10 };
  unsigned i, j;
  char *v;
  for(i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
    printf("strequal[%u]=%d", i, curl_strequal(pairs[i][0], pairs[i][1]));
    for(j = 0; j < sizeof(maxes) / sizeof(maxes[0]); j++)
      printf(" n%u=%d", (unsigned)maxes[j],
             curl_strnequal(pairs[i][0], pairs[i][1], maxes[j]));
    printf("\n");
  }
  setenv("OXCURL_STREQUAL_TEST", "value with spaces", 1);
  setenv("OXCURL_STREQUAL_EMPTY", "", 1);
  v = curl_getenv("OXCURL_STREQUAL_TEST");
  printf("getenv=%s\n", v ? v : "(null)");
  curl_free(v);
  v = curl_getenv("OXCURL_STREQUAL_EMPTY");
  printf("getenv empty=[%s]\n", v ? v : "(null)");
  curl_free(v);
  v = curl_getenv("OXCURL_STREQUAL_UNSET");
  printf("getenv unset=%s\n", v ? v : "(null)");
  curl_free(v);
  printf("trace=%d %d %d\n", (int)curl_global_trace("all"),
         (int)curl_global_trace("-all,+http/2,nonsense"), (int)curl_global_trace(""));
  return 0;
}
