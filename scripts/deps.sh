#!/bin/sh
# Installs what is missing on Debian 12 (as root, or through sudo).
set -e
PKGS="build-essential meson ninja-build pkg-config python3 dpdk dpdk-dev libdpdk-dev
      libjansson-dev libedit-dev libcmocka-dev mandoc bash-completion clang
      libclang-rt-14-dev qemu-system-x86 iproute2"
missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
echo "installing:$missing" >&2
$SUDO apt-get update -q
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends $missing
