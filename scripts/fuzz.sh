#!/usr/bin/env bash
# Runs every cargo-fuzz target in fuzz/ for a bounded time each.
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]
#
# SECONDS per target (default 60); all targets unless some are named. Environment:
#   FUZZ_JOBS=N        targets run at once (default 2; each is one libFuzzer process)
#   FUZZ_SANITIZER=S   address (default) or none
#   FUZZ_NICE=N        nice level of the fuzzers (default 0)
#
# Works on a stable toolchain: cargo-fuzz needs nightly only for -Zsanitizer, which
# RUSTC_BOOTSTRAP=1 unlocks on stable (the ASan runtime ships with stable's std). cargo-fuzz is
# installed from crates.io when missing.
#
# Seeds come from fuzz/corpus/TARGET/ (in the repository, read only); what a run learns goes
# to fuzz/target/corpus/TARGET/, kept between runs, so repeated and longer runs build on each
# other. Crashes go to fuzz/artifacts/TARGET/ and make the script fail, listing them with the
# command that reproduces each.
set -euo pipefail
cd "$(dirname "$0")/../fuzz"

secs=${1:-60}
shift || true
jobs=${FUZZ_JOBS:-2}
sanitizer=${FUZZ_SANITIZER:-address}
nice_level=${FUZZ_NICE:-0}
export RUSTC_BOOTSTRAP=1
export CARGO_TERM_COLOR=never

if ! cargo fuzz --version >/dev/null 2>&1; then
  echo "fuzz.sh: installing cargo-fuzz" >&2
  cargo install cargo-fuzz --locked >&2
fi

if (($#)); then
  targets=("$@")
else
  mapfile -t targets < <(cargo fuzz list)
fi

# One build for all targets, before the clock starts.
cargo fuzz build -O --sanitizer "$sanitizer" >&2

logs=target/fuzz-logs
mkdir -p "$logs"

run_one() {
  local t=$1
  mkdir -p "target/corpus/$t" "artifacts/$t" "corpus/$t"
  # stdin is /dev/null: no target may block reading it.
  if nice -n "$nice_level" cargo fuzz run -O --sanitizer "$sanitizer" "$t" \
    "target/corpus/$t" "corpus/$t" -- \
    -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="artifacts/$t/" </dev/null >"$logs/$t.log" 2>&1; then
    echo "fuzz.sh: $t: ok ($(grep -ao 'stat::number_of_executed_units: [0-9]*' "$logs/$t.log" | grep -o '[0-9]*$' || echo '?') runs in ${secs}s)"
  else
    echo "fuzz.sh: $t: FAILED (log: fuzz/$logs/$t.log)"
    tail -n 40 "$logs/$t.log" | sed "s/^/  $t| /"
    return 1
  fi
}
export -f run_one
export secs sanitizer nice_level logs

status=0
printf '%s\n' "${targets[@]}" | xargs -P "$jobs" -I{} bash -c 'run_one "$@"' _ {} || status=1

found=$(find artifacts -type f 2>/dev/null | sort)
if [[ -n $found ]]; then
  echo "fuzz.sh: crash inputs (reproduce: cd fuzz && RUSTC_BOOTSTRAP=1 cargo fuzz run -O TARGET FILE):"
  echo "$found" | sed 's/^/  fuzz\//'
  status=1
fi
exit $status
