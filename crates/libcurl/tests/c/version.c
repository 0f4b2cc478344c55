/* curl_version_info sanity: the age, version and protocols an application checks. */
#include <curl/curl.h>
#include <stdio.h>
#include <string.h>

int main(void)
{
  curl_version_info_data *d = curl_version_info(CURLVERSION_NOW);
  const char *const *p;
  int http = 0, https = 0, i;
  if(!d)
    return 2;
  printf("age=%d version=%s num=%x\n", (int)d->age, d->version, d->version_num);
  for(p = d->protocols; *p; p++) {
    http |= !strcmp(*p, "http");
    https |= !strcmp(*p, "https");
  }
  printf("http=%d https=%d ssl=%d ssl_version_set=%d\n", http, https,
         !!(d->features & CURL_VERSION_SSL), d->ssl_version && *d->ssl_version);
  for(i = 0; d->feature_names[i]; i++)
    ;
  printf("feature_names=%d version_prefix=%d\n", i > 0,
         !strncmp(curl_version(), "libcurl/8.14.1", 14));
  return 0;
}
