/* CURLOPT_FOLLOWLOCATION's modes with a custom method: the informational texts about the
 * method and the result of each mode. Usage: followmode URL (the server redirects /r* with
 * the code after the r, to /done). */
#include <curl/curl.h>
#include <stdio.h>
#include <string.h>

static int on_debug(CURL *h, curl_infotype type, char *data, size_t size, void *ud)
{
  (void)h; (void)ud;
  if(type == CURLINFO_TEXT &&
     ((size > 6 && !strncmp(data, "Switch", 6)) || (size > 5 && !strncmp(data, "Stick", 5)) ||
      (size > 4 && !strncmp(data, "Drop", 4))))
    fwrite(data, 1, size, stdout);
  if(type == CURLINFO_HEADER_OUT) {
    const char *eol = memchr(data, '\r', size);
    printf("> %.*s\n", (int)(eol ? eol - data : 0), data);
  }
  return 0;
}

static size_t sink(char *p, size_t s, size_t n, void *ud)
{
  (void)p; (void)ud;
  return s * n;
}

int main(int argc, char **argv)
{
  static const int codes[] = {301, 302, 303, 307};
  long mode;
  unsigned int c;
  char url[1024];
  CURL *h;
  if(argc < 2)
    return 2;
  h = curl_easy_init();
  printf("mode 4: %d\n", (int)curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 4L));
  printf("mode -1: %d\n", (int)curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, -1L));
  curl_easy_cleanup(h);
  for(mode = 1; mode <= 3; mode++) {
    for(c = 0; c < sizeof(codes) / sizeof(codes[0]); c++) {
      int post;
      for(post = 0; post < 2; post++) {
        h = curl_easy_init();
        snprintf(url, sizeof(url), "%s/r%d", argv[1], codes[c]);
        printf("mode %ld code %d post %d\n", mode, codes[c], post);
        curl_easy_setopt(h, CURLOPT_URL, url);
        curl_easy_setopt(h, CURLOPT_VERBOSE, 1L);
        curl_easy_setopt(h, CURLOPT_DEBUGFUNCTION, on_debug);
        curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, sink);
        curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, "IGLOO");
        if(post)
          curl_easy_setopt(h, CURLOPT_POSTFIELDS, "moo");
        curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, mode);
        printf("rc=%d\n", (int)curl_easy_perform(h));
        curl_easy_cleanup(h);
      }
    }
  }
  return 0;
}
