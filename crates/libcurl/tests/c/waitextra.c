/* curl_multi_wait and curl_multi_poll with the application's own descriptors (extra_fds):
 * what they report in revents and numfds, alone and next to a transfer waiting for its
 * response. Usage: waitextra URL (the server answers after about 300 ms). */
#include <curl/curl.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

static size_t sink(char *p, size_t size, size_t n, void *ud)
{
  (void)p;
  (void)ud;
  return size * n;
}

static long now_ms(void)
{
  struct timeval tv;
  gettimeofday(&tv, NULL);
  return tv.tv_sec * 1000L + tv.tv_usec / 1000;
}

int main(int argc, char **argv)
{
  CURLM *m;
  CURL *h;
  int p[2], numfds, running = 1, rounds;
  long start;
  struct curl_waitfd w[3];
  CURLMcode rc;
  char c;
  if(argc < 2 || pipe(p))
    return 2;
  curl_global_init(CURL_GLOBAL_DEFAULT);
  m = curl_multi_init();

  /* Nothing ready: revents is left as it was, numfds is 0, the wait is not cut short. */
  w[0].fd = p[0];
  w[0].events = CURL_WAIT_POLLIN;
  w[0].revents = 0x70;
  numfds = -1;
  start = now_ms();
  rc = curl_multi_wait(m, w, 1, 100, &numfds);
  printf("idle rc=%d numfds=%d revents=%#x waited=%d\n", (int)rc, numfds,
         (unsigned)w[0].revents, now_ms() - start >= 90);

  /* The pipe readable; its write end writable; a negative descriptor never ready. */
  if(write(p[1], "x", 1) != 1)
    return 2;
  w[0].revents = 0x70;
  w[1].fd = -1;
  w[1].events = CURL_WAIT_POLLIN;
  w[1].revents = 0x70;
  w[2].fd = p[1];
  w[2].events = CURL_WAIT_POLLOUT | CURL_WAIT_POLLPRI;
  w[2].revents = 0;
  start = now_ms();
  rc = curl_multi_wait(m, w, 3, 5000, &numfds);
  printf("ready rc=%d numfds=%d revents=%#x,%#x,%#x fast=%d\n", (int)rc, numfds,
         (unsigned)w[0].revents, (unsigned)w[1].revents, (unsigned)w[2].revents,
         now_ms() - start < 2000);
  w[0].revents = 0;
  rc = curl_multi_poll(m, w, 1, 5000, &numfds);
  printf("poll_ready rc=%d numfds=%d revents=%#x\n", (int)rc, numfds,
         (unsigned)w[0].revents);
  if(read(p[0], &c, 1) != 1)
    return 2;

  /* A transfer waiting for its response and an idle pipe: the wait ends with the
     transfer's socket, the pipe's revents cleared; then the pipe alone. */
  h = curl_easy_init();
  curl_easy_setopt(h, CURLOPT_URL, argv[1]);
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, sink);
  curl_multi_add_handle(m, h);
  for(rounds = 0; running && rounds < 2000; rounds++) {
    curl_multi_perform(m, &running);
    if(!running)
      break;
    w[0].revents = 0x70;
    rc = curl_multi_wait(m, w, 1, 1000, &numfds);
    if(rc)
      printf("transfer_wait rc=%d\n", (int)rc);
    if(numfds > 0 && w[0].revents != 0)
      printf("pipe_reported revents=%#x\n", (unsigned)w[0].revents);
  }
  printf("transfer running=%d\n", running);
  if(write(p[1], "y", 1) != 1)
    return 2;
  w[0].revents = 0;
  rc = curl_multi_wait(m, w, 1, 1000, &numfds);
  printf("after rc=%d numfds=%d revents=%#x\n", (int)rc, numfds, (unsigned)w[0].revents);
  curl_multi_remove_handle(m, h);
  curl_easy_cleanup(h);
  curl_multi_cleanup(m);
  curl_global_cleanup();
  close(p[0]);
  close(p[1]);
  return 0;
}
