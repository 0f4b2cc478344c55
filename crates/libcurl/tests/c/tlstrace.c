/* The TLS handshake trace (CURLOPT_VERBOSE with a CURLOPT_DEBUGFUNCTION; with OpenSSL, a
 * "TLSv1.3 (OUT), TLS handshake, Client hello (1):" line per message) of a transfer
 * driven by curl_multi_perform from one thread, then from another: thread A drives it
 * until the ClientHello went out and ends, thread B does the rest. Prints every trace line
 * with the thread it came on, then the transfer's result.
 * Usage: tlstrace URL CAFILE */
#include <curl/curl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static CURLM *multi;
static int running = 1;
static int hello_out;
static const char *who = "?";

static int trace(CURL *h, curl_infotype type, char *data, size_t size, void *u)
{
  (void)h; (void)u;
  if(type != CURLINFO_TEXT || size < 4 || strncmp(data, "TLSv", 4))
    return 0;
  printf("%s: %.*s", who, (int)size, data);
  if(strstr(data, "(OUT), TLS handshake, Client hello"))
    hello_out = 1;
  return 0;
}

static size_t sink(char *p, size_t s, size_t n, void *u)
{
  (void)p; (void)u;
  return s * n;
}

static void *thread_a(void *arg)
{
  (void)arg;
  who = "A";
  while(running && !hello_out) {
    curl_multi_perform(multi, &running);
    if(running && !hello_out)
      curl_multi_poll(multi, NULL, 0, 1000, NULL);
  }
  return NULL;
}

static void *thread_b(void *arg)
{
  (void)arg;
  who = "B";
  while(running) {
    curl_multi_poll(multi, NULL, 0, 1000, NULL);
    curl_multi_perform(multi, &running);
  }
  return NULL;
}

int main(int argc, char **argv)
{
  CURL *h;
  CURLMsg *msg;
  int left;
  pthread_t t;
  if(argc < 3)
    return 2;
  curl_global_init(CURL_GLOBAL_DEFAULT);
  multi = curl_multi_init();
  h = curl_easy_init();
  curl_easy_setopt(h, CURLOPT_URL, argv[1]);
  curl_easy_setopt(h, CURLOPT_CAINFO, argv[2]);
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, sink);
  curl_easy_setopt(h, CURLOPT_VERBOSE, 1L);
  curl_easy_setopt(h, CURLOPT_DEBUGFUNCTION, trace);
  curl_multi_add_handle(multi, h);
  if(pthread_create(&t, NULL, thread_a, NULL) || pthread_join(t, NULL))
    return 3;
  if(pthread_create(&t, NULL, thread_b, NULL) || pthread_join(t, NULL))
    return 3;
  while((msg = curl_multi_info_read(multi, &left)))
    if(msg->msg == CURLMSG_DONE)
      printf("result=%d\n", (int)msg->data.result);
  curl_multi_remove_handle(multi, h);
  curl_easy_cleanup(h);
  curl_multi_cleanup(multi);
  curl_global_cleanup();
  return 0;
}
