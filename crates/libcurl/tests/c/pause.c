/* curl_easy_pause, CURL_WRITEFUNC_PAUSE and CURL_READFUNC_PAUSE, in the easy and the multi
 * interface. argv[1] is the server's base URL (routes /slow, /big, /post). Prints what the
 * callbacks saw; the output is compared with the reference libcurl's. */
#include <curl/curl.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>

static double now(void)
{
  struct timeval tv;
  gettimeofday(&tv, NULL);
  return (double)tv.tv_sec + tv.tv_usec / 1e6;
}

struct st {
  CURL *h;
  int mode;          /* 0 write returns PAUSE, 1 curl_easy_pause(RECV) in write,
                        2 header returns PAUSE, 3 read returns PAUSE, 4 pause SEND in read */
  int paused;        /* 1 while paused, 2 once let go */
  double paused_at;
  int progress_while_paused;
  int writes;
  size_t max_write;
  char body[4096];
  size_t blen;
  size_t total;
  char first[64];
  int headers;
  const char *post;
  size_t post_off;
  int reads;
  int pause_rc;
};

static size_t on_write(char *p, size_t sz, size_t n, void *ud)
{
  struct st *s = ud;
  size_t len = sz * n;
  s->writes++;
  if(len > s->max_write)
    s->max_write = len;
  /* After a header pause, how the body arrives in reads depends on timing: not shown. */
  if(s->writes == 1 && s->mode != 2)
    snprintf(s->first, sizeof(s->first), "%.*s", (int)(len < 20 ? len : 20), p);
  if(s->mode == 0 && !s->paused) {
    s->paused = 1;
    s->paused_at = now();
    return CURL_WRITEFUNC_PAUSE;
  }
  if(s->mode == 1 && !s->paused) {
    s->paused = 1;
    s->paused_at = now();
    s->pause_rc = (int)curl_easy_pause(s->h, CURLPAUSE_RECV);
  }
  if(s->blen < sizeof(s->body)) {
    size_t room = sizeof(s->body) - s->blen;
    memcpy(s->body + s->blen, p, len < room ? len : room);
    s->blen += len < room ? len : room;
  }
  s->total += len;
  return len;
}

static size_t on_header(char *p, size_t sz, size_t n, void *ud)
{
  struct st *s = ud;
  size_t len = sz * n;
  s->headers++;
  if(s->mode == 2 && !s->paused && !strncmp(p, "X-Two", 5)) {
    s->paused = 1;
    s->paused_at = now();
    printf("  header (refused): %.*s", (int)len, p);
    return CURL_WRITEFUNC_PAUSE;
  }
  if(s->mode == 2)
    printf("  header: %.*s", (int)len, p);
  return len;
}

static size_t on_read(char *p, size_t sz, size_t n, void *ud)
{
  struct st *s = ud;
  size_t left = strlen(s->post) - s->post_off;
  size_t take = sz * n < 4 ? sz * n : 4;
  s->reads++;
  if(s->mode == 3 && !s->paused) {
    s->paused = 1;
    s->paused_at = now();
    return CURL_READFUNC_PAUSE;
  }
  if(s->mode == 4 && !s->paused) {
    s->paused = 1;
    s->paused_at = now();
    s->pause_rc = (int)curl_easy_pause(s->h, CURLPAUSE_SEND);
  }
  if(take > left)
    take = left;
  memcpy(p, s->post + s->post_off, take);
  s->post_off += take;
  return take;
}

/* Lets the transfer go 300 ms after it paused, from the progress callback. */
static int on_progress(void *ud, curl_off_t dt, curl_off_t dn, curl_off_t ut, curl_off_t un)
{
  struct st *s = ud;
  (void)dt; (void)dn; (void)ut; (void)un;
  if(s->paused == 1) {
    s->progress_while_paused = 1;
    if(now() - s->paused_at >= 0.3) {
      s->paused = 2;
      s->pause_rc = (int)curl_easy_pause(s->h, CURLPAUSE_CONT);
    }
  }
  return 0;
}

static void setup(struct st *s, CURL *h, const char *url, int mode, int progress)
{
  memset(s, 0, sizeof(*s));
  s->h = h;
  s->mode = mode;
  curl_easy_reset(h);
  curl_easy_setopt(h, CURLOPT_URL, url);
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_write);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, s);
  curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(h, CURLOPT_HEADERDATA, s);
  if(progress) {
    curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, on_progress);
    curl_easy_setopt(h, CURLOPT_XFERINFODATA, s);
  }
}

