/* CURLOPT_SSLCERT_BLOB and CURLOPT_SSLKEY_BLOB (and their PROXY_ forms) against a server
 * that requires a client certificate signed by the test CA: without one, with PEM, DER and
 * PKCS#12 blobs, blobs mixed with files, a key found in the certificate's blob, the
 * application's copy wiped after setopt, a duplicated handle, an unset blob, and every way
 * a blob can be bad (the codes and error texts compared).
 * Usage: certblob URL DIR CAFILE [PROXY TARGET]
 * DIR holds client.pem, client.key, client.der, client-key.der, client.p12 (password
 * "secret"), other.key (a key of another certificate). With PROXY (an HTTPS proxy requiring
 * a client certificate) and TARGET (a plain HTTP URL), the proxy cases run too. */
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char errbuf[CURL_ERROR_SIZE];
static const char *dir;
static const char *cafile;

struct file {
  char *data;
  size_t len;
};

static struct file slurp(const char *name)
{
  struct file r = {NULL, 0};
  char path[4096];
  FILE *f;
  long n;
  snprintf(path, sizeof(path), "%s/%s", dir, name);
  f = fopen(path, "rb");
  if(!f) {
    fprintf(stderr, "cannot open %s\n", path);
    exit(2);
  }
  fseek(f, 0, SEEK_END);
  n = ftell(f);
  rewind(f);
  r.data = malloc(n + 1);
  if(fread(r.data, 1, n, f) != (size_t)n)
    exit(2);
  fclose(f);
  r.len = (size_t)n;
  return r;
}

static char *path_of(const char *name)
{
  static char paths[4][4096];
  static int next;
  char *p = paths[next++ % 4];
  snprintf(p, 4096, "%s/%s", dir, name);
  return p;
}

static size_t sink(char *p, size_t s, size_t n, void *u)
{
  (void)p; (void)u;
  return s * n;
}

static CURL *handle(const char *url)
{
  CURL *h = curl_easy_init();
  curl_easy_setopt(h, CURLOPT_URL, url);
  curl_easy_setopt(h, CURLOPT_CAINFO, cafile);
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, sink);
  curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
  return h;
}

static void perform(CURL *h, const char *what)
{
  CURLcode rc;
  errbuf[0] = 0;
  rc = curl_easy_perform(h);
  printf("%s: rc=%d err=[%s]\n", what, (int)rc, errbuf);
}

/* Sets a blob from a copy that is wiped and freed right after (CURL_BLOB_COPY). */
static CURLcode set_blob(CURL *h, CURLoption opt, const char *data, size_t len)
{
  struct curl_blob b;
  char *copy = malloc(len + 1);
  CURLcode rc;
  memcpy(copy, data, len);
  b.data = copy;
  b.len = len;
  b.flags = CURL_BLOB_COPY;
  rc = curl_easy_setopt(h, opt, &b);
  memset(copy, 'x', len);
  free(copy);
  return rc;
}

static void set_file(CURL *h, CURLoption opt, const char *name)
{
  struct file f = slurp(name);
  CURLcode rc = set_blob(h, opt, f.data, f.len);
  if(rc)
    printf("setopt %d: rc=%d\n", (int)opt, (int)rc);
  free(f.data);
}

static void one(const char *url, const char *what, const char *cert, const char *key,
                const char *ctype, const char *ktype, const char *pass)
{
  CURL *h = handle(url);
  const char *junk = "this blob holds no certificate";
  if(ctype)
    curl_easy_setopt(h, CURLOPT_SSLCERTTYPE, ctype);
  if(ktype)
    curl_easy_setopt(h, CURLOPT_SSLKEYTYPE, ktype);
  if(pass)
    curl_easy_setopt(h, CURLOPT_KEYPASSWD, pass);
  if(cert && !strcmp(cert, "junk"))
    set_blob(h, CURLOPT_SSLCERT_BLOB, junk, strlen(junk));
  else if(cert && !strncmp(cert, "file:", 5))
    curl_easy_setopt(h, CURLOPT_SSLCERT, path_of(cert + 5));
  else if(cert)
    set_file(h, CURLOPT_SSLCERT_BLOB, cert);
  if(key && !strcmp(key, "junk"))
    set_blob(h, CURLOPT_SSLKEY_BLOB, junk, strlen(junk));
  else if(key && !strncmp(key, "file:", 5))
    curl_easy_setopt(h, CURLOPT_SSLKEY, path_of(key + 5));
  else if(key)
    set_file(h, CURLOPT_SSLKEY_BLOB, key);
  perform(h, what);
  curl_easy_cleanup(h);
}

