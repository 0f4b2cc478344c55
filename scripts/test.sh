#!/usr/bin/env bash
# Runs every test: installs what the tests need first (Debian packages, the reference curl),
# then the workspace suites. Set OXCURL_NO_INSTALL=1 to skip the install step.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ -z ${OXCURL_NO_INSTALL:-} ]]; then
  # shellcheck source=scripts/build-deps.sh
  source scripts/build-deps.sh
  need=()
  command -v nginx >/dev/null || [[ -x /usr/sbin/nginx ]] || need+=(nginx-light)
  command -v gzip >/dev/null || need+=(gzip)
  command -v zstd >/dev/null || need+=(zstd)
  command -v brotli >/dev/null || need+=(brotli)
  command -v faketime >/dev/null || need+=(faketime)
  command -v valgrind >/dev/null || need+=(valgrind)
  command -v gcc >/dev/null || need+=(gcc)
  [[ -x /usr/sbin/squid ]] || need+=(squid)
  [[ -x /usr/sbin/danted ]] || need+=(dante-server)
  [[ -x /usr/sbin/vsftpd ]] || need+=(vsftpd)
  [[ -x /usr/sbin/nghttpx ]] || need+=(nghttp2-proxy)
  command -v openssl >/dev/null || need+=(openssl)
  command -v tshark >/dev/null || need+=(tshark)
  # Debian's git (its git-remote-http links libcurl-gnutls.so.4): crates/libcurl/tests/git.rs
  [[ -x /usr/lib/git-core/git-remote-http ]] || need+=(git)
  # pycurl built from source in a venv: crates/libcurl/tests/pycurl.rs (scripts/pycurl.sh)
  python3 -c 'import venv, ensurepip, sysconfig, os, sys
sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))' \
    2>/dev/null || need+=(python3-venv python3-dev)
  if ((${#need[@]})); then
    if [[ $(id -u) == 0 ]]; then
      apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
    else
      echo "test.sh: please install: ${need[*]}" >&2
    fi
  fi
  # ProFTPD beside vsftpd: unpacked, since the two packages conflict.
  if [[ -z ${OXCURL_PROFTPD_DIR:-} ]]; then
    OXCURL_PROFTPD_DIR=$(bash scripts/get-proftpd.sh) || echo "test.sh: ProFTPD could not be unpacked" >&2
    export OXCURL_PROFTPD_DIR
  fi
  ref=../shared/reference/get-reference-curl
  if [[ -z ${OXCURL_REFERENCE_CURL:-} ]]; then
    if [[ -x $ref ]] || [[ -f $ref ]]; then
      OXCURL_REFERENCE_CURL=$(bash "$ref")
      export OXCURL_REFERENCE_CURL
    fi
  fi
fi
if cargo nextest --version >/dev/null 2>&1; then
  cargo nextest run --workspace --features oxcurl-tool/alloc-count --no-fail-fast "$@"
else
  cargo test --workspace --features oxcurl-tool/alloc-count --no-fail-fast "$@"
fi
