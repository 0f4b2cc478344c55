/* The classic select() loop: curl_multi_fdset + curl_multi_timeout + select. Usage: fdset URL */
#include <curl/curl.h>
#include <stdio.h>
#include <sys/select.h>

int main(int argc, char **argv)
{
  CURLM *m;
  CURL *h;
  int running = 1, loops = 0, left;
  CURLMsg *msg;
  if(argc < 2)
    return 2;
  m = curl_multi_init();
  h = curl_easy_init();
  curl_easy_setopt(h, CURLOPT_URL, argv[1]);
  curl_multi_add_handle(m, h);
  while(running && loops++ < 10000) {
    fd_set r, w, e;
    int maxfd = -1;
    long ms = -1;
    struct timeval tv;
    if(curl_multi_perform(m, &running) != CURLM_OK)
      return 3;
    if(!running)
      break;
    FD_ZERO(&r);
    FD_ZERO(&w);
    FD_ZERO(&e);
    if(curl_multi_fdset(m, &r, &w, &e, &maxfd) != CURLM_OK)
      return 4;
    if(curl_multi_timeout(m, &ms) != CURLM_OK)
      return 5;
    if(ms < 0 || ms > 100)
      ms = 100;
    tv.tv_sec = 0;
    tv.tv_usec = ms * 1000;
    select(maxfd + 1, &r, &w, &e, &tv);
  }
  msg = curl_multi_info_read(m, &left);
  printf("\ndone=%d result=%d left=%d\n", msg && msg->msg == CURLMSG_DONE,
         msg ? (int)msg->data.result : -1, left);
  curl_multi_remove_handle(m, h);
  curl_easy_cleanup(h);
  printf("cleanup=%d\n", (int)curl_multi_cleanup(m));
  return 0;
}
