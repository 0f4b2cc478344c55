/* Transfers configured by option name, for options that need no callback. Usage:
 *   setopts ARG...
 * where each ARG is "verifyresult" (later performs also print CURLINFO_PROXY_SSL_VERIFYRESULT),
 * NAME=VALUE (set with the type curl_easy_option_by_name reports: longs,
 * curl_off_t and strings from the text, slists as '|'-separated items, "NULL" for a NULL
 * string or list) or "perform". Each perform prints the body as the write callback got it,
 * then the result code, error text and the getinfo values the proxy options change. */
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXLISTS 32

static size_t on_write(char *p, size_t size, size_t n, void *ud)
{
  (void)ud;
  fwrite(p, size, n, stdout);
  return size * n;
}

int main(int argc, char **argv)
{
  struct curl_slist *lists[MAXLISTS];
  int nlists = 0, i, verifyresult = 0;
  char err[CURL_ERROR_SIZE];
  CURL *h;

  curl_global_init(CURL_GLOBAL_DEFAULT);
  h = curl_easy_init();
  curl_easy_setopt(h, CURLOPT_ERRORBUFFER, err);
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_write);
  for(i = 1; i < argc; i++) {
    char *arg = argv[i];
    char *eq = strchr(arg, '=');
    if(!strcmp(arg, "verifyresult"))
      verifyresult = 1;
    else if(!strcmp(arg, "perform")) {
      long code = -1, connectcode = -1, used = -1, pavail = -1, havail = -1, verify = -1;
      CURLcode rc;
      err[0] = 0;
      rc = curl_easy_perform(h);
      curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
      curl_easy_getinfo(h, CURLINFO_HTTP_CONNECTCODE, &connectcode);
      curl_easy_getinfo(h, CURLINFO_USED_PROXY, &used);
      curl_easy_getinfo(h, CURLINFO_PROXYAUTH_AVAIL, &pavail);
      curl_easy_getinfo(h, CURLINFO_HTTPAUTH_AVAIL, &havail);
      curl_easy_getinfo(h, CURLINFO_PROXY_SSL_VERIFYRESULT, &verify);
      printf("\nrc=%d err=[%s] code=%ld connectcode=%ld used_proxy=%ld proxyauth_avail=%ld "
             "httpauth_avail=%ld", (int)rc, err, code, connectcode, used, pavail, havail);
      if(verifyresult)
        printf(" proxy_verify=%ld", verify);
      printf("\n");
      fflush(stdout);
    }
    else if(eq) {
      const struct curl_easyoption *o;
      const char *v = eq + 1;
      CURLcode rc = CURLE_UNKNOWN_OPTION;
      *eq = 0;
      o = curl_easy_option_by_name(arg);
      if(o) {
        switch(o->type) {
        case CURLOT_LONG:
        case CURLOT_VALUES:
          rc = curl_easy_setopt(h, o->id, strtol(v, NULL, 0));
          break;
        case CURLOT_OFF_T:
          rc = curl_easy_setopt(h, o->id, (curl_off_t)strtoll(v, NULL, 0));
          break;
        case CURLOT_STRING:
          rc = curl_easy_setopt(h, o->id, strcmp(v, "NULL") ? v : NULL);
          break;
        case CURLOT_SLIST: {
          struct curl_slist *l = NULL;
          if(strcmp(v, "NULL")) {
            char *copy = strdup(v), *item, *save = NULL;
            for(item = strtok_r(copy, "|", &save); item; item = strtok_r(NULL, "|", &save))
              l = curl_slist_append(l, item);
            free(copy);
          }
          if(nlists < MAXLISTS)
            lists[nlists++] = l;
          rc = curl_easy_setopt(h, o->id, l);
          break;
        }
        default:
          break;
        }
      }
      if(rc)
        printf("setopt %s=%s -> %d\n", arg, v, (int)rc);
    }
  }
  curl_easy_cleanup(h);
  while(nlists)
    curl_slist_free_all(lists[--nlists]);
  curl_global_cleanup();
  return 0;
}
