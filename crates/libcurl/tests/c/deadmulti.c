/* A socket callback returning -1 kills the multi: the call that ran it answers
 * CURLM_ABORTED_BY_CALLBACK, every transfer then ends with CURLE_ABORTED_BY_CALLBACK, and
 * the multi takes new transfers once it holds no easy handle. A timer callback returning -1
 * makes curl_multi_add_handle fail and take the handle back out; curl_multi_perform ignores what the socket callback answers. Usage: deadmulti socket|timer URL */
/* curl_multi_socket_all is deprecated, and used here. */
#define CURL_DISABLE_DEPRECATION
#include <curl/curl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int socket_calls, timer_calls, fail_socket, fail_timer;

static int on_socket(CURL *e, curl_socket_t s, int what, void *u, void *sp)
{
  (void)e; (void)s; (void)what; (void)u; (void)sp;
  return socket_calls++ == 0 && fail_socket ? -1 : 0;
}

static int on_timer(CURLM *m, long ms, void *u)
{
  (void)m; (void)ms; (void)u;
  return timer_calls++ == 0 && fail_timer ? -1 : 0;
}

static size_t sink(char *p, size_t size, size_t n, void *ud)
{
  (void)p; (void)ud;
  return size * n;
}

int main(int argc, char **argv)
{
  CURLM *m;
  CURL *a, *b;
  CURLMcode rc;
  CURLMsg *msg;
  int running, left, i, results[2] = {-1, -1};
  if(argc < 3)
    return 2;
  fail_socket = !strcmp(argv[1], "socket");
  fail_timer = !strcmp(argv[1], "timer");
  curl_global_init(CURL_GLOBAL_DEFAULT);
  m = curl_multi_init();
  curl_multi_setopt(m, CURLMOPT_SOCKETFUNCTION, on_socket);
  curl_multi_setopt(m, CURLMOPT_TIMERFUNCTION, on_timer);
  a = curl_easy_init();
  curl_easy_setopt(a, CURLOPT_URL, argv[2]);
  curl_easy_setopt(a, CURLOPT_WRITEFUNCTION, sink);
  rc = curl_multi_add_handle(m, a);
  printf("add: %d\n", (int)rc);
  if(fail_socket) {
    /* run until the socket callback has been told of the connection (curl_multi_socket_all
       runs every transfer, as curl_multi_socket_action does the ones whose sockets an
       application that polls them names) */
    for(i = 0; i < 500 && !socket_calls; i++) {
      rc = curl_multi_socket_all(m, &running);
      if(!socket_calls)
        curl_multi_wait(m, NULL, 0, 10, NULL);
    }
    printf("socket_all that met the socket callback: %d\n", (int)rc);
  }
  b = curl_easy_init();
  curl_easy_setopt(b, CURLOPT_URL, argv[2]);
  curl_easy_setopt(b, CURLOPT_WRITEFUNCTION, sink);
  printf("add while a transfer is alive: %d\n", (int)curl_multi_add_handle(m, b));
  for(i = 0; i < 500; i++) {
    rc = curl_multi_perform(m, &running);
    while((msg = curl_multi_info_read(m, &left)))
      results[msg->easy_handle == a ? 0 : 1] = (int)msg->data.result;
    if(!running)
      break;
    usleep(10000);
  }
  printf("perform: %d running=%d\n", (int)rc, running);
  /* in this order whichever finished first */
  printf("done: a=%d b=%d\n", results[0], results[1]);
  printf("add after all ended: %d\n", (int)curl_multi_add_handle(m, b));
  curl_multi_remove_handle(m, a);
  printf("add after removing it: %d\n", (int)curl_multi_add_handle(m, b));
  curl_multi_remove_handle(m, b);
  curl_multi_remove_handle(m, a);
  curl_easy_cleanup(b);
  curl_easy_cleanup(a);
  curl_multi_cleanup(m);
  curl_global_cleanup();
  return 0;
}
