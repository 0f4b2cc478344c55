/* Every option of the library's own option table (curl_easy_option_next) set on a fresh
 * handle to a neutral value: 0 for numbers, NULL for pointers, strings, lists, blobs and
 * callbacks. Prints "NAME code" per option, so two libraries' answers can be compared. */
#include <curl/curl.h>
#include <stdio.h>

int main(void)
{
  const struct curl_easyoption *o = NULL;
  curl_global_init(CURL_GLOBAL_DEFAULT);
  while((o = curl_easy_option_next(o))) {
    CURL *h = curl_easy_init();
    CURLcode rc;
    switch(o->type) {
    case CURLOT_LONG:
    case CURLOT_VALUES:
      rc = curl_easy_setopt(h, o->id, 0L);
      break;
    case CURLOT_OFF_T:
      rc = curl_easy_setopt(h, o->id, (curl_off_t)0);
      break;
    default:
      rc = curl_easy_setopt(h, o->id, (void *)NULL);
      break;
    }
    printf("%s %d\n", o->name, (int)rc);
    curl_easy_cleanup(h);
  }
  curl_global_cleanup();
  return 0;
}
