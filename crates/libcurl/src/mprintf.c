/* curl_mprintf and friends: curl's own printf (lib/mprintf.c), variadic, so in C. Each
 * conversion is parsed here, its argument fetched by type (all of them first, in argument
 * order, so positional "%2$s" works), and formatted on its own by the C library's snprintf
 * with the width and precision resolved. Where curl differs from the C library it is done
 * here: a NULL string prints "(nil)" (or nothing when the precision is too small for it),
 * "hh" is "h", and the sized functions return what was written, not what would have been. */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *oxcurl_app_malloc(size_t n);

#define MAX_ARGS 128
/* curl's buffer for one formatted number (lib/mprintf.c): longer output is cut */
#define BUFFSIZE 326

enum atype { A_NONE, A_INT, A_UINT, A_LONG, A_ULONG, A_LLONG, A_ULLONG, A_SIZE, A_DOUBLE,
             A_LDOUBLE, A_PTR, A_STR, A_INTPTR };

union aval {
  long long ll;
  unsigned long long ull;
  double d;
  long double ld;
  void *p;
};

/* One parsed conversion. */
struct conv {
  char flags[8];
  int width, widthArg;       /* widthArg: argument index or -1 */
  int prec, precArg;         /* prec -1: none */
  char len;                  /* 0, 'h', 'l', 'L' (ll), 'z', 'D' (long double) */
  char spec;
  int arg;                   /* argument index, -1 for %% */
};

struct out {
  char *buf;
  size_t len, cap;
  int failed;
};

static void put(struct out *o, const char *s, size_t n)
{
  if(o->failed)
    return;
  if(o->len + n + 1 > o->cap) {
    size_t cap = o->cap ? o->cap * 2 : 128;
    char *b;
    while(cap < o->len + n + 1)
      cap *= 2;
    b = realloc(o->buf, cap);
    if(!b) {
      o->failed = 1;
      return;
    }
    o->buf = b;
    o->cap = cap;
  }
  memcpy(o->buf + o->len, s, n);
  o->len += n;
  o->buf[o->len] = 0;
}

static int num(const char **p)
{
  int n = 0;
  while(**p >= '0' && **p <= '9') {
    if(n < 100000000)
      n = n * 10 + (**p - '0');
    (*p)++;
  }
  return n;
}

/* "%m$" / "*m$": the 1-based position, or 0 when there is none (p is left alone). */
static int position(const char **p)
{
  const char *q = *p;
  int n;
  if(*q < '1' || *q > '9')
    return 0;
  n = num(&q);
  if(*q != '$')
    return 0;
  *p = q + 1;
  return n;
}

static enum atype type_of(char spec, char len)
{
  switch(spec) {
  case 'd': case 'i':
    return len == 'l' ? A_LONG : len == 'L' ? A_LLONG : len == 'z' ? A_SIZE : A_INT;
  case 'u': case 'o': case 'x': case 'X':
    return len == 'l' ? A_ULONG : len == 'L' ? A_ULLONG : len == 'z' ? A_SIZE : A_UINT;
  case 'c':
    return A_INT;
  case 'f': case 'F': case 'e': case 'E': case 'g': case 'G': case 'a': case 'A':
    return len == 'D' ? A_LDOUBLE : A_DOUBLE;
  case 's':
    return A_STR;
  case 'p':
    return A_PTR;
  case 'n':
    return A_INTPTR;
  default:
    return A_NONE;
  }
}

