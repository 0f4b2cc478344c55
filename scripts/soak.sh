#!/usr/bin/env bash
# Soak: one oxcurl process runs transfers without end (-Z, 100 in parallel, a URL glob of 10^8
# entries) against a local nginx for SECONDS (default 3600), and its memory must not grow.
# Not run by CI.
#
#   scripts/soak.sh [SECONDS]
#
# Every 10 s it prints the elapsed time, oxcurl's RSS and the transfers served so far (nginx's
# access log). It fails if oxcurl exits early, if any response was not a 200 with the file's
# length, or if the RSS at the end exceeds 1.5 times the RSS after the first minute plus 8 MiB.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-3600}

cargo build -q -p oxcurl-tool
oxcurl=$PWD/target/debug/oxcurl
nginx=/usr/sbin/nginx
[[ -x $nginx ]] || { echo "soak.sh: needs nginx ($nginx)" >&2; exit 1; }

dir=$(mktemp -d /tmp/oxcurl-soak.XXXXXX)
mkdir -p "$dir/root"
for i in $(seq 1 100); do
  head -c $((i * 97)) /dev/urandom >"$dir/root/f$i"
done
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
cat >"$dir/nginx.conf" <<EOF
daemon off;
master_process off;
worker_processes 1;
pid $dir/nginx.pid;
error_log $dir/error.log;
events { worker_connections 1024; }
http {
    log_format soak '\$status \$body_bytes_sent \$uri';
    access_log $dir/access.log soak;
    client_body_temp_path $dir/cb;
    proxy_temp_path $dir/px;
    fastcgi_temp_path $dir/fc;
    uwsgi_temp_path $dir/uw;
    scgi_temp_path $dir/sc;
    keepalive_requests 1000;
    server { listen 127.0.0.1:$port; root $dir/root; }
}
EOF
"$nginx" -c "$dir/nginx.conf" -e "$dir/error.log" &
nginx_pid=$!
cleanup() {
  kill "$nginx_pid" 2>/dev/null || true
  [[ -n ${ox_pid:-} ]] && kill "$ox_pid" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$dir"
}
trap cleanup EXIT
sleep 0.5

"$oxcurl" -q -s -S -Z --parallel-max 100 -o /dev/null \
  "http://127.0.0.1:$port/f[1-100]?n=[1-1000000]" 2>"$dir/oxcurl.err" &
ox_pid=$!

rss() { awk '/^VmRSS:/ {print $2}' "/proc/$ox_pid/status" 2>/dev/null || echo 0; }
start=$SECONDS
base=0
while ((SECONDS - start < secs)); do
  sleep 10
  if ! kill -0 "$ox_pid" 2>/dev/null; then
    echo "soak.sh: oxcurl exited early:" >&2
    cat "$dir/oxcurl.err" >&2
    exit 1
  fi
  now=$(rss)
  ((SECONDS - start >= 60 && base == 0)) && base=$now
  echo "soak: $((SECONDS - start)) s, oxcurl RSS ${now} KiB, transfers $(wc -l <"$dir/access.log")"
done
end=$(rss)
kill "$ox_pid"
wait "$ox_pid" 2>/dev/null || true
ox_pid=

served=$(wc -l <"$dir/access.log")
bad=$(awk '{ split($3, p, "f"); if ($1 != 200 || $2 != p[2] * 97) n++ } END { print n + 0 }' "$dir/access.log")
echo "soak.sh: ${served} transfers in ${secs} s, RSS after 1 min ${base} KiB, at the end ${end} KiB, bad responses ${bad}"
if ((bad > 0)); then
  exit 1
fi
if ((base > 0 && end > base * 3 / 2 + 8192)); then
  echo "soak.sh: RSS grew" >&2
  exit 1
fi
