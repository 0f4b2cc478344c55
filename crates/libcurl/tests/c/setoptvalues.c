/* Return codes of the socket, framing and file-mode options for edge values; the FTP wildcard
 * match callback and its data set and unset (taken, unused for HTTP). */
#include <curl/curl.h>
#include <stdio.h>

static int match(void *p, const char *pattern, const char *string)
{
  (void)p; (void)pattern; (void)string;
  return CURL_FNMATCHFUNC_MATCH;
}

int main(void)
{
  CURL *c = curl_easy_init();
  long v[] = {-1, 0, 1, 3000000};
  int i;
  for(i = 0; i < 4; i++)
    printf("%ld: idle=%d intvl=%d cnt=%d he=%d icl=%d disallow=%d perms=%d\n", v[i],
           (int)curl_easy_setopt(c, CURLOPT_TCP_KEEPIDLE, v[i]),
           (int)curl_easy_setopt(c, CURLOPT_TCP_KEEPINTVL, v[i]),
           (int)curl_easy_setopt(c, CURLOPT_TCP_KEEPCNT, v[i]),
           (int)curl_easy_setopt(c, CURLOPT_HAPPY_EYEBALLS_TIMEOUT_MS, v[i]),
           (int)curl_easy_setopt(c, CURLOPT_IGNORE_CONTENT_LENGTH, v[i]),
           (int)curl_easy_setopt(c, CURLOPT_DISALLOW_USERNAME_IN_URL, v[i]),
           (int)curl_easy_setopt(c, CURLOPT_NEW_FILE_PERMS, v[i]));
  printf("fnmatch=%d data=%d unset=%d\n",
         (int)curl_easy_setopt(c, CURLOPT_FNMATCH_FUNCTION, match),
         (int)curl_easy_setopt(c, CURLOPT_FNMATCH_DATA, (void *)c),
         (int)curl_easy_setopt(c, CURLOPT_FNMATCH_FUNCTION, NULL));
  curl_easy_cleanup(c);
  return 0;
}
