#!/usr/bin/env bash
# bench/servers.sh - the benchmark's servers: nginx and vsftpd on loopback, and the files they
# serve.
#
#   bash bench/servers.sh start     install what is missing, build the helpers, make the files,
#                                   (re)start nginx and vsftpd; idempotent
#   bash bench/servers.sh stop      stop our nginx (by its pid file) and our vsftpd
#   bash bench/servers.sh clean     stop, and remove everything under $BENCH_DIR
#
# Served on 127.0.0.1: $BENCH_HTTP_PORT HTTP/1.1 (default 28180), $BENCH_H2C_PORT h2c with prior
# knowledge (28182), $BENCH_HTTPS_PORT TLS with ALPN h2 and http/1.1 (28543, self-signed);
# the same files over FTP (anonymous, passive or active) on $BENCH_FTP_PORT (28121), and over
# explicit FTPS (AUTH TLS, then TLS required for login and data) on $BENCH_FTPS_PORT (28122).
# Files: 8G 1G 512M 64M (sparse: zeroes from the page cache, no disk), 600B (an HTML page),
# small/f0001.bin .. small/f1000.bin (1..10 KiB). nginx: one worker, no access log, sendfile,
# 100000 requests per connection, 16 KiB HTTP/2 DATA frames.
# Everything goes to $BENCH_DIR (default /var/tmp/oxcurl-bench-own). Installs Debian packages
# (nginx-light, vsftpd, openssl, gcc; valgrind with WITH_VALGRIND=1) when missing and run as
# root. vsftpd serves as its unprivileged ftp user, which only root can switch to: as another
# user the FTP servers are not started and the FTP scenarios fail.
set -euo pipefail

BENCH_SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BENCH_DIR=${BENCH_DIR:-/var/tmp/oxcurl-bench-own}
BENCH_HTTP_PORT=${BENCH_HTTP_PORT:-28180}
BENCH_H2C_PORT=${BENCH_H2C_PORT:-28182}
BENCH_HTTPS_PORT=${BENCH_HTTPS_PORT:-28543}
BENCH_FTP_PORT=${BENCH_FTP_PORT:-28121}
BENCH_FTPS_PORT=${BENCH_FTPS_PORT:-28122}
RUN=$BENCH_DIR/run
WWW=$BENCH_DIR/www
BIN=$BENCH_DIR/bin

say() { printf 'servers: %s\n' "$*" >&2; }

