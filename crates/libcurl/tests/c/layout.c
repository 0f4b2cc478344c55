/* Sizes and offsets of the public structs libcurl.so.4 exposes, from curl's headers. */
#include <curl/curl.h>
#include <stddef.h>
#include <stdio.h>

#define P(name, value) printf("%s=%zu\n", name, (size_t)(value))

int main(void)
{
  P("curl_slist.size", sizeof(struct curl_slist));
  P("curl_slist.next", offsetof(struct curl_slist, next));
  P("CURLMsg.size", sizeof(CURLMsg));
  P("CURLMsg.easy_handle", offsetof(CURLMsg, easy_handle));
  P("CURLMsg.data", offsetof(CURLMsg, data));
  P("curl_waitfd.size", sizeof(struct curl_waitfd));
  P("curl_waitfd.events", offsetof(struct curl_waitfd, events));
  P("curl_waitfd.revents", offsetof(struct curl_waitfd, revents));
  P("curl_ssl_backend.size", sizeof(curl_ssl_backend));
  P("curl_ssl_backend.name", offsetof(curl_ssl_backend, name));
  P("version_info.size", sizeof(curl_version_info_data));
  P("version_info.protocols", offsetof(curl_version_info_data, protocols));
  P("version_info.iconv_ver_num", offsetof(curl_version_info_data, iconv_ver_num));
  P("version_info.brotli_ver_num", offsetof(curl_version_info_data, brotli_ver_num));
  P("version_info.cainfo", offsetof(curl_version_info_data, cainfo));
  P("version_info.zstd_ver_num", offsetof(curl_version_info_data, zstd_ver_num));
  P("version_info.feature_names", offsetof(curl_version_info_data, feature_names));
  P("version_info.rtmp_version", offsetof(curl_version_info_data, rtmp_version));
  P("curl_easyoption.size", sizeof(struct curl_easyoption));
  P("curl_easyoption.type", offsetof(struct curl_easyoption, type));
  P("curl_easyoption.flags", offsetof(struct curl_easyoption, flags));
  P("curl_fileinfo.size", sizeof(struct curl_fileinfo));
  P("curl_fileinfo.filetype", offsetof(struct curl_fileinfo, filetype));
  P("curl_fileinfo.time", offsetof(struct curl_fileinfo, time));
  P("curl_fileinfo.perm", offsetof(struct curl_fileinfo, perm));
  P("curl_fileinfo.size_field", offsetof(struct curl_fileinfo, size));
  P("curl_fileinfo.hardlinks", offsetof(struct curl_fileinfo, hardlinks));
  P("curl_fileinfo.strings.time", offsetof(struct curl_fileinfo, strings.time));
  P("curl_fileinfo.strings.target", offsetof(struct curl_fileinfo, strings.target));
  P("curl_fileinfo.flags", offsetof(struct curl_fileinfo, flags));
  P("curl_fileinfo.b_used", offsetof(struct curl_fileinfo, b_used));
  P("curl_hstsentry.size", sizeof(struct curl_hstsentry));
  P("curl_hstsentry.namelen", offsetof(struct curl_hstsentry, namelen));
  P("curl_hstsentry.expire", offsetof(struct curl_hstsentry, expire));
  P("curl_index.size", sizeof(struct curl_index));
  P("curl_index.total", offsetof(struct curl_index, total));
  P("CURLVERSION_NOW", CURLVERSION_NOW);
  P("CURL_ERROR_SIZE", CURL_ERROR_SIZE);
  P("CURLOPT_XFERINFOFUNCTION", CURLOPT_XFERINFOFUNCTION);
  P("CURLOPT_POSTFIELDSIZE_LARGE", CURLOPT_POSTFIELDSIZE_LARGE);
  P("CURLOPT_HSTS", CURLOPT_HSTS);
  P("CURLMOPT_MAXCONNECTS", CURLMOPT_MAXCONNECTS);
  P("CURLINFO_SIZE_DOWNLOAD_T", CURLINFO_SIZE_DOWNLOAD_T);
  return 0;
}
