#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# man.sh - the man pages (docs/man/, make man) and the bash completion (tools/cygtrace.bash)
# against the program: a page for every command `cygtrace --help` lists, every option of each
# command's --help in its page, every page rendering without a warning, cygtrace-runtime(3)
# naming every function of the API headers and every variable the Linux runtime reads; the
# completion offering the commands, a command's options and an option's choices; --version
# naming the format versions this build reads.
set -u
. "$(dirname "$0")/lib.sh"

MAN=$BUILD/man
need "$CT"
if ! command -v man >/dev/null; then
    fail prerequisites "man is not installed (make deps installs man-db)"
    finish
fi

# The text of page FILE as man shows it: no overstrikes (bold, underline), hyphens plain.
shown() {
    MANWIDTH=200 man --warnings -l "$1" 2>"$T/warn" | sed -e 's/.\x08//g' -e 's/‐/-/g'
}

commands=$("$CT" --help | awk '/^  [a-z]/ { print $1 }')
check commands "no command listed by --help" [ -n "$commands" ]
for page in cygtrace $(printf 'cygtrace-%s ' $commands); do
    f=$MAN/$page.1
    if [ ! -f "$f" ]; then
        fail "page-$page" "$f is missing (make man; docs/man/$page.txt?)"
        continue
    fi
    shown "$f" >"$T/$page.txt"
    check "page-$page-renders" "man warns: $(head -n 1 "$T/warn")" [ ! -s "$T/warn" ]
    [ "$page" = cygtrace ] && continue
    cmd=${page#cygtrace-}
    missing=""
    for opt in $("$CT" "$cmd" --help | grep -oE '(^|[ ,])-(-[a-z][a-z0-9-]*|[a-zA-Z])' |
                 sed -E 's/^[ ,]//' | sort -u); do
        grep -qF -- "$opt" "$T/$page.txt" || missing="$missing $opt"
    done
    check "page-$page-options" "not in the page:$missing" [ -z "$missing" ]
    check "page-$page-synopsis" "no 'cygtrace $cmd' synopsis" \
        grep -q "^ *cygtrace $cmd " "$T/$page.txt"
done
missing=""
for cmd in $commands; do
    grep -q "cygtrace-$cmd(1)" "$T/cygtrace.txt" || missing="$missing $cmd"
done
check page-cygtrace-lists-commands "cygtrace(1) does not list:$missing" [ -z "$missing" ]

# cygtrace-runtime(3): the API of the headers a user includes, the environment the runtime reads.
shown "$MAN/cygtrace-runtime.3" >"$T/runtime.txt"
check runtime-renders "man warns: $(head -n 1 "$T/warn")" [ ! -s "$T/warn" ]
missing=""
for fn in $(sed -nE 's/^CYGTRACE_API [^(]*[ *]([a-z_0-9]+)\(.*/\1/p' "$ROOT"/target/core/cygtrace.h \
            "$ROOT"/target/cortex-m/cygtrace_cm.h); do
    grep -qF "$fn(" "$T/runtime.txt" || missing="$missing $fn"
done
check runtime-api "not in cygtrace-runtime(3):$missing" [ -z "$missing" ]
missing=""
for v in $(grep -hoE 'env(_on)?\("CYGTRACE_[A-Z_]+"' "$ROOT"/target/linux/*.c |
           grep -oE 'CYGTRACE_[A-Z_]+' | sort -u); do
    grep -qF "$v" "$T/runtime.txt" || missing="$missing $v"
done
check runtime-environment "not in cygtrace-runtime(3):$missing" [ -z "$missing" ]

# --version: the build and the format versions it reads, from cyg_format.h and cyg_stream.h.
run version "$CT" --version
ring=$(awk '/define CYG_VERSION_MIN / { lo = $3 } /define CYG_VERSION / { hi = $3 }
            END { gsub(/u/, "", lo); gsub(/u/, "", hi); print lo " to " hi }' "$ROOT/common/cyg_format.h")
check version "$(tr '\n' '|' <"$T/version.out")" \
    eval '[ "$RC" -eq 0 ] && grep -q "^cygtrace [^ ]" "$T/version.out" &&
          grep -q "format versions $ring and live streams of versions" "$T/version.out"'
# The release the package says (debian/changelog), then, from a git checkout, the commit:
# "cygtrace 0.1 (git b96971e)".
release=$(sed -n '1s/^[^ ]* (\([^)-]*\).*/\1/p' "$ROOT/debian/changelog")
want="^cygtrace ${release//./\\.}\$"
git -C "$ROOT" rev-parse --git-dir >/dev/null 2>&1 &&
    want="^cygtrace ${release//./\\.} \\(git [0-9a-zA-Z.-]+\\)\$"
check version-release "$(head -n 1 "$T/version.out"), expected /$want/" \
    eval '[ -n "$release" ] && head -n 1 "$T/version.out" | grep -Eq "$want"'

# The completion, as bash runs it: COMP_WORDS in, COMPREPLY out.
complete_of() {
    bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
             _cygtrace; printf "%s\n" "${COMPREPLY[@]}"' _ "$ROOT/tools/cygtrace.bash" "$@" |
        sort | tr '\n' ' '
}
check complete-commands "$(complete_of "$CT" "")" \
    eval '[ "$(complete_of "$CT" "")" = "$(printf "%s\n" $commands | sort | tr "\n" " ")" ]'
check complete-prefix "$(complete_of "$CT" re)" [ "$(complete_of "$CT" re)" = "record report " ]
check complete-dump "$(complete_of "$CT" du)" [ "$(complete_of "$CT" du)" = "dump " ]
check complete-tree-columns "$(complete_of "$CT" tree --ti)" \
    [ "$(complete_of "$CT" tree --ti)" = "--tid --time --time-range= " ]
check complete-option "$(complete_of "$CT" tree --no-a)" [ "$(complete_of "$CT" tree --no-a)" = "--no-args " ]
check complete-choices "$(complete_of "$CT" tree --style =)" \
    [ "$(complete_of "$CT" tree --style =)" = "braces etrace tree " ]
check complete-sort "$(complete_of "$CT" report --sort = s)" \
    [ "$(complete_of "$CT" report --sort = s)" = "self " ]
mkdir -p "$T/files" && touch "$T/files/app.elf" "$T/files/app.out"
check complete-files "$(cd "$T/files" && complete_of "$CT" tree app.)" \
    [ "$(cd "$T/files" && complete_of "$CT" tree app.)" = "app.elf app.out " ]

finish
