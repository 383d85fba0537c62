# SPDX-License-Identifier: MIT
# count.py - gdb (Python): how many instructions the Zephyr module's hooks execute per event,
# from a function's first instruction to its return, stepped one instruction at a time under
# QEMU. Run by bench/zephyr/run.sh. Prints "FUNCTION N1 N2 ..." a line (the first calls are
# skipped: before the threads run, the paths differ).
import gdb

SKIP = 3
SAMPLES = 5


def steps(fn):
    """Instructions from fn's entry to its return, the next time fn is called."""
    bp = gdb.Breakpoint(fn, internal=True)
    try:
        gdb.execute("continue", to_string=True)
        ret = int(gdb.parse_and_eval("$lr")) & ~1
        n = 0
        while (int(gdb.parse_and_eval("$pc")) & ~1) != ret and n < 5000:
            gdb.execute("stepi", to_string=True)
            n += 1
        return n
    finally:
        bp.delete()


for fn in ("__cyg_profile_func_enter", "__cyg_profile_func_exit", "cygtrace_user_clock",
           "sys_trace_thread_switched_in_user", "sys_trace_isr_enter_user",
           "sys_trace_isr_exit_user", "cygtrace_zephyr_block",
           "sys_trace_thread_sched_ready_user"):
    for _ in range(SKIP):
        steps(fn)
    print(fn, " ".join(str(steps(fn)) for _ in range(SAMPLES)), flush=True)
gdb.execute("kill")
