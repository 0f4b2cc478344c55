#!/usr/bin/env bash
# bench/bench.sh - oxcurl against the reference curl, scenario by scenario, on loopback nginx.
#
#   bash bench/bench.sh                 every scenario, 8 GiB big files, 5 timed pairs each
#   bash bench/bench.sh -B 1G -n 3      quicker: 1 GiB big files, 3 pairs
#   bash bench/bench.sh --short         CI: three scenarios; fails when oxcurl's own allocation
#                                       count exceeds bench/expected-allocs.txt (speed is only
#                                       reported, never asserted)
#   bash bench/bench.sh -l              list the scenarios
#
# Options: -n RUNS timed pairs (default 5), -w WARMUP untimed runs of each (default 1),
# -B SIZE big file: 8G 1G 512M 64M (default 8G), -s LIST / -x LIST run only / skip these
# scenarios (comma-separated), -I also count instructions under callgrind where it is quick
# (default when valgrind is installed; -i never), -N no allocation counts, -r DIR results folder,
# -S DIR re-print an earlier results folder's summary.
# A and B: oxcurl (default target/release/oxcurl, built first unless BENCH_NO_BUILD=1) and the
# reference curl (default $OXCURL_REFERENCE_CURL, ~/.cache/oxcurl-reference/bin/curl, or what
# ../shared/reference/get-reference-curl installs); override with BENCH_A / BENCH_B.
#
# Per scenario: the warm-up, then RUNS pairs timed in turn (A B, B A, ...) so that drift hits
# both; the ratio columns are medians of the per-pair A/B ratios. wall = elapsed s, cpu = user+sys
# s, rss = peak resident MiB, all from wait4. Then one run of each under heapcount.so:
# allocations (own = made by the program's own code: all of oxcurl, curl + libcurl; all = the
# whole process, with OpenSSL, nghttp2, libc) and peak live heap bytes. With -I, one run each
# under callgrind: instructions executed (the one figure other load does not move).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
export BENCH_DIR=${BENCH_DIR:-/var/tmp/oxcurl-bench-own}
export BENCH_HTTP_PORT=${BENCH_HTTP_PORT:-28180}
export BENCH_H2C_PORT=${BENCH_H2C_PORT:-28182}
export BENCH_HTTPS_PORT=${BENCH_HTTPS_PORT:-28543}
export BENCH_FTP_PORT=${BENCH_FTP_PORT:-28121}
export BENCH_FTPS_PORT=${BENCH_FTPS_PORT:-28122}
BIN=$BENCH_DIR/bin
WWW=$BENCH_DIR/www
H=http://127.0.0.1:$BENCH_HTTP_PORT
C=http://127.0.0.1:$BENCH_H2C_PORT
S=https://127.0.0.1:$BENCH_HTTPS_PORT
F=ftp://127.0.0.1:$BENCH_FTP_PORT
FS=ftp://127.0.0.1:$BENCH_FTPS_PORT

RUNS=5 WARMUP=1 BIG=8G ONLY="" SKIP="" INSTR=auto ALLOC=1 RESULTS="" SHORT=0 LIST=0 RESUM=""
args=()
for a in "$@"; do
  case $a in
    --short) SHORT=1 ;;
    --help) args+=(-h) ;;
    *) args+=("$a") ;;
  esac
done
set -- "${args[@]+"${args[@]}"}"
while getopts "n:w:B:s:x:IiNr:S:lh" opt; do
  case $opt in
    n) RUNS=$OPTARG ;; w) WARMUP=$OPTARG ;; B) BIG=$OPTARG ;; s) ONLY=$OPTARG ;; x) SKIP=$OPTARG ;;
    I) INSTR=1 ;; i) INSTR=0 ;; N) ALLOC=0 ;; r) RESULTS=$OPTARG ;; S) RESUM=$OPTARG ;; l) LIST=1 ;;
    h) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) exit 2 ;;
  esac
done
if ((SHORT)); then
  RUNS=3 INSTR=0
  ONLY=${ONLY:-get-600B,h1-64M,seq-100}