install_missing() {
  local need=()
  command -v nginx >/dev/null || [[ -x /usr/sbin/nginx ]] || need+=(nginx-light)
  [[ -x /usr/sbin/vsftpd ]] || need+=(vsftpd)
  command -v openssl >/dev/null || need+=(openssl)
  command -v gcc >/dev/null || need+=(gcc libc6-dev)
  if [[ ${WITH_VALGRIND:-0} == 1 ]] && ! command -v valgrind >/dev/null; then need+=(valgrind); fi
  ((${#need[@]})) || return 0
  if [[ $(id -u) != 0 ]]; then
    say "please install: ${need[*]}"
    return 1
  fi
  say "installing ${need[*]}"
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
}

build_helpers() {
  mkdir -p "$BIN"
  if [[ ! -x $BIN/runone || $BENCH_SRC/src/runone.c -nt $BIN/runone ]]; then
    gcc -O2 -Wall -o "$BIN/runone" "$BENCH_SRC/src/runone.c"
  fi
  if [[ ! -f $BIN/heapcount.so || $BENCH_SRC/src/heapcount.c -nt $BIN/heapcount.so ]]; then
    gcc -O2 -Wall -shared -fPIC -o "$BIN/heapcount.so" "$BENCH_SRC/src/heapcount.c"
  fi
}

make_files() {
  mkdir -p "$WWW/small" "$RUN"
  local size
  for size in 8G 1G 512M 64M; do
    if [[ ! -f $WWW/$size || $(stat -c %s "$WWW/$size") != $(numfmt --from=iec "$size") ]]; then
      rm -f "$WWW/$size"
      truncate -s "$size" "$WWW/$size"
    fi
  done
  if [[ ! -f $WWW/600B ]]; then
    # Made whole, then cut: `| head -c 600` would end the writer with SIGPIPE, which
    # pipefail turns into a failure of the script.
    local page i
    page=$(
      printf '<!DOCTYPE html>\n<html><head><title>oxcurl benchmark page</title></head><body>\n'
      for i in $(seq 1 30); do printf '<p>filler paragraph number %02d.</p>\n' "$i"; done
    )
    printf '%s' "${page:0:600}" > "$WWW/600B"
  fi
  if [[ ! -f $WWW/small/f1000.bin ]]; then
    say "making 1000 small files"
    head -c 10240 /dev/urandom > "$RUN/pattern"
    local i
    for i in $(seq 1 1000); do
      # 1 KiB .. 10 KiB, spread deterministically
      head -c $((1024 + (i * 4099) % 9217)) "$RUN/pattern" > "$WWW/small/$(printf 'f%04d.bin' "$i")"
    done
  fi
  chmod -R a+rX "$BENCH_DIR"
}

make_cert() {
  [[ -f $RUN/cert.pem ]] && return 0
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 3650 \
    -subj /CN=localhost -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" \
    -keyout "$RUN/key.pem" -out "$RUN/cert.pem" 2>/dev/null
}

nginx_bin() { command -v nginx || echo /usr/sbin/nginx; }

running() { [[ -f $RUN/nginx.pid ]] && kill -0 "$(cat "$RUN/nginx.pid")" 2>/dev/null; }

start_nginx() {
  mkdir -p "$RUN/tmp"
  cat > "$RUN/nginx.conf" <<EOF
worker_processes 1;
pid $RUN/nginx.pid;
error_log $RUN/error.log warn;
events { worker_connections 4096; }
http {
    access_log off;
    sendfile on;
    tcp_nopush on;
    tcp_nodelay on;
    keepalive_requests 100000;
    keepalive_timeout 120s;
    client_body_temp_path $RUN/tmp/body;
    proxy_temp_path $RUN/tmp/proxy;
    fastcgi_temp_path $RUN/tmp/fastcgi;
    uwsgi_temp_path $RUN/tmp/uwsgi;
    scgi_temp_path $RUN/tmp/scgi;
    default_type application/octet-stream;
    types { text/html html; }
    http2_chunk_size 16k;
    http2_max_concurrent_streams 128;
    ssl_certificate $RUN/cert.pem;
    ssl_certificate_key $RUN/key.pem;
    ssl_protocols TLSv1.2 TLSv1.3;
    root $WWW;
    server { listen 127.0.0.1:$BENCH_HTTP_PORT; }
    server { listen 127.0.0.1:$BENCH_H2C_PORT http2; }
    server { listen 127.0.0.1:$BENCH_HTTPS_PORT ssl http2; }
}
EOF
  local ngx
  ngx=$(nginx_bin)
  "$ngx" -t -q -p "$RUN" -e "$RUN/error.log" -c "$RUN/nginx.conf"
  if running; then
    "$ngx" -p "$RUN" -e "$RUN/error.log" -c "$RUN/nginx.conf" -s reload
    sleep 0.5
  else
    "$ngx" -p "$RUN" -e "$RUN/error.log" -c "$RUN/nginx.conf"
  fi
  local i
  for i in $(seq 1 50); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$BENCH_HTTP_PORT") 2>/dev/null; then return 0; fi
    sleep 0.1
  done
  say "nginx does not answer on $BENCH_HTTP_PORT (see $RUN/error.log)"
  return 1
}

# One vsftpd per port, in the background; FTPS with the benchmark's certificate.
start_vsftpd() {
  [[ $(id -u) == 0 && -x /usr/sbin/vsftpd ]] || return 0
  stop_vsftpd
  mkdir -p "$RUN/empty"
  chmod 755 "$WWW" "$RUN/empty"
  local name port extra
  for name in ftp ftps; do
    if [[ $name == ftp ]]; then
      port=$BENCH_FTP_PORT extra=""
    else
      port=$BENCH_FTPS_PORT
      extra="ssl_enable=YES
allow_anon_ssl=YES
force_anon_logins_ssl=YES
force_anon_data_ssl=YES
require_ssl_reuse=YES
rsa_cert_file=$RUN/cert.pem
rsa_private_key_file=$RUN/key.pem"
    fi
    cat > "$RUN/vsftpd-$name.conf" <<EOF
listen=YES
listen_ipv6=NO
listen_address=127.0.0.1
listen_port=$port
background=YES
anonymous_enable=YES
local_enable=NO
write_enable=NO
anon_root=$WWW
secure_chroot_dir=$RUN/empty
pasv_enable=YES
pasv_min_port=45000
pasv_max_port=49999
port_enable=YES
connect_from_port_20=NO
seccomp_sandbox=NO
isolate=NO
isolate_network=NO
syslog_enable=NO
xferlog_enable=NO
$extra
EOF
    # On the first CPU: a session process that shares its CPU with the client makes the
    # FTPS figures swing twofold from run to run (the server's encryption is the limit).
    if (($(nproc) > 1)); then
      taskset -c 0 /usr/sbin/vsftpd "$RUN/vsftpd-$name.conf"
    else
      /usr/sbin/vsftpd "$RUN/vsftpd-$name.conf"
    fi
  done
  local i
  for i in $(seq 1 50); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$BENCH_FTPS_PORT") 2>/dev/null; then return 0; fi
    sleep 0.1
  done
  say "vsftpd does not answer on $BENCH_FTPS_PORT"
  return 1
}

stop_vsftpd() {
  pkill -f "vsftpd $RUN/vsftpd-" 2>/dev/null || true
}

stop_nginx() {
  if running; then
    kill "$(cat "$RUN/nginx.pid")"
    say "nginx stopped"
  fi
}

case ${1:-start} in
  start)
    install_missing
    build_helpers
    make_files
    make_cert
    start_nginx
    # Only the FTP scenarios need it.
    start_vsftpd || say "vsftpd did not start: the FTP scenarios will fail"
    ;;
  stop)
    stop_nginx
    stop_vsftpd
    ;;
  clean)
    stop_nginx
    stop_vsftpd
    rm -rf "$BENCH_DIR"
    ;;
  *)
    echo "usage: $0 start|stop|clean" >&2
    exit 2
    ;;
esac
