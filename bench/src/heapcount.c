/* heapcount.so: LD_PRELOAD heap accounting for one process, C or Rust (System allocator).
 *
 *   LD_PRELOAD=heapcount.so HEAPCOUNT_OUT=FILE prog args...
 *
 * At exit, appends one line to FILE (stderr without it):
 *   pid=N allocs=N own_allocs=N peak=N own_peak=N bytes=N
 * allocs: successful malloc/calloc/memalign-family calls plus reallocs that returned a block
 * (valgrind's "total heap usage" rule); peak: the most requested bytes live at once;
 * own_*: the same for calls made from the program's own code: the main executable and every
 * shared object whose file name contains one of the comma-separated HEAPCOUNT_OWN fragments
 * (default "libcurl"). For a statically linked Rust program "own" is all of its code; for curl
 * it is the curl tool and libcurl, not OpenSSL, nghttp2 or libc.
 *
 * Each block carries a 16-byte prefix (size, offset to the real block, owner flag), so free()
 * needs no table. The real allocator is glibc's __libc_* entry points (no dlsym recursion). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);
extern void *__libc_memalign(size_t, size_t);

struct pre { uint64_t size; uint32_t back; uint32_t tag; };
#define PRE 16u
#define TAG 0x4eaf0000u /* | 1 when the block is "own" */

static int64_t n_allocs, n_own, live, peak, own_live, own_peak, total;

#define MAXR 64
static uintptr_t lo[MAXR], hi[MAXR];
static int nr;
static const char *own_list = "libcurl";

static int wanted(const char *path) {
  if (!path || !*path) return 1; /* the main program */
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  const char *p = own_list;
  while (*p) {
    const char *end = strchr(p, ',');
    size_t n = end ? (size_t)(end - p) : strlen(p);
    if (n && memmem(base, strlen(base), p, n)) return 1;
    p += n + (end ? 1 : 0);
  }
  return 0;
}

static int add_ranges(struct dl_phdr_info *info, size_t sz, void *unused) {
  (void)sz; (void)unused;
  if (!wanted(info->dlpi_name)) return 0;
  for (int i = 0; i < info->dlpi_phnum && nr < MAXR; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
      lo[nr] = info->dlpi_addr + ph->p_vaddr;
      hi[nr] = lo[nr] + ph->p_memsz;
      nr++;
    }
  }
  return 0;
}

__attribute__((constructor)) static void init(void) {
  const char *o = getenv("HEAPCOUNT_OWN");
  if (o) own_list = o;
  dl_iterate_phdr(add_ranges, NULL);
}

static int is_own(uintptr_t pc) {
  for (int i = 0; i < nr; i++)
    if (pc >= lo[i] && pc < hi[i]) return 1;
  return 0;
}

