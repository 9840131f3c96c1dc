"""Times `ni-clmul`'s stitched batch outside aekit, in schedules of one's
choosing, to compare them where noise moves the real kernel's timings
more than the schedules differ.

    python3 crates/aekit-bench/examples/stitch_model.py [ROUNDS]

Writes a C file with one function per schedule, each a loop of inline
assembly over a pair of batches (the first of a pair and the second,
AES-128 unless a schedule says `rounds`): FACE's counter loads, rounds 2
to the last, the 25 PCLMULQDQ a batch of `ni_clmul.rs` (Karatsuba
products from a table of powers and folds, the two-fold reduction), and
the keystream XORed into eight blocks and stored. Builds it with `cc
-O1`, runs the schedules in turn ROUNDS times (default 400), and prints
each one's best in TSC cycles per 16-byte block. The data are constant
bytes: the instructions take the same time whatever they hold, and no
result is checked, so a schedule here says nothing about correctness.

A schedule is a dict of:

- `order`: for each of the eight products, the index of the round it
  goes with (0 = round 2).
- `reduce_in`: the index of the round whose products are followed by the
  reduction (in the second batch of a pair only).
- `mixed`: the products' instructions interleaved with the round's eight
  AESENC (`round_mixed!`), or run before the round as a block.
- `rounds`: 10 (AES-128) or 14 (AES-256).

x86-64 with AES-NI and PCLMULQDQ only. Results on one CPU:
`docs/kernels/ni_clmul.md`.
"""

import os
import subprocess
import sys
import tempfile

SCHEDULES = {
    "AES-128, runs between rounds": dict(order=[0, 0, 1, 2, 3, 4, 5, 6], reduce_in=7, mixed=False),
    "AES-128, interleaved (aekit)": dict(order=[0, 1, 2, 3, 4, 5, 6, 7], reduce_in=7, mixed=True),
    "AES-256, runs between rounds": dict(
        order=[0, 1, 2, 4, 5, 7, 8, 10], reduce_in=11, mixed=False, rounds=14
    ),
    "AES-256, interleaved (aekit)": dict(
        order=[0, 1, 2, 4, 5, 7, 8, 10], reduce_in=10, mixed=True, rounds=14
    ),
}

STATES = [f"xmm{i}" for i in range(8)]
KEY, LO, HI, MID, T1, T2, T3, MASK = (f"xmm{i}" for i in range(8, 16))


def aes_round(op, r):
    return [f"movdqa {KEY}, xmmword ptr [rsi + {16 * r}]"] + [f"{op} {s}, {KEY}" for s in STATES]


def product(i, first, table):
    """Block i times its power (entry 2i of the table at `table`)."""
    t = table + 32 * i
    ops = [f"movdqu {T1}, xmmword ptr [rcx + {16 * i}]", f"pshufb {T1}, {MASK}"]
    if first:
        return ops + [
            f"pxor {T1}, {LO}",
            f"pshufd {T2}, {T1}, 0x4e",
            f"pxor {T2}, {T1}",
            f"pclmulqdq {T2}, xmmword ptr [rdi + {t + 16}], 0x00",
            f"movdqa {MID}, {T2}",
            f"movdqa {LO}, {T1}",
            f"pclmulqdq {LO}, xmmword ptr [rdi + {t}], 0x00",
            f"pclmulqdq {T1}, xmmword ptr [rdi + {t}], 0x11",
            f"movdqa {HI}, {T1}",
        ]
    return ops + [
        f"pshufd {T2}, {T1}, 0x4e",
        f"pxor {T2}, {T1}",
        f"pclmulqdq {T2}, xmmword ptr [rdi + {t + 16}], 0x00",
        f"pxor {MID}, {T2}",
        f"movdqa {T3}, {T1}",
        f"pclmulqdq {T3}, xmmword ptr [rdi + {t}], 0x00",
        f"pxor {LO}, {T3}",
        f"pclmulqdq {T1}, xmmword ptr [rdi + {t}], 0x11",
        f"pxor {HI}, {T1}",
    ]


