#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# dlopen_linux.sh - the runtime must not change which library dlopen loads. glibc resolves a
# dlopen'ed name against its caller ($ORIGIN, DT_RUNPATH, DT_RPATH); each scenario below is
# built here so that the right file and a wrong one both exist, and is run untraced (the
# reference), with the runtime preloaded (cygtrace record) and with it linked in
# (libcygtrace.a): the program must say the same library answered, and the tree must name the
# plugin's functions. Scenarios: $ORIGIN from the program and from a library; a bare name
# found by the program's RUNPATH (a same-named copy sits in the system's cache), by a
# library's own RUNPATH (the program's RUNPATH holds another copy), by a library's own RPATH
# (LD_LIBRARY_PATH holds another copy); dlsym(RTLD_NEXT) from a library; dlmopen; a plugin
# whose code runs only in its constructor, then dlclose'd (its map line must be written before
# it goes); a program with no instrumented code of its own that dlopens an instrumented plugin
# (the ring is set up in the plugin's constructor, or at the dlsym that follows when it has
# none).
set -u
. "$(dirname "$0")/lib.sh"

need "$CT" "$BUILD/linux/libcygtrace.so"
if [ ! -e "$BUILD/linux/libcygtrace.a" ]; then
    fail "$E2E_NAME-prerequisites" "$BUILD/linux/libcygtrace.a is missing: run make"
    finish
fi
CC=${CC:-cc}
INSTR="-finstrument-functions -g -O1 -fno-inline -fno-omit-frame-pointer"
S=$T/s
mkdir -p "$S/lib/plugins" "$S/lib/bundle" "$S/lib/rbundle" "$S/plugins" "$S/pbundle" "$S/rdecoy"

# The plugin: one copy per place, each saying which it is.
cat >"$T/zz.c" <<'EOF'
__attribute__((noinline)) static const char *zz_inner(void) { return WHICH; }
const char *zz_which(void) { return zz_inner(); }
EOF
# zz LIB SONAME WHICH: the plugin built as LIB.
zz() {
    $CC $INSTR -fPIC -shared -Wl,-soname,"$2" -DWHICH="\"$3\"" -o "$1" "$T/zz.c"
}
cat >"$T/ctor.c" <<'EOF'
__attribute__((noinline)) void ctor_work(void) { __asm__ volatile(""); }
__attribute__((constructor)) static void ctor_run(void) { ctor_work(); }
EOF
# A library that calls dlopen itself (its own $ORIGIN, RUNPATH or RPATH applies).
# Each also defines dup_name, and next_dup, which asks dlsym(RTLD_NEXT) for the dup_name after
# its own: the next library's in the search order, as its caller is the library.
cat >"$T/caller.c" <<'EOF'
#define _GNU_SOURCE
#include <dlfcn.h>
#define STR2(x) #x
#define STR(x) STR2(x)
void *NAME(void) { return dlopen(FILE_, RTLD_NOW); }
const char *dup_name(void) { return STR(NAME); }
const char *next_dup(void)
{
    const char *(*f)(void) = (const char *(*)(void))dlsym(RTLD_NEXT, "dup_name");
    return f ? f() : "none";
}
EOF
cat >"$T/prog.c" <<'EOF'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *origin_lib(void);
void *runpath_lib(void);
void *rpath_lib(void);
const char *next_dup(void);

static int say(void *h)
{
    struct link_map *lm = NULL;
    const char *(*which)(void);
    char real[4096];

    if (!h) {
        printf("dlopen: %s\n", dlerror());
        return 1;
    }
    if (dlinfo(h, RTLD_DI_LINKMAP, &lm) != 0 || !realpath(lm->l_name, real))
        return 2;
    if (!(which = (const char *(*)(void))dlsym(h, "zz_which"))) {
        printf("%s: no zz_which\n", real);
        return 1;
    }
    printf("%s: %s\n", real, which());
    return 0;
}

