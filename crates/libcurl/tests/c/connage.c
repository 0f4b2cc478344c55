/* An easy handle's connection cache: CURLOPT_MAXCONNECTS (the oldest idle connection goes
 * when the cache is full), CURLOPT_MAXAGE_CONN and CURLOPT_MAXLIFETIME_CONN (too old a
 * connection is not reused). Prints, per transfer, whether it made a new connection.
 * Usage: connage PORT MODE
 * MODE: maxconnects, maxage, maxlifetime, codes (the values setopt refuses), notes (the
 * -v notes on too old connections, to another host and to the same one). */
#include <curl/curl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static size_t sink(char *p, size_t s, size_t n, void *u)
{
  (void)p;
  (void)u;
  return s * n;
}

/* Prints the notes on giving up a connection. */
static int notes(CURL *h, curl_infotype type, char *data, size_t size, void *u)
{
  (void)h;
  (void)u;
  if(type == CURLINFO_TEXT &&
     (strstr(data, "Too old") || strstr(data, "seems to be dead") ||
      strstr(data, "shutting down")))
    printf("%.*s", (int)size, data);
  return 0;
}

static void get(CURL *h, const char *port, int host)
{
  char url[200];
  long conns = -1;
  CURLcode rc;
  snprintf(url, sizeof(url), "http://server%d.example:%s/", host, port);
  curl_easy_setopt(h, CURLOPT_URL, url);
  rc = curl_easy_perform(h);
  curl_easy_getinfo(h, CURLINFO_NUM_CONNECTS, &conns);
  printf("server%d: rc=%d new connections=%ld\n", host, (int)rc, conns);
  /* curl picks the connection idle longest by milliseconds: make the ages differ. */
  usleep(20000);
}

int main(int argc, char **argv)
{
  CURL *h;
  struct curl_slist *res = NULL;
  char entry[200];
  const char *port, *mode;
  int i;
  if(argc < 3)
    return 2;
  port = argv[1];
  mode = argv[2];
  for(i = 1; i <= 4; i++) {
    snprintf(entry, sizeof(entry), "server%d.example:%s:127.0.0.1", i, port);
    res = curl_slist_append(res, entry);
  }
  curl_global_init(CURL_GLOBAL_ALL);
  h = curl_easy_init();
  curl_easy_setopt(h, CURLOPT_RESOLVE, res);
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, sink);
  if(strcmp(mode, "maxconnects") == 0) {
    curl_easy_setopt(h, CURLOPT_MAXCONNECTS, 2L);
    get(h, port, 1);
    get(h, port, 2);
    get(h, port, 3);
    /* server1's connection was the oldest of three: closed. */
    get(h, port, 1);
    get(h, port, 3);
  }
  else if(strcmp(mode, "maxage") == 0) {
    get(h, port, 1);
    get(h, port, 1);
    curl_easy_setopt(h, CURLOPT_MAXAGE_CONN, 1L);
    sleep(2);
    get(h, port, 1);
    get(h, port, 1);
  }
  else if(strcmp(mode, "notes") == 0) {
    curl_easy_setopt(h, CURLOPT_VERBOSE, 1L);
    curl_easy_setopt(h, CURLOPT_DEBUGFUNCTION, notes);
    get(h, port, 1);
    curl_easy_setopt(h, CURLOPT_MAXAGE_CONN, 1L);
    sleep(2);
    /* The pool's once-a-second sweep finds server1's connection too old. */
    get(h, port, 2);
    curl_easy_setopt(h, CURLOPT_MAXAGE_CONN, 118L);
    curl_easy_setopt(h, CURLOPT_MAXLIFETIME_CONN, 1L);
    usleep(1500000);
    get(h, port, 1);
    usleep(700000);
    /* Swept 0.7 s ago: server2's connection is found too old looking for one to reuse. */
    get(h, port, 2);
  }
  else if(strcmp(mode, "maxlifetime") == 0) {
    curl_easy_setopt(h, CURLOPT_MAXLIFETIME_CONN, 1L);
    get(h, port, 1);
    get(h, port, 1);
    sleep(2);
    get(h, port, 1);
  }
  else {
    printf("MAXCONNECTS -1: %d\n", (int)curl_easy_setopt(h, CURLOPT_MAXCONNECTS, -1L));
    printf("MAXCONNECTS 0: %d\n", (int)curl_easy_setopt(h, CURLOPT_MAXCONNECTS, 0L));
    printf("MAXAGE_CONN -1: %d\n", (int)curl_easy_setopt(h, CURLOPT_MAXAGE_CONN, -1L));
    printf("MAXAGE_CONN 0: %d\n", (int)curl_easy_setopt(h, CURLOPT_MAXAGE_CONN, 0L));
    printf("MAXLIFETIME_CONN -1: %d\n", (int)curl_easy_setopt(h, CURLOPT_MAXLIFETIME_CONN, -1L));
    printf("MAXLIFETIME_CONN 0: %d\n", (int)curl_easy_setopt(h, CURLOPT_MAXLIFETIME_CONN, 0L));
    printf("MAXCONNECTS max: %d\n", (int)curl_easy_setopt(h, CURLOPT_MAXCONNECTS, 0x7fffffffffffffffL));
    printf("MAXAGE_CONN max: %d\n", (int)curl_easy_setopt(h, CURLOPT_MAXAGE_CONN, 0x7fffffffffffffffL));
    printf("MAXLIFETIME_CONN max: %d\n", (int)curl_easy_setopt(h, CURLOPT_MAXLIFETIME_CONN, 0x7fffffffffffffffL));
  }
  curl_easy_cleanup(h);
  curl_slist_free_all(res);
  curl_global_cleanup();
  return 0;
}
