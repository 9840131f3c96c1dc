#!/usr/bin/env python3
"""AES-GCM on AArch64 cores, aekit beside ring and aws-lc, in llvm-mca's model.

    gcm.py [--sizes 16,64,...] [--aad N] [--cpus ...] > table.md

Builds `trace/` (the one-call program) for aarch64, then for each size,
key size and direction traces one call of aekit (its default class, capped
by AEKIT_KERNEL as usual), ring and aws-lc under qemu and models it on
each core (`model.py`). Prints, per core, a Markdown table of modelled
cycles per call and the best peer's cycles over aekit's (above 1, aekit
is faster). aws-lc's eight-block kernel, which it runs only on the cores
it recognizes (Neoverse V1/V2, Apple M), is modelled from its loop alone
in `model.py --loop`; its rows are not in this table.
"""

import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import model  # noqa: E402


def build():
    env = dict(os.environ)
    env.setdefault("CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER", "aarch64-linux-gnu-gcc")
    subprocess.run(
        ["cargo", "build", "--quiet", "--release", "--target", "aarch64-unknown-linux-gnu"],
        cwd=os.path.join(HERE, "trace"), env=env, check=True,
    )


def main():
    argv = sys.argv[1:]
    sizes, aad, cpus = [16, 64, 256, 576, 1500, 16384], 16, model.CPUS
    while argv:
        flag, value, argv = argv[0], argv[1], argv[2:]
        if flag == "--sizes":
            sizes = [int(s) for s in value.split(",")]
        elif flag == "--aad":
            aad = int(value)
        elif flag == "--cpus":
            cpus = value.split(",")
        else:
            sys.exit(__doc__)
    if "AEKIT_TRACE" not in os.environ:
        build()
    impls = ["aekit", "ring", "aws-lc"]
    cycles = {}
    for bits in ["", "-256"]:
        for direction in ["encrypt", "decrypt"]:
            for size in sizes:
                for imp in impls:
                    args = [imp + bits, direction, str(size), str(aad)]
                    asm, _ = model.assembly(model.executed(args))
                    for cpu in cpus:
                        cycles[cpu, imp, bits, direction, size] = model.cycles(asm, cpu)
                    print(f"traced {' '.join(args)}", file=sys.stderr)
    for cpu in cpus:
        print(f"\n`{cpu}`, {aad} bytes of AAD: cycles per call, aekit / ring / aws-lc, and the best peer's over aekit's\n")
        head = "| size |"
        rule = "|---:|"
        for bits in ["AES-128", "AES-256"]:
            for direction in ["encrypt", "decrypt"]:
                head += f" {bits} {direction} | |"
                rule += "---:|---:|"
        print(head)
        print(rule)
        for size in sizes:
            row = f"| {size} B |"
            for bits in ["", "-256"]:
                for direction in ["encrypt", "decrypt"]:
                    a, r, w = (cycles[cpu, i, bits, direction, size] for i in impls)
                    row += f" {a:.0f} / {r:.0f} / {w:.0f} | {min(r, w) / a:.2f}× |"
            print(row)


if __name__ == "__main__":
    main()