int main(int argc, char **argv)
{
    const char *m = argc > 1 ? argv[1] : "";

#ifndef BARE
    if (!strcmp(m, "origin-prog"))
        return say(dlopen("$ORIGIN/plugins/libp.so", RTLD_NOW));
    if (!strcmp(m, "runpath-prog"))
        return say(dlopen("libz.so.1", RTLD_NOW));
    if (!strcmp(m, "next")) { /* liborigin's next_dup: librunpath's dup_name */
        printf("%s\n", next_dup());
        return 0;
    }
    if (!strcmp(m, "origin-lib"))
        return say(origin_lib());
    if (!strcmp(m, "runpath-lib"))
        return say(runpath_lib());
    if (!strcmp(m, "rpath-lib"))
        return say(rpath_lib());
    if (!strcmp(m, "mopen"))
        return say(dlmopen(LM_ID_BASE, "$ORIGIN/plugins/libp.so", RTLD_NOW));
    if (!strcmp(m, "close")) {
        void *h = dlopen("$ORIGIN/plugins/libctor.so", RTLD_NOW);

        printf("ctor %s, dlclose %d\n", h ? "loaded" : dlerror(), h ? dlclose(h) : -1);
        return 0;
    }
#endif
    if (!strcmp(m, "late"))
        return say(dlopen("$ORIGIN/plugins/libp.so", RTLD_NOW));
    if (!strcmp(m, "late-ctor"))
        return say(dlopen("$ORIGIN/plugins/libzc.so", RTLD_NOW));
    return 3;
}
EOF
built=1
build() { "$@" 2>>"$T/build.err" || built=0; }
build zz "$S/plugins/libp.so" libp.so prog-origin
build zz "$S/lib/plugins/libp.so" libp.so lib-origin
build zz "$S/pbundle/libz.so.1" libz.so.1 prog-bundle
build zz "$S/lib/bundle/libz.so.1" libz.so.1 lib-bundle
build zz "$S/lib/rbundle/libzr.so" libzr.so lib-rpath
build zz "$S/rdecoy/libzr.so" libzr.so decoy
build $CC $INSTR -fPIC -shared -o "$S/plugins/libctor.so" "$T/ctor.c"
build $CC $INSTR -fPIC -shared -DWHICH='"zc"' -o "$S/plugins/libzc.so" "$T/zz.c" "$T/ctor.c"
build $CC $INSTR -fPIC -shared -DNAME=origin_lib -DFILE_='"$ORIGIN/plugins/libp.so"' \
    -o "$S/lib/liborigin.so" "$T/caller.c"
build $CC $INSTR -fPIC -shared -DNAME=runpath_lib -DFILE_='"libz.so.1"' \
    -Wl,--enable-new-dtags,-rpath,'$ORIGIN/bundle' -o "$S/lib/librunpath.so" "$T/caller.c"
build $CC $INSTR -fPIC -shared -DNAME=rpath_lib -DFILE_='"libzr.so"' \
    -Wl,--disable-new-dtags,-rpath,'$ORIGIN/rbundle' -o "$S/lib/librpath.so" "$T/caller.c"
PROG_LINK=(-L"$S/lib" -lorigin -lrunpath -lrpath
           -Wl,--enable-new-dtags,-rpath,'$ORIGIN/lib:$ORIGIN/pbundle')
build $CC $INSTR -fPIE -pie -o "$S/prog" "$T/prog.c" "${PROG_LINK[@]}"
build $CC $INSTR -fPIE -pie -rdynamic -o "$S/prog-static" "$T/prog.c" "${PROG_LINK[@]}" \
    "$BUILD/linux/libcygtrace.a" -lpthread
build $CC -g -O1 -DBARE -o "$S/prog-bare" "$T/prog.c" # no instrumented code of its own
check built "$(head -c 300 "$T/build.err")" [ "$built" = 1 ]
check runpath-is-runpath "librunpath.so or prog has no DT_RUNPATH" \
    eval 'readelf -d "$S/lib/librunpath.so" | grep -q RUNPATH && readelf -d "$S/prog" | grep -q RUNPATH'
check rpath-is-rpath "librpath.so has no DT_RPATH" \
    eval 'readelf -d "$S/lib/librpath.so" | grep -q "(RPATH)"'

# scenario MODE WANT [ENV...]: MODE run untraced must print WANT; then preloaded and linked.
scenario() {
    local mode=$1 want=$2
    shift 2
    run "$mode-plain" env "$@" "$S/prog" "$mode"
    check "$mode-untraced" "status $RC: $(cat "$T/$mode-plain.out")" \
        eval '[ "$RC" = 0 ] && [ "$(cat "$T/$mode-plain.out")" = "$want" ]'
    rm -f "$T/$mode-rec.trace"*
    run "$mode-rec" env "$@" "$CT" record -o "$T/$mode-rec.trace" -- "$S/prog" "$mode"
    check "$mode-preloaded-same-library" "status $RC: $(cat "$T/$mode-rec.out") $(head -c 200 "$T/$mode-rec.err")" \
        same "$T/$mode-plain.out" "$T/$mode-rec.out"
    run "$mode-rec-tree" "$CT" tree "$S/prog" "$T/$mode-rec.trace"
    check "$mode-preloaded-named" "$(grep -c . "$T/$mode-rec-tree.out") lines: $(grep zz_ "$T/$mode-rec-tree.out" | tr -s ' ' | head -c 200)" \
        eval 'grep -q ":zz_which() {" "$T/$mode-rec-tree.out" && grep -q ":zz_inner()" "$T/$mode-rec-tree.out"'
    rm -f "$T/$mode-ln.trace"*
    run "$mode-ln" env CYGTRACE_OUT="$T/$mode-ln.trace" "$@" "$S/prog-static" "$mode"
    check "$mode-linked-same-library" "status $RC: $(cat "$T/$mode-ln.out") $(head -c 200 "$T/$mode-ln.err")" \
        same "$T/$mode-plain.out" "$T/$mode-ln.out"
    run "$mode-ln-tree" "$CT" tree "$S/prog-static" "$T/$mode-ln.trace"
    check "$mode-linked-named" "$(grep zz_ "$T/$mode-ln-tree.out" | tr -s ' ' | head -c 200)" \
        eval 'grep -q ":zz_which() {" "$T/$mode-ln-tree.out" && grep -q ":zz_inner()" "$T/$mode-ln-tree.out"'
}

