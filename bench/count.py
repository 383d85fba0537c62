# SPDX-License-Identifier: MIT
# count.py - gdb (Python): how many instructions each function of $COUNT_FUNCS (names apart by
# spaces) executes, from its first instruction to its return, stepped one instruction at a time
# under QEMU. Run by bench/freertos/run.sh (the FreeRTOS glue) and bench/zephyr/run.sh (the
# Zephyr module's hooks). Prints "FUNCTION N1 N2 ..." a line: the calls it stepped (the first
# calls are skipped: before the scheduler runs, the paths differ).
import os

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


for fn in os.environ["COUNT_FUNCS"].split():
    for _ in range(SKIP):
        steps(fn)
    print(fn, " ".join(str(steps(fn)) for _ in range(SAMPLES)), flush=True)
gdb.execute("kill")
