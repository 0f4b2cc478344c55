/* CURLMOPT_TIMERFUNCTION as handles come and go: told when the earliest deadline changes
 * (another handle's when the first leaves, -1 when none is left), not when a callback is
 * replaced, and a refusal on removal; nothing at curl_multi_cleanup. */
#include <curl/curl.h>
#include <stdio.h>
static int timer_cb(CURLM *m, long ms, void *u)
{
  (void)m;
  printf("%s: timer %ld\n", (const char *)u, ms);
  return 0;
}

static int refusing_timer(CURLM *m, long ms, void *u)
{
  (void)m;
  printf("%s: refusing timer %ld\n", (const char *)u, ms);
  return -1;
}
int main(void)
{
  CURLM *m = curl_multi_init();
  CURL *h = curl_easy_init(), *h2 = curl_easy_init();
  static char phase[32] = "init";
  curl_multi_setopt(m, CURLMOPT_TIMERFUNCTION, timer_cb);
  curl_multi_setopt(m, CURLMOPT_TIMERDATA, phase);
  snprintf(phase, sizeof(phase), "add");
  curl_multi_add_handle(m, h);
  snprintf(phase, sizeof(phase), "add2");
  curl_multi_add_handle(m, h2);
  snprintf(phase, sizeof(phase), "remove");
  printf("rc=%d\n", (int)curl_multi_remove_handle(m, h));
  snprintf(phase, sizeof(phase), "remove2");
  printf("rc=%d\n", (int)curl_multi_remove_handle(m, h2));
  snprintf(phase, sizeof(phase), "add again");
  curl_multi_add_handle(m, h);
  snprintf(phase, sizeof(phase), "new callback");
  curl_multi_setopt(m, CURLMOPT_TIMERFUNCTION, refusing_timer);
  snprintf(phase, sizeof(phase), "remove again");
  printf("rc=%d\n", (int)curl_multi_remove_handle(m, h));
  snprintf(phase, sizeof(phase), "cleanup");
  printf("rc=%d\n", (int)curl_multi_cleanup(m));
  snprintf(phase, sizeof(phase), "easy cleanup");
  curl_easy_cleanup(h);
  curl_easy_cleanup(h2);
  printf("end\n");
  return 0;
}
