#!/usr/bin/env bash
# Builds pycurl from its PyPI sdist against curl 8.14.1's headers and our libcurl.so.4, then
# runs pycurl's own test suite (pytest; it starts its servers on loopback) with the library
# picked by LD_LIBRARY_PATH.
# Usage: scripts/pycurl.sh [--lib ours|reference] [--link-only] [-- PYTEST-ARGS...]
#   --lib reference runs the same build against the reference libcurl (to tell our failures
#   from the suite's own). --link-only: see build-libcurl.sh.
# Needs python3 with venv and pip, gcc and the Python headers; the reference headers come from
# OXCURL_REFERENCE_CURL's prefix (default ~/.cache/oxcurl-reference). Work files go to
# target/pycurl (OXCURL_PYCURL_DIR). The last line pytest prints is its summary.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
lib=ours
link=()
while (($#)); do
  case $1 in
    --lib) lib=$2; shift 2 ;;
    --link-only) link=(--link-only); shift ;;
    --) shift; break ;;
    *) echo "usage: $0 [--lib ours|reference] [--link-only] [-- PYTEST-ARGS...]" >&2; exit 2 ;;
  esac
done
version=7.49.0
ref=${OXCURL_REFERENCE_CURL:-$HOME/.cache/oxcurl-reference/bin/curl}
prefix=$(cd "$(dirname "$ref")/.." && pwd)
[[ -f $prefix/include/curl/curl.h ]] || { echo "pycurl.sh: no curl headers under $prefix/include" >&2; exit 1; }
# OXCURL_LIB_UNDER_TEST: the directory of another libcurl.so.4 to test as ours (not rebuilt).
if [[ -n ${OXCURL_LIB_UNDER_TEST:-} ]]; then
  ourlib=$(cd "$OXCURL_LIB_UNDER_TEST" && pwd)
else
  so=$(bash scripts/build-libcurl.sh "${link[@]}")
  ourlib=$root/$(dirname "$so")
fi
case $lib in
  ours) libdir=$ourlib ;;
  reference) libdir=$prefix/lib ;;
  *) echo "pycurl.sh: --lib ours|reference" >&2; exit 2 ;;
esac
work=${OXCURL_PYCURL_DIR:-$root/target/pycurl}
mkdir -p "$work"
venv=$work/venv
py=$venv/bin/python
if [[ ! -x $py ]]; then
  python3 -m venv "$venv"
fi
stamp=$work/.deps-$version
if [[ ! -e $stamp ]]; then
  "$py" -m pip install -q --disable-pip-version-check pytest==9.2.0 flaky==3.8.1 bottle==0.13.4 pytest-timeout==2.4.0 \
    flask==3.1.3 \
    setuptools==84.2.1 wheel
  touch "$stamp"
fi
src=$work/pycurl-$version
if [[ ! -d $src ]]; then
  "$py" -m pip download -q --disable-pip-version-check --no-binary :all: --no-deps \
    -d "$work" "pycurl==$version"
  tar -xzf "$work/pycurl-$version.tar.gz" -C "$work"
fi
# curl-config as pycurl's setup.py asks it: the reference headers, our library to link.
cat >"$work/curl-config" <<EOF
#!/bin/sh
case \$1 in
  --version) echo "libcurl 8.14.1" ;;
  --cflags) echo "-I$prefix/include" ;;
  --libs|--static-libs) echo "-L$ourlib -lcurl" ;;
  --features) printf '%s\n' SSL IPv6 UnixSockets libz AsynchDNS HTTP2 HTTPS-proxy alt-svc HSTS ;;
  --ssl-backends) echo "OpenSSL" ;;
  *) exit 1 ;;
esac
EOF
chmod +x "$work/curl-config"
# pycurl links libcurl.so.4 dynamically: a new build of ours needs no rebuild of it.
if [[ ! -e $work/.built-$version ]]; then
  PYCURL_CURL_CONFIG=$work/curl-config PYCURL_SSL_LIBRARY=openssl \
    "$py" -m pip install -q --disable-pip-version-check --no-build-isolation \
    --force-reinstall --no-deps "$src"
  touch "$work/.built-$version"
fi
cd "$src"
# The suite's tests directory holds a fake-curl helper and servers it starts itself.
export LD_LIBRARY_PATH=$libdir
"$py" -c 'import pycurl, sys; sys.stderr.write(pycurl.version + "\n")'
exec "$py" -m pytest -p no:cacheprovider -o addopts= "$@"
