/* The MIME API: misuse error codes, then multipart uploads (a body of known size, a chunked
 * one, a file gone before perform, with a third argument one sent again after a 307 to it,
 * with a fourth one a read callback that aborts). Usage: mime URL FILE [URL307 [abort]], FILE
 * a file the program may overwrite and remove. Prints the result codes and the callbacks'
 * counts. */
#include <curl/curl.h>
#include <stdio.h>
#include <string.h>

struct src {
  const char *data;
  size_t len;
  size_t pos;
  int frees;
  int seeks;
};

static size_t cb_read(char *buf, size_t size, size_t n, void *arg)
{
  struct src *s = arg;
  size_t left = s->len - s->pos;
  size_t want = size * n;
  if(want > 5)
    want = 5; /* small pieces */
  if(want > left)
    want = left;
  memcpy(buf, s->data + s->pos, want);
  s->pos += want;
  return want;
}

static size_t cb_abort(char *buf, size_t size, size_t n, void *arg)
{
  (void)buf;
  (void)size;
  (void)n;
  (void)arg;
  return CURL_READFUNC_ABORT;
}

static int cb_seek(void *arg, curl_off_t offset, int origin)
{
  struct src *s = arg;
  s->seeks++;
  if(origin != SEEK_SET)
    return CURL_SEEKFUNC_CANTSEEK;
  s->pos = (size_t)offset;
  return CURL_SEEKFUNC_OK;
}

static void cb_free(void *arg)
{
  struct src *s = arg;
  s->frees++;
}

static size_t sink(char *p, size_t size, size_t n, void *ud)
{
  (void)p;
  (void)ud;
  return size * n;
}

static void misuse(const char *file)
{
  curl_mime *m = curl_mime_init(NULL);
  curl_mime *sub = curl_mime_init(NULL);
  curl_mime *other = curl_mime_init(NULL);
  curl_mimepart *p = curl_mime_addpart(m);
  curl_mimepart *p2 = curl_mime_addpart(m);
  curl_mimepart *sp;
  printf("addpart(NULL)=%s\n", curl_mime_addpart(NULL) ? "part" : "NULL");
  printf("name(NULL)=%d\n", (int)curl_mime_name(NULL, "x"));
  printf("filename(NULL)=%d\n", (int)curl_mime_filename(NULL, "x"));
  printf("type(NULL)=%d\n", (int)curl_mime_type(NULL, "x"));
  printf("data(NULL)=%d\n", (int)curl_mime_data(NULL, "x", 1));
  printf("filedata(NULL)=%d\n", (int)curl_mime_filedata(NULL, file));
  printf("data_cb(NULL)=%d\n",
         (int)curl_mime_data_cb(NULL, 1, cb_read, NULL, NULL, NULL));
  printf("subparts(NULL)=%d\n", (int)curl_mime_subparts(NULL, sub));
  printf("headers(NULL)=%d\n", (int)curl_mime_headers(NULL, NULL, 0));
  printf("encoder(NULL)=%d\n", (int)curl_mime_encoder(NULL, "base64"));
  printf("encoder(bogus)=%d\n", (int)curl_mime_encoder(p, "bogus"));
  printf("encoder(BASE64)=%d\n", (int)curl_mime_encoder(p, "BASE64"));
  printf("encoder(none)=%d\n", (int)curl_mime_encoder(p, NULL));
  printf("name(NULL name)=%d\n", (int)curl_mime_name(p, NULL));
  printf("data(NULL data)=%d\n", (int)curl_mime_data(p, NULL, 3));
  printf("filedata(missing)=%d\n",
         (int)curl_mime_filedata(p, "/nonexistent/oxcurl-no-such-file"));
  printf("subparts(own root)=%d\n", (int)curl_mime_subparts(p, m));
  printf("subparts(sub)=%d\n", (int)curl_mime_subparts(p, sub));
  printf("subparts(sub again)=%d\n", (int)curl_mime_subparts(p, sub));
  printf("subparts(sub elsewhere)=%d\n", (int)curl_mime_subparts(p2, sub));
  sp = curl_mime_addpart(sub);
  printf("subparts(root from below)=%d\n", (int)curl_mime_subparts(sp, m));
  printf("subparts(other below)=%d\n", (int)curl_mime_subparts(sp, other));
  printf("subparts(NULL)=%d\n", (int)curl_mime_subparts(p2, NULL));
  curl_mime_free(NULL);
  curl_mime_free(m); /* frees sub and other with it */
}

