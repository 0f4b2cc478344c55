/* CURLOPT_OPENSOCKETFUNCTION, SOCKOPTFUNCTION and CLOSESOCKETFUNCTION. argv[1]: the
 * server's URL; argv[2]: a URL on a port nothing listens on, same host. Prints what the
 * callbacks saw; compared with the reference libcurl's output. */
#include <curl/curl.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

struct st {
  int opens, sockopts, closes;
  int family, socktype, protocol;
  unsigned int addrlen;
  int purpose_ok;
  curl_socket_t opened, closed;
  int mode;   /* 0 plain, 1 sockopt error, 2 open bad, 3 redirect port, 4 already connected */
  unsigned short port;
};

static curl_socket_t on_open(void *ud, curlsocktype purpose, struct curl_sockaddr *a)
{
  struct st *s = ud;
  curl_socket_t fd;
  s->opens++;
  s->purpose_ok = purpose == CURLSOCKTYPE_IPCXN;
  s->family = a->family;
  s->socktype = a->socktype;
  s->protocol = a->protocol;
  s->addrlen = a->addrlen;
  if(s->mode == 2)
    return CURL_SOCKET_BAD;
  if(s->mode == 3 && a->family == AF_INET)
    ((struct sockaddr_in *)&a->addr)->sin_port = htons(s->port);
  fd = socket(a->family, a->socktype, a->protocol);
  if(s->mode == 4 && connect(fd, &a->addr, a->addrlen)) {
    close(fd);
    return CURL_SOCKET_BAD;
  }
  s->opened = fd;
  return fd;
}

static int on_sockopt(void *ud, curl_socket_t fd, curlsocktype purpose)
{
  struct st *s = ud;
  s->sockopts++;
  if(purpose != CURLSOCKTYPE_IPCXN || (s->opened != CURL_SOCKET_BAD && fd != s->opened))
    s->purpose_ok = 0;
  if(s->mode == 1)
    return CURL_SOCKOPT_ERROR;
  if(s->mode == 4)
    return CURL_SOCKOPT_ALREADY_CONNECTED;
  return CURL_SOCKOPT_OK;
}

static int on_close(void *ud, curl_socket_t fd)
{
  struct st *s = ud;
  s->closes++;
  s->closed = fd;
  return close(fd);
}

static size_t on_write(char *p, size_t sz, size_t n, void *ud)
{
  (void)ud;
  printf("  body: %.*s", (int)(sz * n), p);
  return sz * n;
}

static void run(const char *name, const char *url, int mode, int open, int sockopt, int closecb,
                unsigned short port)
{
  struct st s;
  char err[CURL_ERROR_SIZE] = "";
  CURL *h = curl_easy_init();
  int rc;
  memset(&s, 0, sizeof(s));
  s.mode = mode;
  s.opened = CURL_SOCKET_BAD;
  s.closed = CURL_SOCKET_BAD;
  s.port = port;
  curl_easy_setopt(h, CURLOPT_URL, url);
  curl_easy_setopt(h, CURLOPT_ERRORBUFFER, err);
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_write);
  if(open) {
    curl_easy_setopt(h, CURLOPT_OPENSOCKETFUNCTION, on_open);
    curl_easy_setopt(h, CURLOPT_OPENSOCKETDATA, &s);
  }
  if(sockopt) {
    curl_easy_setopt(h, CURLOPT_SOCKOPTFUNCTION, on_sockopt);
    curl_easy_setopt(h, CURLOPT_SOCKOPTDATA, &s);
  }
  if(closecb) {
    curl_easy_setopt(h, CURLOPT_CLOSESOCKETFUNCTION, on_close);
    curl_easy_setopt(h, CURLOPT_CLOSESOCKETDATA, &s);
  }
  rc = (int)curl_easy_perform(h);
  printf("%s: rc=%d opens=%d sockopts=%d closes before cleanup=%d\n", name, rc, s.opens,
         s.sockopts, s.closes);
  curl_easy_cleanup(h);
  printf("  closes=%d closed the opened socket=%d purpose ok=%d\n", s.closes,
         s.opened != CURL_SOCKET_BAD && s.closed == s.opened, s.purpose_ok);
  if(s.opens)
    printf("  address: family=%d socktype=%d protocol=%d addrlen=%u\n", s.family, s.socktype,
           s.protocol, s.addrlen);
  if(rc)
    printf("  error: %s\n", err);
}

int main(int argc, char **argv)
{
  CURLU *u = curl_url();
  char *port = NULL;
  if(argc < 3)
    return 2;
  curl_url_set(u, CURLUPART_URL, argv[1], 0);
  curl_url_get(u, CURLUPART_PORT, &port, 0);
  run("sockopt ok", argv[1], 0, 0, 1, 0, 0);
  run("sockopt error", argv[1], 1, 0, 1, 0, 0);
  run("open and close", argv[1], 0, 1, 1, 1, 0);
  run("close only", argv[1], 0, 0, 0, 1, 0);
  run("open bad", argv[1], 2, 1, 0, 1, 0);
  run("open changes the port", argv[2], 3, 1, 0, 1, (unsigned short)atoi(port));
  run("already connected", argv[1], 4, 1, 1, 1, 0);
  curl_free(port);
  curl_url_cleanup(u);
  return 0;
}
