/* getinfo from inside a callback, during the transfer: the running transfer's values, not
   the previous one's (the handle performs twice, the second time to another path).
   Usage: infocb URL */
#include <curl/curl.h>
#include <stdio.h>
#include <string.h>

static int headers;
static int progressed;

static void times(CURL *h, const char *where)
{
  curl_off_t connect = -1, pre = -1, start = -1, total = -1, app = -1, speed = -1;
  curl_easy_getinfo(h, CURLINFO_CONNECT_TIME_T, &connect);
  curl_easy_getinfo(h, CURLINFO_PRETRANSFER_TIME_T, &pre);
  curl_easy_getinfo(h, CURLINFO_STARTTRANSFER_TIME_T, &start);
  curl_easy_getinfo(h, CURLINFO_TOTAL_TIME_T, &total);
  curl_easy_getinfo(h, CURLINFO_APPCONNECT_TIME_T, &app);
  curl_easy_getinfo(h, CURLINFO_SPEED_DOWNLOAD_T, &speed);
  printf("%s: connect>0=%d pretransfer>0=%d starttransfer>0=%d total>0=%d appconnect=%ld "
         "speed>0=%d\n", where, connect > 0, pre > 0, start > 0, total > 0, (long)app,
         speed > 0);
}

static size_t on_header(char *p, size_t s, size_t n, void *ud)
{
  CURL *h = (CURL *)ud;
  if(!headers++)
    times(h, "first header");
  if(s * n == 2 && p[0] == '\r' && p[1] == '\n') {
    long code = -1;
    curl_off_t clen = -2;
    char *url = NULL;
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
    curl_easy_getinfo(h, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &clen);
    curl_easy_getinfo(h, CURLINFO_EFFECTIVE_URL, &url);
    printf("end of headers: code=%ld content_length=%ld url_path=%s\n", code, (long)clen,
           url ? strrchr(url, '/') : "(nil)");
  }
  return s * n;
}

static size_t on_body(char *p, size_t s, size_t n, void *ud)
{
  long code = -1;
  curl_off_t got = -1;
  (void)p;
  curl_easy_getinfo((CURL *)ud, CURLINFO_RESPONSE_CODE, &code);
  curl_easy_getinfo((CURL *)ud, CURLINFO_SIZE_DOWNLOAD_T, &got);
  printf("code_in_write_callback=%ld size_download=%ld\n", code, (long)got);
  return s * n;
}

static int on_progress(void *ud, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
                       curl_off_t ulnow)
{
  long code = -1;
  (void)dltotal; (void)ultotal; (void)ulnow;
  curl_easy_getinfo((CURL *)ud, CURLINFO_RESPONSE_CODE, &code);
  /* progress comes at times that differ between implementations: only the values seen
     once the body is in are printed */
  if(dlnow > 0 && !progressed++)
    printf("progress after body: code=%ld\n", code);
  return 0;
}

int main(int argc, char **argv)
{
  CURL *h;
  char url[1024];
  if(argc < 2)
    return 2;
  h = curl_easy_init();
  curl_easy_setopt(h, CURLOPT_URL, argv[1]);
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, h);
  curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(h, CURLOPT_HEADERDATA, h);
  printf("rc=%d\n", (int)curl_easy_perform(h));
  times(h, "done");
  /* again, to a path answered 404: the callbacks see 404, not the previous 200 */
  snprintf(url, sizeof(url), "%s/missing", argv[1]);
  curl_easy_setopt(h, CURLOPT_URL, url);
  curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, on_progress);
  curl_easy_setopt(h, CURLOPT_XFERINFODATA, h);
  headers = 0;
  printf("rc=%d\n", (int)curl_easy_perform(h));
  curl_easy_cleanup(h);
  return 0;
}