static int format(struct out *o, const char *fmt, va_list ap)
{
  enum atype types[MAX_ARGS];
  union aval vals[MAX_ARGS];
  const char *p;
  int next = 0, nargs = 0, i, mixed = 0;
  memset(types, 0, sizeof(types));

  /* First pass: which argument has which type. */
  for(p = fmt; *p; p++) {
    struct conv c;
    int pos;
    if(*p != '%')
      continue;
    p++;
    if(*p == '%')
      continue;
    pos = position(&p);
    while(*p && strchr("#0- +'", *p))
      p++;
    if(*p == '*') {
      int wp;
      p++;
      wp = position(&p);
      mixed |= wp ? 1 : 2;
      wp = wp ? wp - 1 : next++;
      if(wp >= MAX_ARGS)
        return -1;
      types[wp] = A_INT;
      if(wp + 1 > nargs)
        nargs = wp + 1;
    }
    else
      num(&p);
    if(*p == '.') {
      p++;
      if(*p == '*') {
        int pp;
        p++;
        pp = position(&p);
        mixed |= pp ? 1 : 2;
        pp = pp ? pp - 1 : next++;
        if(pp >= MAX_ARGS)
          return -1;
        types[pp] = A_INT;
        if(pp + 1 > nargs)
          nargs = pp + 1;
      }
      else {
        if(*p == '-')
          p++;
        num(&p);
      }
    }
    c.len = 0;
    for(;; p++) {
      if(*p == 'h')
        c.len = c.len ? c.len : 'h';
      else if(*p == 'l' || *p == 'q')
        c.len = (c.len == 'l' || *p == 'q') ? 'L' : 'l';
      else if(*p == 'z')
        c.len = 'z';
      else if(*p == 'L')
        c.len = 'D';
      else
        break;
    }
    if(!*p)
      break;
    if(type_of(*p, c.len) == A_NONE)
      continue;
    mixed |= pos ? 1 : 2;
    pos = pos ? pos - 1 : next++;
    if(pos >= MAX_ARGS)
      return -1;
    types[pos] = type_of(*p, c.len);
    if(pos + 1 > nargs)
      nargs = pos + 1;
  }

  /* curl refuses positional and sequential arguments in one format */
  if(mixed == 3)
    return -1;

  /* The arguments, in order. */
  for(i = 0; i < nargs; i++) {
    switch(types[i]) {
    case A_INT: vals[i].ll = va_arg(ap, int); break;
    case A_UINT: vals[i].ull = va_arg(ap, unsigned int); break;
    case A_LONG: vals[i].ll = va_arg(ap, long); break;
    case A_ULONG: vals[i].ull = va_arg(ap, unsigned long); break;
    case A_LLONG: vals[i].ll = va_arg(ap, long long); break;
    case A_ULLONG: vals[i].ull = va_arg(ap, unsigned long long); break;
    case A_SIZE: vals[i].ull = va_arg(ap, size_t); break;
    case A_DOUBLE: vals[i].d = va_arg(ap, double); break;
    case A_LDOUBLE: vals[i].ld = va_arg(ap, long double); break;
    case A_PTR: case A_STR: case A_INTPTR: vals[i].p = va_arg(ap, void *); break;
    case A_NONE: return -1; /* a gap in the positions */
    }
  }

  /* Second pass: the output. */
  next = 0;
  for(p = fmt; *p;) {
    const char *start = p;
    char sub[64], tmp[64];
    char *piece = NULL;
    int flen = 0, pos, width = -1, prec = -1, n;
    char len = 0, spec;
    if(*p != '%') {
      while(*p && *p != '%')
        p++;
      put(o, start, (size_t)(p - start));
      continue;
    }
    p++;
    if(*p == '%') {
      put(o, "%", 1);
      p++;
      continue;
    }
    pos = position(&p);
    sub[flen++] = '%';
    while(*p && strchr("#0- +'", *p)) {
      if(flen < 10)
        sub[flen++] = *p;
      p++;
    }
    if(*p == '*') {
      int wp;
      p++;
      wp = position(&p);
      wp = wp ? wp - 1 : next++;
      width = (int)vals[wp].ll;
      if(width < 0) {
        sub[flen++] = '-';
        width = width == INT_MIN ? INT_MAX : -width;
      }
    }
    else if(*p >= '1' && *p <= '9')
      width = num(&p);
    if(*p == '.') {
      p++;
      if(*p == '*') {
        int pp;
        p++;
        pp = position(&p);
        pp = pp ? pp - 1 : next++;
        prec = (int)vals[pp].ll;
        if(prec < 0)
          prec = -1;
      }
      else {
        /* curl takes "%.-2f" too: a negative precision is none */
        int neg = *p == '-';
        if(neg)
          p++;
        prec = num(&p);
        if(neg)
          prec = -1;
      }
    }
    for(;; p++) {
      if(*p == 'h')
        len = len ? len : 'h';
      else if(*p == 'l' || *p == 'q')
        len = (len == 'l' || *p == 'q') ? 'L' : 'l';
      else if(*p == 'z')
        len = 'z';
      else if(*p == 'L')
        len = 'D';
      else
        break;
    }
    spec = *p;
    if(!spec) {
      put(o, start, strlen(start));
      break;
    }
    p++;
    if(type_of(spec, len) == A_NONE) {
      /* not a conversion curl knows: copied as it is */
      put(o, start, (size_t)(p - start));
      continue;
    }
    pos = pos ? pos - 1 : next++;
    if(type_of(spec, len) == A_DOUBLE || type_of(spec, len) == A_LDOUBLE) {
      /* curl's out_double: formatted into a buffer of BUFFSIZE bytes, the width and the
         precision cut down to fit it */
      double val = len == 'D' ? (double)vals[pos].ld : vals[pos].d;
      if(width >= BUFFSIZE)
        width = BUFFSIZE - 1;
      if(prec >= 0) {
        int maxprec = BUFFSIZE - 1;
        if(prec > maxprec)
          prec = maxprec - 1;
        if(width > 0 && prec <= width)
          maxprec -= width;
        while(val >= 10.0) {
          val /= 10;
          maxprec--;
        }
        if(prec > maxprec)
          prec = maxprec - 1;
        if(prec < 0)
          prec = 0;
      }
    }
    if(width >= 0)
      flen += snprintf(sub + flen, sizeof(sub) - (size_t)flen, "%d", width);
    if(prec >= 0)
      flen += snprintf(sub + flen, sizeof(sub) - (size_t)flen, ".%d", prec);
    switch(type_of(spec, len)) {
    case A_INT: case A_LONG: case A_LLONG: case A_SIZE:
      if(spec == 'c') {
        snprintf(sub + flen, sizeof(sub) - (size_t)flen, "c");
        n = snprintf(NULL, 0, sub, (int)vals[pos].ll);
        piece = malloc((size_t)n + 1);
        if(piece)
          snprintf(piece, (size_t)n + 1, sub, (int)vals[pos].ll);
        break;
      }
      /* fall through */
    case A_UINT: case A_ULONG: case A_ULLONG: {
      long long v = vals[pos].ll;
      /* curl reads 'h' (and "hh") arguments as the int they were promoted to */
      if((len == 0 || len == 'h') && (spec == 'd' || spec == 'i'))
        v = (int)v;
      else if(len == 0 || len == 'h')
        v = (unsigned int)v;
      else if(len == 'z' && (spec == 'd' || spec == 'i'))
        v = (long long)(ssize_t)(size_t)v;
      snprintf(sub + flen, sizeof(sub) - (size_t)flen, "ll%c", spec);
      n = snprintf(NULL, 0, sub, v);
      piece = malloc((size_t)n + 1);
      if(piece)
        snprintf(piece, (size_t)n + 1, sub, v);
      break;
    }
    case A_DOUBLE: case A_LDOUBLE: {
      /* curl pads floating point numbers with blanks only: drop a '0' flag */
      char *z;
      while((z = memchr(sub, '0', (size_t)flen)) && (z == sub + 1 || strchr("#-+ '0", z[-1]))) {
        memmove(z, z + 1, (size_t)(sub + flen - z - 1));
        flen--;
        sub[flen] = 0;
      }
      snprintf(sub + flen, sizeof(sub) - (size_t)flen, "%s%c",
               len == 'D' ? "L" : "", spec);
      piece = malloc(BUFFSIZE);
      if(piece) {
        if(len == 'D')
          snprintf(piece, BUFFSIZE, sub, vals[pos].ld);
        else
          snprintf(piece, BUFFSIZE, sub, vals[pos].d);
      }
      break;
    }
    case A_STR: {
      const char *s = vals[pos].p;
      if(!s)
        s = (prec == -1 || prec >= 5) ? "(nil)" : "";
      snprintf(sub + flen, sizeof(sub) - (size_t)flen, "s");
      n = snprintf(NULL, 0, sub, s);
      piece = malloc((size_t)n + 1);
      if(piece)
        snprintf(piece, (size_t)n + 1, sub, s);
      break;
    }
    case A_PTR:
      snprintf(sub + flen, sizeof(sub) - (size_t)flen, "p");
      n = snprintf(tmp, sizeof(tmp), sub, vals[pos].p);
      piece = malloc((size_t)n + 1);
      if(piece)
        snprintf(piece, (size_t)n + 1, sub, vals[pos].p);
      break;
    case A_INTPTR:
      if(vals[pos].p) {
        if(len == 'l')
          *(long *)vals[pos].p = (long)o->len;
        else if(len == 'L')
          *(long long *)vals[pos].p = (long long)o->len;
        else if(len == 'h')
          *(short *)vals[pos].p = (short)o->len;
        else if(len == 'z')
          *(size_t *)vals[pos].p = o->len;
        else
          *(int *)vals[pos].p = (int)o->len;
      }
      continue;
    case A_NONE:
      continue;
    }
    if(!piece)
      return -1;
    put(o, piece, strlen(piece));
    free(piece);
  }
  return o->failed ? -1 : (int)o->len;
}

