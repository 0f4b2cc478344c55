/* The callbacks a transfer calls at its milestones: CURLOPT_RESOLVER_START_FUNCTION before a
 * lookup, CURLOPT_PREREQFUNCTION before each request, CURLOPT_TRAILERFUNCTION after the last
 * chunk of an upload.
 * Usage: hooks MODE URL
 * MODE: resolve-ok, resolve-fail (the resolver-start callback refuses), prereq-ok,
 * prereq-abort, prereq-follow (FOLLOWLOCATION: a call per request), trailers-ok,
 * trailers-abort, trailers-malformed (lines without ": " are skipped), trailers-none (a
 * callback adding nothing). Prints what the callbacks saw, the response, the result and the
 * error text. */
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *mode;
static int calls;

static size_t on_write(char *p, size_t size, size_t n, void *ud)
{
  (void)ud;
  fwrite(p, size, n, stdout);
  return size * n;
}

static int on_resolver_start(void *state, void *reserved, void *ud)
{
  calls++;
  printf("resolver start: state %s reserved %s data %s\n", state ? "set" : "NULL",
         reserved ? "set" : "NULL", (const char *)ud);
  return strcmp(mode, "resolve-fail") == 0;
}

static int on_prereq(void *ud, char *remote, char *local, int rport, int lport)
{
  long want = *(long *)ud;
  calls++;
  printf("prereq %d: %s port %s, from %s port %s\n", calls, remote,
         rport == want ? "as in the URL" : "other", local, lport > 0 ? "set" : "0");
  return strcmp(mode, "prereq-abort") == 0 ? CURL_PREREQFUNC_ABORT : CURL_PREREQFUNC_OK;
}

static int on_trailers(struct curl_slist **list, void *ud)
{
  (void)ud;
  calls++;
  if(strcmp(mode, "trailers-abort") == 0)
    return CURL_TRAILERFUNC_ABORT;
  if(strcmp(mode, "trailers-none") == 0)
    return CURL_TRAILERFUNC_OK;
  *list = curl_slist_append(*list, "X-First: one");
  if(strcmp(mode, "trailers-malformed") == 0) {
    *list = curl_slist_append(*list, "X-NoSpace:two");
    *list = curl_slist_append(*list, "no colon at all");
  }
  *list = curl_slist_append(*list, "X-Last: three");
  return CURL_TRAILERFUNC_OK;
}

static size_t on_read(char *p, size_t size, size_t n, void *ud)
{
  int *done = ud;
  const char body[] = "chunk of body\n";
  (void)size;
  (void)n;
  if(*done)
    return 0;
  *done = 1;
  memcpy(p, body, sizeof(body) - 1);
  return sizeof(body) - 1;
}

int main(int argc, char **argv)
{
  CURL *h;
  CURLcode rc;
  char err[CURL_ERROR_SIZE] = "";
  long port = 0;
  int done = 0;
  struct curl_slist *hdrs = NULL;
  if(argc < 3)
    return 2;
  mode = argv[1];
  curl_global_init(CURL_GLOBAL_ALL);
  h = curl_easy_init();
  curl_easy_setopt(h, CURLOPT_URL, argv[2]);
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_write);
  curl_easy_setopt(h, CURLOPT_ERRORBUFFER, err);
  if(strncmp(mode, "resolve", 7) == 0) {
    curl_easy_setopt(h, CURLOPT_RESOLVER_START_FUNCTION, on_resolver_start);
    curl_easy_setopt(h, CURLOPT_RESOLVER_START_DATA, (void *)"the data");
  }
  else if(strncmp(mode, "prereq", 6) == 0) {
    CURLU *u = curl_url();
    char *p = NULL;
    curl_url_set(u, CURLUPART_URL, argv[2], 0);
    curl_url_get(u, CURLUPART_PORT, &p, 0);
    port = p ? atol(p) : 0;
    curl_free(p);
    curl_url_cleanup(u);
    curl_easy_setopt(h, CURLOPT_PREREQFUNCTION, on_prereq);
    curl_easy_setopt(h, CURLOPT_PREREQDATA, &port);
    if(strcmp(mode, "prereq-follow") == 0)
      curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);
  }
  else {
    hdrs = curl_slist_append(hdrs, "Trailer: X-First, X-Last");
    hdrs = curl_slist_append(hdrs, "Expect:");
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdrs);
    curl_easy_setopt(h, CURLOPT_UPLOAD, 1L);
    curl_easy_setopt(h, CURLOPT_READFUNCTION, on_read);
    curl_easy_setopt(h, CURLOPT_READDATA, &done);
    curl_easy_setopt(h, CURLOPT_TRAILERFUNCTION, on_trailers);
    curl_easy_setopt(h, CURLOPT_TRAILERDATA, NULL);
  }
  rc = curl_easy_perform(h);
  /* A second transfer: the lookup is cached now, the connection is reused. */
  if(rc == CURLE_OK && strncmp(mode, "trailers", 8) != 0) {
    rc = curl_easy_perform(h);
  }
  printf("calls=%d rc=%d (%s) err=[%s]\n", calls, (int)rc, curl_easy_strerror(rc), err);
  curl_easy_cleanup(h);
  curl_slist_free_all(hdrs);
  curl_global_cleanup();
  return 0;
}
