#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# wrap_gen.sh - cygtrace wrap, the wrapper generator (issue 14), end to end. examples/wrap's
# vendor library (vend.c: -g, not instrumented) built into libvend.a for x86-64 and for every
# Cortex-M core; "cygtrace wrap" on each: the same functions wrapped, the same three skipped
# with their reasons, wrappers that build with -Wall -Wextra -Werror for their target, and the
# same signature table. wrapdemo linked with the wrappers of libvend.a and of the C library
# functions of libc.sig must print exactly what it prints without them (ints, doubles, 64-bit
# integers, strings, NULL strings through unchanged), record the calls, and carry both tables
# in .cygtrace_wrap, which a firmware's flash image must not hold. Then what must fail, fails
# with one clear line and writes nothing: a file that is no ELF, a missing one, an archive
# without DWARF, a bad signatures line, -o into a file, bad usage.
set -u
. "$(dirname "$0")/lib.sh"

EX=$ROOT/examples/wrap
RT=$BUILD/linux/libcygtrace.a
DEMO=$BUILD/examples/wrap/wrapdemo
need "$CT" "$DEMO"
for tool in gcc ar readelf objcopy arm-none-eabi-gcc arm-none-eabi-ar arm-none-eabi-objcopy \
    arm-none-eabi-readelf; do
    command -v $tool >/dev/null || { fail "$E2E_NAME-prerequisites" "no $tool (make deps)"; finish; }
done
[ -f "$RT" ] || { fail "$E2E_NAME-prerequisites" "$RT is missing: run make"; finish; }

INC="-I$ROOT/target/core -I$ROOT/common"
WERROR="-std=gnu11 -Wall -Wextra -Werror"
CORES=("cortex-m0:-mcpu=cortex-m0" "cortex-m3:-mcpu=cortex-m3"
    "cortex-m4f:-mcpu=cortex-m4 -mfpu=fpv4-sp-d16 -mfloat-abi=hard"
    "cortex-m7:-mcpu=cortex-m7 -mfpu=fpv5-d16 -mfloat-abi=hard" "cortex-m33:-mcpu=cortex-m33")

# one_line TAG STATUS REGEX: run TAG exited STATUS with one line on stderr matching REGEX.
one_line() {
    [ "$RC" -eq "$2" ] && [ "$(wc -l <"$T/$1.err")" -eq 1 ] && grep -Eq -- "$3" "$T/$1.err"
}

# not_loaded READELF ELF: the ELF has a .cygtrace_wrap section with contents, which is not
# allocated (no A flag) and in no segment.
not_loaded() {
    "$1" -SW "$2" | grep -Eq '\.cygtrace_wrap +PROGBITS +0+ +[0-9a-f]+ +0*[1-9a-f][0-9a-f]* +00 +0 +0 +1$' &&
        ! "$1" -lW "$2" | sed -n '/Section to Segment/,$p' | grep -q cygtrace_wrap
}

# table C_FILE: the signature table a generated file carries, as the compiler assembles it.
table() {
    gcc -c -x c $INC -o "$T/table.o" "$1" 2>/dev/null &&
        objcopy -O binary --only-section=.cygtrace_wrap \
            --set-section-flags .cygtrace_wrap=alloc,load "$T/table.o" "$T/table.bin" &&
        cat "$T/table.bin"
}

# wrap_lib TAG DIR CC FLAGS...: vend.c built by CC FLAGS into DIR/libvend.a, wrapped into DIR.
wrap_lib() {
    local tag=$1 dir=$2 cc=$3
    shift 3
    mkdir -p "$dir"
    "$cc" "$@" -std=gnu11 -g -O1 -ffreestanding -fno-instrument-functions -c "$EX/vend.c" \
        -o "$dir/vend.o" && "${cc%gcc}ar" rcs "$dir/libvend.a" "$dir/vend.o"
    run "$tag" "$CT" wrap -o "$dir" "$dir/libvend.a"
}

# skips TAG LIB DIR: the stderr of a wrap of libvend.a: the three it cannot wrap, the summary.
skips() {
    cat <<EOF
cygtrace: $2: vend_mid: not wrapped: parameter 0 (a): struct vend_point by value
cygtrace: $2: vend_precise: not wrapped: parameter 0 (x): long double
cygtrace: $2: vend_sum: not wrapped: variadic
cygtrace: $3/cygtrace_wrap.c: wrapped 14 functions, skipped 3
EOF
}

