/* What libcurl says of schemes: curl_version_info's protocol list, and for each scheme named
   on the command line what CURLOPT_PROTOCOLS_STR answers and the default port the URL API
   gives; then CURLINFO_PROTOCOL and CURLINFO_SCHEME after a transfer of argv[1]. */
/* CURLINFO_PROTOCOL is deprecated, and read here. */
#define CURL_DISABLE_DEPRECATION
#include <curl/curl.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
  curl_version_info_data *d = curl_version_info(CURLVERSION_NOW);
  const char *const *p;
  CURL *h;
  CURLcode rc;
  long proto = 0;
  char *scheme = NULL;
  int i;
  if(!d || argc < 2)
    return 2;
  for(p = d->protocols; *p; p++)
    printf("listed %s\n", *p);
  h = curl_easy_init();
  if(!h)
    return 2;
  for(i = 2; i < argc; i++) {
    char url[64];
    char *port = NULL;
    CURLU *u = curl_url();
    CURLUcode uc;
    printf("protocols_str %s %d\n", argv[i],
           (int)curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, argv[i]));
    snprintf(url, sizeof(url), "%s://host/", argv[i]);
    uc = curl_url_set(u, CURLUPART_URL, url, 0);
    if(!uc)
      uc = curl_url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT);
    printf("default_port %s %d %s\n", argv[i], (int)uc, port ? port : "-");
    curl_free(port);
    curl_url_cleanup(u);
  }
  curl_easy_reset(h);
  curl_easy_setopt(h, CURLOPT_URL, argv[1]);
  curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
  rc = curl_easy_perform(h);
  curl_easy_getinfo(h, CURLINFO_PROTOCOL, &proto);
  curl_easy_getinfo(h, CURLINFO_SCHEME, &scheme);
  printf("perform %d protocol %ld scheme %s\n", (int)rc, proto, scheme ? scheme : "(null)");
  curl_easy_cleanup(h);
  return 0;
}