def reduction():
    return [
        f"pxor {MID}, {LO}",
        f"pxor {MID}, {HI}",
        f"movdqa {T2}, {MID}",
        f"pslldq {T2}, 8",
        f"psrldq {MID}, 8",
        f"pxor {LO}, {T2}",
        f"pxor {HI}, {MID}",
        f"movdqa {T3}, {LO}",
        f"pclmulqdq {T3}, xmmword ptr [rdi + 16], 0x10",
        f"pshufd {LO}, {LO}, 0x4e",
        f"pxor {LO}, {T3}",
        f"movdqa {T3}, {LO}",
        f"pclmulqdq {T3}, xmmword ptr [rdi + 16], 0x10",
        f"pshufd {LO}, {LO}, 0x4e",
        f"pxor {LO}, {T3}",
        f"pxor {LO}, {HI}",
    ]


def batch(second, order, reduce_in, mixed, rounds=10):
    """One batch: the first (`second` false) or second of a pair."""
    ops = []
    for i, s in enumerate(STATES):
        ops += [f"movdqu {s}, xmmword ptr [rdx + {16 * i}]", f"pxor {s}, xmmword ptr [rsi + 256]"]
    ops.append(f"movdqa {MASK}, xmmword ptr [rdi]")
    table = 1024 if second else 512
    beside = [[] for _ in range(rounds - 1)]
    for i, slot in enumerate(order):
        beside[slot] += product(i, first=(i == 0 and not second), table=table)
    if second:
        beside[reduce_in] += reduction()
    for slot, extra in enumerate(beside):
        r = slot + 2
        op = "aesenclast" if r == rounds else "aesenc"
        aes = aes_round(op, r)
        if mixed and extra:
            ops.append(aes[0])
            for j, a in enumerate(aes[1:]):
                ops.append(a)
                ops += extra[j * len(extra) // 8 : (j + 1) * len(extra) // 8]
        else:
            ops += extra + aes
    for i, s in enumerate(STATES):
        ops += [
            f"movdqu {T1}, xmmword ptr [rcx + {16 * i}]",
            f"pxor {T1}, {s}",
            f"movdqu xmmword ptr [rcx + {4608 + 16 * i}], {T1}",
        ]
    return ops


def c_source(rounds_run):
    out = [
        "#include <stdint.h>\n#include <stdio.h>\n#include <string.h>\n#include <x86intrin.h>\n",
        "static uint8_t buf[16384] __attribute__((aligned(64)));\n#define N 5000\n",
    ]
    clobbers = ", ".join(f'"xmm{i}"' for i in range(16)) + ', "memory"'
    for k, kw in enumerate(SCHEDULES.values()):
        body = batch(False, **kw) + batch(True, **kw)
        asm = "\n".join(f'"{line}\\n"' for line in body)
        out.append(
            f"static uint64_t s{k}(void) {{ uint64_t t0 = __rdtsc();\n"
            f"  for (long i = 0; i < N; i++) __asm__ volatile(\".intel_syntax noprefix\\n\" {asm}"
            f' ".att_syntax\\n" :: "S"(buf), "d"(buf + 1024), "D"(buf + 2048), "c"(buf + 4096)'
            f" : {clobbers});\n  return __rdtsc() - t0; }}\n"
        )
    n = len(SCHEDULES)
    out.append(f"int main(void) {{ memset(buf, 1, sizeof buf); uint64_t best[{n}];\n")
    out.append(f"  for (int k = 0; k < {n}; k++) best[k] = ~0ull;\n")
    out.append(f"  for (int r = 0; r < {rounds_run}; r++) {{\n")
    for k in range(n):
        out.append(f"    {{ uint64_t t = s{k}(); if (t < best[{k}]) best[{k}] = t; }}\n")
    out.append("  }\n")
    for k, name in enumerate(SCHEDULES):
        out.append(f'  printf("%-32s %6.2f\\n", "{name}", (double)best[{k}] / N / 16);\n')
    out.append("  return 0; }\n")
    return "".join(out)


def main():
    rounds_run = int(sys.argv[1]) if len(sys.argv) > 1 else 400
    with tempfile.TemporaryDirectory() as d:
        src, exe = os.path.join(d, "model.c"), os.path.join(d, "model")
        with open(src, "w") as f:
            f.write(c_source(rounds_run))
        subprocess.run(["cc", "-O1", "-o", exe, src], check=True)
        print(f"{'schedule':32s} TSC cycles per block, best of {rounds_run} rounds")
        subprocess.run([exe], check=True)


if __name__ == "__main__":
    main()
