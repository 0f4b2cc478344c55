/* The variadic half of libcurl's C ABI. Rust cannot define C variadic functions on stable,
 * so each one reads its single argument here, by the option number's range or the CURLINFO
 * type bits as curl.h defines them, and calls a typed function in Rust. Also the stdio
 * defaults (fwrite/fread to FILE *), which need the C library's stdout/stdin. No logic. */
#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/types.h>

typedef int CURLcode;
typedef int CURLMcode;

/* curl.h: CURLOPTTYPE_LONG 0, OBJECTPOINT 10000, FUNCTIONPOINT 20000, OFF_T 30000,
 * BLOB 40000. */
CURLcode oxcurl_easy_setopt_long(void *h, int opt, long v);
CURLcode oxcurl_easy_setopt_ptr(void *h, int opt, void *v);
CURLcode oxcurl_easy_setopt_off(void *h, int opt, int64_t v);
CURLcode oxcurl_easy_getinfo_ptr(void *h, int info, void *out);
CURLMcode oxcurl_multi_setopt_long(void *m, int opt, long v);
CURLMcode oxcurl_multi_setopt_ptr(void *m, int opt, void *v);
CURLMcode oxcurl_multi_setopt_off(void *m, int opt, int64_t v);

__attribute__((visibility("default")))
CURLcode curl_easy_setopt(void *h, int opt, ...)
{
  va_list ap;
  CURLcode rc;
  va_start(ap, opt);
  if(opt < 10000)
    rc = oxcurl_easy_setopt_long(h, opt, va_arg(ap, long));
  else if(opt < 20000)
    rc = oxcurl_easy_setopt_ptr(h, opt, va_arg(ap, void *));
  else if(opt < 30000)
    /* a function pointer; on every platform oxcurl targets it fits a data pointer */
    rc = oxcurl_easy_setopt_ptr(h, opt, (void *)va_arg(ap, void (*)(void)));
  else if(opt < 40000)
    rc = oxcurl_easy_setopt_off(h, opt, (int64_t)va_arg(ap, long long));
  else
    rc = oxcurl_easy_setopt_ptr(h, opt, va_arg(ap, void *));
  va_end(ap);
  return rc;
}

/* Every CURLINFO type (string, long, double, slist, socket, off_t) is returned through a
 * pointer; the Rust side reads the type bits. */
__attribute__((visibility("default")))
CURLcode curl_easy_getinfo(void *h, int info, ...)
{
  va_list ap;
  CURLcode rc;
  va_start(ap, info);
  rc = oxcurl_easy_getinfo_ptr(h, info, va_arg(ap, void *));
  va_end(ap);
  return rc;
}

/* multi.h: CURLMOPT numbers use the same type ranges. */
__attribute__((visibility("default")))
CURLMcode curl_multi_setopt(void *m, int opt, ...)
{
  va_list ap;
  CURLMcode rc;
  va_start(ap, opt);
  if(opt < 10000)
    rc = oxcurl_multi_setopt_long(m, opt, va_arg(ap, long));
  else if(opt < 20000)
    rc = oxcurl_multi_setopt_ptr(m, opt, va_arg(ap, void *));
  else if(opt < 30000)
    rc = oxcurl_multi_setopt_ptr(m, opt, (void *)va_arg(ap, void (*)(void)));
  else
    rc = oxcurl_multi_setopt_off(m, opt, (int64_t)va_arg(ap, long long));
  va_end(ap);
  return rc;
}

int oxcurl_share_setopt(void *sh, int opt, int n, void *v);

/* curl.h: CURLSHOPT_SHARE and UNSHARE take a curl_lock_data (an int), LOCKFUNC and
 * UNLOCKFUNC a function pointer, USERDATA a pointer; other numbers take nothing curl reads. */