# --- x86-64: the wrappers of libvend.a, and of the C library (libc.sig) -----------------------
X=$T/x86
wrap_lib x86-wrap "$X" gcc
skips x86-wrap "$X/libvend.a" "$X" >"$T/x86-wrap.expected"
check x86-wrap "status $RC, stderr differs" \
    eval '[ "$RC" -eq 0 ] && [ ! -s "$T/x86-wrap.out" ] && same "$T/x86-wrap.expected" "$T/x86-wrap.err"'
cat >"$T/flags.expected" <<'EOF'
-Wl,--wrap=vend_add
-Wl,--wrap=vend_apply
-Wl,--wrap=vend_checksum
-Wl,--wrap=vend_dist
-Wl,--wrap=vend_half
-Wl,--wrap=vend_is_even
-Wl,--wrap=vend_len
-Wl,--wrap=vend_mix64
-Wl,--wrap=vend_name
-Wl,--wrap=vend_paint
-Wl,--wrap=vend_reset
-Wl,--wrap=vend_scale
-Wl,--wrap=vend_set_mode
-Wl,--wrap=vend_upper
EOF
check x86-flags "the flags differ" same "$T/flags.expected" "$X/cygtrace_wrap.flags"
check x86-no-temp-files "DIR holds more: $(ls -A "$X" | tr '\n' ' ')" \
    [ "$(ls -A "$X" | sort | tr '\n' ' ')" = "cygtrace_wrap.c cygtrace_wrap.flags libvend.a vend.o " ]
run x86-cc gcc $WERROR -O2 $INC -c "$X/cygtrace_wrap.c" -o "$X/cygtrace_wrap.o"
check x86-builds "status $RC: $(head -n 3 "$T/x86-cc.err" | tr '\n' '|')" [ "$RC" -eq 0 ]
cat >"$T/vend.table" <<'EOF'
cygtrace-wrap 1
F	vend_add	2	int	-	int
P	0	a	int	-	int
P	1	b	int	-	int
F	vend_apply	2	int	-	int
P	0	f	ptr	-	int (*)(int)
P	1	v	int	-	int
F	vend_checksum	2	uint	-	vend_u32
P	0	data	ptr	-	const uint8_t *
P	1	n	uint	-	size_t
F	vend_dist	1	int	-	int
P	0	p	ptr	-	const struct vend_point *
F	vend_half	1	f32	-	float
P	0	f	f32	-	float
F	vend_is_even	1	bool	-	_Bool
P	0	v	uint	-	unsigned int
F	vend_len	1	uint	-	size_t
P	0	s	str	-	const char *
F	vend_mix64	2	uint	-	uint64_t
P	0	x	uint	-	uint64_t
P	1	y	int	-	long long int
F	vend_name	1	str	-	const char *
P	0	id	int	-	int
F	vend_paint	2	uint	-	unsigned int
P	0	c	int	e1	enum vend_color
P	1	level	uint	-	unsigned char
F	vend_reset	0	void	-	void
F	vend_scale	2	f64	-	double
P	0	v	f64	-	double
P	1	k	int	-	int
F	vend_set_mode	1	int	e2	enum vend_mode
P	0	m	int	e2	enum vend_mode
F	vend_upper	1	char	-	char
P	0	c	char	-	char
E	e1	1	VEND_RED
E	e1	2	VEND_GREEN
E	e1	4	VEND_BLUE
E	e2	0	VEND_OFF
E	e2	1	VEND_SLOW
E	e2	7	VEND_FAST
E	e2	-1	VEND_BROKEN
EOF
table "$X/cygtrace_wrap.c" >"$T/x86.table"
check x86-table "the table differs" same "$T/vend.table" "$T/x86.table"

L=$T/libc
run libc-wrap "$CT" wrap -o "$L" --signatures="$EX/libc.sig"
check libc-wrap "status $RC: $(tr '\n' '|' <"$T/libc-wrap.err")" \
    one_line libc-wrap 0 "^cygtrace: $L/cygtrace_wrap.c: wrapped 5 functions, skipped 0\$"
