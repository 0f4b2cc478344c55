#!/usr/bin/env bash
# Unpacks Debian's ProFTPD (proftpd-core and proftpd-mod-crypto, for mod_tls) into a private
# folder and prints it: the FTP tests run it beside vsftpd, and the two packages cannot be
# installed together (both provide and conflict with ftp-server). The libraries it links are
# installed as packages. Idempotent.
#
# Environment: OXCURL_PROFTPD_DIR (default ~/.cache/oxcurl-proftpd).
set -euo pipefail
dir=${OXCURL_PROFTPD_DIR:-$HOME/.cache/oxcurl-proftpd}
if [[ -x $dir/usr/sbin/proftpd && -f $dir/usr/lib/proftpd/mod_tls.so ]] &&
  "$dir/usr/sbin/proftpd" -v >/dev/null 2>&1; then
  echo "$dir"
  exit 0
fi
pkgs=(proftpd-core proftpd-mod-crypto)
libs=$(apt-cache depends "${pkgs[@]}" | awk '$1 == "Depends:" && $2 ~ /^lib/ { print $2 }' | sort -u)
if [[ $(id -u) == 0 ]]; then
  # shellcheck disable=SC2086
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $libs >/dev/null
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chmod 777 "$tmp"
(cd "$tmp" && apt-get download -qq "${pkgs[@]}" 2>/dev/null)
rm -rf "$dir.new"
mkdir -p "$dir.new"
for deb in "$tmp"/*.deb; do dpkg-deb -x "$deb" "$dir.new"; done
"$dir.new/usr/sbin/proftpd" -v >/dev/null
rm -rf "$dir"
mv "$dir.new" "$dir"
echo "$dir"
