#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# install.sh - "make install PREFIX=..." then "make uninstall PREFIX=...", into a fresh folder:
# uninstall takes back every file and every folder install made, and nothing else: a folder
# that was there before (empty or not) stays, and so does a file of someone else's. Twice over:
# a second install into folders the first made must not make uninstall forget them.
set -u
. "$(dirname "$0")/lib.sh"

need "$CT"

# make_in TAG TARGET PREFIX: runs make TARGET PREFIX=... on the build under test.
make_in() {
    (cd "$ROOT" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL timeout 300 \
        make --no-print-directory O="$BUILD" "$2" PREFIX="$3") </dev/null >"$T/$1.log" 2>&1
    RC=$?
}

P=$T/prefix/usr
# What was there before: an empty bin (as /usr/local/bin is), and a man page of another program.
mkdir -p "$P/bin" "$P/share/man/man1"
echo '.TH OTHER 1' >"$P/share/man/man1/other.1"
(cd "$T/prefix" && find . | sort) >"$T/before"

make_in install install "$P"
check install "status $RC: $(tail -n 1 "$T/install.log")" \
    eval '[ "$RC" -eq 0 ] && [ -x "$P/bin/cygtrace" ] && [ -f "$P/share/man/man1/cygtrace-tree.1" ]'
make_in install-again install "$P"
check install-again "status $RC: $(tail -n 1 "$T/install-again.log")" [ "$RC" -eq 0 ]
make_in uninstall uninstall "$P"
check uninstall "status $RC: $(tail -n 1 "$T/uninstall.log")" [ "$RC" -eq 0 ]
(cd "$T/prefix" && find . | sort) >"$T/after"
check uninstall-all-gone "left behind or taken: $(diff "$T/before" "$T/after" | grep '^[<>]' | tr '\n' ' ' | cut -c1-300)" \
    same "$T/before" "$T/after"

# Into a PREFIX that does not exist at all: nothing of it is left.
Q=$T/fresh/a/b
make_in fresh-install install "$Q"
check fresh-install "status $RC: $(tail -n 1 "$T/fresh-install.log")" \
    eval '[ "$RC" -eq 0 ] && [ -x "$Q/bin/cygtrace" ]'
make_in fresh-uninstall uninstall "$Q"
check fresh-gone "status $RC; left: $(find "$T/fresh" 2>/dev/null | tr '\n' ' ' | cut -c1-300)" \
    eval '[ "$RC" -eq 0 ] && [ ! -e "$T/fresh" ]'

finish