check libc-flags "$(tr '\n' ' ' <"$L/cygtrace_wrap.flags")" \
    [ "$(tr '\n' ' ' <"$L/cygtrace_wrap.flags")" = "-Wl,--wrap=close -Wl,--wrap=free -Wl,--wrap=malloc -Wl,--wrap=open -Wl,--wrap=read " ]
run libc-cc gcc $WERROR -O2 $INC -c "$L/cygtrace_wrap.c" -o "$L/cygtrace_wrap.o"
check libc-builds "status $RC: $(head -n 3 "$T/libc-cc.err" | tr '\n' '|')" [ "$RC" -eq 0 ]
# The C library itself as the input: thousands of versioned symbols (open@@GLIBC_2.2.5), no
# DWARF; --functions picks the five, libc.sig describes them: the same wrappers.
LIBC=$(gcc -print-file-name=libc.so.6)
run libc-so "$CT" wrap -o "$T/libcso" --functions=open,read,close --functions='mall?c,free' \
    --signatures="$EX/libc.sig" "$LIBC"
table "$L/cygtrace_wrap.c" >"$T/libc.table"
check libc-so-input "status $RC: $(tr '\n' '|' <"$T/libc-so.err")" \
    eval '[ "$RC" -eq 0 ] && same "$L/cygtrace_wrap.flags" "$T/libcso/cygtrace_wrap.flags" &&
          table "$T/libcso/cygtrace_wrap.c" | cmp -s - "$T/libc.table" &&
          grep -qx "cygtrace: $T/libcso/cygtrace_wrap.c: wrapped 5 functions, skipped 0" "$T/libc-so.err"'

# --- wrapdemo: the values pass through unchanged ------------------------------------------------
cat >"$T/demo.expected" <<'EOF'
vend_add(2, 3) = 5
vend_add(-7, 2147483647) = 2147483640
vend_name(1) = one
vend_name(2) = a name longer than the thirty-two bytes a wrapper records
vend_name(9) = (null)
vend_scale(1.5, 3) = 4.5
vend_scale(-0.1, 7) = -0.70000000000000007
vend_dist({3, -4}) = 7
vend_set_mode(VEND_FAST) = 0
vend_set_mode(VEND_BROKEN) = 7
vend_set_mode(VEND_SLOW) = -1
vend_paint(VEND_BLUE, 200) = 4200
vend_mix64(0x123456789abcdef0, -5) = 0x123456780b1e6d2f
vend_mix64(2^63, 2^62) = 0xc000000400000000
vend_half(3) = 1.5
vend_is_even(4) = 1, vend_is_even(7) = 0
vend_upper('q') = Q
vend_len("hello") = 5, vend_len(NULL) = 0
vend_checksum = 0xf9341483
vend_apply(twice, 21) = 42
vend_sum(3, 1, 2, 3) = 6
vend_mid = {6, 8}
vend_precise(1) = 0.333333
open + read: 4 bytes, an ELF file
open(missing) = -1
malloc + free: malloc'd
EOF
INSTR="-finstrument-functions -g -O1 -fno-inline -fno-omit-frame-pointer"
run demo-ld gcc $WERROR $INSTR -I"$EX" -o "$T/wrapdemo" "$EX/wrapdemo.c" "$X/cygtrace_wrap.o" \
    "$L/cygtrace_wrap.o" "$X/libvend.a" "$RT" @"$X/cygtrace_wrap.flags" \
    @"$L/cygtrace_wrap.flags" -lpthread
check demo-links "status $RC: $(head -n 3 "$T/demo-ld.err" | tr '\n' '|')" [ "$RC" -eq 0 ]
run demo-plain-ld gcc $WERROR -g -O1 -I"$EX" -o "$T/plaindemo" "$EX/wrapdemo.c" "$X/libvend.a"
run plain "$T/plaindemo"
check demo-plain "the program without wrappers prints otherwise" same "$T/demo.expected" "$T/plain.out"
(cd "$T" && CYGTRACE_OUT="$T/demo.trace" timeout 20 ./wrapdemo </dev/null >"$T/demo.out" 2>"$T/demo.err")
RC=$?
check demo-runs "status $RC: $(head -n 2 "$T/demo.err" | tr '\n' '|')" \
    eval '[ "$RC" -eq 0 ] && [ ! -s "$T/demo.err" ]'
