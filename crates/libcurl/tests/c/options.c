/* The option table through curl_easy_option_next/by_name/by_id. */
#include <curl/curl.h>
#include <stdio.h>

int main(void)
{
  const struct curl_easyoption *o = NULL;
  int n = 0;
  while((o = curl_easy_option_next(o))) {
    printf("%s %d %d %u\n", o->name, (int)o->id, (int)o->type, o->flags);
    n++;
  }
  printf("count=%d\n", n);
  o = curl_easy_option_by_name("url");
  printf("by_name url: %s %d\n", o ? o->name : "(null)", o ? (int)o->id : -1);
  o = curl_easy_option_by_name("ENCODING");
  printf("by_name ENCODING: %s %u\n", o ? o->name : "(null)", o ? o->flags : 99);
  o = curl_easy_option_by_name("NOPE");
  printf("by_name NOPE: %p\n", (void *)o);
  o = curl_easy_option_by_id(CURLOPT_ACCEPT_ENCODING);
  printf("by_id ACCEPT_ENCODING: %s\n", o ? o->name : "(null)");
  o = curl_easy_option_by_id(CURLOPT_WRITEDATA);
  printf("by_id WRITEDATA: %s\n", o ? o->name : "(null)");
  o = curl_easy_option_by_id((CURLoption)424242);
  printf("by_id 424242: %p\n", (void *)o);
  return 0;
}
