#!/usr/bin/env bash
# Builds libcurl.so.4 (soname libcurl.so.4, every export versioned CURL_OPENSSL_4 like
# Debian's libcurl4-openssl build) from the oxcurl-libcurl staticlib, plus libcurl.so, and
# the same library as libcurl-gnutls.so.4 (exports versioned CURL_GNUTLS_3 like Debian's
# libcurl3-gnutls, which Debian's git-remote-http and other programs link).
# Usage: scripts/build-libcurl.sh [--release] [--link-only]
#   -> target/<profile>/libcurl/libcurl.so.4 (a directory of its own: cargo puts
#      target/<profile> on LD_LIBRARY_PATH for tests, and a libcurl.so.4 there would replace
#      the system libcurl of every curl those tests run)
#   -> target/<profile>/libcurl/libcurl-gnutls.so.4
# --link-only skips cargo and links the archive cargo already built (the C ABI tests use it:
# building the tests builds the staticlib with the features of the whole test run).
set -euo pipefail
cd "$(dirname "$0")/.."
profile=debug
args=()
build=1
for a in "$@"; do
  case $a in
    --release) profile=release; args+=(--release) ;;
    --link-only) build=0 ;;
    *) echo "usage: $0 [--release] [--link-only]" >&2; exit 2 ;;
  esac
done
if ((build)); then
  cargo build -q -p oxcurl-libcurl "${args[@]}"
fi
dir=${CARGO_TARGET_DIR:-target}/$profile
a=$dir/liboxcurl_libcurl.a
if ((!build)); then
  # Built as a dependency (of the tests), the archive is not copied up from deps/: take the
  # newest there.
  a=$(ls -t "$dir"/deps/liboxcurl_libcurl-*.a | head -n 1)
fi
out=$dir/libcurl
mkdir -p "$out"
# Relink only when the archive changed; link to a temporary name and rename, so that
# programs loading the library meanwhile never see a half-written file.
link() { # soname version-script
  local so=$out/$1
  if [[ ! -e $so || $a -nt $so || $2 -nt $so ]]; then
    local tmp
    tmp=$(mktemp "$out/.$1.XXXXXX")
    gcc -shared -o "$tmp" -Wl,-soname,"$1" \
      -Wl,--version-script="$2" -Wl,--gc-sections \
      -Wl,--whole-archive "$a" -Wl,--no-whole-archive \
      -lssl -lcrypto -lgcc_s -lutil -lrt -lpthread -lm -ldl -lc
    mv -f "$tmp" "$so"
  fi
}
link libcurl.so.4 crates/libcurl/libcurl.vers
link libcurl-gnutls.so.4 crates/libcurl/libcurl-gnutls.vers
so=$out/libcurl.so.4
ln -sf libcurl.so.4 "$out/libcurl.so"
if [[ ! -e $out/libcurl.a || $a -nt $out/libcurl.a ]]; then
  tmp=$(mktemp "$out/.libcurl.a.XXXXXX")
  cp -f "$a" "$tmp" && mv -f "$tmp" "$out/libcurl.a"
fi
echo "$so"
