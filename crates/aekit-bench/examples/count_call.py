"""Counts the instructions one call executes, by single-stepping it in gdb.

    COUNT_AT=SYMBOL [COUNT_SKIP=N] [COUNT_LOOP=1] \\
        gdb -q -batch -x crates/aekit-bench/examples/count_call.py \\
        --args target/release/examples/api_calls FORM LEN 2

Stops at SYMBOL's entry (after letting N earlier entries pass: the
program's own checks before its loop), then steps one instruction at a
time: to the return address read at the entry (a function's call, such
as `aekit_aes_gcm_encrypt`), or with COUNT_LOOP=1 until the program
counter is back at SYMBOL (one turn of a loop whose call is inlined, the
loop's own instructions included: put SYMBOL on the kernel the call
reaches). Prints the total and the instructions in each function, as
gdb names them. For the kernels Valgrind cannot run (AVX-512, VAES),
whose counts callgrind cannot give.
"""

import collections
import os

import gdb

symbol = os.environ["COUNT_AT"]
gdb.execute("set pagination off")
gdb.execute("set suppress-cli-notifications on")
gdb.execute("break " + symbol)
gdb.execute("run", to_string=True)
for _ in range(int(os.environ.get("COUNT_SKIP", "0"))):
    gdb.execute("continue", to_string=True)
start = int(gdb.parse_and_eval("$pc"))
loop = os.environ.get("COUNT_LOOP") == "1"
stop = start if loop else int(gdb.parse_and_eval("*(unsigned long *)$sp"))
gdb.execute("delete")
per_function = collections.Counter()
total = 0
while True:
    frame = gdb.selected_frame()
    per_function[frame.name() or hex(frame.pc())] += 1
    gdb.execute("stepi", to_string=True)
    total += 1
    if int(gdb.parse_and_eval("$pc")) == stop:
        break
print(f"instructions: {total}")
for name, count in per_function.most_common():
    print(f"{count:6d}  {name}")
