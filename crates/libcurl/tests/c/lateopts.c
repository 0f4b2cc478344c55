/* Options set after curl_multi_add_handle are read when the transfer starts, as curl does;
 * one set from inside the running transfer's callback changes the next transfer only.
 * Usage: lateopts URL */
#include <curl/curl.h>
#include <stdio.h>
#include <string.h>

static const char fields[] = "late\0fields";

static size_t on_body(char *p, size_t s, size_t n, void *ud)
{
  CURL *h = (CURL *)ud;
  fwrite(p, s, n, stdout);
  /* the running transfer has started: its request went with the options of its start */
  curl_easy_setopt(h, CURLOPT_POSTFIELDS, "from-callback");
  return s * n;
}

static void drive(CURLM *m)
{
  int running = 1, rounds = 0, left;
  CURLMsg *msg;
  while(running && rounds++ < 2000) {
    curl_multi_perform(m, &running);
    if(running)
      curl_multi_poll(m, NULL, 0, 100, NULL);
  }
  while((msg = curl_multi_info_read(m, &left)))
    printf("done result=%d\n", (int)msg->data.result);
}

int main(int argc, char **argv)
{
  CURLM *m;
  CURL *h;
  char url[1024];
  struct curl_slist *hdrs = NULL;
  long code = 0;
  if(argc < 2)
    return 2;
  curl_global_init(CURL_GLOBAL_DEFAULT);
  m = curl_multi_init();
  h = curl_easy_init();
  curl_multi_add_handle(m, h);
  /* everything after the add */
  snprintf(url, sizeof(url), "%s/late", argv[1]);
  curl_easy_setopt(h, CURLOPT_URL, url);
  curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)(sizeof(fields) - 1));
  curl_easy_setopt(h, CURLOPT_POSTFIELDS, fields);
  hdrs = curl_slist_append(hdrs, "X-Late: yes");
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdrs);
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, h);
  drive(m);
  curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
  printf("code=%ld\n", code);
  curl_multi_remove_handle(m, h);
  /* again: the POSTFIELDS the callback set, with its own size */
  curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE, -1L);
  curl_multi_add_handle(m, h);
  curl_easy_setopt(h, CURLOPT_URL, argv[1]);
  drive(m);
  curl_multi_remove_handle(m, h);
  curl_easy_cleanup(h);
  curl_multi_cleanup(m);
  curl_slist_free_all(hdrs);
  curl_global_cleanup();
  return 0;
}