if [ "$built" = 1 ]; then
    scenario origin-prog "$S/plugins/libp.so: prog-origin"
    scenario origin-lib "$S/lib/plugins/libp.so: lib-origin"
    scenario runpath-prog "$S/pbundle/libz.so.1: prog-bundle"
    scenario runpath-lib "$S/lib/bundle/libz.so.1: lib-bundle"
    scenario rpath-lib "$S/lib/rbundle/libzr.so: lib-rpath" LD_LIBRARY_PATH="$S/rdecoy"
    scenario mopen "$S/plugins/libp.so: prog-origin"

    # dlsym(RTLD_NEXT) called by a library: the next one after it, not after the runtime.
    run next-plain "$S/prog" next
    run next-rec "$CT" record -o "$T/next-rec.trace" -- "$S/prog" next
    run next-ln env CYGTRACE_OUT="$T/next-ln.trace" "$S/prog-static" next
    check dlsym-next "untraced: $(cat "$T/next-plain.out"), preloaded: $(cat "$T/next-rec.out"), linked: $(cat "$T/next-ln.out")" \
        eval '[ "$(cat "$T/next-plain.out")" = runpath_lib ] &&
              [ "$(cat "$T/next-rec.out")" = runpath_lib ] && [ "$(cat "$T/next-ln.out")" = runpath_lib ]'

    # dlclose: the plugin's only code ran in its constructor; its line is in the map before it
    # is unloaded, so the tree names it.
    run close-rec "$CT" record -o "$T/close-rec.trace" -- "$S/prog" close
    run close-rec-tree "$CT" tree "$S/prog" "$T/close-rec.trace"
    check close-preloaded-named "status $RC: $(cat "$T/close-rec.out"); $(grep -i ctor "$T/close-rec-tree.out" | head -c 200)" \
        eval 'grep -qx "ctor loaded, dlclose 0" "$T/close-rec.out" &&
              grep -q "libctor.so:ctor_work()" "$T/close-rec-tree.out"'
    run close-ln env CYGTRACE_OUT="$T/close-ln.trace" "$S/prog-static" close
    run close-ln-tree "$CT" tree "$S/prog-static" "$T/close-ln.trace"
    check close-linked-named "$(grep -i ctor "$T/close-ln-tree.out" | head -c 200)" \
        eval 'grep -qx "ctor loaded, dlclose 0" "$T/close-ln.out" &&
              grep -q "libctor.so:ctor_work()" "$T/close-ln-tree.out"'

    # late LIB WANT FUNC...: prog-bare, preloaded, dlopens LIB: the ring is set up, FUNCs named.
    late() {
        local mode=$1 want=$2 f ok=1
        shift 2
        rm -f "$T/$mode.trace"*
        run "$mode" "$CT" record -o "$T/$mode.trace" -- "$S/prog-bare" "$mode"
        run "$mode-tree" "$CT" tree "$S/prog-bare" "$T/$mode.trace"
        for f in "$@"; do grep -q ":$f()" "$T/$mode-tree.out" || ok=0; done
        check "$mode-set-up-named" "status $RC: $(cat "$T/$mode.out"); $(head -c 200 "$T/$mode.err"); tree: $(tr -s ' ' <"$T/$mode-tree.out" | tr '\n' '|' | head -c 300)" \
            eval '[ "$RC" = 0 ] && [ "$(cat "$T/$mode.out")" = "$want" ] && [ "$ok" = 1 ]'
    }
    late late "$S/plugins/libp.so: prog-origin" zz_which zz_inner
    late late-ctor "$S/plugins/libzc.so: zc" ctor_work zz_which zz_inner
fi

# Another library's start-up that calls dlsym before the runtime's constructor ran:
# AddressSanitizer does, inside its own initialisation, when what it intercepts
# (pthread_mutex_lock) cannot be called yet. The program starts and is traced.
cat >"$T/early.c" <<'EOF'
#include <stdio.h>
__attribute__((noinline)) int early_work(int x) { return x + 1; }
int main(void) { printf("early %d\n", early_work(1)); return 0; }
EOF
if $CC $INSTR -fsanitize=address -o "$S/early" "$T/early.c" "$BUILD/linux/libcygtrace.a" \
       -lpthread -ldl 2>"$T/early-build.err"; then
    run early env ASAN_OPTIONS=detect_leaks=0 CYGTRACE_OUT="$T/early.trace" "$S/early"
    run early-tree "$CT" tree "$S/early" "$T/early.trace"
    check early-dlsym-asan "status $RC: $(head -c 200 "$T/early.err")" \
        eval 'grep -qx "early 2" "$T/early.out" && grep -q "early_work();" "$T/early-tree.out"'
else
    skip early-dlsym-asan "no AddressSanitizer runtime: $(head -c 120 "$T/early-build.err")"
fi

finish