int main(int argc, char **argv)
{
  const char *url;
  CURL *h, *dup;
  struct file cert, key, both;
  if(argc < 4)
    return 2;
  url = argv[1];
  dir = argv[2];
  cafile = argv[3];
  curl_global_init(CURL_GLOBAL_DEFAULT);

  one(url, "pem blobs", "client.pem", "client.key", NULL, NULL, NULL);
  one(url, "pem blob, key file", "client.pem", "file:client.key", NULL, NULL, NULL);
  one(url, "cert file, key blob", "file:client.pem", "client.key", NULL, NULL, NULL);
  one(url, "der blobs", "client.der", "client-key.der", "DER", "DER", NULL);
  one(url, "der cert, pem key", "client.der", "client.key", "DER", "PEM", NULL);
  one(url, "der blob, key in it", "client.der", NULL, "der", NULL, NULL);
  one(url, "p12 blob", "client.p12", NULL, "P12", NULL, "secret");
  one(url, "p12 blob, pem key too", "client.p12", "client.key", "P12", "PEM", "secret");
  one(url, "p12 blob, wrong password", "client.p12", NULL, "P12", NULL, "wrong");
  one(url, "junk pem cert", "junk", "client.key", NULL, NULL, NULL);
  one(url, "junk der cert", "junk", "client.key", "DER", NULL, NULL);
  one(url, "junk p12", "junk", NULL, "P12", NULL, NULL);
  one(url, "junk key", "client.pem", "junk", NULL, NULL, NULL);
  one(url, "junk der key", "client.pem", "junk", NULL, "DER", NULL);
  one(url, "der key as pem", "client.pem", "client-key.der", NULL, NULL, NULL);
  one(url, "wrong key", "client.pem", "other.key", NULL, NULL, NULL);
  one(url, "key type P12", "client.pem", "client.key", NULL, "P12", NULL);
  one(url, "key type unknown", "client.pem", "client.key", NULL, "XYZ", NULL);
  one(url, "cert type unknown", "client.pem", "client.key", "XYZ", NULL, NULL);
  one(url, "key blob without cert", NULL, "client.key", NULL, NULL, NULL);

  /* The certificate and its key in one blob: the key is read from the certificate's. */
  cert = slurp("client.pem");
  key = slurp("client.key");
  both.len = cert.len + key.len;
  both.data = malloc(both.len);
  memcpy(both.data, cert.data, cert.len);
  memcpy(both.data + cert.len, key.data, key.len);
  h = handle(url);
  set_blob(h, CURLOPT_SSLCERT_BLOB, both.data, both.len);
  perform(h, "pem blob, key in it");
  /* A blob wins over a file: a junk file name changes nothing. */
  curl_easy_setopt(h, CURLOPT_SSLCERT, "/nonexistent/cert.pem");
  perform(h, "blob and missing file");
  printf("unset=%d\n", (int)curl_easy_setopt(h, CURLOPT_SSLCERT_BLOB, NULL));
  curl_easy_setopt(h, CURLOPT_SSLCERT, NULL);
  curl_easy_setopt(h, CURLOPT_FRESH_CONNECT, 1L);
  perform(h, "unset");
  /* Longer than curl takes: refused, and the blob set before is gone too. */
  set_blob(h, CURLOPT_SSLCERT_BLOB, both.data, both.len);
  {
    struct curl_blob b;
    b.data = both.data;
    b.len = 8000001;
    b.flags = CURL_BLOB_COPY;
    printf("too long=%d\n", (int)curl_easy_setopt(h, CURLOPT_SSLCERT_BLOB, &b));
  }
  perform(h, "after too long");
  curl_easy_cleanup(h);

  /* Not copied: the library may keep the pointer, the data stays alive here. */
  h = handle(url);
  {
    struct curl_blob b;
    b.data = cert.data;
    b.len = cert.len;
    b.flags = CURL_BLOB_NOCOPY;
    curl_easy_setopt(h, CURLOPT_SSLCERT_BLOB, &b);
    b.data = key.data;
    b.len = key.len;
    curl_easy_setopt(h, CURLOPT_SSLKEY_BLOB, &b);
  }
  perform(h, "nocopy blobs");
  curl_easy_cleanup(h);

  /* A duplicate keeps the blobs after the original is gone. */
  h = handle(url);
  set_blob(h, CURLOPT_SSLCERT_BLOB, cert.data, cert.len);
  set_blob(h, CURLOPT_SSLKEY_BLOB, key.data, key.len);
  dup = curl_easy_duphandle(h);
  curl_easy_cleanup(h);
  perform(dup, "duplicate");
  curl_easy_cleanup(dup);

  /* The proxy's forms: the proxy asks, the origin does not. */
  if(argc >= 6) {
    const char *proxy = argv[4];
    const char *target = argv[5];
    h = handle(target);
    curl_easy_setopt(h, CURLOPT_PROXY, proxy);
    curl_easy_setopt(h, CURLOPT_PROXY_CAINFO, cafile);
    curl_easy_setopt(h, CURLOPT_HTTPPROXYTUNNEL, 1L);
    perform(h, "proxy, no cert");
    printf("setopt proxy cert=%d\n",
           (int)set_blob(h, CURLOPT_PROXY_SSLCERT_BLOB, cert.data, cert.len));
    printf("setopt proxy key=%d\n",
           (int)set_blob(h, CURLOPT_PROXY_SSLKEY_BLOB, key.data, key.len));
    curl_easy_setopt(h, CURLOPT_FRESH_CONNECT, 1L);
    perform(h, "proxy blobs");
    /* The origin's blobs do not reach the proxy. */
    curl_easy_cleanup(h);
    h = handle(target);
    curl_easy_setopt(h, CURLOPT_PROXY, proxy);
    curl_easy_setopt(h, CURLOPT_PROXY_CAINFO, cafile);
    curl_easy_setopt(h, CURLOPT_HTTPPROXYTUNNEL, 1L);
    set_blob(h, CURLOPT_SSLCERT_BLOB, cert.data, cert.len);
    set_blob(h, CURLOPT_SSLKEY_BLOB, key.data, key.len);
    perform(h, "proxy, origin blobs only");
    curl_easy_cleanup(h);
    h = handle(target);
    curl_easy_setopt(h, CURLOPT_PROXY, proxy);
    curl_easy_setopt(h, CURLOPT_PROXY_CAINFO, cafile);
    curl_easy_setopt(h, CURLOPT_HTTPPROXYTUNNEL, 1L);
    set_blob(h, CURLOPT_PROXY_SSLCERT_BLOB, cert.data, cert.len);
    set_blob(h, CURLOPT_PROXY_SSLKEY_BLOB, "junk", 4);
    perform(h, "proxy junk key");
    curl_easy_cleanup(h);
  }

  free(cert.data);
  free(key.data);
  free(both.data);
  curl_global_cleanup();
  return 0;
}
