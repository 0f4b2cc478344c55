/* Rewinding a request body that must be sent again (a 307/308 redirect): the seek callback,
 * the old ioctl callback, or fseek on READDATA without a read callback, as curl does.
 * Usage: rewind MODE URL [post]
 * MODE: seek (SEEKFUNCTION rewinds), seek-fail (returns CURL_SEEKFUNC_FAIL), seek-cantseek,
 * ioctl (IOCTLFUNCTION rewinds), ioctl-fail (CURLIOE_FAILRESTART), none (a read callback and
 * nothing to rewind it), file (READDATA is a FILE *, no read callback). "post" sends the body
 * with CURLOPT_POST and a size instead of an upload. mime-seek, mime-seek-fail and mime-noseek
 * send a MIMEPOST whose part reads through curl_mime_data_cb with the seek callback, one that
 * fails, or none. Prints the bodies the server echoes,
 * then the result, the error text and the callback counts. */
/* CURLOPT_IOCTLFUNCTION is deprecated, and tested here. */
#define CURL_DISABLE_DEPRECATION
#include <curl/curl.h>
#include <stdio.h>
#include <string.h>

static const char data[] = "the body that must be sent twice\n";

struct src {
  size_t pos;
  int reads, seeks, ioctls;
  long seek_answer;
};

static size_t on_read(char *p, size_t size, size_t n, void *ud)
{
  struct src *s = ud;
  size_t left = sizeof(data) - 1 - s->pos;
  size_t len = size * n < left ? size * n : left;
  memcpy(p, data + s->pos, len);
  s->pos += len;
  s->reads++;
  return len;
}

static int on_seek(void *ud, curl_off_t offset, int origin)
{
  struct src *s = ud;
  s->seeks++;
  if(s->seek_answer != CURL_SEEKFUNC_OK)
    return (int)s->seek_answer;
  if(origin != SEEK_SET)
    return CURL_SEEKFUNC_FAIL;
  s->pos = (size_t)offset;
  return CURL_SEEKFUNC_OK;
}

static curlioerr on_ioctl(CURL *h, int cmd, void *ud)
{
  struct src *s = ud;
  (void)h;
  s->ioctls++;
  if(s->seek_answer)
    return CURLIOE_FAILRESTART;
  if(cmd != CURLIOCMD_RESTARTREAD)
    return CURLIOE_UNKNOWNCMD;
  s->pos = 0;
  return CURLIOE_OK;
}

int main(int argc, char **argv)
{
  struct src s = {0, 0, 0, 0, CURL_SEEKFUNC_OK};
  const char *mode;
  char err[CURL_ERROR_SIZE] = "";
  FILE *f = NULL;
  CURL *h;
  CURLcode rc;
  long code = 0, redirects = 0;
  if(argc < 3)
    return 2;
  mode = argv[1];
  curl_global_init(CURL_GLOBAL_DEFAULT);
  h = curl_easy_init();
  curl_easy_setopt(h, CURLOPT_URL, argv[2]);
  curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(h, CURLOPT_ERRORBUFFER, err);
  if(!strncmp(mode, "mime", 4)) {
    curl_mime *mime = curl_mime_init(h);
    curl_mimepart *part = curl_mime_addpart(mime);
    curl_mime_name(part, "field");
    if(!strcmp(mode, "mime-seek-fail"))
      s.seek_answer = CURL_SEEKFUNC_FAIL;
    curl_mime_data_cb(part, (curl_off_t)(sizeof(data) - 1), on_read,
                      strcmp(mode, "mime-noseek") ? on_seek : NULL, NULL, &s);
    curl_easy_setopt(h, CURLOPT_MIMEPOST, mime);
    rc = curl_easy_perform(h);
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
    curl_easy_getinfo(h, CURLINFO_REDIRECT_COUNT, &redirects);
    printf("\nrc=%d (%s) err=[%s] code=%ld redirects=%ld seeks=%d\n", (int)rc,
           curl_easy_strerror(rc), err, code, redirects, s.seeks);
    curl_easy_cleanup(h);
    curl_mime_free(mime);
    curl_global_cleanup();
    return 0;
  }
  if(argc > 3 && !strcmp(argv[3], "post")) {
    curl_easy_setopt(h, CURLOPT_POST, 1L);
    curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE, (long)(sizeof(data) - 1));
  }
  else {
    curl_easy_setopt(h, CURLOPT_UPLOAD, 1L);
    curl_easy_setopt(h, CURLOPT_INFILESIZE, (long)(sizeof(data) - 1));
  }
  if(!strcmp(mode, "file")) {
    f = tmpfile();
    fputs(data, f);
    rewind(f);
    curl_easy_setopt(h, CURLOPT_READDATA, f);
  }
  else {
    curl_easy_setopt(h, CURLOPT_READFUNCTION, on_read);
    curl_easy_setopt(h, CURLOPT_READDATA, &s);
  }
  if(!strncmp(mode, "seek", 4)) {
    curl_easy_setopt(h, CURLOPT_SEEKFUNCTION, on_seek);
    curl_easy_setopt(h, CURLOPT_SEEKDATA, &s);
    if(!strcmp(mode, "seek-fail"))
      s.seek_answer = CURL_SEEKFUNC_FAIL;
    else if(!strcmp(mode, "seek-cantseek"))
      s.seek_answer = CURL_SEEKFUNC_CANTSEEK;
  }
  else if(!strncmp(mode, "ioctl", 5)) {
    curl_easy_setopt(h, CURLOPT_IOCTLFUNCTION, on_ioctl);
    curl_easy_setopt(h, CURLOPT_IOCTLDATA, &s);
    if(!strcmp(mode, "ioctl-fail"))
      s.seek_answer = 1;
  }
  rc = curl_easy_perform(h);
  curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
  curl_easy_getinfo(h, CURLINFO_REDIRECT_COUNT, &redirects);
  printf("\nrc=%d (%s) err=[%s] code=%ld redirects=%ld seeks=%d ioctls=%d\n", (int)rc,
         curl_easy_strerror(rc), err, code, redirects, s.seeks, s.ioctls);
  curl_easy_cleanup(h);
  if(f)
    fclose(f);
  curl_global_cleanup();
  return 0;
}
