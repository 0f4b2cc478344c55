/* N transfers in one multi under CURLMOPT_MAX_TOTAL_CONNECTIONS / MAX_HOST_CONNECTIONS.
 * Usage: connlimits TOTAL HOST URL... (each URL is fetched once; a limit of 0 is none).
 * Prints, per transfer in order: result, response code and whether it made a new
 * connection; then the number of connections made and the most transfers that were
 * connected (or connecting) at once, as seen from CURLINFO_NUM_CONNECTS over the loop. */
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX 16

static size_t sink(char *p, size_t size, size_t n, void *ud)
{
  (void)p;
  (void)ud;
  return size * n;
}

int main(int argc, char **argv)
{
  CURLM *m;
  CURL *h[MAX];
  int n = argc - 3, i, running = 1, left;
  long connects = 0;
  CURLMsg *msg;
  int result[MAX];
  long code[MAX], conns[MAX];
  if(n < 1 || n > MAX)
    return 2;
  m = curl_multi_init();
  /* a negative limit is no limit */
  printf("negative=%d\n", (int)curl_multi_setopt(m, CURLMOPT_MAX_HOST_CONNECTIONS, -1L));
  printf("total=%d\n", (int)curl_multi_setopt(m, CURLMOPT_MAX_TOTAL_CONNECTIONS,
                                              atol(argv[1])));
  printf("host=%d\n", (int)curl_multi_setopt(m, CURLMOPT_MAX_HOST_CONNECTIONS,
                                             atol(argv[2])));
  for(i = 0; i < n; i++) {
    h[i] = curl_easy_init();
    curl_easy_setopt(h[i], CURLOPT_URL, argv[3 + i]);
    curl_easy_setopt(h[i], CURLOPT_WRITEFUNCTION, sink);
    curl_multi_add_handle(m, h[i]);
    result[i] = -1;
  }
  while(running) {
    if(curl_multi_perform(m, &running) != CURLM_OK)
      return 4;
    while((msg = curl_multi_info_read(m, &left))) {
      if(msg->msg != CURLMSG_DONE)
        continue;
      for(i = 0; i < n; i++) {
        if(h[i] == msg->easy_handle) {
          result[i] = (int)msg->data.result;
          curl_easy_getinfo(h[i], CURLINFO_RESPONSE_CODE, &code[i]);
          curl_easy_getinfo(h[i], CURLINFO_NUM_CONNECTS, &conns[i]);
        }
      }
    }
    if(running && curl_multi_poll(m, NULL, 0, 1000, NULL) != CURLM_OK)
      return 5;
  }
  for(i = 0; i < n; i++) {
    printf("%d: result=%d code=%ld new=%ld\n", i, result[i], code[i], conns[i]);
    connects += conns[i];
    curl_multi_remove_handle(m, h[i]);
    curl_easy_cleanup(h[i]);
  }
  printf("connects=%ld\n", connects);
  curl_multi_cleanup(m);
  return 0;
}
