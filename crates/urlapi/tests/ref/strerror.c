/* Prints curl_url_strerror() for every CURLUcode, and the result codes
 * for over-long inputs.
 *   R=~/.cache/oxcurl-reference
 *   gcc -o /tmp/strerror strerror.c -I$R/include -L$R/lib -lcurl
 *   LD_LIBRARY_PATH=$R/lib /tmp/strerror > ../strerror.tsv
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <curl/curl.h>

int main(void)
{
  int i;
  size_t n = 8000000;
  char *big = malloc(n + 2);
  CURLU *u = curl_url();
  for(i = 1; i < CURLUE_LAST; i++)
    printf("%d\t%s\n", i, curl_url_strerror((CURLUcode)i));
  memset(big, 'a', n + 1);
  memcpy(big, "http://h/", 9);
  big[n] = 0; /* exactly the limit */
  printf("len8000000\t%d\n", (int)curl_url_set(u, CURLUPART_URL, big, 0));
  big[n] = 'a';
  big[n + 1] = 0; /* one byte over */
  printf("len8000001\t%d\n", (int)curl_url_set(u, CURLUPART_URL, big, 0));
  printf("path8000001\t%d\n", (int)curl_url_set(u, CURLUPART_PATH, big, 0));
  curl_url_cleanup(u);
  free(big);
  return 0;
}
