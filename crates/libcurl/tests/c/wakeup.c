/* curl_multi_wakeup: from a second thread it ends a long curl_multi_poll; called before,
 * it ends the next curl_multi_poll at once; curl_multi_wait ignores it (and leaves it for
 * the next poll). Prints results, not timings. */
#include <curl/curl.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static CURLM *multi;

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *waker(void *arg)
{
  (void)arg;
  usleep(300 * 1000);
  curl_multi_wakeup(multi);
  return NULL;
}

int main(void)
{
  pthread_t t;
  double t0;
  int numfds = -1;
  CURLMcode rc;
  curl_global_init(CURL_GLOBAL_DEFAULT);
  multi = curl_multi_init();
  printf("wakeup_null=%d\n", (int)curl_multi_wakeup(NULL));

  pthread_create(&t, NULL, waker, NULL);
  t0 = now();
  rc = curl_multi_poll(multi, NULL, 0, 20000, &numfds);
  printf("poll_from_thread rc=%d numfds=%d early=%d\n", (int)rc, numfds, now() - t0 < 10);
  pthread_join(t, NULL);

  curl_multi_wakeup(multi);
  t0 = now();
  rc = curl_multi_poll(multi, NULL, 0, 20000, &numfds);
  printf("poll_after_wakeup rc=%d numfds=%d early=%d\n", (int)rc, numfds, now() - t0 < 10);

  /* curl_multi_wait leaves the wakeup to the next curl_multi_poll (with nothing to wait
   * on it returns at once, so its time says nothing). */
  curl_multi_wakeup(multi);
  rc = curl_multi_wait(multi, NULL, 0, 300, &numfds);
  printf("wait_leaves_wakeup rc=%d numfds=%d\n", (int)rc, numfds);
  t0 = now();
  rc = curl_multi_poll(multi, NULL, 0, 20000, &numfds);
  printf("next_poll rc=%d early=%d\n", (int)rc, now() - t0 < 10);

  t0 = now();
  rc = curl_multi_poll(multi, NULL, 0, 300, &numfds);
  printf("poll_without_wakeup rc=%d full=%d\n", (int)rc, now() - t0 >= 0.25);

  curl_multi_cleanup(multi);
  curl_global_cleanup();
  return 0;
}
