#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# braces.sh - the braces style (Poor Man's Trace) of a crumble trace with call sites:
# "{ SITE->FUNCTION  caller:0xOFFSET->callee", one "{" and one "}" line per call.
set -u
. "$(dirname "$0")/lib.sh"

CRUMBLE=$BUILD/examples/crumble
need "$CT" "$CRUMBLE"
W=$(($(getconf LONG_BIT) / 4)) # hex digits of an address: the target's word, in full
HEX="[0-9A-F]{$W}"

run prog env CYGTRACE_CALLSITES=1 CYGTRACE_OUT="$T/sites.trace" "$CRUMBLE"
check crumble-runs "exit status $RC" [ "$RC" -eq 0 ]

run braces "$CT" tree --style=braces "$CRUMBLE" "$T/sites.trace"
check braces-status "exit status $RC: $(head -n 1 "$T/braces.err")" [ "$RC" -eq 0 ]
check braces-no-stderr "stderr: $(head -n 1 "$T/braces.err")" [ ! -s "$T/braces.err" ]
n=$(wc -l <"$T/braces.out")
check braces-line-count "$n lines, expected 34 (17 calls)" [ "$n" -eq 34 ]

# main is called from outside the image (libc): no caller name.
l1=$(sed -n 1p "$T/braces.out")
check braces-line1 "line 1: $l1" grep -Eq "^\{ $HEX->$HEX {1,2}\?\?\?->main$" <<<"$l1"
l2=$(sed -n 2p "$T/braces.out")
check braces-line2 "line 2: $l2" \
    grep -Eq "^ \{ $HEX->$HEX  main:0x[0-9A-F]{4}->Crumble_make_apple_crumble$" <<<"$l2"
check braces-last-line "last line: $(tail -n 1 "$T/braces.out")" \
    grep -Eq "^\} $HEX<-$HEX {1,2}\?\?\?<-main$" <(tail -n 1 "$T/braces.out")

braces_check "$T/braces.out" >"$T/braces.problems"
check braces-structure "$(head -n 3 "$T/braces.problems" | tr '\n' '|')" [ ! -s "$T/braces.problems" ]

# The function addresses are link-time ones (the load bias of the PIE taken off): each is
# the callee's address in the ELF's symbol table.
nm "$CRUMBLE" | awk '$2 ~ /^[tT]$/ { print toupper($1), $3 }' >"$T/nm.txt"
awk 'NR == FNR { addr[$2] = $1; next }
     { split($2, p, /->|<-/); split($3, q, /->|<-/); name = q[2]
       want = addr[name]; got = p[2]
       while (length(want) < length(got)) want = "0" want
       if (want != got) print "line " FNR ": " name " is at " want " in the ELF, shown as " got }' \
    "$T/nm.txt" "$T/braces.out" >"$T/addr.problems"
check braces-addresses-link-time "$(head -n 2 "$T/addr.problems" | tr '\n' '|')" \
    [ ! -s "$T/addr.problems" ]

# The offset after the caller's name is the call site minus the caller's address.
awk 'NR == FNR { addr[$2] = $1; next }
     $3 !~ /^\?\?\?/ { split($2, p, /->|<-/); split($3, q, /:0x|->|<-/)
       site = p[1]; caller = q[1]; off = q[2]
       cmd = "printf %X $((0x" site " - 0x" addr[caller] "))"; cmd | getline got; close(cmd)
       sub(/^0+/, "", off); if (off == "") off = "0"
       if (got != off) print "line " FNR ": site " site " is " caller "+0x" got ", shown +0x" off }' \
    "$T/nm.txt" "$T/braces.out" >"$T/off.problems"
check braces-site-offsets "$(head -n 2 "$T/off.problems" | tr '\n' '|')" [ ! -s "$T/off.problems" ]

# Without call sites the style cannot work: one clear line.
run plain env CYGTRACE_OUT="$T/nosites.trace" "$CRUMBLE"
expect_error braces-needs-callsites 1 'call sites.*CYGTRACE_CALLSITES=1' \
    "$CT" tree --style=braces "$CRUMBLE" "$T/nosites.trace"

# The other styles read a trace with call sites as usual.
run etrace "$CT" tree --style=etrace "$CRUMBLE" "$T/sites.trace"
check etrace-with-callsites "status $RC, or not the usual etrace text" \
    same "$E2E_DIR/crumble.etrace.expected" "$T/etrace.out"

finish