/* The whole output in a malloc'd string (NULL on failure), its length in *n. */
static char *render(const char *fmt, va_list ap, int *n)
{
  struct out o = { NULL, 0, 0, 0 };
  *n = format(&o, fmt, ap);
  if(*n < 0 && !o.failed) {
    /* a format curl cannot parse prints nothing */
    o.len = 0;
    *n = 0;
  }
  if(*n < 0) {
    free(o.buf);
    return NULL;
  }
  if(o.buf)
    o.buf[o.len] = 0;
  if(!o.buf)
    o.buf = calloc(1, 1);
  return o.buf;
}

__attribute__((visibility("default")))
int curl_mvsnprintf(char *buffer, size_t maxlength, const char *format, va_list ap)
{
  int n;
  size_t w;
  char *s = render(format, ap, &n);
  if(!s)
    return -1;
  if(!maxlength) {
    free(s);
    return 0;
  }
  w = (size_t)n < maxlength - 1 ? (size_t)n : maxlength - 1;
  memcpy(buffer, s, w);
  buffer[w] = 0;
  free(s);
  return (int)w;
}

__attribute__((visibility("default")))
int curl_msnprintf(char *buffer, size_t maxlength, const char *format, ...)
{
  va_list ap;
  int rc;
  va_start(ap, format);
  rc = curl_mvsnprintf(buffer, maxlength, format, ap);
  va_end(ap);
  return rc;
}

