/* The deprecated form API: curl_formadd with every kind of part and its error codes, the
 * list it builds, curl_formget's output and a CURLOPT_HTTPPOST upload of the form. */
/* the form API is deprecated; this tests it anyway */
#define CURL_DISABLE_DEPRECATION
#include <curl/curl.h>
#include <stdio.h>
#include <string.h>

static size_t streamread(char *p, size_t size, size_t n, void *arg)
{
  int *left = arg;
  size_t len = size * n;
  size_t i;
  for(i = 0; i < len && *left > 0; i++) {
    p[i] = (char)('0' + (10 - *left));
    (*left)--;
  }
  return i;
}

static size_t collect(void *arg, const char *buf, size_t len)
{
  (void)arg;
  fwrite(buf, 1, len, stdout);
  return len;
}

static size_t refuse(void *arg, const char *buf, size_t len)
{
  (void)arg;
  (void)buf;
  (void)len;
  return 0;
}

static size_t sink(char *p, size_t s, size_t n, void *u)
{
  (void)p;
  (void)u;
  return s * n;
}

static void show(const struct curl_httppost *p, const char *indent)
{
  for(; p; p = p->next) {
    printf("%spost name=%.*s namelength=%ld flags=%ld type=%s show=%s contentlen=%ld "
           "bufferlength=%ld headers=%s\n", indent, (int)p->namelength,
           p->name ? p->name : "(none)", p->namelength, p->flags,
           p->contenttype ? p->contenttype : "(none)",
           p->showfilename ? p->showfilename : "(none)", (long)p->contentlen,
           p->bufferlength, p->contentheader ? p->contentheader->data : "(none)");
    if(p->more)
      show(p->more, "    more: ");
  }
}

int main(int argc, char **argv)
{
  struct curl_httppost *post = NULL, *last = NULL, *bad = NULL, *badlast = NULL;
  struct curl_slist *hdrs;
  static char ptrname[] = "ptrname";
  static char buf[] = "buffer\0bytes";
  static const char bin[] = "binary\0data";
  int left = 10;
  CURL *e;
  CURLcode rc;
  long code = 0;
  const char *url, *path;
  struct curl_forms arr[] = {
    { CURLFORM_COPYNAME, "arrayname" },
    { CURLFORM_COPYCONTENTS, "arrayvalue" },
    { CURLFORM_END, NULL }
  };
  struct curl_forms nested[] = {
    { CURLFORM_ARRAY, (const char *)arr },
    { CURLFORM_END, NULL }
  };
  if(argc < 3)
    return 1;
  url = argv[1];
  path = argv[2];
  curl_global_init(CURL_GLOBAL_ALL);
  hdrs = curl_slist_append(NULL, "X-Part: yes");

  printf("plain=%d\n", (int)curl_formadd(&post, &last, CURLFORM_COPYNAME, "name",
                                         CURLFORM_COPYCONTENTS, "value", CURLFORM_END));
  printf("ptr=%d\n", (int)curl_formadd(&post, &last, CURLFORM_PTRNAME, ptrname,
                                       CURLFORM_PTRCONTENTS, bin,
                                       CURLFORM_CONTENTSLENGTH, 11L, CURLFORM_END));
  printf("namelength=%d\n", (int)curl_formadd(&post, &last, CURLFORM_COPYNAME, "namelenXXX",
                                              CURLFORM_NAMELENGTH, 7L,
                                              CURLFORM_COPYCONTENTS, "short name",
                                              CURLFORM_CONTENTTYPE, "text/x-test",
                                              CURLFORM_CONTENTHEADER, hdrs, CURLFORM_END));
  printf("file=%d\n", (int)curl_formadd(&post, &last, CURLFORM_COPYNAME, "file",
                                        CURLFORM_FILE, path, CURLFORM_END));
  printf("files=%d\n", (int)curl_formadd(&post, &last, CURLFORM_COPYNAME, "files",
                                         CURLFORM_FILE, path,
                                         CURLFORM_CONTENTTYPE, "text/x-first",
                                         CURLFORM_FILE, path, CURLFORM_END));
  printf("filecontent=%d\n", (int)curl_formadd(&post, &last, CURLFORM_COPYNAME, "content",
                                               CURLFORM_FILECONTENT, path, CURLFORM_END));
  printf("buffer=%d\n", (int)curl_formadd(&post, &last, CURLFORM_COPYNAME, "buf",
                                          CURLFORM_BUFFER, "data.bin",
                                          CURLFORM_BUFFERPTR, buf,
                                          CURLFORM_BUFFERLENGTH, 12L, CURLFORM_END));
  printf("array=%d\n", (int)curl_formadd(&post, &last, CURLFORM_ARRAY, arr, CURLFORM_END));
  printf("stream=%d\n", (int)curl_formadd(&post, &last, CURLFORM_COPYNAME, "stream",
                                          CURLFORM_STREAM, &left,
                                          CURLFORM_CONTENTLEN, (curl_off_t)10,
                                          CURLFORM_FILENAME, "s.txt", CURLFORM_END));
  printf("twice=%d\n", (int)curl_formadd(&bad, &badlast, CURLFORM_COPYNAME, "a",
                                         CURLFORM_COPYNAME, "b", CURLFORM_END));
  printf("null=%d\n", (int)curl_formadd(&bad, &badlast, CURLFORM_COPYNAME, NULL,
                                        CURLFORM_END));
  printf("incomplete=%d\n", (int)curl_formadd(&bad, &badlast, CURLFORM_COPYNAME, "a",
                                              CURLFORM_END));
  printf("file with length=%d\n", (int)curl_formadd(&bad, &badlast, CURLFORM_COPYNAME, "a",
                                                    CURLFORM_FILE, path,
                                                    CURLFORM_CONTENTSLENGTH, 3L,
                                                    CURLFORM_END));
  printf("nested array=%d\n", (int)curl_formadd(&bad, &badlast, CURLFORM_ARRAY, nested,
                                                CURLFORM_END));
  printf("unknown=%d\n", (int)curl_formadd(&bad, &badlast, (CURLformoption)99, "x",
                                           CURLFORM_END));
  printf("bad list=%s\n", bad ? "some" : "empty");
  show(post, "");

  printf("formget refused=%d\n", curl_formget(post, NULL, refuse));
  printf("formget:\n");
  printf("\nformget=%d\n", curl_formget(post, NULL, collect));

  e = curl_easy_init();
  curl_easy_setopt(e, CURLOPT_URL, url);
  curl_easy_setopt(e, CURLOPT_HTTPPOST, post);
  curl_easy_setopt(e, CURLOPT_READFUNCTION, streamread);
  curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, sink);
  rc = curl_easy_perform(e);
  curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &code);
  printf("perform=%d code=%ld\n", (int)rc, code);
  curl_easy_cleanup(e);
  curl_formfree(post);
  curl_formfree(bad);
  curl_formfree(NULL);
  curl_slist_free_all(hdrs);
  curl_global_cleanup();
  return 0;
}
