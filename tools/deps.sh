#!/bin/sh
# SPDX-License-Identifier: MIT
# deps.sh [check] - installs the Debian packages cygtrace needs to build, test, benchmark and
# package (make deb: debhelper, dpkg-dev; lintian for tests/e2e/deb.sh; man-db for the man pages'
# test). Quick and silent when everything is there; otherwise one apt-get run (as root, or via
# sudo).
#
# "check" (make check): first looks for what the build and the tests use where they look for it
# (the commands on PATH, the headers where the C compiler finds them); when it is all there,
# however it was installed (a toolchain from a tarball, a library built from source, another
# distribution), there is nothing to do: no dpkg, no apt, no root. On a fresh machine, the
# packages are installed as make deps does.
set -eu

CHECK_CMDS="gcc make pkg-config arm-none-eabi-gcc riscv64-unknown-elf-gcc qemu-system-arm
            qemu-system-riscv32 gdb-multiarch gdbserver cmake clang valgrind jq uftrace tmux
            dpkg-buildpackage dh lintian man reuse protoc sqlite3 ninja"
CHECK_HEADERS="bfd.h libdwarf/libdwarf.h curses.h check.h sqlite3.h"

# 0 when every command and header of the lists above is found.
have_check_tools() {
    for c in $CHECK_CMDS; do
        command -v "$c" >/dev/null 2>&1 || return 1
    done
    for h in $CHECK_HEADERS; do
        printf '#include <%s>\n' "$h" | "${CC:-gcc}" -E -x c - >/dev/null 2>&1 || return 1
    done
    # the firmware's C library, newlib's nano
    case $(arm-none-eabi-gcc -print-file-name=libc_nano.a) in /*) ;; *) return 1 ;; esac
    # what a Zephyr build runs (examples/zephyr, against ../shared/thirdparty/zephyr)
    python3 -c 'import yaml, pykwalify, ruamel.yaml, dateutil, jsonschema, packaging, elftools' \
        >/dev/null 2>&1 || return 1
}
if [ "${1:-}" = check ] && have_check_tools; then
    exit 0
fi

PKGS="gcc libc6-dev make pkg-config binutils-dev libdwarf-dev libncurses-dev libsqlite3-dev check
      gcc-arm-none-eabi libnewlib-arm-none-eabi gcc-riscv64-unknown-elf
      picolibc-riscv64-unknown-elf qemu-system-arm qemu-system-misc gdb-multiarch gdbserver
      cmake clang valgrind jq uftrace hyperfine time tmux protobuf-compiler
      debhelper dpkg-dev lintian man-db reuse sqlite3
      ninja-build python3-yaml python3-pykwalify python3-ruamel.yaml python3-dateutil
      python3-jsonschema python3-packaging python3-pyelftools"

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
