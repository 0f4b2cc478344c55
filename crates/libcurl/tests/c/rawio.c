/* curl_easy_send/recv/upkeep on handles without CURLOPT_CONNECT_ONLY, and on NULL. */
#include <curl/curl.h>
#include <stdio.h>

int main(void)
{
  CURL *h = curl_easy_init();
  char err[CURL_ERROR_SIZE] = "";
  char buf[16];
  size_t n = 99;
  int rc;
  curl_easy_setopt(h, CURLOPT_ERRORBUFFER, err);
  rc = (int)curl_easy_send(h, "x", 1, &n);
  printf("send=%d n=%zu err=%s\n", rc, n, err);
  n = 99;
  err[0] = 0;
  rc = (int)curl_easy_recv(h, buf, sizeof(buf), &n);
  printf("recv=%d n=%zu err=%s\n", rc, n, err);
  printf("upkeep=%d\n", (int)curl_easy_upkeep(h));
  printf("null: send=%d recv=%d upkeep=%d pause=%d\n", (int)curl_easy_send(NULL, "x", 1, &n),
         (int)curl_easy_recv(NULL, buf, 1, &n), (int)curl_easy_upkeep(NULL),
         (int)curl_easy_pause(NULL, CURLPAUSE_CONT));
  curl_easy_cleanup(h);
  return 0;
}
