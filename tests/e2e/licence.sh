#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# licence.sh - the licences as LICENSE states them: every source file names its licence in an
# SPDX line at its top, the one its folder has (MIT for what goes into a user's program,
# GPL-3.0-or-later for the host tool, its tests, man pages and packaging); .reuse/dep5 and
# debian/copyright say the same; `reuse lint` passes on the tree.
set -u
. "$(dirname "$0")/lib.sh"

# The licence a path has, by folder (LICENSE's table).
licence_of() {
    case $1 in
    host/* | tests/* | docs/man/* | debian/*) echo GPL-3.0-or-later ;;
    *) echo MIT ;;
    esac
}

# Whether a path is a source file that can and must carry its SPDX line (the rest, data the
# programs read or compare, are named by .reuse/dep5).
is_source() {
    case $1 in
    debian/* | docs/man/* | LICENSES/* | */fixtures/*.* | */regress/*) return 1 ;;
    *.c | *.h | *.S | *.ld | *.sh | *.bash | *.mk | *.cmake | *.py | *.awk | *.gdb | *.in | *.lua | *.md) return 0 ;;
    Makefile | */Makefile | .ci/run | */CMakeLists.txt) return 0 ;;
    esac
    return 1
}

# spdx_bad DIR FILE...: prints "FILE: why" for each source file under DIR whose first lines do
# not name its folder's licence.
spdx_bad() {
    local dir=$1 f want got
    shift
    for f in "$@"; do
        is_source "$f" || continue
        want=$(licence_of "$f")
        got=$(head -n 3 "$dir/$f" | sed -n 's/.*SPDX-License-Identifier: \([A-Za-z0-9.+-]*\).*/\1/p')
        if [ -z "$got" ]; then
            echo "$f: no SPDX-License-Identifier line in its first 3 lines"
        elif [ "$got" != "$want" ]; then
            echo "$f: says $got, its folder is $want"
        fi
    done
}

if ! git -C "$ROOT" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    echo "skip licence: $ROOT is not a git checkout (the file list comes from git ls-files)"
    finish
fi
mapfile -t files < <(git -C "$ROOT" ls-files)

for f in LICENSE LICENSES/MIT.txt LICENSES/GPL-3.0-or-later.txt .reuse/dep5 debian/copyright; do
    check "file-$f" "$f is missing" [ -s "$ROOT/$f" ]
done

n=0
for f in "${files[@]}"; do is_source "$f" && n=$((n + 1)); done
bad=$(spdx_bad "$ROOT" "${files[@]}")
check spdx-every-file "$(printf '%s\n' "$bad" | head -n 5)" [ -z "$bad" ]
check spdx-files-found "only $n source files found" [ "$n" -gt 300 ]

# The checker itself finds a missing line and a wrong licence.
mkdir -p "$T/tree/host" "$T/tree/target"
printf '/* no licence */\n' >"$T/tree/host/a.c"
printf '/* SPDX-License-Identifier: GPL-3.0-or-later */\n' >"$T/tree/target/b.c"
printf '#!/bin/sh\n# SPDX-License-Identifier: MIT\n' >"$T/tree/target/c.sh"
bad=$(spdx_bad "$T/tree" host/a.c target/b.c target/c.sh)
check spdx-checker-finds "it found: $bad" \
    [ "$bad" = "host/a.c: no SPDX-License-Identifier line in its first 3 lines
target/b.c: says GPL-3.0-or-later, its folder is MIT" ]

# debian/copyright is machine-readable and has the stanzas .reuse/dep5 has.
check copyright-format "debian/copyright is not DEP-5" \
    grep -q -x 'Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/' "$ROOT/debian/copyright"
fields() { grep -E '^(Files|Copyright|License):' "$1"; }
n=$(fields "$ROOT/.reuse/dep5" | wc -l)
check copyright-same-as-dep5 "debian/copyright's stanzas are not .reuse/dep5's" \
    [ "$(fields "$ROOT/debian/copyright" | head -n "$n")" = "$(fields "$ROOT/.reuse/dep5")" ]
for l in MIT GPL-3.0-or-later; do
    check "copyright-text-$l" "debian/copyright has no text for $l" \
        grep -q -x "License: $l" "$ROOT/debian/copyright"
done

if command -v reuse >/dev/null; then
    if (cd "$ROOT" && reuse lint) >"$T/reuse.out" 2>&1; then
        pass reuse-lint
    else
        fail reuse-lint "$(grep -v '^$' "$T/reuse.out" | head -n 8 | tr '\n' ' ')"
    fi
else
    fail reuse-lint "reuse is not installed (make deps)"
fi
finish