fi

# ------------------------------------------------------------------ scenarios
SCENARIOS=(h1-big h1-big-file h2c-big https1-big https2-big ftp-big ftps-big get-600B https-600B par2
  seq-1000 h2c-seq-1000 https2-seq-1000 par50-1000 h2c-par50-1000 https2-par50-1000 multi-10k
  h1-64M seq-100)
urls() {  # BASE COUNT: the first COUNT small files
  local i
  for ((i = 1; i <= $2; i++)); do printf '%s/small/f%04d.bin\n' "$1" "$i"; done
}
mapfile -t SMALL_H < <(urls "$H" 1000)
mapfile -t SMALL_C < <(urls "$C" 1000)
mapfile -t SMALL_S < <(urls "$S" 1000)
OUTFILE=$BENCH_DIR/out.bin

# scenario -> ARGS (curl's command line after the program), UNIT (MB or req), AMOUNT, WHAT
scenario() {
  local big_bytes
  big_bytes=$(numfmt --from=iec "$BIG")
  UNIT=req AMOUNT=1
  case $1 in
    h1-big) WHAT="GET $BIG over HTTP/1.1 to /dev/null"
      ARGS=(-s -o /dev/null "$H/$BIG"); UNIT=MB AMOUNT=$big_bytes ;;
    h1-big-file) WHAT="GET $BIG over HTTP/1.1 to a file"
      ARGS=(-s -o "$OUTFILE" "$H/$BIG"); UNIT=MB AMOUNT=$big_bytes ;;
    h2c-big) WHAT="GET $BIG over h2c (prior knowledge) to /dev/null"
      ARGS=(-s --http2-prior-knowledge -o /dev/null "$C/$BIG"); UNIT=MB AMOUNT=$big_bytes ;;
    https1-big) WHAT="GET $BIG over HTTPS, HTTP/1.1, to /dev/null"
      ARGS=(-s -k --http1.1 -o /dev/null "$S/$BIG"); UNIT=MB AMOUNT=$big_bytes ;;
    https2-big) WHAT="GET $BIG over HTTPS, HTTP/2, to /dev/null"
      ARGS=(-s -k --http2 -o /dev/null "$S/$BIG"); UNIT=MB AMOUNT=$big_bytes ;;
    ftp-big) WHAT="RETR $BIG from vsftpd (passive) to /dev/null"
      ARGS=(-s -o /dev/null "$F/$BIG"); UNIT=MB AMOUNT=$big_bytes ;;
    ftps-big) WHAT="RETR $BIG from vsftpd over explicit FTPS (AUTH, PROT P) to /dev/null"
      ARGS=(-s -k --ssl-reqd -o /dev/null "$FS/$BIG"); UNIT=MB AMOUNT=$big_bytes ;;
    h1-64M) WHAT="GET 64 MiB over HTTP/1.1 to /dev/null"
      ARGS=(-s -o /dev/null "$H/64M"); UNIT=MB AMOUNT=67108864 ;;
    get-600B) WHAT="one 600-byte GET over HTTP/1.1"
      ARGS=(-s -o /dev/null "$H/600B") ;;
    https-600B) WHAT="one 600-byte GET over HTTPS (handshake-dominated)"
      ARGS=(-s -k -o /dev/null "$S/600B") ;;
    par2) WHAT="-Z: the 600 B page and a 512 MiB file in parallel (HTTP/1.1)"
      ARGS=(-s -Z "$H/600B" -o /dev/null "$H/512M" -o /dev/null); UNIT=MB AMOUNT=$((536870912 + 600)) ;;
    seq-100) WHAT="100 small files, sequential, one HTTP/1.1 connection"
      ARGS=(-s "${SMALL_H[@]:0:100}"); AMOUNT=100 ;;
    seq-1000) WHAT="1000 small files (1-10 KiB), sequential, one HTTP/1.1 connection"
      ARGS=(-s "${SMALL_H[@]}"); AMOUNT=1000 ;;
    h2c-seq-1000) WHAT="1000 small files, sequential, one h2c connection"
      ARGS=(-s --http2-prior-knowledge "${SMALL_C[@]}"); AMOUNT=1000 ;;
    https2-seq-1000) WHAT="1000 small files, sequential, one HTTPS HTTP/2 connection"
      ARGS=(-s -k --http2 "${SMALL_S[@]}"); AMOUNT=1000 ;;
    par50-1000) WHAT="1000 small files, -Z --parallel-max 50, HTTP/1.1"
      ARGS=(-s -Z --parallel-max 50 "${SMALL_H[@]}"); AMOUNT=1000 ;;
    h2c-par50-1000) WHAT="1000 small files, -Z --parallel-max 50, h2c multiplexed"
      ARGS=(-s --http2-prior-knowledge -Z --parallel-max 50 "${SMALL_C[@]}"); AMOUNT=1000 ;;
    https2-par50-1000) WHAT="1000 small files, -Z --parallel-max 50, HTTPS HTTP/2 multiplexed"
      ARGS=(-s -k --http2 -Z --parallel-max 50 "${SMALL_S[@]}"); AMOUNT=1000 ;;
    multi-10k) WHAT="10,000 URLs (a glob) through one multi, -Z, HTTP/1.1"
      ARGS=(-s -Z "$H/small/f[0001-1000].bin?r=[1-10]"); AMOUNT=10000 ;;
    *) return 1 ;;
  esac
}
quick_under_valgrind() { [[ $1 == *600B || $1 == seq-100 ]]; }