check demo-values "the wrapped program prints otherwise" same "$T/demo.expected" "$T/demo.out"
missing=
for fn in $(sed 's/^-Wl,--wrap=//' "$X/cygtrace_wrap.flags" "$L/cygtrace_wrap.flags"); do
    nm "$T/wrapdemo" | grep -q " T __wrap_$fn\$" || missing="$missing $fn"
done
check demo-wrappers "no wrapper linked for:$missing" [ -z "$missing" ]
# Both tables, in a section no segment loads.
objcopy -O binary --only-section=.cygtrace_wrap --set-section-flags .cygtrace_wrap=alloc,load \
    "$T/wrapdemo" "$T/demo.section" 2>/dev/null
check demo-section "no .cygtrace_wrap with both tables" \
    eval '[ "$(grep -c "^cygtrace-wrap 1\$" "$T/demo.section")" -eq 2 ] &&
          grep -q "^F	vend_mix64	2	uint	-	uint64_t\$" "$T/demo.section" &&
          grep -q "^F	open	3	int	-	int\$" "$T/demo.section"'
check demo-section-not-loaded "in a segment, or not in the ELF" not_loaded readelf "$T/wrapdemo"
run demo-tree "$CT" tree "$T/wrapdemo" "$T/demo.trace"
check demo-recorded "status $RC: $(head -n 1 "$T/demo-tree.err")" \
    eval '[ "$RC" -eq 0 ] && grep -q "vend_add(" "$T/demo-tree.out" &&
          grep -q "vend_mix64(" "$T/demo-tree.out" && grep -q "open(" "$T/demo-tree.out" &&
          grep -q "malloc(" "$T/demo-tree.out" && ! grep -q "vend_sum" "$T/demo-tree.out"'

# The example make builds, the same way.
(cd "$T" && CYGTRACE_OFF=1 timeout 20 "$DEMO" </dev/null >"$T/made.out" 2>"$T/made.err")
check made-demo "$DEMO prints otherwise" same "$T/demo.expected" "$T/made.out"

