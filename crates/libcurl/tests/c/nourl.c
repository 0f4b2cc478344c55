/* "No URL set": the error text of a transfer without a URL, in curl_easy_perform and in a
 * multi, with the error buffer holding an earlier text or not (curl keeps a text out of a
 * buffer that has held one since the last transfer with a URL). */
#include <curl/curl.h>
#include <stdio.h>
#include <string.h>
int main(void)
{
  char eb[CURL_ERROR_SIZE];
  CURL *h = curl_easy_init();
  CURLM *m = curl_multi_init();
  int running, n;
  CURLMsg *msg;
  strcpy(eb, "junk");
  curl_easy_setopt(h, CURLOPT_ERRORBUFFER, eb);
  printf("rc=%d [%s]\n", (int)curl_easy_perform(h), eb);
  strcpy(eb, "junk");
  printf("rc=%d [%s]\n", (int)curl_easy_perform(h), eb);
  curl_easy_setopt(h, CURLOPT_URL, "http://127.0.0.1:1/");
  printf("rc=%d text=%d\n", (int)curl_easy_perform(h), eb[0] != 0);
  curl_easy_setopt(h, CURLOPT_URL, NULL);
  strcpy(eb, "junk");
  printf("rc=%d [%s]\n", (int)curl_easy_perform(h), eb);
  strcpy(eb, "junk");
  curl_multi_add_handle(m, h);
  do { curl_multi_perform(m, &running); curl_multi_poll(m, NULL, 0, 100, NULL); } while(running);
  while((msg = curl_multi_info_read(m, &n)))
    printf("multi rc=%d [%s]\n", (int)msg->data.result, eb);
  curl_multi_remove_handle(m, h);
  curl_easy_cleanup(h);
  curl_multi_cleanup(m);
  return 0;
}