__attribute__((visibility("default")))
int curl_share_setopt(void *sh, int opt, ...)
{
  va_list ap;
  int rc;
  va_start(ap, opt);
  if(opt == 1 || opt == 2)
    rc = oxcurl_share_setopt(sh, opt, va_arg(ap, int), NULL);
  else if(opt == 3 || opt == 4)
    rc = oxcurl_share_setopt(sh, opt, 0, (void *)va_arg(ap, void (*)(void)));
  else if(opt == 5)
    rc = oxcurl_share_setopt(sh, opt, 0, va_arg(ap, void *));
  else
    rc = oxcurl_share_setopt(sh, opt, 0, NULL);
  va_end(ap);
  return rc;
}

struct oxcurl_form_arg {
  int opt;
  void *p;
  long long n;
};
int oxcurl_formadd(void *first, void *last, const struct oxcurl_form_arg *args, size_t n);

/* curl.h's CURLformoption numbers: NAMELENGTH 3, CONTENTSLENGTH 6 and BUFFERLENGTH 13 take a
 * long, CONTENTLEN 20 a curl_off_t, END 17 ends the list; the other known ones take a pointer.
 * An unknown option ends the list too (curl stops reading there and fails). */
__attribute__((visibility("default")))
int curl_formadd(void *first, void *last, ...)
{
  va_list ap;
  struct oxcurl_form_arg *a = NULL, *grown;
  size_t n = 0, cap = 0;
  int rc, stop = 0;
  va_start(ap, last);
  while(!stop) {
    int opt = va_arg(ap, int);
    if(n == cap) {
      cap = cap ? cap * 2 : 16;
      grown = realloc(a, cap * sizeof(*a));
      if(!grown) {
        free(a);
        va_end(ap);
        return 1; /* CURL_FORMADD_MEMORY */
      }
      a = grown;
    }
    a[n].opt = opt;
    a[n].p = NULL;
    a[n].n = 0;
    switch(opt) {
    case 3: case 6: case 13:
      a[n].n = va_arg(ap, long);
      break;
    case 20:
      a[n].n = (long long)va_arg(ap, long long);
      break;
    case 1: case 2: case 4: case 5: case 7: case 8: case 10: case 11: case 12: case 14:
    case 15: case 16: case 19:
      a[n].p = va_arg(ap, void *);
      break;
    default:
      stop = 1;
      break;
    }
    n++;
  }
  va_end(ap);
  rc = oxcurl_formadd(first, last, a, n);
  free(a);
  return rc;
}

/* fread as a read callback: what reads a CURLFORM_STREAM part when the handle has no
 * CURLOPT_READFUNCTION, as in curl. */
size_t oxcurl_fread(char *p, size_t size, size_t n, void *file)
{
  return fread(p, size, n, file ? (FILE *)file : stdin);
}

/* curl's fseeko_wrapper: how a "-" (stdin) form file part is rewound. */
int oxcurl_stdin_seek(void *unused, int64_t offset, int whence)
{
  (void)unused;
  return fseeko(stdin, (off_t)offset, whence);
}

/* curl's defaults when no write/read callback is set: fwrite/fread on the FILE * given as
 * WRITEDATA/READDATA, or stdout/stdin. */
size_t oxcurl_default_write(const char *p, size_t n, void *file)
{
  return fwrite(p, 1, n, file ? (FILE *)file : stdout);
}

size_t oxcurl_default_read(char *p, size_t n, void *file)
{
  return fread(p, 1, n, file ? (FILE *)file : stdin);
}

/* curl's rewind of the default reader: fseek on READDATA (or stdin) to the start. */
int oxcurl_default_rewind(void *file)
{
  return fseek(file ? (FILE *)file : stdin, 0, SEEK_SET);
}

/* The default WRITEDATA (stdout) and READDATA (stdin). */
void *oxcurl_std_stream(int input)
{
  return input ? (void *)stdin : (void *)stdout;
}

void oxcurl_stderr_write(const char *p, size_t n)
{
  fwrite(p, 1, n, stderr);
}
