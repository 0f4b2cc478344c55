/* CURLOPT_CONNECT_ONLY with curl_easy_send/curl_easy_recv, CURLINFO_ACTIVESOCKET and
 * CURLINFO_LASTSOCKET, in the easy and the multi interface. argv[1]: an http:// base URL;
 * argv[2], argv[3] (optional): an https:// URL and its CA file. Prints what it sees. */
#define CURL_DISABLE_DEPRECATION 1
#include <curl/curl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>

static void sockets(CURL *h, const char *name)
{
  curl_socket_t active = 12345;
  long last = 12345;
  curl_easy_getinfo(h, CURLINFO_ACTIVESOCKET, &active);
  curl_easy_getinfo(h, CURLINFO_LASTSOCKET, &last);
  printf("%s: active %s, last %s, same %d\n", name, active == CURL_SOCKET_BAD ? "none" : "a socket",
         last == -1 ? "none" : "a socket", (long)active == last);
}

static int wait_for(CURL *h, short what)
{
  curl_socket_t s;
  struct pollfd p;
  curl_easy_getinfo(h, CURLINFO_ACTIVESOCKET, &s);
  p.fd = s;
  p.events = what;
  p.revents = 0;
  return poll(&p, 1, 5000);
}

/* Sends a request and reads the reply to its end. */
static void talk(CURL *h, const char *name, const char *host)
{
  char req[256], buf[1024], resp[8192];
  size_t off = 0, n, len, got = 0;
  CURLcode rc;
  int agains = 0;
  snprintf(req, sizeof(req), "GET /raw HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", host);
  len = strlen(req);
  rc = curl_easy_recv(h, buf, sizeof(buf), &n);
  printf("%s: recv before sending: rc=%d n=%zu\n", name, (int)rc, n);
  while(off < len) {
    rc = curl_easy_send(h, req + off, len - off, &n);
    if(rc == CURLE_AGAIN) {
      wait_for(h, POLLOUT);
      continue;
    }
    if(rc) {
      printf("%s: send rc=%d\n", name, (int)rc);
      return;
    }
    off += n;
  }
  for(;;) {
    rc = curl_easy_recv(h, buf, sizeof(buf), &n);
    if(rc == CURLE_AGAIN) {
      agains++;
      wait_for(h, POLLIN);
      continue;
    }
    if(rc) {
      printf("%s: recv rc=%d\n", name, (int)rc);
      break;
    }
    if(n == 0)
      break;
    if(got + n < sizeof(resp)) {
      memcpy(resp + got, buf, n);
      got += n;
    }
  }
  printf("%s: sent %zu, reply (%zu bytes):\n%.*s\n", name, off, got, (int)got, resp);
}

static size_t sink(char *p, size_t s, size_t n, void *u)
{
  (void)p; (void)u;
  return s * n;
}

int main(int argc, char **argv)
{
  char url[512], err[CURL_ERROR_SIZE];
  CURL *h = curl_easy_init();
  CURLM *m;
  CURLMsg *msg;
  size_t n = 99;
  long code = -1;
  int rc, running, left;
  if(argc < 2)
    return 2;
  snprintf(url, sizeof(url), "%s/normal", argv[1]);
  curl_easy_setopt(h, CURLOPT_ERRORBUFFER, err);
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, sink);

  rc = (int)curl_easy_setopt(h, CURLOPT_CONNECT_ONLY, 2L);
  printf("setopt 2=%d", rc);
  rc = (int)curl_easy_setopt(h, CURLOPT_CONNECT_ONLY, 3L);
  printf(" 3=%d", rc);
  rc = (int)curl_easy_setopt(h, CURLOPT_CONNECT_ONLY, -1L);
  printf(" -1=%d", rc);
  rc = (int)curl_easy_setopt(h, CURLOPT_CONNECT_ONLY, 0L);
  printf(" 0=%d\n", rc);
  sockets(h, "fresh handle");

  /* A normal transfer leaves its connection open for reuse. */
  curl_easy_setopt(h, CURLOPT_URL, url);
  rc = (int)curl_easy_perform(h);
  printf("normal: rc=%d\n", rc);
  sockets(h, "after a kept-alive transfer");
  err[0] = 0;
  rc = (int)curl_easy_send(h, "x", 1, &n);
  printf("send without CONNECT_ONLY: rc=%d n=%zu err=%s\n", rc, n, err);

  /* CONNECT_ONLY set on a handle that never made a connection. */
  {
    CURL *f = curl_easy_init();
    curl_easy_setopt(f, CURLOPT_ERRORBUFFER, err);
    curl_easy_setopt(f, CURLOPT_CONNECT_ONLY, 1L);
    err[0] = 0;
    n = 99;
    rc = (int)curl_easy_recv(f, url, 1, &n);
    printf("recv before perform: rc=%d n=%zu err=%s\n", rc, n, err);
    curl_easy_cleanup(f);
  }
  curl_easy_reset(h);
  curl_easy_setopt(h, CURLOPT_CONNECT_ONLY, 1L);

  snprintf(url, sizeof(url), "%s/never", argv[1]);
  curl_easy_setopt(h, CURLOPT_URL, url);
  rc = (int)curl_easy_perform(h);
  curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
  printf("connect only: rc=%d code=%ld\n", rc, code);
  sockets(h, "connect only");
  talk(h, "easy", "example.com");
  rc = (int)curl_easy_recv(h, url, 1, &n);
  printf("recv after the end: rc=%d n=%zu\n", rc, n);

  /* In a multi: the connection is there once the transfer is done. */
  m = curl_multi_init();
  curl_multi_add_handle(m, h);
  do {
    curl_multi_perform(m, &running);
    if(running)
      curl_multi_poll(m, NULL, 0, 100, NULL);
  } while(running);
  while((msg = curl_multi_info_read(m, &left)))
    printf("multi: done rc=%d\n", (int)msg->data.result);
  sockets(h, "multi");
  talk(h, "multi", "example.org");
  curl_multi_remove_handle(m, h);
  curl_multi_cleanup(m);

  if(argc > 3) {
    curl_easy_setopt(h, CURLOPT_URL, argv[2]);
    curl_easy_setopt(h, CURLOPT_CAINFO, argv[3]);
    rc = (int)curl_easy_perform(h);
    printf("https connect only: rc=%d\n", rc);
    sockets(h, "https");
    talk(h, "https", "localhost");
  }
  curl_easy_cleanup(h);
  return 0;
}
