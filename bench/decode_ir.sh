#!/bin/bash
# SPDX-License-Identifier: MIT
# decode_ir.sh O [CMD [ARGS...]] - instructions per event of `cygtrace CMD` (default: tree)
# under callgrind: deterministic, unlike timings on a shared machine. Records fib(22)
# (114 626 events) and fib(2) with O/bench/fib_cygtrace, runs `O/cygtrace CMD ARGS ELF RING`
# on both and prints (Ir of the big one - Ir of the small one) / the events between them, so
# that start-up (the ELF's symbols, the dynamic linker) drops out.
set -euo pipefail
O=$(cd "${1:-build}" && pwd)
shift || true
[ $# -gt 0 ] || set -- tree
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
for n in 22 2; do
    CYGTRACE_OUT=$T/$n.ring CYGTRACE_SIZE=8M "$O/bench/fib_cygtrace" "$n" >"$T/$n.out"
done
events() { sed -n 's/.*events=\([0-9]*\).*/\1/p' "$T/$1.out"; }
ir() {
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$O/cygtrace" "$1" "${@:3}" \
        "$O/bench/fib_cygtrace" "$T/$2.ring" 2>&1 >/dev/null |
        sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
big=$(ir "$1" 22 "${@:2}")
small=$(ir "$1" 2 "${@:2}")
echo "cygtrace $*: $(((big - small) / ($(events 22) - $(events 2)))) instructions/event"
