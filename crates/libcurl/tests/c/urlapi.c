/* URL API round trips: parse, get every part with each get flag, resolve redirects, set
 * parts, append queries, dup, and every CURLUcode text. Both libraries must print the same. */
#include <curl/curl.h>
#include <stdio.h>

static const char *urls[] = {
  "http://user:pw@Example.COM:8080/a/../b/./c?q=1&r#frag",
  "https://[::1%25eth0]/p%20q?x=%41",
  "example.com/path",
  "ftp.example.com",
  "HTTP://h/%7euser/a b",
  "http://h:99999/",
  "file:///etc/hosts",
  "foo://bar/baz",
  "http://h/?",
  "http://xn--rksmrgs-5wao1o.se/",
  "",
  "http://h/a b?q r=s t&u v#f g",
  "http://h/p%20 q?a+b c%20d# x",
  "http://h/ ?&= #",
  /* last: only with the "idn" argument (the reference build may lack IDN support) */
  "http://räksmörgås.se/",
};
static const unsigned setflags[] = {
  0, CURLU_DEFAULT_SCHEME, CURLU_GUESS_SCHEME, CURLU_NON_SUPPORT_SCHEME,
  CURLU_PATH_AS_IS | CURLU_ALLOW_SPACE, CURLU_DISALLOW_USER, CURLU_URLENCODE
};
static const unsigned getflags[] = {
  0, CURLU_DEFAULT_PORT, CURLU_NO_DEFAULT_PORT, CURLU_URLDECODE, CURLU_URLENCODE,
  CURLU_PUNYCODE, CURLU_PUNY2IDN, CURLU_GET_EMPTY, CURLU_NO_GUESS_SCHEME
};
static const char *redirects[] = {
  "../x", "/abs?q", "//other/p", "?only", "#f", "https://else/", "", "sub/../y",
  "a b?c d#e f", "?q r"
};
/* parts set one at a time, with and without CURLU_ALLOW_SPACE and CURLU_URLENCODE */
static const char *spaced[] = { "q r", "a=b c&d e=f", " ", "x%20y z", "=a b" };
static const unsigned partflags[] = {
  0, CURLU_ALLOW_SPACE, CURLU_URLENCODE, CURLU_ALLOW_SPACE | CURLU_URLENCODE,
  CURLU_ALLOW_SPACE | CURLU_APPENDQUERY, CURLU_ALLOW_SPACE | CURLU_URLENCODE | CURLU_APPENDQUERY
};
static const CURLUPart spacedparts[] = { CURLUPART_QUERY, CURLUPART_PATH, CURLUPART_FRAGMENT };

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void dump(CURLU *u, const char *tag)
{
  unsigned g;
  int part;
  for(part = CURLUPART_URL; part <= CURLUPART_ZONEID + 1; part++) {
    for(g = 0; g < N(getflags); g++) {
      char *s = NULL;
      CURLUcode rc = curl_url_get(u, (CURLUPart)part, &s, getflags[g]);
      printf("%s part=%d get=%x rc=%d [%s]\n", tag, part, getflags[g], (int)rc, s ? s : "(null)");
      curl_free(s);
    }
  }
}

int main(int argc, char **argv)
{
  unsigned i, f, r, nurls = N(urls) - (argc > 1 ? 0 : 1);
  char tag[64];
  CURLU *u, *d;
  char *s = NULL;
  for(i = 0; i < nurls; i++) {
    for(f = 0; f < N(setflags); f++) {
      CURLUcode rc;
      u = curl_url();
      rc = curl_url_set(u, CURLUPART_URL, urls[i], setflags[f]);
      snprintf(tag, sizeof(tag), "u%u f%x set=%d", i, setflags[f], (int)rc);
      if(f == 0 || !rc)
        dump(u, tag);
      curl_url_cleanup(u);
    }
  }
  for(r = 0; r < N(redirects); r++) {
    for(f = 0; f < 2; f++) {
      u = curl_url();
      curl_url_set(u, CURLUPART_URL, urls[0], 0);
      printf("redir %u/%u rc=%d\n", r, f,
             (int)curl_url_set(u, CURLUPART_URL, redirects[r], f ? CURLU_ALLOW_SPACE : 0));
      curl_url_get(u, CURLUPART_URL, &s, 0);
      printf("redir %u/%u [%s]\n", r, f, s ? s : "(null)");
      curl_free(s);
      s = NULL;
      curl_url_cleanup(u);
    }
  }
  for(i = 0; i < N(spaced); i++) {
    unsigned p;
    for(p = 0; p < N(spacedparts); p++) {
      for(f = 0; f < N(partflags); f++) {
        CURLUcode rc;
        u = curl_url();
        curl_url_set(u, CURLUPART_URL, "http://h/x?k=v#f", 0);
        rc = curl_url_set(u, spacedparts[p], spaced[i], partflags[f]);
        snprintf(tag, sizeof(tag), "s%u p%d f%x set=%d", i, (int)spacedparts[p],
                 partflags[f], (int)rc);
        dump(u, tag);
        curl_url_cleanup(u);
      }
    }
  }
  u = curl_url();
  printf("set scheme %d\n", (int)curl_url_set(u, CURLUPART_SCHEME, "https", 0));
  printf("set host %d\n", (int)curl_url_set(u, CURLUPART_HOST, "example.org", 0));
  printf("set port %d\n", (int)curl_url_set(u, CURLUPART_PORT, "70000", 0));
  printf("set port %d\n", (int)curl_url_set(u, CURLUPART_PORT, "8443", 0));
  printf("set path %d\n", (int)curl_url_set(u, CURLUPART_PATH, "a b/c", CURLU_URLENCODE));
  printf("append %d\n", (int)curl_url_set(u, CURLUPART_QUERY, "k=v w", CURLU_APPENDQUERY | CURLU_URLENCODE));
  printf("append %d\n", (int)curl_url_set(u, CURLUPART_QUERY, "z=1", CURLU_APPENDQUERY));
  printf("set user %d\n", (int)curl_url_set(u, CURLUPART_USER, "me", 0));
  printf("clear user %d\n", (int)curl_url_set(u, CURLUPART_USER, NULL, 0));
  printf("bad part %d\n", (int)curl_url_set(u, (CURLUPart)42, "x", 0));
  d = curl_url_dup(u);
  curl_url_cleanup(u);
  dump(d, "built");
  printf("null handle get %d set %d\n", (int)curl_url_get(NULL, CURLUPART_URL, &s, 0),
         (int)curl_url_set(NULL, CURLUPART_URL, "x", 0));
  printf("null out %d\n", (int)curl_url_get(d, CURLUPART_URL, NULL, 0));
  curl_url_cleanup(d);
  for(i = 0; i <= CURLUE_LAST + 1; i++)
    printf("U%u %s\n", i, curl_url_strerror((CURLUcode)i));
  return 0;
}
