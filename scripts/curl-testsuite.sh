#!/usr/bin/env bash
# Runs curl 8.14.1's own test suite (tests/runtests.pl and its test servers) against oxcurl.
#
#   scripts/curl-testsuite.sh              the tests in tests/curl-suite/expected-pass.txt (CI)
#   scripts/curl-testsuite.sh --full       every test of the suite
#   scripts/curl-testsuite.sh --openssl    with the OpenSSL backend (CURL_SSL_BACKEND=openssl):
#                                          the tests in expected-pass-openssl.txt (CI), or
#                                          those given; results in target/curl-suite-openssl
#   scripts/curl-testsuite.sh 54 56 1-100  the given tests (numbers, a-b ranges, or runtests
#                                          keywords such as HTTP or '!flaky')
#
# curl's release source is downloaded once from the Debian mirror apt uses, checked against its
# sha256, and built (configure, then the test servers only) in $OXCURL_CURL_SRC (default
# ~/.cache/oxcurl-curl-8.14.1). Nothing of curl's source is kept in this repository.
# Results: target/curl-suite/results.txt ("NUMBER pass|fail|skip" per test) and runtests.log.
# Exits non-zero when a test of expected-pass.txt does not pass; lists the tests that pass and
# are not in expected-pass.txt yet, so that the list can be updated.
#
# Environment: OXCURL_CURL_SRC (cache folder), OXCURL_SUITE_TIMEOUT (seconds one oxcurl run may
# take before it is killed, default 60), OXCURL_SUITE_JOBS (parallel runners, default 2),
# OXCURL_NO_INSTALL=1 (do not apt-get install what is missing), OXCURL_SUITE_LIBCURL (a folder
# with the libcurl.so.4 the libtest programs run with instead of ours).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

version=8.14.1
sha256=6766ada7101d292b42b8b15681120acd68effa4a9660935853cf6d61f0d984d4
src=${OXCURL_CURL_SRC:-$HOME/.cache/oxcurl-curl-$version}
out=${CARGO_TARGET_DIR:-$repo/target}/curl-suite
expected=$repo/tests/curl-suite/expected-pass.txt
timeout_s=${OXCURL_SUITE_TIMEOUT:-60}
jobs=${OXCURL_SUITE_JOBS:-2}

full=0
openssl=0
selection=()
for arg in "$@"; do
  case $arg in
    --full) full=1 ;;
    --openssl) openssl=1 ;;
    -h | --help) sed -n '2,20p' "$0"; exit 0 ;;
    [0-9]*-[0-9]*) selection+=("${arg%-*}" to "${arg#*-}") ;;
    *) selection+=("$arg") ;;
  esac
done

# The HTTPS and HTTP/2 tests again with the other TLS backend: runtests sees `OpenSSL/...` first
# in `curl -V` and turns on its OpenSSL and SSLpinning features, as for curl built with OpenSSL.
if ((openssl)); then
  export CURL_SSL_BACKEND=openssl
  expected=$repo/tests/curl-suite/expected-pass-openssl.txt
  out=${out}-openssl
fi

