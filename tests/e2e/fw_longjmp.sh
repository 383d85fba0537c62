#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# fw_longjmp.sh - newlib's setjmp and longjmp in a firmware (examples/firmware/jumps.c, linked
# with the runtime's wrappers of them, target/cortex-m/cygtrace_cm_jmp.c, and --wrap): under
# QEMU on an ARMv7-M and an ARMv6-M board, "cygtrace pull" reads a tree where the six calls the
# longjmp skipped never returned, for a longjmp, and after_jump() is main's callee, beside f1.
set -u
. "$(dirname "$0")/lib.sh"

BOARDS=${FW_LONGJMP_BOARDS:-mps2-an385 microbit}
FW=$BUILD/firmware
need "$CT"
need_qemu

block() {
    cat <<'EOT'
  f1() {
    f2() {
      f3() {
        f4() {
          f5() {
            f6();  (never returned: longjmp)
          } /* f5 */  (never returned: longjmp)
        } /* f4 */  (never returned: longjmp)
      } /* f3 */  (never returned: longjmp)
    } /* f2 */  (never returned: longjmp)
  } /* f1 */  (never returned: longjmp)
  after_jump();
EOT
}
{
    echo 'main() {'
    block
    block
    echo '} /* main */'
} >"$T/expected"

for board in $BOARDS; do
    elf_copy "$board" "$FW/$board" "$T/$board" jumps || continue
    elf=$T/$board/jumps.elf tag=$board-jumps
    check "$tag-wrapped" "no __wrap_setjmp or __wrap_longjmp in the ELF" \
        eval '[ "$(arm-none-eabi-nm "$elf" | grep -c " T __wrap_\(set\|long\)jmp$")" -eq 2 ]'
    if qemu_start "$tag" "$board" "$elf" && uart_wait "$tag" "jumps: done"; then
        run "$tag" "$CT" pull --gdb=127.0.0.1:$PORT -o "$T/$tag.dump" "$elf"
        check "$tag-pull" "status $RC: $(head -n 1 "$T/$tag.err")" [ "$RC" -eq 0 ]
        run "$tag-tree" "$CT" tree "$elf" "$T/$tag.dump"
        tree_body "$T/$tag-tree.out" | grep -v '^#' | grep -v '^ *board_' >"$T/$tag.body"
        check "$tag-tree" "the tree differs" same "$T/expected" "$T/$tag.body"
    fi
    qemu_stop
done

finish