__attribute__((visibility("default")))
int curl_mvsprintf(char *buffer, const char *format, va_list ap)
{
  int n;
  char *s = render(format, ap, &n);
  if(!s)
    return -1;
  memcpy(buffer, s, (size_t)n + 1);
  free(s);
  return n;
}

__attribute__((visibility("default")))
int curl_msprintf(char *buffer, const char *format, ...)
{
  va_list ap;
  int rc;
  va_start(ap, format);
  rc = curl_mvsprintf(buffer, format, ap);
  va_end(ap);
  return rc;
}

__attribute__((visibility("default")))
int curl_mvfprintf(FILE *fd, const char *format, va_list ap)
{
  int n;
  char *s = render(format, ap, &n);
  if(!s)
    return -1;
  if(n && fwrite(s, 1, (size_t)n, fd) != (size_t)n)
    n = -1;
  free(s);
  return n;
}

__attribute__((visibility("default")))
int curl_mfprintf(FILE *fd, const char *format, ...)
{
  va_list ap;
  int rc;
  va_start(ap, format);
  rc = curl_mvfprintf(fd, format, ap);
  va_end(ap);
  return rc;
}

__attribute__((visibility("default")))
int curl_mvprintf(const char *format, va_list ap)
{
  return curl_mvfprintf(stdout, format, ap);
}

__attribute__((visibility("default")))
int curl_mprintf(const char *format, ...)
{
  va_list ap;
  int rc;
  va_start(ap, format);
  rc = curl_mvfprintf(stdout, format, ap);
  va_end(ap);
  return rc;
}

/* Memory from the application's allocator (curl_global_init_mem), freed with curl_free. */
__attribute__((visibility("default")))
char *curl_mvaprintf(const char *format, va_list ap)
{
  int n;
  char *r;
  char *s = render(format, ap, &n);
  if(!s)
    return NULL;
  r = oxcurl_app_malloc((size_t)n + 1);
  if(r)
    memcpy(r, s, (size_t)n + 1);
  free(s);
  return r;
}

__attribute__((visibility("default")))
char *curl_maprintf(const char *format, ...)
{
  va_list ap;
  char *r;
  va_start(ap, format);
  r = curl_mvaprintf(format, ap);
  va_end(ap);
  return r;
}