# --- every Cortex-M core: the same functions, the same table; -Werror builds ----------------
for c in "${CORES[@]}"; do
    core=${c%%:*}
    flags=${c#*:}
    D=$T/$core
    wrap_lib "$core-wrap" "$D" arm-none-eabi-gcc -mthumb $flags
    skips "$core-wrap" "$D/libvend.a" "$D" >"$T/$core.expected"
    check "$core-wrap" "status $RC, stderr differs" \
        eval '[ "$RC" -eq 0 ] && same "$T/$core.expected" "$T/$core-wrap.err"'
    check "$core-flags" "the flags differ" same "$T/flags.expected" "$D/cygtrace_wrap.flags"
    run "$core-cc" arm-none-eabi-gcc -mthumb $flags $WERROR -O2 -ffreestanding $INC \
        -c "$D/cygtrace_wrap.c" -o "$D/cygtrace_wrap.o"
    check "$core-builds" "status $RC: $(head -n 3 "$T/$core-cc.err" | tr '\n' '|')" [ "$RC" -eq 0 ]
    table "$D/cygtrace_wrap.c" >"$T/$core.table"
    check "$core-table" "the table differs from x86-64's" same "$T/vend.table" "$T/$core.table"
done
# Short enums (the ARM EABI's): enum vend_mode is a signed char there, passed as one.
check cm-short-enums "$(grep -m1 '__real_vend_set_mode' "$T/cortex-m3/cygtrace_wrap.c")" \
    grep -q '^extern signed char __real_vend_set_mode(signed char m);$' \
    "$T/cortex-m3/cygtrace_wrap.c"

# A firmware with wrapped calls: the table is in the ELF, not in the flash image.
FW=$T/fw
mkdir -p "$FW"
cat >"$FW/main.c" <<'EOF'
#include "vend.h"

volatile int sink;

int main(void)
{
    sink = vend_add(1, 2) + (int)vend_len("abc");
    for (;;)
        ;
}
EOF
make --no-print-directory -C "$ROOT" O="$BUILD" "$BUILD/cortex-m3/libcygtrace.a" >/dev/null 2>&1
run fw-ld arm-none-eabi-gcc -mcpu=cortex-m3 -mthumb -Os -g -I"$EX" -ffunction-sections \
    -nostartfiles --specs=nosys.specs -Wl,--gc-sections -Wl,-e,main -o "$FW/fw.elf" \
    "$FW/main.c" "$T/cortex-m3/cygtrace_wrap.o" "$T/cortex-m3/libvend.a" \
    "$BUILD/cortex-m3/libcygtrace.a" @"$T/cortex-m3/cygtrace_wrap.flags"
check fw-links "status $RC: $(head -n 3 "$T/fw-ld.err" | tr '\n' '|')" [ "$RC" -eq 0 ]
arm-none-eabi-objcopy -O binary "$FW/fw.elf" "$FW/fw.bin" 2>/dev/null
check fw-section "in a segment, or not in the ELF" not_loaded arm-none-eabi-readelf "$FW/fw.elf"
check fw-not-in-flash "the flash image holds the table ($(wc -c <"$FW/fw.bin") bytes)" \
    eval '[ -s "$FW/fw.bin" ] && ! grep -q "cygtrace-wrap" "$FW/fw.bin" &&
          arm-none-eabi-nm "$FW/fw.elf" | grep -q " T __wrap_vend_add\$"'

# --- options --------------------------------------------------------------------------------
run only "$CT" wrap -o "$T/only" --functions='vend_a*,vend_n*,nothing*' --exclude=vend_apply \
    "$X/libvend.a"
check functions-exclude "status $RC: $(tr '\n' '|' <"$T/only.err")" \
    eval '[ "$RC" -eq 0 ] &&
          [ "$(cat "$T/only/cygtrace_wrap.flags")" = "-Wl,--wrap=vend_add
-Wl,--wrap=vend_name" ] &&
          [ "$(wc -l <"$T/only.err")" -eq 2 ] &&
          grep -qx "cygtrace: warning: --functions=nothing\\* matches no function" "$T/only.err" &&
          grep -qx "cygtrace: $T/only/cygtrace_wrap.c: wrapped 2 functions, skipped 0" "$T/only.err"'
# The file wins over the DWARF: a user correcting a signature, naming parameters.
printf 'int vend_add(int left, int right);\nint vend_sum(int n, int a, int b, int c);\n' \
    >"$T/fix.sig"
run fix "$CT" wrap -o "$T/fix" --signatures="$T/fix.sig" --functions=vend_add,vend_sum \
    "$X/libvend.a"
check signatures-win "status $RC: $(tr '\n' '|' <"$T/fix.err")" \
    eval '[ "$RC" -eq 0 ] && table "$T/fix/cygtrace_wrap.c" | grep -q "^P	1	right	int	-	int\$" &&
          table "$T/fix/cygtrace_wrap.c" | grep -q "^F	vend_sum	4	int	-	int\$"'
# A new directory, parents and all; output replaced atomically (its mode kept).
chmod 600 "$T/fix/cygtrace_wrap.flags"
run fix2 "$CT" wrap -o "$T/fix" --signatures="$T/fix.sig" --functions=vend_add "$X/libvend.a"
check rewrite "status $RC, or a temporary file left: $(ls -A "$T/fix" | tr '\n' ' ')" \
    eval '[ "$RC" -eq 0 ] && [ "$(ls -A "$T/fix" | wc -l)" -eq 2 ] &&
          [ "$(stat -c %a "$T/fix/cygtrace_wrap.flags")" = 600 ] &&
          [ "$(cat "$T/fix/cygtrace_wrap.flags")" = "-Wl,--wrap=vend_add" ]'
run nested "$CT" wrap -o "$T/a/b/c" --signatures="$T/fix.sig"
check mkdir-p "status $RC" [ -f "$T/a/b/c/cygtrace_wrap.c" ]
run help "$CT" wrap --help
check help "status $RC" eval '[ "$RC" -eq 0 ] && grep -q "^usage: cygtrace wrap" "$T/help.out"'

# --- what must fail ---------------------------------------------------------------------------
echo "not an object" >"$T/text.a"
expect_error not-elf 1 "^cygtrace: $T/text.a: not an ELF object, static library or shared library\$" \
    "$CT" wrap -o "$T/e1" "$T/text.a"
expect_error missing 1 "^cygtrace: $T/nothere.a: No such file or directory\$" \
    "$CT" wrap -o "$T/e2" "$T/nothere.a"
: >"$T/data.c"
printf 'int table[4] = {1, 2, 3, 4};\n' >"$T/data.c"
gcc -c "$T/data.c" -o "$T/data.o"
expect_error no-functions 1 "^cygtrace: $T/data.o: defines no functions\$" \
    "$CT" wrap -o "$T/e3" "$T/data.o"
echo "x" >"$T/afile"
expect_error o-is-file 1 "^cygtrace: $T/afile: not a directory; -o takes the directory to write into\$" \
    "$CT" wrap -o "$T/afile" "$X/libvend.a"
check o-is-file-untouched "the file changed" [ "$(cat "$T/afile")" = x ]
expect_error no-input 2 "needs a library, an object or --signatures=FILE" "$CT" wrap
expect_error bad-option 2 "--bogus: unknown option" "$CT" wrap --bogus "$X/libvend.a"
expect_error output-is-input 1 "cygtrace_wrap.c: is an input" \
    "$CT" wrap -o "$T/fix" --signatures="$T/fix/cygtrace_wrap.c"
# A bad signatures line: told with its line, nothing written.
printf 'int vend_add(int a, int b);\nint vend_len(strange_t s);\n' >"$T/bad.sig"
expect_error bad-sig-line 1 \
    "^cygtrace: $T/bad.sig:2: unknown type 'strange_t'; name it first with a line 'typedef <type> strange_t;'\$" \
    "$CT" wrap -o "$T/e4" --signatures="$T/bad.sig" "$X/libvend.a"
check bad-sig-nothing-written "$T/e4 was written" [ ! -e "$T/e4" ]
# An archive without DWARF: every function skipped with its reason, nothing written.
gcc -O1 -c "$EX/vend.c" -o "$T/nodebug.o" && ar rcs "$T/libnodebug.a" "$T/nodebug.o"
run nodebug "$CT" wrap -o "$T/e5" "$T/libnodebug.a"
nodw="no signature (member nodebug.o: no DWARF); build it with -g, or give its prototype with --signatures"
check no-dwarf "status $RC: $(tail -n 1 "$T/nodebug.err")" \
    eval '[ "$RC" -eq 1 ] && [ ! -s "$T/nodebug.out" ] && [ "$(wc -l <"$T/nodebug.err")" -eq 18 ] &&
          [ "$(grep -c "^cygtrace: $T/libnodebug.a: vend_[a-z0-9_]*: not wrapped: $nodw\$" "$T/nodebug.err")" -eq 17 ] &&
          [ "$(tail -n 1 "$T/nodebug.err")" = "cygtrace: $T/libnodebug.a: no function to wrap (all were skipped, see above); nothing written" ] &&
          [ ! -e "$T/e5" ]'
# ... which --signatures completes.
run nodebug-sig "$CT" wrap -o "$T/e6" --signatures="$T/fix.sig" "$T/libnodebug.a"
check no-dwarf-signatures "status $RC: $(tail -n 1 "$T/nodebug-sig.err")" \
    eval '[ "$RC" -eq 0 ] && [ "$(tr "\n" " " <"$T/e6/cygtrace_wrap.flags")" = "-Wl,--wrap=vend_add -Wl,--wrap=vend_sum " ] &&
          tail -n 1 "$T/nodebug-sig.err" | grep -qx "cygtrace: $T/e6/cygtrace_wrap.c: wrapped 2 functions, skipped 15"'

# -q (a build's rule): nothing on stderr, the same files written; an error is still said.
mkdir -p "$T/quiet"
run quiet "$CT" wrap -q -o "$T/quiet" "$X/libvend.a"
check quiet-silent "status $RC, stderr: $(head -n 1 "$T/quiet.err")" \
    eval '[ "$RC" -eq 0 ] && [ ! -s "$T/quiet.err" ] &&
          cmp -s "$T/quiet/cygtrace_wrap.flags" "$X/cygtrace_wrap.flags"'
expect_error quiet-error 1 'no function to wrap \(all were skipped: run without -q' \
    "$CT" wrap -q -o "$T/quiet" --functions=vend_sum "$X/libvend.a"

# A damaged DWARF (vend.o with a byte changed, tests/fuzz/regress/wrap/): parameters whose type
# does not resolve read as void once, and the generator read past its table of macros (a
# crash). Now such a function is skipped with its reason, and the rest build.
run flipped "$CT" wrap -o "$T/flipped" "$ROOT/tests/fuzz/regress/wrap/wrapdw-param-void-flip73"
check flipped-skips "status $RC: $(grep -m1 "'void'" "$T/flipped.err")" \
    eval '[ "$RC" -eq 0 ] && grep -q "vend_half: not wrapped: parameter 0 (f): .void., not a type a parameter can have" "$T/flipped.err"'
run flipped-cc gcc $WERROR -O2 $INC -c "$T/flipped/cygtrace_wrap.c" -o "$T/flipped/cygtrace_wrap.o"
check flipped-compiles "status $RC: $(head -n 2 "$T/flipped-cc.err" | tr '\n' '|')" [ "$RC" -eq 0 ]

# Names of 500 to 520 characters: up to 512 wrapped, in declarations as long as the calls that
# name them (a 512-byte buffer once cut "__wrap_" + a name of 505 and more), and the wrappers
# compile, link and run; longer ones skipped with their reason.
longname() { printf 'f%0*d' $(($1 - 1)) "$1"; }
{
    for ((n = 500; n <= 520; n++)); do
        echo "int $(longname $n)(int a) { return a + $n; }"
    done
} >"$T/long.c"
{
    echo "#include <stdio.h>"
    for ((n = 500; n <= 520; n++)); do echo "int $(longname $n)(int a);"; done
    echo "int main(void) { long s = 0;"
    for ((n = 500; n <= 520; n++)); do echo "s += $(longname $n)(1);"; done
    echo 'printf("%ld\n", s); return 0; }'
} >"$T/longmain.c"
mkdir -p "$T/long"
gcc -g -O1 -c "$T/long.c" -o "$T/long/long.o" && ar rcs "$T/long/liblong.a" "$T/long/long.o"
run long-wrap "$CT" wrap -o "$T/long" "$T/long/liblong.a"
check long-wrap "status $RC: $(tail -n 1 "$T/long-wrap.err")" \
    eval '[ "$RC" -eq 0 ] && [ "$(grep -c "not wrapped: a name longer than 512 characters" "$T/long-wrap.err")" -eq 8 ] &&
          tail -n 1 "$T/long-wrap.err" | grep -q "wrapped 13 functions, skipped 8$"'
for ((n = 505; n <= 512; n++)); do
    grep -q "__wrap_$(longname $n)(int a)" "$T/long/cygtrace_wrap.c" || break
done
check long-decl-whole "the declaration of __wrap_ for a name of $n characters is cut" [ "$n" -eq 513 ]
run long-cc gcc $WERROR -O2 $INC -c "$T/long/cygtrace_wrap.c" -o "$T/long/cygtrace_wrap.o"
check long-compiles "status $RC: $(head -n 3 "$T/long-cc.err" | tr '\n' '|' | cut -c1-300)" [ "$RC" -eq 0 ]
run long-ld gcc -g -O1 -o "$T/longdemo" "$T/longmain.c" "$T/long/cygtrace_wrap.o" \
    "$T/long/liblong.a" "$RT" @"$T/long/cygtrace_wrap.flags" -lpthread
check long-links "status $RC: $(head -n 3 "$T/long-ld.err" | tr '\n' '|' | cut -c1-300)" [ "$RC" -eq 0 ]
run long-run env CYGTRACE_OUT="$T/long.trace" "$T/longdemo"
check long-runs "status $RC, printed $(head -n 1 "$T/long-run.out")" \
    eval '[ "$RC" -eq 0 ] && [ "$(cat "$T/long-run.out")" = 10731 ]'
run long-tree "$CT" tree "$T/longdemo" "$T/long.trace"
check long-tree "status $RC; $(grep -c "$(longname 512)(a=1)" "$T/long-tree.out") calls of the 512-character one" \
    eval '[ "$RC" -eq 0 ] && grep -q "$(longname 512)(a=1)" "$T/long-tree.out"'

finish
