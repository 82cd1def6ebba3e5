#!/bin/sh
# Installs what is missing on Debian 12 (as root, or through sudo).
#   scripts/deps.sh         what building and running the tools needs
#   scripts/deps.sh --test  that, and what the test suite needs besides
#                           (QEMU and a kernel image, clang and the
#                           sanitizer runtime, tshark, promtool, and
#                           debhelper and lintian for the package test)
set -e
BUILD="build-essential meson ninja-build pkg-config dpdk-dev libdpdk-dev
       libjansson-dev libedit-dev libsystemd-dev"
TEST="python3 dpdk libcmocka-dev mandoc man-db groff-base bash-completion clang libclang-rt-14-dev
      qemu-system-x86 iproute2 busybox-static linux-image-cloud-amd64 tshark prometheus
      debhelper dpkg-dev lintian"
PKGS="$BUILD"
case "$1" in
    --test) PKGS="$BUILD $TEST" ;;
    "") ;;
    *) echo "usage: $0 [--test]" >&2; exit 2 ;;
esac
missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
echo "installing:$missing" >&2
$SUDO apt-get update -q
# tshark asks whether non-root users may capture: no question, default no
echo "wireshark-common wireshark-common/install-setuid boolean false" | $SUDO debconf-set-selections 2>/dev/null || true
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends $missing