if ((LIST)); then
  for s in "${SCENARIOS[@]}"; do scenario "$s"; printf '%-18s %s\n' "$s" "$WHAT"; done
  exit 0
fi

summarize() {  # results-dir scenario
  scenario "$2"
  touch "$1/allocs.tsv" "$1/instr.tsv"
  awk -F'\t' -v scen="$2" -v unit="$UNIT" -v amount="$AMOUNT" -f "$HERE/summarize.awk" \
    "$1/allocs.tsv" "$1/instr.tsv" "$1/runs.tsv"
}
header() {
  printf '%-17s | %-22s | %-22s | %-13s | %-21s | %-23s | %-21s | %s\n' scenario \
    "wall s: A B A/B" "cpu s: A B A/B" "rss MiB: A/B" "own allocs: A B" "all allocs: A B" \
    "peak heap KiB: A B A/B" "rate A B; fails; Ir A B A/B"
}
if [[ -n $RESUM ]]; then
  head -n 4 "$RESUM/summary.txt"
  header
  for s in "${SCENARIOS[@]}"; do
    if grep -q "^$s	" "$RESUM/runs.tsv"; then summarize "$RESUM" "$s"; fi
  done
  exit 0
fi

# ------------------------------------------------------------------ the two programs
if [[ -z ${BENCH_A:-} ]]; then
  if [[ -z ${BENCH_NO_BUILD:-} ]]; then
    (cd "$ROOT" && cargo build --release -q -p oxcurl-tool)
  fi
  BENCH_A=$ROOT/target/release/oxcurl
fi
if [[ -z ${BENCH_B:-} ]]; then
  if [[ -n ${OXCURL_REFERENCE_CURL:-} ]]; then
    BENCH_B=$OXCURL_REFERENCE_CURL
  elif [[ -x $HOME/.cache/oxcurl-reference/bin/curl ]]; then
    BENCH_B=$HOME/.cache/oxcurl-reference/bin/curl
  elif [[ -f $ROOT/../shared/reference/get-reference-curl ]]; then
    BENCH_B=$(bash "$ROOT/../shared/reference/get-reference-curl")
  else
    echo "bench: no reference curl (set OXCURL_REFERENCE_CURL or BENCH_B)" >&2
    exit 1
  fi
fi
read -r -a ACMD <<< "$BENCH_A"
read -r -a BCMD <<< "$BENCH_B"

if [[ $INSTR == auto ]]; then
  INSTR=0
  command -v valgrind >/dev/null && INSTR=1
