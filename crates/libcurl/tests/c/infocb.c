/* getinfo from inside a callback, during the transfer. Usage: infocb URL */
#include <curl/curl.h>
#include <stdio.h>

static size_t on_body(char *p, size_t s, size_t n, void *ud)
{
  long code = -1;
  (void)p;
  curl_easy_getinfo((CURL *)ud, CURLINFO_RESPONSE_CODE, &code);
  printf("code_in_write_callback=%ld\n", code);
  return s * n;
}

int main(int argc, char **argv)
{
  CURL *h;
  if(argc < 2)
    return 2;
  h = curl_easy_init();
  curl_easy_setopt(h, CURLOPT_URL, argv[1]);
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, h);
  printf("rc=%d\n", (int)curl_easy_perform(h));
  curl_easy_cleanup(h);
  return 0;
}
