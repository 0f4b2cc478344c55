/* curl_multi_get_handles and curl_multi_waitfds. Usage: handles URL (the server answers
 * slowly enough for the transfer to be seen waiting for the response). */
#include <curl/curl.h>
#include <stdio.h>
#include <string.h>

static size_t sink(char *p, size_t size, size_t n, void *ud)
{
  (void)p;
  (void)ud;
  return size * n;
}

static int count(CURLM *m, CURL **h, int nh)
{
  CURL **list = curl_multi_get_handles(m);
  int n = 0, i, found = 0;
  if(!list)
    return -1;
  for(n = 0; list[n]; n++)
    for(i = 0; i < nh; i++)
      found += list[n] == h[i];
  curl_free(list);
  return n == found ? n : -2;
}

int main(int argc, char **argv)
{
  CURLM *m;
  CURL *h[3];
  int i, running = 1, rounds, seen_in = 0;
  unsigned int fds = 99;
  struct curl_waitfd w[4];
  CURLMcode rc;
  if(argc < 2)
    return 2;
  curl_global_init(CURL_GLOBAL_DEFAULT);
  m = curl_multi_init();
  printf("empty=%d\n", count(m, h, 0));
  for(i = 0; i < 3; i++) {
    h[i] = curl_easy_init();
    curl_easy_setopt(h[i], CURLOPT_URL, argv[1]);
    curl_easy_setopt(h[i], CURLOPT_WRITEFUNCTION, sink);
  }
  curl_multi_add_handle(m, h[0]);
  curl_multi_add_handle(m, h[1]);
  printf("two=%d\n", count(m, h, 3));
  curl_multi_remove_handle(m, h[0]);
  printf("after_remove=%d\n", count(m, h, 3));
  curl_multi_remove_handle(m, h[1]);

  rc = curl_multi_waitfds(m, NULL, 0, NULL);
  printf("waitfds_no_out rc=%d\n", (int)rc);
  rc = curl_multi_waitfds(m, NULL, 1, &fds);
  printf("waitfds_null_array_size1 rc=%d\n", (int)rc);
  rc = curl_multi_waitfds(m, NULL, 0, &fds);
  printf("waitfds_idle rc=%d count=%u\n", (int)rc, fds);

  curl_multi_add_handle(m, h[2]);
  for(rounds = 0; running && rounds < 1000; rounds++) {
    curl_multi_perform(m, &running);
    rc = curl_multi_waitfds(m, w, 4, &fds);
    if(rc == CURLM_OK && fds == 1 && w[0].events == CURL_WAIT_POLLIN && !seen_in) {
      seen_in = 1;
      printf("waiting_for_response count=%u events=%d revents=%d\n", fds, w[0].events,
             w[0].revents);
      rc = curl_multi_waitfds(m, w, 0, &fds);
      printf("waitfds_too_small rc=%d count=%u\n", (int)rc, fds);
    }
    if(running)
      curl_multi_wait(m, NULL, 0, 50, NULL);
  }
  printf("seen_in=%d running=%d\n", seen_in, running);
  rc = curl_multi_waitfds(m, NULL, 0, &fds);
  printf("waitfds_done rc=%d count=%u\n", (int)rc, fds);
  printf("one=%d\n", count(m, h, 3));
  for(i = 0; i < 3; i++) {
    curl_multi_remove_handle(m, h[i]);
    curl_easy_cleanup(h[i]);
  }
  curl_multi_cleanup(m);
  curl_global_cleanup();
  return 0;
}
