/* CURLINFO_REQUEST_SIZE, HEADER_SIZE and SIZE_UPLOAD over HTTP/2 (and HTTP/1.1 for
 * comparison): a GET, again on the reused connection, a GET with extra headers, a POST of
 * fields on the reused and on a fresh connection, a POST through the read callback.
 * Usage: h2sizes URL CAFILE VERSION (VERSION: 2 for HTTP/2 over TLS, 2pk for prior
 * knowledge, 1 for HTTP/1.1) */
#include <curl/curl.h>
#include <stdio.h>
#include <string.h>

static size_t sink(char *p, size_t s, size_t n, void *u)
{
  (void)p; (void)u;
  return s * n;
}

static const char updata[] = "an upload body read through the callback\n";

static size_t on_read(char *p, size_t s, size_t n, void *u)
{
  size_t *pos = u;
  size_t left = sizeof(updata) - 1 - *pos;
  size_t len = s * n < left ? s * n : left;
  memcpy(p, updata + *pos, len);
  *pos += len;
  return len;
}

static void run(CURL *h, const char *what)
{
  long req = -1, hdr = -1, ver = 0;
  curl_off_t up = -1;
  CURLcode rc = curl_easy_perform(h);
  curl_easy_getinfo(h, CURLINFO_REQUEST_SIZE, &req);
  curl_easy_getinfo(h, CURLINFO_HEADER_SIZE, &hdr);
  curl_easy_getinfo(h, CURLINFO_SIZE_UPLOAD_T, &up);
  curl_easy_getinfo(h, CURLINFO_HTTP_VERSION, &ver);
  printf("%s: rc=%d version=%ld request_size=%ld upload=%ld\n", what, (int)rc, ver, req,
         (long)up);
  (void)hdr;
}

int main(int argc, char **argv)
{
  CURL *h;
  struct curl_slist *extra = NULL;
  if(argc < 4)
    return 2;
  curl_global_init(CURL_GLOBAL_DEFAULT);
  h = curl_easy_init();
  curl_easy_setopt(h, CURLOPT_URL, argv[1]);
  curl_easy_setopt(h, CURLOPT_CAINFO, argv[2]);
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, sink);
  if(!strcmp(argv[3], "2"))
    curl_easy_setopt(h, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_2TLS);
  else if(!strcmp(argv[3], "2pk"))
    curl_easy_setopt(h, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE);
  else
    curl_easy_setopt(h, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_1_1);
  run(h, "get");
  run(h, "get again");
  extra = curl_slist_append(extra, "X-Extra: a header with some length to it");
  extra = curl_slist_append(extra, "Accept: text/plain");
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, extra);
  run(h, "get with headers");
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, NULL);
  curl_easy_setopt(h, CURLOPT_POSTFIELDS, "name=value&other=thing");
  run(h, "post");
  curl_easy_setopt(h, CURLOPT_FRESH_CONNECT, 1L);
  run(h, "post fresh");
  {
    size_t pos = 0;
    curl_easy_setopt(h, CURLOPT_FRESH_CONNECT, 0L);
    curl_easy_setopt(h, CURLOPT_POSTFIELDS, NULL);
    curl_easy_setopt(h, CURLOPT_POST, 1L);
    curl_easy_setopt(h, CURLOPT_READFUNCTION, on_read);
    curl_easy_setopt(h, CURLOPT_READDATA, &pos);
    curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE, (long)(sizeof(updata) - 1));
    run(h, "post read");
  }
  curl_easy_cleanup(h);
  curl_slist_free_all(extra);
  curl_global_cleanup();
  return 0;
}
