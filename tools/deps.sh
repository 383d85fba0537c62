#!/bin/sh
# deps.sh - installs the Debian packages cygtrace needs to build, test, benchmark and package
# (make deb: debhelper, dpkg-dev; lintian for tests/e2e/deb.sh; man-db for the man pages' test).
# Quick and silent when everything is there; otherwise one apt-get run (as root, or via sudo).
set -eu

PKGS="gcc libc6-dev make pkg-config binutils-dev libdwarf-dev libncurses-dev check
      gcc-arm-none-eabi libnewlib-arm-none-eabi gcc-riscv64-unknown-elf
      picolibc-riscv64-unknown-elf qemu-system-arm qemu-system-misc gdb-multiarch gdbserver
      cmake clang valgrind jq uftrace hyperfine time tmux
      debhelper dpkg-dev lintian man-db"

missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' ||
        missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if ! command -v apt-get >/dev/null 2>&1; then
    echo "cygtrace: deps: missing packages:$missing; this is not a Debian system: install them by hand" >&2
    exit 1
fi
sudo=""
if [ "$(id -u)" != 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
        sudo=sudo
    else
        echo "cygtrace: deps: missing packages:$missing; run 'make deps' as root" >&2
        exit 1
    fi
fi
echo "cygtrace: installing:$missing"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
# shellcheck disable=SC2086
$sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null
