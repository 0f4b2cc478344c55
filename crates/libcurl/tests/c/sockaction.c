/* An epoll event loop driving N parallel transfers with curl_multi_socket_action, told what
 * to watch by CURLMOPT_SOCKETFUNCTION (each socket gets a context through curl_multi_assign)
 * and when to time out by CURLMOPT_TIMERFUNCTION. Checks curl's documented rules as it goes
 * and prints only results, never timing. Usage: sockaction BASEURL N REPEAT [FTPPORT]
 * (URL i is BASEURL/i; its body must be "hello from /i\n" REPEAT times). With FTPPORT
 * ("pasv" for passive mode, else CURLOPT_FTPPORT's value) it also prints the most sockets
 * the callback had live at once (an FTP transfer's control and data connections) and the
 * order of the callback's calls. */
#include <curl/curl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>

struct sock {
  curl_socket_t fd;
  int what;
  int magic;
  char tag; /* a letter per socket, in the order they were first reported */
};

struct xfer {
  char *data;
  size_t len, cap;
};

static CURLM *multi;
static int epfd;
static long timer_ms = -1;        /* the one-shot timer, -1 when deleted */
static double timer_at;
static int live_sockets, max_sockets;
static int violations;
static int assign_rc = -100, recursive_sock = -100, recursive_timer = -100;
static char events[256]; /* "A2 A1 B1 B4 ...": socket tag and CURL_POLL_* value, in order */
static int tags;

static void log_event(char tag, int what)
{
  size_t at = strlen(events);
  if(at + 4 < sizeof(events))
    snprintf(events + at, sizeof(events) - at, "%s%c%d", at ? " " : "", tag, what);
}

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void bad(const char *what)
{
  if(violations++ < 5)
    printf("violation: %s\n", what);
}

static int sock_cb(CURL *easy, curl_socket_t s, int what, void *clientp, void *socketp)
{
  struct sock *ctx = socketp;
  struct epoll_event ev;
  if(clientp != &epfd)
    bad("SOCKETDATA");
  if(!easy)
    bad("no easy handle");
  if(recursive_sock == -100) {
    int running;
    recursive_sock = (int)curl_multi_perform(multi, &running);
  }
  if(what == CURL_POLL_REMOVE) {
    if(!ctx || ctx->fd != s || ctx->magic != 0x50c4)
      bad("REMOVE without the assigned context");
    else {
      log_event(ctx->tag, what);
      epoll_ctl(epfd, EPOLL_CTL_DEL, s, NULL);
      ctx->magic = 0;
      free(ctx);
      live_sockets--;
    }
    return 0;
  }
  if(what != CURL_POLL_IN && what != CURL_POLL_OUT && what != CURL_POLL_INOUT) {
    bad("unknown what");
    return 0;
  }
  memset(&ev, 0, sizeof(ev));
  ev.events = (what & CURL_POLL_IN ? EPOLLIN : 0) | (what & CURL_POLL_OUT ? EPOLLOUT : 0);
  ev.data.fd = s;
  if(!ctx) {
    CURLMcode rc;
    ctx = calloc(1, sizeof(*ctx));
    ctx->fd = s;
    ctx->what = what;
    ctx->magic = 0x50c4;
    ctx->tag = (char)('A' + tags++ % 26);
    rc = curl_multi_assign(multi, s, ctx);
    if(assign_rc == -100 || rc != CURLM_OK)
      assign_rc = (int)rc;
    if(epoll_ctl(epfd, EPOLL_CTL_ADD, s, &ev))
      bad("epoll add");
    log_event(ctx->tag, what);
    if(++live_sockets > max_sockets)
      max_sockets = live_sockets;
  }
  else {
    if(ctx->fd != s || ctx->magic != 0x50c4)
      bad("wrong context");
    if(ctx->what == what)
      bad("the same what twice in a row");
    ctx->what = what;
    log_event(ctx->tag, what);
    if(epoll_ctl(epfd, EPOLL_CTL_MOD, s, &ev))
      bad("epoll mod");
  }
  return 0;
}

static int timer_cb(CURLM *m, long ms, void *clientp)
{
  if(m != multi || clientp != &timer_ms)
    bad("timer arguments");
  if(ms < -1)
    bad("negative timeout");
  if(recursive_timer == -100) {
    long t;
    recursive_timer = (int)curl_multi_timeout(multi, &t);
  }
  timer_ms = ms;
  timer_at = now() + ms / 1000.0;
  return 0;
}

static size_t keep(char *p, size_t size, size_t n, void *ud)
{
  struct xfer *x = ud;
  size_t len = size * n;
  if(x->len + len > x->cap) {
    x->cap = (x->len + len) * 2;
    x->data = realloc(x->data, x->cap);
  }
  memcpy(x->data + x->len, p, len);
  x->len += len;
  return len;
}

