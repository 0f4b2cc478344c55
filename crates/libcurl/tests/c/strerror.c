/* Every CURLcode and CURLMcode text (and a few numbers outside the range). */
#include <curl/curl.h>
#include <stdio.h>

int main(void)
{
  int i;
  for(i = -1; i <= CURL_LAST + 2; i++)
    printf("E%d %s\n", i, curl_easy_strerror((CURLcode)i));
  for(i = -2; i <= CURLM_LAST + 2; i++)
    printf("M%d %s\n", i, curl_multi_strerror((CURLMcode)i));
  return 0;
}
