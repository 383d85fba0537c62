#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# dump_shrink.sh - a dump cut short while a command reads it (a program that truncates or
# replaces it under the reader: ": > cygtrace.out", a copy over it). The commands read a dump
# in passes (the scan, then the trees), so a file cut between them gave a shorter tree, status
# 0, and notes that blamed the missing part on the ring ("overwritten"). Now the read that
# finds the file short fails, and a size at the end that is not the size at open is noticed:
# one line "DUMP: the file shrank from N to M bytes while it was read, ...", status 1, and an
# export's old output file kept. The cut comes from shrink.so, preloaded: it truncates the
# file just before (or just after) the Nth read of it, N counted in a run left alone.
set -u
. "$(dirname "$0")/lib.sh"

# CYGTRACE_COMPARE's wrapper runs each command twice: the first run's cut would be the
# second's dump.
[ -n "${CYGTRACE_COMPARE:-}" ] && CT=$CT_NATIVE
CRUMBLE=$BUILD/examples/crumble
need "$CT" "$CRUMBLE"
if [ ! -e "$BUILD/linux/libcygtrace.a" ]; then
    fail "$E2E_NAME-prerequisites" "$BUILD/linux/libcygtrace.a is missing: run make"
    finish
fi

cat >"$T/shrink.c" <<'EOF'
/* shrink.so: SHRINK_FILE is truncated to SHRINK_TO bytes before its SHRINK_AT-th pread (after
 * it with SHRINK_AFTER set); SHRINK_COUNT: the reads are counted on stderr at exit. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static long calls;

static void cut(void)
{
    if (truncate(getenv("SHRINK_FILE"), atol(getenv("SHRINK_TO"))) < 0)
        perror("shrink");
}

static ssize_t hook(int fd, void *buf, size_t n, off_t off)
{
    static ssize_t (*real)(int, void *, size_t, off_t);
    const char *path = getenv("SHRINK_FILE");
    long at = getenv("SHRINK_AT") ? atol(getenv("SHRINK_AT")) : 0;
    int after = getenv("SHRINK_AFTER") != NULL, mine;
    struct stat a, b;
    ssize_t r;

    if (!real)
        real = (ssize_t(*)(int, void *, size_t, off_t))dlsym(RTLD_NEXT, "pread64");
    mine = path && fstat(fd, &a) == 0 && stat(path, &b) == 0 && a.st_ino == b.st_ino &&
           a.st_dev == b.st_dev;
    if (mine && ++calls == at && !after)
        cut();
    r = real(fd, buf, n, off);
    if (mine && calls == at && after)
        cut();
    return r;
}

ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
    return hook(fd, buf, n, off);
}

ssize_t pread64(int fd, void *buf, size_t n, off_t off)
{
    return hook(fd, buf, n, off);
}

__attribute__((destructor)) static void done(void)
{
    if (getenv("SHRINK_COUNT"))
        fprintf(stderr, "shrink: %ld reads\n", calls);
}
EOF
# many: a ring of 4096 records lapped a few times (the notes then speak of overwritten events).
cat >"$T/many.c" <<'EOF'
int leaf(int x)
{
    return x * 3 + 1;
}

int mid(int x)
{
    return leaf(x) + leaf(x + 1);
}

int main(void)
{
    int acc = 0;

    for (int i = 0; i < 5000; i++)
        acc += mid(i);
    return acc == 42;
}
EOF
if ! gcc -shared -fPIC -O1 -o "$T/shrink.so" "$T/shrink.c" -ldl 2>"$T/gcc.err" ||
    ! gcc -std=gnu11 -finstrument-functions -g -O1 -fno-inline -o "$T/many" "$T/many.c" \
        "$BUILD/linux/libcygtrace.a" -lpthread 2>>"$T/gcc.err"; then
    fail compile "gcc failed: $(head -n 1 "$T/gcc.err")"
    finish
fi
run many env CYGTRACE_OUT="$T/many.trace" CYGTRACE_SIZE=64K "$T/many"
check many-runs "status $RC" [ "$RC" -eq 0 ]
SIZE=$(stat -c %s "$T/many.trace")
CUT=$((128 + 16 * 1000)) # the header and a quarter of the records

# reads NAME CMD...: how many times CMD reads the dump, left alone (in $READS); the run must
# succeed.
# A sanitized build (make check SANITIZE=1) checks that its runtime is the first object loaded:
# the shim comes first here, on purpose (its pread goes on to the sanitizer's).
ASAN_PRELOAD="ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
reads() {
    local name=$1
    shift
    cp "$T/many.trace" "$T/$name.trace"
    cp "$T/many.trace.maps" "$T/$name.trace.maps"
    run "$name-whole" env SHRINK_FILE="$T/$name.trace" SHRINK_COUNT=1 "$ASAN_PRELOAD" \
        LD_PRELOAD="$T/shrink.so" "$@" "$T/$name.trace"
    READS=$(sed -n 's/^shrink: \([0-9]*\) reads$/\1/p' "$T/$name-whole.err")
    check "$name-whole" "status $RC, $READS reads: $(head -n 1 "$T/$name-whole.err")" \
        eval '[ "$RC" -eq 0 ] && [ "${READS:-0}" -ge 2 ]'
}

# shrunk NAME WHEN AT CMD...: CMD with the dump cut to CUT bytes before (WHEN=before) or
# after (after) its read AT: status 1, one line that says the file shrank, nothing on stderr
# besides; cut before, no note that takes the missing part for something else (after, the
# output is whole, notes and all, and only the status and the line say what happened).
shrunk() {
    local f=$T/$1.trace when=$2 at=$3 tag=$1-$2-$3 env=()
    shift 3
    cp "$T/many.trace" "$f"
    [ "$when" = after ] && env=(SHRINK_AFTER=1)
    run "$tag" env SHRINK_FILE="$f" SHRINK_AT="$at" SHRINK_TO=$CUT "${env[@]}" \
        "$ASAN_PRELOAD" LD_PRELOAD="$T/shrink.so" "$@" "$f"
    check "$tag" "status $RC, stderr: $(tr '\n' '|' <"$T/$tag.err" | cut -c1-240)" \
        eval '[ "$RC" -eq 1 ] && [ "$(wc -l <"$T/$tag.err")" -eq 1 ] &&
              grep -q "^cygtrace: $f: the file shrank from $SIZE to $CUT bytes while it was read" "$T/$tag.err"'
    [ "$when" = before ] &&
        check "$tag-no-false-note" "$(grep -E 'overwritten|missing' "$T/$tag.out" | head -n 2 | tr '\n' '|')" \
            eval '! grep -Eq "overwritten|records are missing" "$T/$tag.out"'
}

for cmd in tree report graph info dump; do
    case $cmd in
    tree) args=("$CT" tree "$T/many") ;;
    report) args=("$CT" report "$T/many") ;;
    graph) args=("$CT" graph --function=mid "$T/many") ;;
    info) args=("$CT" info "$T/many") ;;
    dump) args=("$CT" dump "$T/many") ;;
    esac
    reads "$cmd" "${args[@]}"
    [ "${READS:-0}" -ge 2 ] || continue
    shrunk "$cmd" before "$READS" "${args[@]}" # in the last pass: the trees
    shrunk "$cmd" after "$READS" "${args[@]}"  # once all is read: the size at the end
done

# export -o: the file it would replace stays as it was.
reads export "$CT" export --format=folded -o "$T/out.folded" "$T/many"
if [ "${READS:-0}" -ge 2 ]; then
    echo old >"$T/out.folded"
    shrunk export before "$READS" "$CT" export --format=folded -o "$T/out.folded" "$T/many"
    check export-keeps-old "out.folded now holds: $(head -c 60 "$T/out.folded" | tr '\n' '|')" \
        eval '[ "$(cat "$T/out.folded")" = old ]'
fi

finish
