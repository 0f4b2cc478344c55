/* Chunked MIME uploads and upload byte counts, as curl's libtests 645, 650, 654, 667, 668
 * and 579 look at them: where the chunks of a chunked mime body end (read callbacks giving
 * a few bytes at a time, files, encoders), a curl_formadd form with a "-" (stdin) file, a
 * mime without parts, a MIMEPOST mime freed before perform (and the copy a duphandle made
 * of it), and CURLINFO_SIZE_UPLOAD_T / CURLINFO_REQUEST_SIZE / the progress callback's
 * ulnow for each. Usage: mimechunks URL FILE STDINFILE, FILE and STDINFILE files the
 * program may overwrite and remove. Prints what it saw; the server keeps the requests. */
#define CURL_DISABLE_DEPRECATION
#include <curl/curl.h>
#include <stdio.h>
#include <string.h>

struct src {
  const char *data;
  size_t len;
  size_t pos;
  size_t piece;
};

static size_t cb_read(char *buf, size_t size, size_t n, void *arg)
{
  struct src *s = arg;
  size_t want = size * n;
  if(want > s->piece)
    want = s->piece;
  if(want > s->len - s->pos)
    want = s->len - s->pos;
  memcpy(buf, s->data + s->pos, want);
  s->pos += want;
  return want;
}

static int cb_seek(void *arg, curl_off_t offset, int origin)
{
  struct src *s = arg;
  if(origin != SEEK_SET)
    return CURL_SEEKFUNC_CANTSEEK;
  s->pos = (size_t)offset;
  return CURL_SEEKFUNC_OK;
}

static size_t sink(char *p, size_t size, size_t n, void *ud)
{
  (void)p;
  (void)ud;
  return size * n;
}

/* The largest ulnow the progress callback saw, and how often it went back to 0. */
static curl_off_t max_ul;
static int ul_restarts;
static curl_off_t last_ul;

static int xferinfo(void *p, curl_off_t dltotal, curl_off_t dlnow,
                    curl_off_t ultotal, curl_off_t ulnow)
{
  (void)p;
  (void)dltotal;
  (void)dlnow;
  (void)ultotal;
  if(ulnow > max_ul)
    max_ul = ulnow;
  if(ulnow == 0 && last_ul > 0)
    ul_restarts++;
  last_ul = ulnow;
  return 0;
}

static void perform(CURL *h, const char *label)
{
  CURLcode rc;
  long code = 0, reqsize = 0;
  curl_off_t up = -1;
  max_ul = 0;
  ul_restarts = 0;
  last_ul = 0;
  rc = curl_easy_perform(h);
  curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
  curl_easy_getinfo(h, CURLINFO_SIZE_UPLOAD_T, &up);
  curl_easy_getinfo(h, CURLINFO_REQUEST_SIZE, &reqsize);
  printf("%s: rc=%d code=%ld size_upload=%ld request_size=%ld "
         "max_ulnow=%ld ul_restarts=%d\n",
         label, (int)rc, code, (long)up, reqsize, (long)max_ul, ul_restarts);
}

static CURL *handle(const char *base, const char *path)
{
  char url[512];
  CURL *h = curl_easy_init();
  snprintf(url, sizeof(url), "%s%s", base, path);
  curl_easy_setopt(h, CURLOPT_URL, url);
  curl_easy_setopt(h, CURLOPT_USERAGENT, "cabi-test/1");
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, sink);
  curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, xferinfo);
  return h;
}

/* Parts of every kind; the callback parts have a size when `sized`. */
static curl_mime *build(CURL *h, const char *file, int sized, struct src *one,
                        struct src *three, struct src *enc,
                        struct curl_slist *hdrs)
{
  curl_mime *m = curl_mime_init(h);
  curl_mime *sub;
  curl_mimepart *p;
  p = curl_mime_addpart(m);
  curl_mime_name(p, "bytewise");
  curl_mime_data_cb(p, sized ? (curl_off_t)one->len : -1, cb_read, cb_seek,
                    NULL, one);
  p = curl_mime_addpart(m);
  curl_mime_name(p, "file");
  curl_mime_filedata(p, file);
  p = curl_mime_addpart(m);
  curl_mime_name(p, "memory");
  curl_mime_data(p, "in memory", CURL_ZERO_TERMINATED);
  p = curl_mime_addpart(m);
  curl_mime_name(p, "threes");
  curl_mime_filename(p, "threes.txt");
  curl_mime_data_cb(p, sized ? (curl_off_t)three->len : -1, cb_read, cb_seek,
                    NULL, three);
  p = curl_mime_addpart(m);
  curl_mime_name(p, "b64");
  curl_mime_encoder(p, "base64");
  curl_mime_data_cb(p, sized ? (curl_off_t)enc->len : -1, cb_read, cb_seek,
                    NULL, enc);
  p = curl_mime_addpart(m);
  curl_mime_name(p, "b64mem");
  curl_mime_encoder(p, "base64");
  curl_mime_data(p, "a longer value encoded in base64, over more than one line "
                 "of seventy-six characters", CURL_ZERO_TERMINATED);
  if(!sized) {
    p = curl_mime_addpart(m);
    curl_mime_name(p, "qp");
    curl_mime_encoder(p, "quoted-printable");
    curl_mime_data(p, "caf\xc3\xa9 = ok \r\nnext line", CURL_ZERO_TERMINATED);
  }
  p = curl_mime_addpart(m);
  curl_mime_name(p, "typed");
  curl_mime_headers(p, hdrs, 0);
  curl_mime_data(p, "typed by a header", CURL_ZERO_TERMINATED);
  p = curl_mime_addpart(m);
  curl_mime_name(p, "nested");
  sub = curl_mime_init(h);
  curl_mime_subparts(p, sub);
  p = curl_mime_addpart(sub);
  curl_mime_filedata(p, file);
  p = curl_mime_addpart(sub);
  curl_mime_data(p, "after the file", CURL_ZERO_TERMINATED);
  return m;
}

