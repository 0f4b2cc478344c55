#!/usr/bin/env bash
# bench/floor.sh - how near a big HTTPS/1.1 download is to what nginx alone needs.
#
#   bash bench/floor.sh [-n ROUNDS] [-B SIZE]      (defaults: 7 rounds, 1G)
#
# Round by round, downloads the big file over HTTPS/1.1 with oxcurl (A), curl (B) and
# bench/src/floor.py, a client that reads the encrypted reply and throws it away without
# decrypting it and never makes nginx wake it: the fastest any client can be against this
# server. Prints the median wall time of each (floor.py: from its request to nginx's close,
# without Python's start-up) and the median CPU time of nginx's worker per download, from
# /proc/PID/stat. A and B as in bench.sh (BENCH_A, BENCH_B); the servers are started if needed.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
export BENCH_DIR=${BENCH_DIR:-/var/tmp/oxcurl-bench-own}
export BENCH_HTTPS_PORT=${BENCH_HTTPS_PORT:-28543}
ROUNDS=7 BIG=1G
while getopts n:B: o; do
  case $o in
    n) ROUNDS=$OPTARG ;;
    B) BIG=$OPTARG ;;
    *) sed -n '2,12p' "$0"; exit 2 ;;
  esac
done
A=${BENCH_A:-$ROOT/target/release/oxcurl}
B=${BENCH_B:-${OXCURL_REFERENCE_CURL:-$HOME/.cache/oxcurl-reference/bin/curl}}
[[ -x $A && -x $B ]] || { echo "floor: need $A and $B" >&2; exit 1; }
bash "$HERE/servers.sh" start
worker=$(pgrep -P "$(cat "$BENCH_DIR/run/nginx.pid")" | head -1)
tck=$(getconf CLK_TCK)
URL=https://127.0.0.1:$BENCH_HTTPS_PORT/$BIG

cpu() { awk '{print $14 + $15}' "/proc/$worker/stat"; }
now() { date +%s.%N; }
declare -A wall ncpu
for _ in $(seq "$ROUNDS"); do
  for who in A B floor; do
    c0=$(cpu) t0=$(now)
    case $who in
      A) "$A" -s -o /dev/null -k --http1.1 "$URL" ;;
      B) "$B" -s -o /dev/null -k --http1.1 "$URL" ;;
      floor) read -r secs _ < <(python3 "$HERE/src/floor.py" "$BENCH_HTTPS_PORT" "/$BIG") ;;
    esac
    t1=$(now) c1=$(cpu)
    [[ $who == floor ]] || secs=$(echo "$t1 - $t0" | bc)
    wall[$who]+="$secs "
    ncpu[$who]+="$(echo "scale=3; ($c1 - $c0) / $tck" | bc) "
  done
done
median() { tr ' ' '\n' | grep -v '^$' | sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
for who in A B floor; do
  printf '%-6s wall %6.3f s   nginx cpu %6.3f s\n' "$who" \
    "$(echo "${wall[$who]}" | median)" "$(echo "${ncpu[$who]}" | median)"
done
a=$(echo "${wall[A]}" | median) b=$(echo "${wall[B]}" | median) f=$(echo "${wall[floor]}" | median)
echo "A/B $(echo "scale=3; $a / $b" | bc)   floor/B $(echo "scale=3; $f / $b" | bc)"
