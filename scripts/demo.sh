#!/usr/bin/env bash
# Builds oxcurl and fetches this README from a local HTTP server it starts on 127.0.0.1.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/build-deps.sh
source scripts/build-deps.sh
cargo build --release -q -p oxcurl-tool
port=${PORT:-8765}
python3 -m http.server "$port" --bind 127.0.0.1 --directory . >/dev/null 2>&1 &
server=$!
trap 'kill $server 2>/dev/null' EXIT
for _ in $(seq 50); do (exec 3<>/dev/tcp/127.0.0.1/"$port") 2>/dev/null && break; sleep 0.1; done
./target/release/oxcurl -sS -w '\n-- HTTP %{http_code}, %{size_download} bytes in %{time_total}s --\n' \
  "http://127.0.0.1:$port/README.md" | tail -n 4