int main(int argc, char **argv)
{
  int n, repeat, i, running = 1, ok = 0, msgs = 0, left, bodies_ok = 0;
  const char *ftpport;
  CURL **h;
  struct xfer *x;
  CURLMsg *msg;
  double give_up;
  if(argc < 4)
    return 2;
  n = atoi(argv[2]);
  repeat = atoi(argv[3]);
  ftpport = argc > 4 ? argv[4] : NULL;
  curl_global_init(CURL_GLOBAL_DEFAULT);
  epfd = epoll_create1(0);
  multi = curl_multi_init();
  curl_multi_setopt(multi, CURLMOPT_SOCKETFUNCTION, sock_cb);
  curl_multi_setopt(multi, CURLMOPT_SOCKETDATA, &epfd);
  curl_multi_setopt(multi, CURLMOPT_TIMERFUNCTION, timer_cb);
  curl_multi_setopt(multi, CURLMOPT_TIMERDATA, &timer_ms);
  printf("assign_unknown=%d\n", (int)curl_multi_assign(multi, 12345, NULL));
  h = calloc(n, sizeof(*h));
  x = calloc(n, sizeof(*x));
  for(i = 0; i < n; i++) {
    char url[512];
    snprintf(url, sizeof(url), "%s/%d", argv[1], i);
    h[i] = curl_easy_init();
    curl_easy_setopt(h[i], CURLOPT_URL, url);
    curl_easy_setopt(h[i], CURLOPT_WRITEFUNCTION, keep);
    curl_easy_setopt(h[i], CURLOPT_WRITEDATA, &x[i]);
    curl_easy_setopt(h[i], CURLOPT_PRIVATE, &x[i]);
    if(ftpport && strcmp(ftpport, "pasv"))
      curl_easy_setopt(h[i], CURLOPT_FTPPORT, ftpport);
    if(curl_multi_add_handle(multi, h[i]) != CURLM_OK)
      return 3;
  }
  printf("timer_after_add=%ld\n", timer_ms >= 0 ? 0L : -1L);
  give_up = now() + 60;
  while(running) {
    struct epoll_event evs[64];
    int wait_ms, got, k;
    if(now() > give_up) {
      printf("stuck\n");
      return 4;
    }
    if(timer_ms < 0)
      wait_ms = 1000; /* no timer: only sockets can make progress */
    else {
      double left_s = timer_at - now();
      wait_ms = left_s <= 0 ? 0 : (int)(left_s * 1000) + 1;
    }
    got = epoll_wait(epfd, evs, 64, wait_ms);
    if(got < 0 && errno != EINTR)
      return 5;
    for(k = 0; k < got; k++) {
      int bits = (evs[k].events & EPOLLIN ? CURL_CSELECT_IN : 0) |
                 (evs[k].events & EPOLLOUT ? CURL_CSELECT_OUT : 0) |
                 (evs[k].events & (EPOLLERR | EPOLLHUP) ? CURL_CSELECT_ERR : 0);
      if(curl_multi_socket_action(multi, evs[k].data.fd, bits, &running) != CURLM_OK)
        return 6;
    }
    if(timer_ms >= 0 && now() >= timer_at) {
      timer_ms = -1; /* one-shot: fired */
      if(curl_multi_socket_action(multi, CURL_SOCKET_TIMEOUT, 0, &running) != CURLM_OK)
        return 7;
    }
  }
  while((msg = curl_multi_info_read(multi, &left))) {
    msgs++;
    if(msg->msg == CURLMSG_DONE && msg->data.result == CURLE_OK) {
      long code = 0;
      curl_easy_getinfo(msg->easy_handle, CURLINFO_RESPONSE_CODE, &code);
      if(code == (ftpport ? 226 : 200))
        ok++;
    }
  }
  for(i = 0; i < n; i++) {
    char line[64];
    size_t l = (size_t)snprintf(line, sizeof(line), "hello from /%d\n", i);
    int r, good = x[i].len == l * (size_t)repeat;
    for(r = 0; good && r < repeat; r++)
      good = !memcmp(x[i].data + r * l, line, l);
    bodies_ok += good;
    if(!good && i - bodies_ok < 5)
      printf("body %d wrong: %zu bytes\n", i, x[i].len);
  }
  printf("running=%d messages=%d ok=%d bodies_ok=%d\n", running, msgs, ok, bodies_ok);
  printf("violations=%d assign_in_callback=%d\n", violations, assign_rc);
  printf("recursive_in_socket_cb=%d recursive_in_timer_cb=%d\n", recursive_sock,
         recursive_timer);
  printf("sockets_used=%d live_sockets_at_end=%d\n", max_sockets > 0, live_sockets);
  if(ftpport)
    printf("max_live_sockets=%d\nevents=%s\n", max_sockets, events);
  for(i = 0; i < n; i++) {
    curl_multi_remove_handle(multi, h[i]);
    curl_easy_cleanup(h[i]);
    free(x[i].data);
  }
  printf("timer_after_remove=%ld\n", timer_ms);
  curl_multi_cleanup(multi);
  free(h);
  free(x);
  curl_global_cleanup();
  return 0;
}