static void raise_max(int64_t *max, int64_t v) {
  int64_t m = __atomic_load_n(max, __ATOMIC_RELAXED);
  while (v > m && !__atomic_compare_exchange_n(max, &m, v, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {}
}

static void *tag(void *raw, size_t back, size_t size, uintptr_t pc) {
  int own = is_own(pc);
  struct pre *h = (struct pre *)((char *)raw + back - PRE);
  h->size = size; h->back = (uint32_t)back; h->tag = TAG | (uint32_t)own;
  __atomic_add_fetch(&n_allocs, 1, __ATOMIC_RELAXED);
  __atomic_add_fetch(&total, (int64_t)size, __ATOMIC_RELAXED);
  raise_max(&peak, __atomic_add_fetch(&live, (int64_t)size, __ATOMIC_RELAXED));
  if (own) {
    __atomic_add_fetch(&n_own, 1, __ATOMIC_RELAXED);
    raise_max(&own_peak, __atomic_add_fetch(&own_live, (int64_t)size, __ATOMIC_RELAXED));
  }
  return (char *)raw + back;
}

static struct pre *pre_of(void *p) { return (struct pre *)((char *)p - PRE); }

static void untag(struct pre *h) {
  __atomic_sub_fetch(&live, (int64_t)h->size, __ATOMIC_RELAXED);
  if (h->tag & 1) __atomic_sub_fetch(&own_live, (int64_t)h->size, __ATOMIC_RELAXED);
  h->tag = 0;
}

static void *get(size_t size, uintptr_t pc) {
  if (size > SIZE_MAX - PRE) { errno = ENOMEM; return NULL; }
  void *raw = __libc_malloc(size + PRE);
  return raw ? tag(raw, PRE, size, pc) : NULL;
}

static void *get_aligned(size_t align, size_t size, uintptr_t pc) {
  if (align <= PRE) return get(size, pc);
  if (size > SIZE_MAX - align) { errno = ENOMEM; return NULL; }
  void *raw = __libc_memalign(align, size + align);
  return raw ? tag(raw, align, size, pc) : NULL;
}

static void put(void *p) {
  if (!p) return;
  struct pre *h = pre_of(p);
  if ((h->tag & ~1u) != TAG) return; /* not ours: leak rather than corrupt */
  untag(h);
  __libc_free((char *)p - h->back);
}

#define CALLER ((uintptr_t)__builtin_return_address(0))

void *malloc(size_t n) { return get(n, CALLER); }
void free(void *p) { put(p); }
void cfree(void *p) { put(p); }

void *calloc(size_t n, size_t m) {
  size_t size;
  if (__builtin_mul_overflow(n, m, &size) || size > SIZE_MAX - PRE) { errno = ENOMEM; return NULL; }
  void *raw = __libc_calloc(1, size + PRE);
  return raw ? tag(raw, PRE, size, CALLER) : NULL;
}

static void *reget(void *p, size_t size, uintptr_t pc) {
  if (!p) return get(size, pc);
  if (size == 0) { put(p); return NULL; }
  struct pre *h = pre_of(p);
  if ((h->tag & ~1u) != TAG) { errno = ENOMEM; return NULL; }
  if (h->back != PRE) { /* an aligned block: move it */
    void *q = get(size, pc);
    if (q) { memcpy(q, p, h->size < size ? h->size : size); put(p); }
    return q;
  }
  if (size > SIZE_MAX - PRE) { errno = ENOMEM; return NULL; }
  struct pre old = *h;
  void *raw = __libc_realloc(h, size + PRE);
  if (!raw) return NULL;
  untag(&old);
  return tag(raw, PRE, size, pc);
}

void *realloc(void *p, size_t n) { return reget(p, n, CALLER); }
void *reallocarray(void *p, size_t n, size_t m) {
  size_t size;
  if (__builtin_mul_overflow(n, m, &size)) { errno = ENOMEM; return NULL; }
  return reget(p, size, CALLER);
}
int posix_memalign(void **out, size_t align, size_t n) {
  if (align < sizeof(void *) || (align & (align - 1))) return EINVAL;
  void *p = get_aligned(align, n, CALLER);
  if (!p) return ENOMEM;
  *out = p;
  return 0;
}
void *aligned_alloc(size_t align, size_t n) { return get_aligned(align, n, CALLER); }
void *memalign(size_t align, size_t n) { return get_aligned(align, n, CALLER); }
void *valloc(size_t n) { return get_aligned((size_t)sysconf(_SC_PAGESIZE), n, CALLER); }
void *pvalloc(size_t n) {
  size_t pg = (size_t)sysconf(_SC_PAGESIZE);
  return get_aligned(pg, (n + pg - 1) & ~(pg - 1), CALLER);
}
size_t malloc_usable_size(void *p) {
  if (!p || (pre_of(p)->tag & ~1u) != TAG) return 0;
  return pre_of(p)->size;
}
/* strdup and friends count for their caller, not for libc */
char *strdup(const char *s) {
  size_t n = strlen(s) + 1;
  char *d = get(n, CALLER);
  return d ? memcpy(d, s, n) : NULL;
}
char *__strdup(const char *s) { return strdup(s); }
char *strndup(const char *s, size_t max) {
  size_t n = strnlen(s, max);
  char *d = get(n + 1, CALLER);
  if (d) { memcpy(d, s, n); d[n] = 0; }
  return d;
}

__attribute__((destructor)) static void report(void) {
  const char *path = getenv("HEAPCOUNT_OUT");
  int fd = path ? open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644) : 2;
  if (fd < 0) fd = 2;
  char line[256];
  int n = snprintf(line, sizeof line, "pid=%d allocs=%lld own_allocs=%lld peak=%lld own_peak=%lld bytes=%lld\n",
                   (int)getpid(), (long long)n_allocs, (long long)n_own, (long long)peak,
                   (long long)own_peak, (long long)total);
  if (n > 0 && write(fd, line, (size_t)n) < 0) {}
  if (fd != 2) close(fd);
}