fi
WITH_VALGRIND=$INSTR bash "$HERE/servers.sh" start
# nginx stops with the run (BENCH_KEEP_SERVERS=1 leaves it up; the files stay either way)
if [[ -z ${BENCH_KEEP_SERVERS:-} ]]; then trap 'bash "$HERE/servers.sh" stop' EXIT; fi

RESULTS=${RESULTS:-$BENCH_DIR/results/$(date +%Y%m%d-%H%M%S)}
mkdir -p "$RESULTS"
: > "$RESULTS/runs.tsv"; : > "$RESULTS/allocs.tsv"; : > "$RESULTS/instr.tsv"

selected() {
  if [[ -n $ONLY && ,$ONLY, != *,$1,* ]]; then return 1; fi
  if [[ -n $SKIP && ,$SKIP, == *,$1,* ]]; then return 1; fi
  return 0
}
run_once() {  # who scenario index command...: one timed run, appended to runs.tsv
  local who=$1 scen=$2 idx=$3 line
  shift 3
  line=$("$BIN/runone" -e "$RESULTS/stderr.$who" -- "$@")
  rm -f "$OUTFILE"
  printf '%s\t%s\t%s\t%s\n' "$scen" "$who" "$idx" "$line" >> "$RESULTS/runs.tsv"
}
count_allocs() {  # who scenario command...: the counts, then the run's exit status
  local who=$1 scen=$2 out=$RESULTS/heap.$2.$1 line run
  shift 2
  rm -f "$out"
  run=$("$BIN/runone" -e "$RESULTS/stderr.$who" -- env LD_PRELOAD="$BIN/heapcount.so" \
    HEAPCOUNT_OUT="$out" "$@")
  rm -f "$OUTFILE"
  # the last report is the program's own (a wrapper script exec's it under the same pid)
  line=$(tail -n 1 "$out" 2>/dev/null || true)
  printf '%s\t%s\t%s\t%s\n' "$scen" "$who" "${line:-none}" "${run##* }" >> "$RESULTS/allocs.tsv"
}
count_instr() {  # who scenario command...
  local who=$1 scen=$2 log=$RESULTS/callgrind.$2.$1 n
  shift 2
  valgrind --tool=callgrind --trace-children=yes --callgrind-out-file=/dev/null "$@" \
    > /dev/null 2> "$log" < /dev/null || true
  rm -f "$OUTFILE"
  n=$(sed -n 's/^==[0-9]*== Collected : \([0-9]*\).*/\1/p' "$log" | tail -n 1)
  printf '%s\t%s\t%s\n' "$scen" "$who" "${n:-n/a}" >> "$RESULTS/instr.tsv"
}

# Both fetch the page byte for byte, or the numbers mean nothing.
for who in A B; do
  if [[ $who == A ]]; then cmd=("${ACMD[@]}"); else cmd=("${BCMD[@]}"); fi
  "$BIN/runone" -o "$RESULTS/check.$who" -e "$RESULTS/stderr.$who" -- "${cmd[@]}" -s "$H/600B" > /dev/null
  if ! cmp -s "$RESULTS/check.$who" "$WWW/600B"; then
    echo "bench: $who (${cmd[*]}) did not fetch $H/600B correctly" >&2
    exit 1
  fi
done

{
  echo "# A = ${ACMD[*]}"
  echo "# B = ${BCMD[*]} ($("${BCMD[@]}" --version | head -n 1 | cut -d' ' -f1-2))"
  echo "# $(date -u +%FT%TZ), $(nproc) cpus, load $(cut -d' ' -f1-3 /proc/loadavg); runs=$RUNS warmup=$WARMUP big=$BIG"
  echo "# medians; A/B = median of per-pair ratios; allocations and peak heap from one run under heapcount.so"
} | tee "$RESULTS/summary.txt"
header | tee -a "$RESULTS/summary.txt"

