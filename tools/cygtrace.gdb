# SPDX-License-Identifier: MIT
# cygtrace.gdb - gdb commands for a developer already inside gdb, next to a target that records
# with the cygtrace runtime (firmware through OpenOCD / J-Link / pyOCD / QEMU, or a Linux
# process).
#
#   (gdb) source tools/cygtrace.gdb        (or put the line in ~/.gdbinit or the project's)
#   (gdb) cygtrace-info                    what the control block says: is the ring there, its
#                                          size, state, how many events were written and lost
#   (gdb) cygtrace-dump crash.dump         writes the ring to crash.dump: the control block and
#                                          the records, the same bytes `cygtrace pull -o` writes
#   $ cygtrace tree firmware.elf crash.dump
#
# Both commands read the runtime's `cyg_rt`, whose first member points at the control block
# (target/core/cygtrace_internal.h); the runtime is built with -g, so gdb knows the types. The
# layout of the block is docs/FORMAT.md. Nothing here writes to the target.

# $cyg_ok = 1 when cyg_rt.ctl points at a block that starts with the magic "CYGTRACE". The
# bytes are compared one by one: $_memeq needs gdb's Python, which some builds lack.
define cygtrace-check
  set $cyg_ctl = (unsigned char *) cyg_rt.ctl
  set $cyg_ok = 0
  if $cyg_ctl != 0
    if $cyg_ctl[0] == 'C' && $cyg_ctl[1] == 'Y' && $cyg_ctl[2] == 'G' && $cyg_ctl[3] == 'T'
      if $cyg_ctl[4] == 'R' && $cyg_ctl[5] == 'A' && $cyg_ctl[6] == 'C' && $cyg_ctl[7] == 'E'
        set $cyg_ok = 1
      end
    end
  end
end
document cygtrace-check
Sets $cyg_ok to 1 when cyg_rt.ctl points at a cygtrace control block (magic CYGTRACE).
end

define cygtrace-dump
  if $argc != 1
    echo usage: cygtrace-dump FILE\n
  else
    cygtrace-check
    if $cyg_ok
      # 128 bytes of control block, then 2^cap_log2 records of rec_bytes each (and, from
      # version 3, the 256-byte control area after them; a version 4 ring of 64-bit Linux, one
      # 8-byte word a record, its 128-byte region table after the area: FORMAT.md 15). The
      # shift is done in 64 bits: a 64-bit ring may hold more than 2^31 records.
      set $cyg_len = 128 + (((unsigned long long) 1) << cyg_rt.ctl->cap_log2) * cyg_rt.ctl->rec_bytes
      if cyg_rt.ctl->version >= 3
        set $cyg_len = $cyg_len + 256
      end
      if cyg_rt.ctl->version == 4 && cyg_rt.ctl->word_bytes == 8 && cyg_rt.ctl->rec_bytes == 8
        set $cyg_len = $cyg_len + 128
      end
      dump binary memory $arg0 $cyg_ctl $cyg_ctl + $cyg_len
      # The file's name through echo: printf of a string argument makes gdb copy the string
      # into the target, which takes the target's malloc (a firmware has none).
      printf "cygtrace: wrote %llu bytes from %p to ", $cyg_len, $cyg_ctl
      echo $arg0\n
    else
      echo cygtrace: cyg_rt points at no control block: the runtime has not set up its buffer yet\n
    end
  end
end
document cygtrace-dump
cygtrace-dump FILE: writes the cygtrace ring (control block and records) to FILE.
Decode it with: cygtrace tree ELF FILE
end

define cygtrace-info
  cygtrace-check
  if $cyg_ok
    set $cyg_c = cyg_rt.ctl
    printf "control block: %p (magic CYGTRACE, version %u)\n", $cyg_ctl, $cyg_c->version
    printf "ring:          %llu records of %u bytes (%u-bit words)\n", \
      ((unsigned long long) 1) << $cyg_c->cap_log2, $cyg_c->rec_bytes, $cyg_c->word_bytes * 8
    # state: 0 stopped, 1 running, 2 frozen (a fault or cygtrace_freeze()), 3 full
    if $cyg_c->state == 0
      echo state:         stopped\n
    end
    if $cyg_c->state == 1
      echo state:         running\n
    end
    if $cyg_c->state == 2
      echo state:         frozen (a fault or cygtrace_freeze())\n
    end
    if $cyg_c->state == 3
      echo state:         full (stop-when-full mode)\n
    end
    if $cyg_c->state > 3
      printf "state:         %u (unknown)\n", $cyg_c->state
    end
    # head and lost: the hooks update the low word only (uintptr_t .v), also on 32-bit targets.
    printf "head:          %llu events written\n", (unsigned long long) $cyg_c->head.v
    printf "lost:          %llu events dropped\n", (unsigned long long) $cyg_c->lost.v
    printf "resets:        %u warm resets survived\n", $cyg_c->resets
  else
    echo cygtrace: cyg_rt points at no control block: the runtime has not set up its buffer yet\n
  end
end
document cygtrace-info
cygtrace-info: what the cygtrace control block says (magic, size, state, head, lost).
end