int main(int argc, char **argv)
{
  CURL *h;
  CURLcode rc;
  curl_mime *m, *sub;
  curl_mimepart *p;
  struct curl_slist *hdrs = NULL;
  struct src sized = { "callback data of known size", 27, 0, 0, 0 };
  struct src unsized = { "callback data, size unknown", 27, 0, 0, 0 };
  struct src nested = { "nested callback", 15, 0, 0, 0 };
  static const char bin[] = { 'a', 0, 'b', '\n', 'c' };
  FILE *f;
  long code = 0;
  if(argc < 3)
    return 2;
  f = fopen(argv[2], "wb");
  if(!f)
    return 2;
  fputs("file contents\nline two\n", f);
  fclose(f);

  misuse(argv[2]);

  h = curl_easy_init();
  curl_easy_setopt(h, CURLOPT_URL, argv[1]);
  curl_easy_setopt(h, CURLOPT_USERAGENT, "cabi-test/1");
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, sink);

  /* 1: a body of known size */
  m = curl_mime_init(h);
  p = curl_mime_addpart(m);
  curl_mime_name(p, "plain");
  curl_mime_data(p, "value", CURL_ZERO_TERMINATED);
  p = curl_mime_addpart(m);
  curl_mime_name(p, "bin\"quote");
  curl_mime_data(p, bin, sizeof(bin));
  curl_mime_type(p, "application/x-test");
  p = curl_mime_addpart(m);
  curl_mime_name(p, "named");
  curl_mime_filename(p, "report.txt");
  curl_mime_data(p, "text in a file part", CURL_ZERO_TERMINATED);
  hdrs = curl_slist_append(NULL, "X-Part: one");
  hdrs = curl_slist_append(hdrs, "X-Other: two");
  curl_mime_headers(p, hdrs, 1);
  p = curl_mime_addpart(m);
  curl_mime_name(p, "b64");
  curl_mime_encoder(p, "base64");
  curl_mime_data(p, "base64 encoded data that is long enough to need more than one line "
                 "of output, 76 characters each", CURL_ZERO_TERMINATED);
  p = curl_mime_addpart(m);
  curl_mime_name(p, "eight");
  curl_mime_encoder(p, "8bit");
  curl_mime_data(p, "8bit", CURL_ZERO_TERMINATED);
  p = curl_mime_addpart(m);
  curl_mime_name(p, "file");
  printf("filedata=%d\n", (int)curl_mime_filedata(p, argv[2]));
  p = curl_mime_addpart(m);
  curl_mime_name(p, "sized");
  curl_mime_data_cb(p, (curl_off_t)sized.len, cb_read, cb_seek, cb_free, &sized);
  p = curl_mime_addpart(m);
  curl_mime_name(p, "nest");
  sub = curl_mime_init(h);
  curl_mime_subparts(p, sub);
  p = curl_mime_addpart(sub);
  curl_mime_filename(p, "inner.html");
  curl_mime_data(p, "<p>inner</p>", CURL_ZERO_TERMINATED);
  p = curl_mime_addpart(sub);
  curl_mime_data_cb(p, (curl_off_t)nested.len, cb_read, cb_seek, cb_free, &nested);
  curl_mime_encoder(p, "7bit");
  curl_easy_setopt(h, CURLOPT_MIMEPOST, m);
  rc = curl_easy_perform(h);
  curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
  printf("known: rc=%d code=%ld\n", (int)rc, code);
  curl_mime_free(m);
  printf("sized: frees=%d nested: frees=%d\n", sized.frees, nested.frees);

  /* 2: quoted-printable and a callback without a size: chunked */
  m = curl_mime_init(h);
  p = curl_mime_addpart(m);
  curl_mime_name(p, "qp");
  curl_mime_encoder(p, "quoted-printable");
  curl_mime_data(p, "caf\xc3\xa9 = ok \r\nnext line", CURL_ZERO_TERMINATED);
  p = curl_mime_addpart(m);
  curl_mime_name(p, "esc\"aped\\name");
  curl_mime_filename(p, "f\"ile.txt");
  curl_mime_data(p, "escaped", CURL_ZERO_TERMINATED);
  curl_easy_setopt(h, CURLOPT_MIME_OPTIONS, (long)CURLMIMEOPT_FORMESCAPE);
  p = curl_mime_addpart(m);
  curl_mime_name(p, "unsized");
  curl_mime_data_cb(p, -1, cb_read, NULL, cb_free, &unsized);
  curl_easy_setopt(h, CURLOPT_MIMEPOST, m);
  rc = curl_easy_perform(h);
  curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
  printf("chunked: rc=%d code=%ld\n", (int)rc, code);
  curl_easy_setopt(h, CURLOPT_MIME_OPTIONS, 0L);

  /* 3: the file is gone when the transfer starts */
  curl_mime_free(m);
  printf("unsized: frees=%d\n", unsized.frees);
  m = curl_mime_init(h);
  p = curl_mime_addpart(m);
  curl_mime_name(p, "gone");
  printf("filedata=%d\n", (int)curl_mime_filedata(p, argv[2]));
  remove(argv[2]);
  curl_easy_setopt(h, CURLOPT_MIMEPOST, m);
  rc = curl_easy_perform(h);
  printf("gone: rc=%d\n", (int)rc);
  if(argc > 3) {
    /* 4: a 307 sends the body again: the callback's data is rewound with its seek */
    struct src again = { "sent twice", 10, 0, 0, 0 };
    curl_mime *m2 = curl_mime_init(h);
    p = curl_mime_addpart(m2);
    curl_mime_name(p, "again");
    curl_mime_data_cb(p, (curl_off_t)again.len, cb_read, cb_seek, cb_free, &again);
    curl_easy_setopt(h, CURLOPT_URL, argv[3]);
    curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(h, CURLOPT_MIMEPOST, m2);
    rc = curl_easy_perform(h);
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
    printf("307: rc=%d code=%ld seeks=%d\n", (int)rc, code, again.seeks);
    curl_easy_setopt(h, CURLOPT_MIMEPOST, NULL);
    curl_mime_free(m2);
    printf("307: frees=%d\n", again.frees);
  }
  if(argc > 3) {
    /* 4b: a duplicated handle has its own copy of the mime, freed with it */
    struct src dupsrc = { "duplicated", 10, 0, 0, 0 };
    curl_mime *m2 = curl_mime_init(h), *sub2 = curl_mime_init(h);
    CURL *d;
    p = curl_mime_addpart(m2);
    curl_mime_name(p, "cb");
    curl_mime_data_cb(p, (curl_off_t)dupsrc.len, cb_read, cb_seek, cb_free, &dupsrc);
    p = curl_mime_addpart(m2);
    curl_mime_name(p, "inner");
    curl_mime_headers(p, curl_slist_append(NULL, "X-Dup: yes"), 1);
    curl_mime_subparts(p, sub2);
    p = curl_mime_addpart(sub2);
    curl_mime_filename(p, "x.txt");
    curl_mime_data(p, "nested copy", CURL_ZERO_TERMINATED);
    curl_easy_setopt(h, CURLOPT_URL, argv[1]);
    curl_easy_setopt(h, CURLOPT_MIMEPOST, m2);
    d = curl_easy_duphandle(h);
    curl_easy_setopt(h, CURLOPT_MIMEPOST, NULL);
    curl_mime_free(m2);
    printf("dup: frees after original=%d\n", dupsrc.frees);
    rc = curl_easy_perform(d);
    curl_easy_getinfo(d, CURLINFO_RESPONSE_CODE, &code);
    printf("dup: rc=%d code=%ld\n", (int)rc, code);
    curl_easy_cleanup(d);
    printf("dup: frees after cleanup=%d\n", dupsrc.frees);
  }
  if(argc > 4) {
    /* 5: a read callback that aborts the transfer */
    curl_mime *m3 = curl_mime_init(h);
    p = curl_mime_addpart(m3);
    curl_mime_name(p, "abort");
    curl_mime_data_cb(p, 10, cb_abort, NULL, NULL, NULL);
    curl_easy_setopt(h, CURLOPT_URL, argv[1]);
    curl_easy_setopt(h, CURLOPT_MIMEPOST, m3);
    rc = curl_easy_perform(h);
    printf("abort: rc=%d\n", (int)rc);
    curl_mime_free(m3);
  }
  curl_easy_cleanup(h);
  curl_mime_free(m); /* the application's, after cleanup */
  return 0;
}