for scen in "${SCENARIOS[@]}"; do
  selected "$scen" || continue
  scenario "$scen"
  for ((w = 0; w < WARMUP; w++)); do
    "$BIN/runone" -- "${ACMD[@]}" "${ARGS[@]}" > /dev/null
    "$BIN/runone" -- "${BCMD[@]}" "${ARGS[@]}" > /dev/null
    rm -f "$OUTFILE"
  done
  for ((i = 1; i <= RUNS; i++)); do
    if ((i % 2)); then
      run_once A "$scen" "$i" "${ACMD[@]}" "${ARGS[@]}"
      run_once B "$scen" "$i" "${BCMD[@]}" "${ARGS[@]}"
    else
      run_once B "$scen" "$i" "${BCMD[@]}" "${ARGS[@]}"
      run_once A "$scen" "$i" "${ACMD[@]}" "${ARGS[@]}"
    fi
  done
  if ((ALLOC)); then
    count_allocs A "$scen" "${ACMD[@]}" "${ARGS[@]}"
    count_allocs B "$scen" "${BCMD[@]}" "${ARGS[@]}"
  fi
  if ((INSTR)) && quick_under_valgrind "$scen"; then
    count_instr A "$scen" "${ACMD[@]}" "${ARGS[@]}"
    count_instr B "$scen" "${BCMD[@]}" "${ARGS[@]}"
  fi
  summarize "$RESULTS" "$scen" | tee -a "$RESULTS/summary.txt"
done
echo "# raw: $RESULTS/runs.tsv, allocs.tsv, instr.tsv; stderr of each side: stderr.A, stderr.B" | tee -a "$RESULTS/summary.txt"

# ------------------------------------------------------------------ the allocation gate
if ((SHORT)); then
  fail=0 passed=0 failed=0
  while read -r scen expected; do
    [[ -z $scen || $scen == \#* ]] && continue
    selected "$scen" || continue
    got=$(awk -F'\t' -v s="$scen" '$1 == s && $2 == "A" { if (match($3, /own_allocs=[0-9]+/)) print substr($3, RSTART + 11, RLENGTH - 11) }' "$RESULTS/allocs.tsv")
    if [[ -z $got ]]; then
      echo "bench: $scen: no allocation count for oxcurl" >&2; fail=1; failed=$((failed + 1)); continue
    fi
    # Every run of the scenario, timed or counted, must have succeeded: a count from a
    # transfer that failed early says nothing.
    bad=$(awk -F'\t' -v s="$scen" '$1 == s && $2 == "A" { n = split($4, f, " "); if (f[n] != 0) print $3 }' "$RESULTS/runs.tsv")
    bad+=$(awk -F'\t' -v s="$scen" '$1 == s && $2 == "A" && $4 != 0 { print " counted" }' "$RESULTS/allocs.tsv")
    if [[ -n $bad ]]; then
      echo "bench: $scen: oxcurl runs failed (exit status not 0: run $bad; stderr in $RESULTS/stderr.A)" >&2
      fail=1; failed=$((failed + 1)); continue
    fi
    # A band of 3 % or 5 allocations, whichever is more, each way: too few is as suspicious
    # as too many (a transfer that did less than the scenario asks).
    margin=$(( expected * 3 / 100 > 5 ? expected * 3 / 100 : 5 ))
    limit=$(( expected + margin )) floor=$(( expected - margin ))
    if ((got > limit)); then
      echo "bench: $scen: oxcurl made $got own allocations, expected at most $expected (+margin: $limit)" >&2
      fail=1; failed=$((failed + 1))
    elif ((got < floor)); then
      echo "bench: $scen: oxcurl made only $got own allocations, expected $expected (-margin: $floor): did the run do its work? Lower bench/expected-allocs.txt if a change saved them" >&2
      fail=1; failed=$((failed + 1))
    else
      echo "bench: $scen: $got own allocations (expected $expected, band $floor-$limit): ok"
      passed=$((passed + 1))
    fi
  done < "$HERE/expected-allocs.txt"
  echo "bench: $passed passed, $failed failed"
  if ((fail)); then
    echo "bench: allocation counts regressed (bench/expected-allocs.txt)" >&2
    exit 1
  fi
fi
