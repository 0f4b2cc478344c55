/* Two transfers in one multi, driven by curl_multi_perform + curl_multi_wait; the results
 * from curl_multi_info_read. Usage: multi URL1 URL2 */
#include <curl/curl.h>
#include <stdio.h>
#include <string.h>

struct buf { char data[256]; size_t len; };

static size_t keep(char *p, size_t size, size_t n, void *ud)
{
  struct buf *b = ud;
  size_t len = size * n;
  if(b->len + len < sizeof(b->data)) {
    memcpy(b->data + b->len, p, len);
    b->len += len;
  }
  return len;
}

int main(int argc, char **argv)
{
  CURLM *m;
  CURL *h[2];
  struct buf bufs[2];
  int running = 1, i, done = 0, left;
  CURLMsg *msg;
  if(argc < 3)
    return 2;
  memset(bufs, 0, sizeof(bufs));
  m = curl_multi_init();
  curl_multi_setopt(m, CURLMOPT_MAXCONNECTS, 5L);
  for(i = 0; i < 2; i++) {
    h[i] = curl_easy_init();
    curl_easy_setopt(h[i], CURLOPT_URL, argv[1 + i]);
    curl_easy_setopt(h[i], CURLOPT_WRITEFUNCTION, keep);
    curl_easy_setopt(h[i], CURLOPT_WRITEDATA, &bufs[i]);
    curl_multi_add_handle(m, h[i]);
  }
  printf("added_again=%d\n", (int)curl_multi_add_handle(m, h[0]));
  while(running) {
    if(curl_multi_perform(m, &running) != CURLM_OK)
      return 4;
    if(running && curl_multi_wait(m, NULL, 0, 1000, NULL) != CURLM_OK)
      return 5;
  }
  while((msg = curl_multi_info_read(m, &left))) {
    if(msg->msg == CURLMSG_DONE) {
      long code = 0;
      curl_easy_getinfo(msg->easy_handle, CURLINFO_RESPONSE_CODE, &code);
      printf("done %d result=%d code=%ld\n", msg->easy_handle == h[0] ? 0 : 1,
             (int)msg->data.result, code);
      done++;
    }
  }
  for(i = 0; i < 2; i++) {
    printf("body%d=%.*s\n", i, (int)bufs[i].len, bufs[i].data);
    curl_multi_remove_handle(m, h[i]);
    curl_easy_cleanup(h[i]);
  }
  printf("messages=%d\n", done);
  curl_multi_cleanup(m);
  return 0;
}