static void report(const char *name, struct st *s, int rc)
{
  printf("%s: rc=%d let go=%d progress while paused=%d pause rc=%d first=%s body=%.*s"
         " total=%zu max write<=16384=%d headers=%d\n",
         name, rc, s->paused == 2, s->progress_while_paused, s->pause_rc, s->first,
         (int)(s->blen > 40 ? 40 : s->blen), s->body, s->total, s->max_write <= 16384,
         s->headers);
}

/* Runs `h` in a multi; unpauses from outside the callbacks when `outside` is set. */
static int run_multi(CURL *h, struct st *s, int outside)
{
  CURLM *m = curl_multi_init();
  int running = 1, rc = -1;
  CURLMsg *msg;
  int left;
  curl_multi_add_handle(m, h);
  while(running) {
    curl_multi_perform(m, &running);
    if(outside && s->paused == 1 && now() - s->paused_at >= 0.3) {
      s->paused = 2;
      s->pause_rc = (int)curl_easy_pause(h, CURLPAUSE_CONT);
    }
    if(running)
      curl_multi_poll(m, NULL, 0, 50, NULL);
  }
  while((msg = curl_multi_info_read(m, &left)))
    if(msg->msg == CURLMSG_DONE)
      rc = (int)msg->data.result;
  curl_multi_remove_handle(m, h);
  curl_multi_cleanup(m);
  return rc;
}

int main(int argc, char **argv)
{
  char url[512];
  struct st s;
  CURL *h = curl_easy_init();
  int rc;
  if(argc < 2)
    return 2;

  printf("pause outside a transfer: %d\n", (int)curl_easy_pause(h, CURLPAUSE_ALL));

  snprintf(url, sizeof(url), "%s/slow", argv[1]);
  setup(&s, h, url, 0, 1);
  rc = (int)curl_easy_perform(h);
  report("easy write returns PAUSE", &s, rc);

  setup(&s, h, url, 1, 1);
  rc = (int)curl_easy_perform(h);
  report("easy pause RECV in write", &s, rc);

  setup(&s, h, url, 2, 1);
  rc = (int)curl_easy_perform(h);
  report("easy header returns PAUSE", &s, rc);

  snprintf(url, sizeof(url), "%s/big", argv[1]);
  setup(&s, h, url, 0, 1);
  rc = (int)curl_easy_perform(h);
  report("easy big body", &s, rc);

  setup(&s, h, url, 0, 0);
  rc = run_multi(h, &s, 1);
  report("multi big body, let go outside", &s, rc);

  snprintf(url, sizeof(url), "%s/slow", argv[1]);
  setup(&s, h, url, 1, 0);
  rc = run_multi(h, &s, 1);
  report("multi pause RECV, let go outside", &s, rc);

  setup(&s, h, url, 0, 1);
  rc = run_multi(h, &s, 0);
  report("multi write returns PAUSE, let go in progress", &s, rc);

  snprintf(url, sizeof(url), "%s/post", argv[1]);
  setup(&s, h, url, 3, 1);
  s.post = "name=value&more=data";
  curl_easy_setopt(h, CURLOPT_POST, 1L);
  curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE, (long)strlen(s.post));
  curl_easy_setopt(h, CURLOPT_READFUNCTION, on_read);
  curl_easy_setopt(h, CURLOPT_READDATA, &s);
  rc = (int)curl_easy_perform(h);
  report("easy read returns PAUSE", &s, rc);
  printf("  reads>=2: %d\n", s.reads >= 2);

  setup(&s, h, url, 4, 0);
  s.post = "name=value&more=data";
  curl_easy_setopt(h, CURLOPT_POST, 1L);
  curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE, (long)strlen(s.post));
  curl_easy_setopt(h, CURLOPT_READFUNCTION, on_read);
  curl_easy_setopt(h, CURLOPT_READDATA, &s);
  rc = run_multi(h, &s, 1);
  report("multi pause SEND in read, let go outside", &s, rc);

  printf("pause after the transfer: %d\n", (int)curl_easy_pause(h, CURLPAUSE_CONT));
  curl_easy_cleanup(h);
  return 0;
}
