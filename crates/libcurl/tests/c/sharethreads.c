/* One share (cookies, DNS, TLS sessions) used by two threads, each running
 * transfers on its own easy handle. The lock callbacks are pthread mutexes, one per data
 * type; the program checks each unlock matches a lock of the same type and prints only
 * facts that do not depend on scheduling. */
#include <curl/curl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define ROUNDS 8

static pthread_mutex_t locks[CURL_LOCK_DATA_LAST];
static pthread_mutex_t count_lock = PTHREAD_MUTEX_INITIALIZER;
static long held[CURL_LOCK_DATA_LAST];
static long total[CURL_LOCK_DATA_LAST];
static int bad;

static void lockcb(CURL *h, curl_lock_data d, curl_lock_access a, void *u)
{
  (void)h;
  if(u != (void *)locks || d <= 0 || d >= CURL_LOCK_DATA_LAST ||
     (a != CURL_LOCK_ACCESS_SHARED && a != CURL_LOCK_ACCESS_SINGLE)) {
    bad = 1;
    return;
  }
  pthread_mutex_lock(&locks[d]);
  pthread_mutex_lock(&count_lock);
  held[d]++;
  total[d]++;
  pthread_mutex_unlock(&count_lock);
}

static void unlockcb(CURL *h, curl_lock_data d, void *u)
{
  (void)h;
  if(u != (void *)locks || d <= 0 || d >= CURL_LOCK_DATA_LAST) {
    bad = 1;
    return;
  }
  pthread_mutex_lock(&count_lock);
  if(held[d] != 1)
    bad = 1;
  held[d]--;
  pthread_mutex_unlock(&count_lock);
  pthread_mutex_unlock(&locks[d]);
}

struct job {
  CURLSH *sh;
  const char *url;
  int failures;
  int cookie_seen;
};

static size_t body(char *p, size_t s, size_t n, void *u)
{
  struct job *j = u;
  if(s * n >= 10 && !memcmp(p, "shared=yes", 10))
    j->cookie_seen++;
  return s * n;
}

static void *run(void *arg)
{
  struct job *j = arg;
  char u[512];
  int i;
  CURL *e = curl_easy_init();
  curl_easy_setopt(e, CURLOPT_SHARE, j->sh);
  curl_easy_setopt(e, CURLOPT_COOKIEFILE, "");
  curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, body);
  curl_easy_setopt(e, CURLOPT_WRITEDATA, j);
  for(i = 0; i < ROUNDS; i++) {
    long code = 0;
    snprintf(u, sizeof(u), "%s/%s", j->url, i ? "echo" : "set");
    curl_easy_setopt(e, CURLOPT_URL, u);
    if(curl_easy_perform(e) != CURLE_OK ||
       curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &code) || code != 200)
      j->failures++;
  }
  curl_easy_cleanup(e);
  return NULL;
}

int main(int argc, char **argv)
{
  pthread_t t[2];
  struct job jobs[2];
  CURLSH *sh;
  int i, balanced = 1, failures = 0;
  if(argc < 2)
    return 1;
  curl_global_init(CURL_GLOBAL_ALL);
  for(i = 0; i < CURL_LOCK_DATA_LAST; i++)
    pthread_mutex_init(&locks[i], NULL);
  sh = curl_share_init();
  curl_share_setopt(sh, CURLSHOPT_LOCKFUNC, lockcb);
  curl_share_setopt(sh, CURLSHOPT_UNLOCKFUNC, unlockcb);
  curl_share_setopt(sh, CURLSHOPT_USERDATA, (void *)locks);
  curl_share_setopt(sh, CURLSHOPT_SHARE, CURL_LOCK_DATA_COOKIE);
  curl_share_setopt(sh, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
  /* Not CURL_LOCK_DATA_CONNECT: curl does not support sharing connections between
   * concurrent threads (CURLSHOPT_SHARE(3)), and its libcurl crashes now and then if asked;
   * tests/c/share.c covers the shared connection cache on one thread. */
  curl_share_setopt(sh, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
  for(i = 0; i < 2; i++) {
    jobs[i].sh = sh;
    jobs[i].url = argv[1];
    jobs[i].failures = 0;
    jobs[i].cookie_seen = 0;
    pthread_create(&t[i], NULL, run, &jobs[i]);
  }
  for(i = 0; i < 2; i++) {
    pthread_join(t[i], NULL);
    failures += jobs[i].failures;
  }
  for(i = 0; i < CURL_LOCK_DATA_LAST; i++)
    if(held[i])
      balanced = 0;
  printf("failures=%d\n", failures);
  printf("balanced=%s\n", balanced && !bad ? "yes" : "no");
  printf("share locked=%s\n", total[CURL_LOCK_DATA_SHARE] >= 4 ? "yes" : "no");
  printf("cookie locked=%s\n", total[CURL_LOCK_DATA_COOKIE] > 0 ? "yes" : "no");
  printf("dns locked=%s\n", total[CURL_LOCK_DATA_DNS] > 0 ? "yes" : "no");
  printf("cookies sent=%d\n", jobs[0].cookie_seen + jobs[1].cookie_seen);
  printf("cleanup=%d\n", (int)curl_share_cleanup(sh));
  for(i = 0; i < CURL_LOCK_DATA_LAST; i++)
    pthread_mutex_destroy(&locks[i]);
  curl_global_cleanup();
  return 0;
}
