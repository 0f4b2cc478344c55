/*
 * Reference generator: runs the real libcurl URL API over a list of cases
 * and prints what it answers, so the Rust tests can compare against it.
 *
 * Build and regenerate (from crates/urlapi/tests/ref):
 *   R=~/.cache/oxcurl-reference
 *   gcc -O1 -o /tmp/urlref urlref.c -I$R/include -L$R/lib -lcurl
 *   LD_LIBRARY_PATH=$R/lib /tmp/urlref < inputs.txt > ../cases.tsv
 *
 * Input lines (fields separated by TAB, bytes escaped as \xHH, \\ and \t):
 *   P <setflags-hex> <getflags-hex> <url>
 *       set URL then get every part and the whole URL with getflags
 *   J <setflags-hex> <getflags-hex> <base> <rel>
 *       set URL base, then set URL rel on the same handle, get every part
 *   S <setflags-hex> <getflags-hex> <url> <part-number> <value|\N>
 *       set URL (flags 0 | NON_SUPPORT_SCHEME), then set one part, get all
 * Output: the input fields, then the set result code, then for each of
 * scheme user password options host zoneid port path query fragment url
 * either "=value" or "!code".  Lines starting with '#' are copied.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <locale.h>
#include <curl/curl.h>

static size_t unescape(const char *in, char *out)
{
  size_t n = 0;
  while(*in) {
    if(*in == '\\' && in[1] == 'x' && in[2] && in[3]) {
      char h[3] = {in[2], in[3], 0};
      out[n++] = (char)strtoul(h, NULL, 16);
      in += 4;
    }
    else if(*in == '\\' && in[1] == 't') {
      out[n++] = '\t';
      in += 2;
    }
    else if(*in == '\\' && in[1] == '\\') {
      out[n++] = '\\';
      in += 2;
    }
    else
      out[n++] = *in++;
  }
  out[n] = 0;
  return n;
}

static void pesc(const char *s)
{
  const unsigned char *p = (const unsigned char *)s;
  for(; *p; p++) {
    if(*p == '\\')
      fputs("\\\\", stdout);
    else if(*p < 0x20 || *p >= 0x7f)
      printf("\\x%02x", *p);
    else
      putchar(*p);
  }
}

static const CURLUPart parts[] = {
  CURLUPART_SCHEME, CURLUPART_USER, CURLUPART_PASSWORD, CURLUPART_OPTIONS,
  CURLUPART_HOST, CURLUPART_ZONEID, CURLUPART_PORT, CURLUPART_PATH,
  CURLUPART_QUERY, CURLUPART_FRAGMENT, CURLUPART_URL
};

static void dump(CURLU *u, unsigned int gflags)
{
  size_t i;
  for(i = 0; i < sizeof(parts)/sizeof(parts[0]); i++) {
    char *v = NULL;
    CURLUcode rc = curl_url_get(u, parts[i], &v, gflags);
    putchar('\t');
    if(rc)
      printf("!%d", (int)rc);
    else {
      /* an empty part with CURLU_URLENCODE comes back as OK with a NULL
         pointer; that is written as an empty value */
      putchar('=');
      if(v)
        pesc(v);
    }
    curl_free(v);
  }
}

int main(void)
{
  static char line[20000000];
  static char a[9000000], b[9000000], c[100000];
  /* IDN conversions in libcurl depend on the locale, as in the curl tool */
  setlocale(LC_ALL, "C.UTF-8");
  while(fgets(line, sizeof(line), stdin)) {
    char *f[8];
    int nf = 0;
    char *p = line;
    size_t l = strlen(line);
    if(l && line[l - 1] == '\n')
      line[--l] = 0;
    if(!l)
      continue;
    if(line[0] == '#') {
      puts(line);
      continue;
    }
    f[nf++] = p;
    while((p = strchr(p, '\t')) && nf < 8) {
      *p++ = 0;
      f[nf++] = p;
    }
    {
      unsigned int sflags = (unsigned int)strtoul(f[1], NULL, 16);
      unsigned int gflags = (unsigned int)strtoul(f[2], NULL, 16);
      CURLU *u = curl_url();
      CURLUcode rc;
      int i;
      unescape(f[3], a);
      if(f[0][0] == 'P')
        rc = curl_url_set(u, CURLUPART_URL, a, sflags);
      else if(f[0][0] == 'J') {
        unescape(f[4], b);
        rc = curl_url_set(u, CURLUPART_URL, a, sflags);
        if(!rc)
          rc = curl_url_set(u, CURLUPART_URL, b, sflags);
        else
          rc = 1000 + rc;
      }
      else {
        int part = atoi(f[4]);
        rc = curl_url_set(u, CURLUPART_URL, a, CURLU_NON_SUPPORT_SCHEME);
        if(!rc) {
          if(!strcmp(f[5], "\\N"))
            rc = curl_url_set(u, (CURLUPart)part, NULL, sflags);
          else {
            unescape(f[5], c);
            rc = curl_url_set(u, (CURLUPart)part, c, sflags);
          }
        }
        else
          rc = 1000 + rc;
      }
      for(i = 0; i < nf; i++) {
        if(i)
          putchar('\t');
        fputs(f[i], stdout);
      }
      printf("\t%d", (int)rc);
      dump(u, gflags);
      putchar('\n');
      curl_url_cleanup(u);
    }
  }
  return 0;
}
