/* curl's memory function pointers, which lib/curl_threads.c (compiled into libtest's lib3207)
   calls through: libcurl.so.4 keeps them to itself, as curl's own shared build does. In the
   test program they are the C library's functions, curl's defaults. */
#include <stdlib.h>
#include <string.h>
#include <curl/curl.h>

curl_malloc_callback Curl_cmalloc = malloc;
curl_free_callback Curl_cfree = free;
curl_realloc_callback Curl_crealloc = realloc;
curl_strdup_callback Curl_cstrdup = strdup;
curl_calloc_callback Curl_ccalloc = calloc;
