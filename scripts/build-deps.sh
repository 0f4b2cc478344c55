#!/usr/bin/env bash
# Installs the Debian packages the build needs (OpenSSL headers for the second TLS backend)
# when they are missing. Sourced by demo.sh and test.sh.
build_deps_missing=()
dpkg -s libssl-dev >/dev/null 2>&1 || build_deps_missing+=(libssl-dev)
command -v pkg-config >/dev/null || build_deps_missing+=(pkg-config)
if ((${#build_deps_missing[@]})); then
  if [[ $(id -u) == 0 ]]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${build_deps_missing[@]}" >/dev/null
  else
    echo "please install: ${build_deps_missing[*]} (sudo apt-get install ${build_deps_missing[*]})" >&2
  fi
fi
