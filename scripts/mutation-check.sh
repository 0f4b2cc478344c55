#!/usr/bin/env bash
# Shows that ordinary differential tests fail on a wrong client: builds the wrappers of
# crates/tool/tests/fixtures/mutants/ around the built oxcurl, each changing one byte of
# stdout, of stderr, of a file written with -o or of the request, or the exit code, and runs a
# few tests with each as OXCURL_UNDER_TEST. Each must fail, reporting that difference; with
# the wrapper that changes nothing they must pass. Exits 1 listing each check that went the
# other way. Needs the reference curl (OXCURL_REFERENCE_CURL, as for the tests).
set -euo pipefail
cd "$(dirname "$0")/.."
features=(--features oxcurl-tool/alloc-count)
cargo nextest run -p oxcurl-tool "${features[@]}" --no-run --test diff_http --test diff_errors \
  --test diff_output
real=$(cd "${CARGO_TARGET_DIR:-target}/debug" && pwd)/oxcurl
[[ -x $real ]] || { echo "mutation-check: no $real (cargo build -p oxcurl-tool)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for t in crates/tool/tests/fixtures/mutants/*.sh; do
  name=$(basename "$t" .sh)
  sed "s|@REAL@|$real|g" "$t" >"$work/$name"
  chmod +x "$work/$name"
done

fail=0
# check WRAPPER TEST-BINARY TEST EXPECT: EXPECT is "pass" or the text the failure must show.
check() {
  local wrapper=$1 bin=$2 test=$3 expect=$4 log=$work/log rc=0
  OXCURL_UNDER_TEST=$work/$wrapper cargo nextest run -p oxcurl-tool "${features[@]}" \
    --no-fail-fast --test "$bin" -E "test(=$test)" >"$log" 2>&1 || rc=$?
  if [[ $expect == pass ]]; then
    if ((rc == 0)); then
      echo "ok: $wrapper: $bin $test passes"
    else
      echo "FAIL: $wrapper: $bin $test should pass:"; tail -40 "$log"; fail=1
    fi
  elif ((rc == 0)); then
    echo "FAIL: $wrapper: $bin $test passed, the harness missed the change"; fail=1
  elif grep -qF -- "$expect" "$log"; then
    echo "ok: $wrapper: $bin $test fails: $expect"
  else
    echo "FAIL: $wrapper: $bin $test failed without \"$expect\":"; tail -40 "$log"; fail=1
  fi
}

check passthrough diff_http get_basic pass
check passthrough diff_errors fail_on_404 pass
check passthrough diff_output output_to_file pass
check stdout diff_http get_basic "stdout differs at byte 0"
check stderr diff_errors fail_on_404 "stderr differs at byte 0"
check file diff_output output_to_file "file {tmp}/out.txt differs at byte 0"
check request diff_http get_basic "bytes received on connection 0 differs"
check exit diff_http get_basic "exit status differs: reference exit code 0, oxcurl exit code 1"
check exit diff_errors fail_on_404 "exit status differs: reference exit code 22, oxcurl exit code 23"
exit "$fail"
