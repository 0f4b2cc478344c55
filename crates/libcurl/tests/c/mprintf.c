/* curl's printf family: a table of formats printed through every entry point; the output is
 * compared between libraries. */
#include <curl/curl.h>
#include <curl/mprintf.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROW(...) do { \
    char b_[256]; \
    int n_ = curl_msnprintf(b_, sizeof(b_), __VA_ARGS__); \
    printf("%-28s|%s| %d\n", #__VA_ARGS__, b_, n_); \
  } while(0)

static int vsn(char *buf, size_t max, const char *fmt, ...)
{
  va_list ap;
  int rc;
  va_start(ap, fmt);
  rc = curl_mvsnprintf(buf, max, fmt, ap);
  va_end(ap);
  return rc;
}

static char *va(const char *fmt, ...)
{
  va_list ap;
  char *r;
  va_start(ap, fmt);
  r = curl_mvaprintf(fmt, ap);
  va_end(ap);
  return r;
}

static int vp(const char *fmt, ...)
{
  va_list ap;
  int rc;
  va_start(ap, fmt);
  rc = curl_mvprintf(fmt, ap);
  va_end(ap);
  return rc;
}

static int vf(FILE *f, const char *fmt, ...)
{
  va_list ap;
  int rc;
  va_start(ap, fmt);
  rc = curl_mvfprintf(f, fmt, ap);
  va_end(ap);
  return rc;
}

static int vs(char *buf, const char *fmt, ...)
{
  va_list ap;
  int rc;
  va_start(ap, fmt);
  rc = curl_mvsprintf(buf, fmt, ap);
  va_end(ap);
  return rc;
}

int main(void)
{
  char buf[64], *s;
  int n, i;
  curl_off_t off = (curl_off_t)1 << 40;
  const char *negprec = "%.-2f";
  volatile int minw = INT_MIN;
  /* not constants, so the compiler's format checks leave them alone */
  const char *nil = getenv("OXCURL_UNSET_VARIABLE");
  const char *empty = nil ? nil : "";
  /* formats curl refuses (a gap in the positions, positional mixed with sequential) */
  const char *gap = nil ? nil : "%3$s %1$s";
  const char *mix = nil ? nil : "%1$d %d";
  ROW("%d|%i|%u", 42, -42, 42u);
  ROW("%x|%X|%o|%#x|%#o", 255u, 255u, 8u, 255u, 8u);
  ROW("%5d|%-5d|%05d|%+d|% d", 42, 42, 42, 42, 42);
  ROW("%.3d|%8.3d|%-8.3d|%.0d", 7, 7, 7, 0);
  ROW("%*d|%-*d|%.*d", 6, 1, 6, 2, 4, 3);
  ROW("%*d", -6, 9);
  ROW("%ld|%lu|%lx", -1234567890123L, 1234567890123UL, 0xdeadbeefUL);
  ROW("%lld|%llu|%qd", -9000000000000LL, 18000000000000ULL, 5LL);
  ROW("%zu|%zd|%zx", (size_t)12345, (size_t)-3, (size_t)255);
  ROW("%hd|%hu", 70000, 70000);
  ROW("%hhd|%hhu", 300, 300);
  ROW("%" CURL_FORMAT_CURL_OFF_T "|%" CURL_FORMAT_CURL_OFF_TU, off, off);
  ROW("%c|%3c|%-3c|", 'a', 'b', 'c');
  ROW("%s|%10s|%-10s|%.2s", "abc", "abc", "abc", "abc");
  ROW("%s|%.3s|%.5s|%8s", nil, nil, nil, nil);
  ROW("%p|%p", (void *)0x1234, (void *)NULL);
  ROW("%f|%.2f|%10.3f|%-10.1f|", 3.14159, 3.14159, -2.5, 2.25);
  ROW("%e|%.2E|%g|%G", 12345.678, 0.000123, 0.0001, 1e20);
  ROW("%g|%g|%.3g|%#g", 100000.0, 1000000.0, 3.14159, 1.0);
  ROW("%+.1f|% .1f|%08.2f", 1.25, 1.25, -3.5);
  /* curl cuts one number to 325 bytes; a negative literal precision is none */
  ROW("%1000.1000f", 0.1);
  ROW("%.*f", 1 << 30, 9.2987654);
  ROW("%*f", (int)minw, 9.1);
  ROW("%240.10000f", 123456789123456789123456789.2987654);
  ROW(negprec, 9.1);
  ROW("%%|100%%|");
  ROW("%2$s %1$s", "world", "hello");
  ROW("%1$d %1$x %2$s", 255, "again");
  ROW("%2$*1$d|", 6, 42);
  ROW("%2$.*1$f|", 2, 1.5);
  ROW(gap, "a", "b", "c");
  ROW(mix, 1, 2);
  ROW("%d %s %d", 1, "two", 3);
  ROW("no conversions");
  ROW(empty, 0);

  memset(buf, 'x', sizeof(buf));
  n = curl_msnprintf(buf, 5, "%s", "hello world");
  printf("truncated: |%s| %d\n", buf, n);
  n = curl_msnprintf(buf, 6, "%s", "hello");
  printf("exact: |%s| %d\n", buf, n);
  n = curl_msnprintf(buf, 1, "%s", "hello");
  printf("one: |%s| %d\n", buf, n);
  n = vsn(buf, sizeof(buf), "%s-%d", "v", 7);
  printf("mvsnprintf: |%s| %d\n", buf, n);
  n = curl_msprintf(buf, "%05.1f", 2.5);
  printf("msprintf: |%s| %d\n", buf, n);
  n = vs(buf, "%x", 48879u);
  printf("mvsprintf: |%s| %d\n", buf, n);
  s = curl_maprintf("%s=%d", "answer", 42);
  printf("maprintf: |%s|\n", s);
  curl_free(s);
  s = va("%s", "");
  printf("mvaprintf empty: |%s|\n", s);
  curl_free(s);
  s = curl_maprintf("%0100d", 1);
  printf("maprintf long: %d\n", (int)strlen(s));
  curl_free(s);
  fflush(stdout);
  n = curl_mprintf("mprintf %s %d\n", "ok", 1);
  n += vp("mvprintf %s\n", "ok");
  n += curl_mfprintf(stdout, "mfprintf %c\n", 'z');
  n += vf(stdout, "mvfprintf %u\n", 5u);
  fflush(stdout);
  printf("stream total: %d\n", n);
  for(i = 0; i < 3; i++)
    ROW("%d:%s", i, i ? "x" : "y");
  return 0;
}
