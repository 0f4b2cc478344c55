/* Callback rules: API calls from inside callbacks (recursive perform/multi calls refused,
 * getinfo and setopt allowed), progress and debug callbacks, an upload from a read
 * callback. Usage: callbacks URL */
#include <curl/curl.h>
#include <stdio.h>
#include <string.h>

struct ctx {
  CURL *h;
  CURLM *m;
  CURL *other;
  int writes, recursive_easy, recursive_multi, getinfo_rc, setopt_rc;
  int progress, debug_out, debug_text, debug_first_get;
  const char *upload;
  size_t upload_left;
};

static size_t on_write(char *p, size_t size, size_t n, void *ud)
{
  struct ctx *c = ud;
  long code;
  (void)p;
  if(!c->writes++) {
    c->recursive_easy = (int)curl_easy_perform(c->h);
    if(c->m)
      c->recursive_multi = (int)curl_multi_add_handle(c->m, c->other);
    c->getinfo_rc = (int)curl_easy_getinfo(c->h, CURLINFO_RESPONSE_CODE, &code);
    c->setopt_rc = (int)curl_easy_setopt(c->h, CURLOPT_USERAGENT, "changed");
  }
  return size * n;
}

static int on_progress(void *ud, curl_off_t dt, curl_off_t dn, curl_off_t ut, curl_off_t un)
{
  struct ctx *c = ud;
  (void)dt; (void)dn; (void)ut; (void)un;
  c->progress++;
  return 0;
}

static int on_debug(CURL *h, curl_infotype t, char *p, size_t n, void *ud)
{
  struct ctx *c = ud;
  (void)h;
  if(t == CURLINFO_HEADER_OUT) {
    if(!c->debug_out++)
      c->debug_first_get = n > 4 && !memcmp(p, "PUT ", 4);
  }
  else if(t == CURLINFO_TEXT)
    c->debug_text++;
  return 0;
}

static size_t on_read(char *p, size_t size, size_t n, void *ud)
{
  struct ctx *c = ud;
  size_t len = size * n < c->upload_left ? size * n : c->upload_left;
  memcpy(p, c->upload + strlen(c->upload) - c->upload_left, len);
  c->upload_left -= len;
  return len;
}

int main(int argc, char **argv)
{
  struct ctx c;
  int running = 1;
  CURLcode rc;
  if(argc < 2)
    return 2;
  memset(&c, 0, sizeof(c));
  c.h = curl_easy_init();
  curl_easy_setopt(c.h, CURLOPT_URL, argv[1]);
  curl_easy_setopt(c.h, CURLOPT_WRITEFUNCTION, on_write);
  curl_easy_setopt(c.h, CURLOPT_WRITEDATA, &c);
  curl_easy_setopt(c.h, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(c.h, CURLOPT_XFERINFOFUNCTION, on_progress);
  curl_easy_setopt(c.h, CURLOPT_XFERINFODATA, &c);
  rc = curl_easy_perform(c.h);
  printf("easy rc=%d recursive_easy=%d getinfo=%d setopt=%d progress_called=%d\n", (int)rc,
         c.recursive_easy, c.getinfo_rc, c.setopt_rc, c.progress > 0);

  /* the same inside a multi */
  c.writes = 0;
  c.m = curl_multi_init();
  c.other = curl_easy_init();
  curl_multi_add_handle(c.m, c.h);
  while(running) {
    curl_multi_perform(c.m, &running);
    if(running)
      curl_multi_wait(c.m, NULL, 0, 1000, NULL);
  }
  printf("multi recursive_easy=%d recursive_multi=%d\n", c.recursive_easy, c.recursive_multi);
  curl_multi_remove_handle(c.m, c.h);
  curl_multi_cleanup(c.m);
  curl_easy_cleanup(c.other);

  /* upload from a read callback, watched by a debug callback */
  curl_easy_reset(c.h);
  c.upload = "uploaded-body";
  c.upload_left = strlen(c.upload);
  curl_easy_setopt(c.h, CURLOPT_URL, argv[1]);
  curl_easy_setopt(c.h, CURLOPT_UPLOAD, 1L);
  curl_easy_setopt(c.h, CURLOPT_INFILESIZE_LARGE, (curl_off_t)strlen(c.upload));
  curl_easy_setopt(c.h, CURLOPT_READFUNCTION, on_read);
  curl_easy_setopt(c.h, CURLOPT_READDATA, &c);
  curl_easy_setopt(c.h, CURLOPT_WRITEFUNCTION, on_write);
  curl_easy_setopt(c.h, CURLOPT_WRITEDATA, &c);
  curl_easy_setopt(c.h, CURLOPT_VERBOSE, 1L);
  curl_easy_setopt(c.h, CURLOPT_DEBUGFUNCTION, on_debug);
  curl_easy_setopt(c.h, CURLOPT_DEBUGDATA, &c);
  rc = curl_easy_perform(c.h);
  printf("upload rc=%d left=%d header_out=%d put_first=%d text=%d\n", (int)rc,
         (int)c.upload_left, c.debug_out > 0, c.debug_first_get, c.debug_text > 0);
  curl_easy_cleanup(c.h);
  return 0;
}
