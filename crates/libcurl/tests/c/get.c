/* GET a URL: the body to stdout (curl's default write callback), then a second GET of the
 * same URL into a file given as WRITEDATA, then getinfo values. Usage: get URL FILE */
#include <curl/curl.h>
#include <stdio.h>

int main(int argc, char **argv)
{
  CURL *h;
  CURLcode rc;
  FILE *f;
  long code = 0, redirects = -1, hsize = 0, rsize = 0, ver = 0, port = 0;
  char *ctype = NULL, *eurl = NULL, *scheme = NULL, *ip = NULL, *method = NULL;
  curl_off_t dl = 0, clen = 0, total = 0;
  if(argc < 3)
    return 2;
  curl_global_init(CURL_GLOBAL_DEFAULT);
  h = curl_easy_init();
  curl_easy_setopt(h, CURLOPT_URL, argv[1]);
  rc = curl_easy_perform(h);
  printf("\nrc=%d\n", (int)rc);
  f = fopen(argv[2], "wb");
  if(!f)
    return 3;
  curl_easy_setopt(h, CURLOPT_WRITEDATA, f);
  rc = curl_easy_perform(h);
  fclose(f);
  printf("rc=%d\n", (int)rc);
  curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
  curl_easy_getinfo(h, CURLINFO_CONTENT_TYPE, &ctype);
  curl_easy_getinfo(h, CURLINFO_EFFECTIVE_URL, &eurl);
  curl_easy_getinfo(h, CURLINFO_EFFECTIVE_METHOD, &method);
  curl_easy_getinfo(h, CURLINFO_SCHEME, &scheme);
  curl_easy_getinfo(h, CURLINFO_PRIMARY_IP, &ip);
  curl_easy_getinfo(h, CURLINFO_PRIMARY_PORT, &port);
  curl_easy_getinfo(h, CURLINFO_REDIRECT_COUNT, &redirects);
  curl_easy_getinfo(h, CURLINFO_HEADER_SIZE, &hsize);
  curl_easy_getinfo(h, CURLINFO_REQUEST_SIZE, &rsize);
  curl_easy_getinfo(h, CURLINFO_HTTP_VERSION, &ver);
  curl_easy_getinfo(h, CURLINFO_SIZE_DOWNLOAD_T, &dl);
  curl_easy_getinfo(h, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &clen);
  curl_easy_getinfo(h, CURLINFO_TOTAL_TIME_T, &total);
  printf("code=%ld type=%s url=%s method=%s scheme=%s ip=%s port=%s redirects=%ld\n",
         code, ctype ? ctype : "(nil)", eurl ? eurl : "(nil)", method ? method : "(nil)",
         scheme ? scheme : "(nil)", ip ? ip : "(nil)", port > 0 ? "set" : "0", redirects);
  printf("header_size=%ld request_size=%ld http_version=%ld size_download=%ld "
         "content_length=%ld time_positive=%d\n",
         hsize, rsize, ver, (long)dl, (long)clen, total > 0);
  printf("unknown_option=%d\n", (int)curl_easy_setopt(h, (CURLoption)9999, 1L));
  curl_easy_cleanup(h);
  curl_global_cleanup();
  return 0;
}