# What building the servers and running the suite needs. stunnel makes the HTTPS tests run and
# nghttpx the HTTP/2 ones; without them runtests skips those tests.
if [[ -z ${OXCURL_NO_INSTALL:-} ]]; then
  need=()
  command -v perl >/dev/null || need+=(perl)
  command -v make >/dev/null || need+=(make)
  command -v gcc >/dev/null || need+=(gcc)
  command -v pkg-config >/dev/null || need+=(pkg-config)
  dpkg -s libssl-dev >/dev/null 2>&1 || need+=(libssl-dev)
  command -v stunnel4 >/dev/null || command -v stunnel >/dev/null || need+=(stunnel4)
  command -v nghttpx >/dev/null || [[ -x /usr/sbin/nghttpx ]] || need+=(nghttp2-proxy)
  command -v openssl >/dev/null || need+=(openssl)
  command -v curl >/dev/null || need+=(curl)
  if ((${#need[@]})); then
    if [[ $(id -u) == 0 ]]; then
      apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
    else
      echo "curl-testsuite: please install: ${need[*]}" >&2
    fi
  fi
fi

# curl's source with the test servers built, once.
if [[ ! -x $src/tests/server/sws || ! -f $src/.oxcurl-servers-built ]]; then
  echo "curl-testsuite: preparing curl $version's test suite in $src" >&2
  mirror=$(sed -n 's/^URIs: *\(.*\/debian\)$/\1/p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n1)
  [[ -n $mirror ]] || mirror=$(awk '$1=="deb" && $3 ~ /^[a-z]+$/ {print $2; exit}' /etc/apt/sources.list 2>/dev/null)
  [[ -n $mirror ]] || mirror=http://deb.debian.org/debian
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  tarball=$work/curl_$version.orig.tar.gz
  url=$mirror/pool/main/c/curl/curl_$version.orig.tar.gz
  if command -v curl >/dev/null; then
    curl -fsSL -o "$tarball" "$url"
  else
    python3 -c 'import sys, urllib.request; urllib.request.urlretrieve(sys.argv[1], sys.argv[2])' "$url" "$tarball"
  fi
  echo "$sha256  $tarball" | sha256sum -c --quiet - || { echo "curl-testsuite: bad sha256 for $url" >&2; exit 1; }
  rm -rf "$src"
  mkdir -p "$src"
  tar -xzf "$tarball" -C "$src" --strip-components=1
  (
    cd "$src"
    ./configure -q --with-openssl --without-libpsl --disable-ldap --without-libidn2 --without-brotli \
      --without-zstd --without-nghttp2 --without-libssh2 --disable-shared >"$src/configure.out" 2>&1 \
      || { tail -n 30 "$src/configure.out" >&2; exit 1; }
    make -s -C tests/server -j"$jobs" >"$src/make-servers.out" 2>&1 || { tail -n 30 "$src/make-servers.out" >&2; exit 1; }
  )
  touch "$src/.oxcurl-servers-built"
fi
# runtests.pl turns on its "h2c" feature (the tests of HTTP/2 over cleartext and the Upgrade:
# h2c switch) only when `curl -V` names nghttp2, curl's HTTP/2 library. oxcurl's HTTP/2 is its
# own (the h2 crate) and speaks h2c too: the version line naming oxcurl turns the feature on as
# well. Idempotent, on the prepared tree.
sed -i 's|if ($libcurl =~ /nghttp2/i) {|if ($libcurl =~ /nghttp2\|oxcurl\\//i) {|' "$src/tests/runtests.pl"
grep -q 'nghttp2|oxcurl' "$src/tests/runtests.pl" \
  || { echo "curl-testsuite: could not teach runtests.pl that oxcurl speaks h2c" >&2; exit 1; }
# The test certificates stunnel serves the HTTPS tests with (generated with openssl).
if [[ ! -f $src/tests/certs/test-localhost.pem ]]; then
  make -s -C "$src/tests/certs" >"$src/make-certs.out" 2>&1 || { tail -n 30 "$src/make-certs.out" >&2; exit 1; }
fi
# The libtest programs (tests/libtest, the tests whose <tool> is lib500, lib1560, ...) linked
# against oxcurl's libcurl.so.4 instead of curl's lib/libcurl.la: the generated Makefile with the
# library and its dependency replaced. The helpers some programs compile in from curl's tree
# (first.c, testutil.c, testtrace.c, lib/curlx/*.c, lib/curl_threads.c) stay as they are; the
# allocator pointers curl_threads.c calls through come from libtest-memory.c. The programs are
# named lib500.oxcurl and so on (runtests is told the extension), so that a runtests that does
# not set up our library does not find them. make -k builds what links and leaves the rest (a
# program calling what libcurl.so.4 does not export); runtests then skips the tests of a
# missing program. Once built, make only checks that the programs are up to date (the library
# is loaded at run time, so a new one needs no relinking). About 30 s the first time.
scripts/build-libcurl.sh >/dev/null
libdir=${CARGO_TARGET_DIR:-$repo/target}/debug/libcurl
# OXCURL_SUITE_LIBCURL: run the programs with another libcurl.so.4 (the reference's, to tell
# our failures from the environment's).
testlib=${OXCURL_SUITE_LIBCURL:-$out/lib}
mkdir -p "$out/lib"
# A copy, as for the binary below.
cp "$libdir/libcurl.so.4" "$out/lib/libcurl.so.4"
exe=.oxcurl
libtest_make=(make -C "$src/tests/libtest" EXEEXT=$exe am__DEPENDENCIES_1= CFLAGS="-O0 -w"
  SUPPORTFILES_LIBS="-L$libdir -lcurl" TESTUTIL_LIBS="-L$libdir -lcurl"
  lib3207_LDADD="$out/libtest-memory.o -L$libdir -lcurl")
printf 'oxcurl-programs:\n\t@echo $(noinst_PROGRAMS)\n' >"$out/programs.mk"
mapfile -t libtests < <("${libtest_make[@]}" -s --no-print-directory -f Makefile -f "$out/programs.mk" oxcurl-programs | tr ' ' '\n')
gcc -c -O0 -I"$src/include" -o "$out/libtest-memory.o" "$repo/tests/curl-suite/libtest-memory.c"
"${libtest_make[@]}" -k -j"$jobs" "${libtests[@]}" >"$out/make-libtest.out" 2>&1 || true
unbuilt=()
for prog in "${libtests[@]}"; do [[ -x $src/tests/libtest/$prog ]] || unbuilt+=("${prog%$exe}"); done
((${#unbuilt[@]} == 0)) || echo "curl-testsuite: libtest programs not built (see $out/make-libtest.out): ${unbuilt[*]}" >&2
# A <precheck> runs ./libtest/lib518 and the like itself (no runner, no extension): for those,
# a script of that name runs the program with the library of the run, and fails (so runtests
# skips the test) outside of a run of this script.
for prog in $(cd "$src/tests/data" && grep -l '<precheck>' test* | while read -r f; do
  sed -n '/<precheck>/,/<\/precheck>/p' "$f" | grep -o 'libtest/lib[%A-Za-z0-9]*' | sed "s/%TESTNUMBER/${f#test}/"
done | sort -u); do
  cat >"$src/tests/$prog.tmp" <<'WRAP'
#!/bin/sh
[ -n "$OXCURL_SUITE_LIBDIR" ] || exit 1
LD_LIBRARY_PATH=$OXCURL_SUITE_LIBDIR exec "$0.oxcurl" "$@"
WRAP
  chmod +x "$src/tests/$prog.tmp"
  mv -f "$src/tests/$prog.tmp" "$src/tests/$prog"
done
# The programs find libcurl.so.4 through LD_LIBRARY_PATH (they carry no run path), which the
# runner below sets for them alone: make sure that it is the one meant, not the system's.
loaded=$(LD_LIBRARY_PATH=$testlib ldd "$src/tests/libtest/lib500$exe")
if [[ $loaded != *"libcurl.so.4 => $testlib/libcurl.so.4 "* ]]; then
  echo "curl-testsuite: lib500 does not load $testlib/libcurl.so.4:" >&2
  echo "$loaded" >&2
  exit 1
fi

# runtests.pl asks src/curlinfo for the features `curl -V` does not list; ours describes oxcurl.
# (runtests adds the programs' extension to its name too.)
install -m 755 "$repo/tests/curl-suite/curlinfo" "$src/src/curlinfo$exe"

# oxcurl itself, killed when one run takes too long (runtests has no time limit of its own, and
# its runners ignore SIGTERM, so the kill is SIGKILL).
cargo build -q -p oxcurl-tool --features oxcurl-tool/alloc-count --bin oxcurl
bin=${CARGO_TARGET_DIR:-$repo/target}/debug/oxcurl
mkdir -p "$out"
# A copy, so that a rebuild during the run does not change the binary under test.
cp "$bin" "$out/oxcurl.bin"
cat >"$out/oxcurl" <<WRAP
#!/bin/sh
exec timeout -s KILL $timeout_s "$out/oxcurl.bin" "\$@"
WRAP
chmod +x "$out/oxcurl"
# runtests starts every program through $CURL_TEST_EXE_RUNNER (servers too): the libtest
# programs run with our libcurl.so.4 and the same time limit as oxcurl, the rest unchanged.
cat >"$out/exe-runner" <<WRAP
#!/bin/sh
case \$1 in
  */libtest/*) LD_LIBRARY_PATH="$testlib" exec timeout -s KILL $timeout_s "\$@" ;;
esac
exec "\$@"
WRAP
chmod +x "$out/exe-runner"

if ((full)); then
  tests=()
elif ((${#selection[@]})); then
  tests=("${selection[@]}")
else
  mapfile -t tests < <(grep -o '^[0-9]\+' "$expected")
fi
verify_curl=$(command -v curl || echo "$out/oxcurl")
log=$out/runtests.log
echo "curl-testsuite: running curl $version's runtests.pl against $bin (log: $log)" >&2
set +e
(cd "$src/tests" && CURL_TEST_EXE_RUNNER=$out/exe-runner CURL_TEST_EXE_EXT_TOOL=$exe OXCURL_SUITE_LIBDIR=$testlib perl runtests.pl -a -n -vc "$verify_curl" -c "$out/oxcurl" -j"$jobs" "${tests[@]}") >"$log" 2>&1
set -e

# runtests ends with its "TESTDONE:" summary; without it, it died on the way, and the tests it
# had not reported on would otherwise look passed.
if ! grep -q '^TESTDONE: ' "$log"; then
  echo "curl-testsuite: runtests.pl did not finish (no TESTDONE line); the end of $log:" >&2
  tail -n 20 "$log" >&2
  exit 1
fi

# Per-test results. Every test that starts prints "test NNNN...[name]", and its block (runtests
# prints a test's lines together, also with -j) ends in "<flags> OK (N out of M, ...)" when it
# passed: only that line counts as a pass. A failure prints " NNNN: <part> FAILED" and the
# summary lists them all; a test whose libtest tool is not built is IGNORED. The requested
# tests that did not start were skipped (runtests names only the first three skipped for each
# reason).
if ((full)); then
  ls "$src/tests/data" | sed -n 's/^test\([0-9]\+\)$/\1/p' >"$out/requested.txt"
else
  printf '%s\n' "${tests[@]}" | perl -ne '
    BEGIN { $prev = "" } chomp;
    if ($_ eq "to") { $to = 1; next }
    if (/^\d+$/) { if ($to) { print "$_\n" for $prev + 1 .. $_; $to = 0 } else { print "$_\n" } $prev = $_ }' \
    >"$out/requested.txt"
fi
perl -ne '
  BEGIN { open(my $r, "<", shift) or die; while (<$r>) { chomp; $skipped{$_ + 0} = 1 } }
  if (/^test (\d+)\.\.\./) { $cur = $1 + 0; $ran{$cur} = 1 }
  if (/ OK \(\s*\d+\s+out of\s+\d+/ && defined $cur) { $ok{$cur} = 1; undef $cur }
  if (/^ (\d+): .*FAILED/) { $failed{$1} = 1 }
  if (/^TESTFAIL: These test cases failed: (.*)/) { $failed{$_} = 1 for split " ", $1 }
  if (/^ (\d+): IGNORED:/) { delete $ran{$1}; $skipped{$1} = 1 }
  if (/^test (\d+) SKIPPED/) { $skipped{$1 + 0} = 1 }
  END {
    print "$_ ", ($ok{$_} && !$failed{$_} ? "pass" : "fail"), "\n" for keys %ran;
    print "$_ skip\n" for grep { !$ran{$_} } keys %skipped;
  }' "$out/requested.txt" "$log" | sort -n -u >"$out/results.txt"

passed=$(grep -c ' pass$' "$out/results.txt" || true)
failed=$(grep -c ' fail$' "$out/results.txt" || true)
skipped=$(grep -c ' skip$' "$out/results.txt" || true)

mapfile -t want < <(grep -o '^[0-9]\+' "$expected")
declare -A result
while read -r num what; do result[$num]=$what; done <"$out/results.txt"
regressions=()
if ((!${#selection[@]})); then
  for num in "${want[@]}"; do
    if [[ ${result[$num]:-} != pass ]]; then regressions+=("$num(${result[$num]:-not run})"); fi
  done
fi
declare -A wanted
for num in "${want[@]}"; do wanted[$num]=1; done
newly=()
for num in "${!result[@]}"; do
  if [[ ${result[$num]} == pass && -z ${wanted[$num]:-} ]]; then newly+=("$num"); fi
done

fails=$( (grep ' fail$' "$out/results.txt" || true) | cut -d' ' -f1 | tr '\n' ' ')
[[ -z $fails ]] || echo "curl-testsuite: failed: $fails"
if ((${#newly[@]})); then
  echo "curl-testsuite: passing, not in ${expected#$repo/} yet:" \
    "$(printf '%s\n' "${newly[@]}" | sort -n | tr '\n' ' ')"
fi
if ((${#regressions[@]})); then
  echo "curl-testsuite: expected to pass, did not: ${regressions[*]} (details in $log)" >&2
fi
echo "$passed passed, $failed failed, $skipped skipped"
((${#regressions[@]} == 0))
