/* getinfo from inside the debug, read, seek, sockopt, opensocket, prereq and xferinfo
 * callbacks answers the running transfer's values. The handle first GETs URL/first (so the
 * previous transfer's values differ), then POSTs from a read callback to URL/up, which
 * answers 307 to URL/final (the body is rewound with the seek callback and sent again).
 * Usage: infolive URL */
#include <curl/curl.h>
#include <stdio.h>
#include <sys/socket.h>
#include <string.h>

static const char body[] = "the upload body";
static size_t sent;
static CURL *h;
static int xferinfo_done;

static void show(const char *where)
{
  long code = -1, redirects = -1, hsize = -1, rsize = -1, connects = -1, port = -1;
  long version = -1;
  curl_off_t up = -1, down = -1, clen_up = -2, clen_down = -2;
  char *url = NULL, *ip = NULL;
  curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
  curl_easy_getinfo(h, CURLINFO_EFFECTIVE_URL, &url);
  curl_easy_getinfo(h, CURLINFO_REDIRECT_COUNT, &redirects);
  curl_easy_getinfo(h, CURLINFO_HEADER_SIZE, &hsize);
  curl_easy_getinfo(h, CURLINFO_REQUEST_SIZE, &rsize);
  curl_easy_getinfo(h, CURLINFO_NUM_CONNECTS, &connects);
  curl_easy_getinfo(h, CURLINFO_PRIMARY_PORT, &port);
  curl_easy_getinfo(h, CURLINFO_PRIMARY_IP, &ip);
  curl_easy_getinfo(h, CURLINFO_HTTP_VERSION, &version);
  curl_easy_getinfo(h, CURLINFO_SIZE_UPLOAD_T, &up);
  curl_easy_getinfo(h, CURLINFO_SIZE_DOWNLOAD_T, &down);
  curl_easy_getinfo(h, CURLINFO_CONTENT_LENGTH_UPLOAD_T, &clen_up);
  curl_easy_getinfo(h, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &clen_down);
  printf("%s: code=%ld url=%s redirects=%ld header_size=%ld request_size=%ld "
         "connects=%ld port>0=%d ip=%s version=%ld up=%ld down=%ld clen_up=%ld "
         "clen_down=%ld\n",
         where, code, url ? strrchr(url, '/') : "(nil)", redirects, hsize, rsize, connects,
         port > 0, ip ? ip : "(nil)", version, (long)up, (long)down, (long)clen_up,
         (long)clen_down);
}

static size_t sink(char *p, size_t s, size_t n, void *u)
{
  (void)p; (void)u;
  return s * n;
}

static int on_debug(CURL *handle, curl_infotype type, char *data, size_t size, void *u)
{
  char what[64];
  (void)handle; (void)u;
  /* The status lines and the request heads. */
  if(type == CURLINFO_HEADER_IN && size > 5 && !memcmp(data, "HTTP/", 5)) {
    snprintf(what, sizeof(what), "debug status %.3s", data + 9);
    show(what);
  }
  else if(type == CURLINFO_HEADER_OUT) {
    snprintf(what, sizeof(what), "debug request %.4s", data);
    show(what);
  }
  return 0;
}

static size_t on_read(char *p, size_t s, size_t n, void *u)
{
  size_t left = strlen(body) - sent;
  size_t max = s * n;
  (void)u;
  show(left ? "read" : "read, at the end");
  if(left > max)
    left = max;
  memcpy(p, body + sent, left);
  sent += left;
  return left;
}

static int on_seek(void *u, curl_off_t offset, int origin)
{
  (void)u; (void)origin;
  show("seek");
  sent = (size_t)offset;
  return CURL_SEEKFUNC_OK;
}

static int on_sockopt(void *u, curl_socket_t fd, curlsocktype purpose)
{
  (void)u; (void)fd; (void)purpose;
  show("sockopt");
  return CURL_SOCKOPT_OK;
}

static curl_socket_t on_open(void *u, curlsocktype purpose, struct curl_sockaddr *a)
{
  (void)u; (void)purpose;
  show("opensocket");
  return socket(a->family, a->socktype, a->protocol);
}

static int on_prereq(void *u, char *conn_primary_ip, char *conn_local_ip,
                     int conn_primary_port, int conn_local_port)
{
  (void)u; (void)conn_primary_ip; (void)conn_local_ip; (void)conn_primary_port;
  (void)conn_local_port;
  show("prereq");
  return CURL_PREREQFUNC_OK;
}

static int on_xferinfo(void *u, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
                       curl_off_t ulnow)
{
  (void)u; (void)dltotal; (void)ultotal; (void)ulnow;
  /* progress comes at times that differ between implementations: only once the final
     response's body is in */
  if(dlnow > 0 && !xferinfo_done) {
    long code = -1;
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
    if(code == 200) {
      xferinfo_done = 1;
      show("xferinfo");
    }
  }
  return 0;
}

int main(int argc, char **argv)
{
  char url[1024];
  if(argc < 2)
    return 2;
  curl_global_init(CURL_GLOBAL_DEFAULT);
  h = curl_easy_init();
  snprintf(url, sizeof(url), "%s/first", argv[1]);
  curl_easy_setopt(h, CURLOPT_URL, url);
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, sink);
  printf("rc=%d\n", (int)curl_easy_perform(h));
  show("after first");

  snprintf(url, sizeof(url), "%s/up", argv[1]);
  curl_easy_setopt(h, CURLOPT_URL, url);
  curl_easy_setopt(h, CURLOPT_VERBOSE, 1L);
  curl_easy_setopt(h, CURLOPT_DEBUGFUNCTION, on_debug);
  curl_easy_setopt(h, CURLOPT_POST, 1L);
  curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE, (long)strlen(body));
  curl_easy_setopt(h, CURLOPT_READFUNCTION, on_read);
  curl_easy_setopt(h, CURLOPT_SEEKFUNCTION, on_seek);
  curl_easy_setopt(h, CURLOPT_SOCKOPTFUNCTION, on_sockopt);
  curl_easy_setopt(h, CURLOPT_OPENSOCKETFUNCTION, on_open);
  curl_easy_setopt(h, CURLOPT_PREREQFUNCTION, on_prereq);
  curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, on_xferinfo);
  curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(h, CURLOPT_FRESH_CONNECT, 1L);
  printf("rc=%d\n", (int)curl_easy_perform(h));
  show("after second");
  curl_easy_cleanup(h);
  curl_global_cleanup();
  return 0;
}