int main(int argc, char **argv)
{
  static const char text[] = "one byte at a time\n";
  static const char threes[] = "three bytes at a time, a little longer\n";
  static const char encoded[] = "encoded two bytes at a time";
  struct src one = { text, sizeof(text) - 1, 0, 1 };
  struct src three = { threes, sizeof(threes) - 1, 0, 3 };
  struct src enc = { encoded, sizeof(encoded) - 1, 0, 2 };
  struct curl_slist *hdrs = NULL, *te = NULL, *cthdr = NULL;
  struct curl_httppost *post = NULL, *last = NULL;
  CURL *h, *dup;
  curl_mime *m;
  FILE *f;
  if(argc < 4)
    return 2;
  f = fopen(argv[2], "wb");
  if(!f)
    return 2;
  fputs("file contents\nline two\n", f);
  fclose(f);
  f = fopen(argv[3], "wb");
  if(!f)
    return 2;
  fputs(" Some data from stdin\n", f);
  fclose(f);
  if(!freopen(argv[3], "rb", stdin))
    return 2;
  curl_global_init(CURL_GLOBAL_ALL);
  hdrs = curl_slist_append(hdrs, "X-First: 1");
  hdrs = curl_slist_append(hdrs, "Content-Type: text/x-from-header");
  hdrs = curl_slist_append(hdrs, "X-Last: 2");

  /* Sizes unknown: chunked, chunks ending where the reads end. */
  h = handle(argv[1], "/unsized");
  m = build(h, argv[2], 0, &one, &three, &enc, hdrs);
  curl_easy_setopt(h, CURLOPT_MIMEPOST, m);
  perform(h, "unsized");
  curl_easy_cleanup(h);
  curl_mime_free(m);

  /* Sizes known, chunked by the application's Transfer-Encoding header. */
  one.pos = three.pos = enc.pos = 0;
  te = curl_slist_append(te, "Transfer-Encoding: chunked");
  h = handle(argv[1], "/sized-te");
  m = build(h, argv[2], 1, &one, &three, &enc, hdrs);
  curl_easy_setopt(h, CURLOPT_MIMEPOST, m);
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, te);
  perform(h, "sized-te");
  /* The same with a length. */
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, NULL);
  curl_easy_setopt(h, CURLOPT_URL, "");
  {
    char url[512];
    snprintf(url, sizeof(url), "%s/sized", argv[1]);
    curl_easy_setopt(h, CURLOPT_URL, url);
  }
  perform(h, "sized");
  curl_easy_cleanup(h);
  curl_mime_free(m);

  /* A form with a stdin file and a Content-Type among a part's headers. */
  cthdr = curl_slist_append(cthdr, "X-Custom: yes");
  cthdr = curl_slist_append(cthdr, "Content-Type: text/plain");
  curl_formadd(&post, &last, CURLFORM_COPYNAME, "field",
               CURLFORM_COPYCONTENTS, "value", CURLFORM_CONTENTHEADER, cthdr,
               CURLFORM_END);
  curl_formadd(&post, &last, CURLFORM_COPYNAME, "files",
               CURLFORM_FILE, argv[2], CURLFORM_FILE, argv[2], CURLFORM_END);
  curl_formadd(&post, &last, CURLFORM_COPYNAME, "stdin",
               CURLFORM_FILE, "-", CURLFORM_END);
  h = handle(argv[1], "/form");
  curl_easy_setopt(h, CURLOPT_HTTPPOST, post);
  perform(h, "form");
  curl_easy_cleanup(h);
  curl_formfree(post);

  /* A mime without parts. */
  h = handle(argv[1], "/noparts");
  m = curl_mime_init(h);
  curl_easy_setopt(h, CURLOPT_MIMEPOST, m);
  perform(h, "noparts");
  curl_easy_cleanup(h);
  curl_mime_free(m);

  /* A MIMEPOST mime freed before perform: an empty POST; the duplicate keeps its copy. */
  h = handle(argv[1], "/freed");
  m = curl_mime_init(h);
  curl_mime_data(curl_mime_addpart(m), "copied", CURL_ZERO_TERMINATED);
  curl_easy_setopt(h, CURLOPT_MIMEPOST, m);
  dup = curl_easy_duphandle(h);
  curl_mime_free(m);
  perform(h, "freed");
  {
    char url[512];
    snprintf(url, sizeof(url), "%s/freed-dup", argv[1]);
    curl_easy_setopt(dup, CURLOPT_URL, url);
  }
  perform(dup, "freed-dup");
  /* A new mime at what may be the same address does not bind itself. */
  m = curl_mime_init(h);
  curl_mime_data(curl_mime_addpart(m), "not bound", CURL_ZERO_TERMINATED);
  perform(h, "freed-again");
  curl_mime_free(m);
  curl_easy_cleanup(dup);
  curl_easy_cleanup(h);

  curl_slist_free_all(hdrs);
  curl_slist_free_all(te);
  curl_slist_free_all(cthdr);
  curl_global_cleanup();
  return 0;
}
