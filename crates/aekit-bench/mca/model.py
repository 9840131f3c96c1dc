#!/usr/bin/env python3
"""Models one AES-GCM call on AArch64 cores from the instructions it executes.

    model.py [--cpus neoverse-n1,...] [--count] IMPL DIRECTION LEN AAD_LEN
    model.py [--cpus neoverse-n1,...] --loop FILE.S LABEL BLOCKS
    model.py --flow IMPL DIRECTION LEN AAD_LEN

Runs `aekit-trace IMPL DIRECTION LEN AAD_LEN` (the crate in `trace/`, built
for aarch64) under qemu-aarch64 with its execution log on, cuts out the
instructions executed between the two markers around the timed call (the
call itself, plus the few instructions that pass its arguments), turns
their encodings back into assembly with llvm-mc and gives that straight-line
stream to llvm-mca for each core. Prints, per core: instructions, modelled
cycles for the call (the stream run back to back, 20 times or as many as
make about 40,000 instructions, at least once; cycles over runs) and
cycles per byte. `--count` prints the instruction count alone (a
sanity check that a hardware path is taken, which needs no model).

Taken branches are modelled as executed branch instructions (llvm-mca does
not follow control flow), memory as L1 hits, and loads as independent of
earlier stores (no store-to-load forwarding stalls): what it measures is
the instructions' issue and dependency chains on each core's pipeline model.

`--flow` checks that the call's control flow does not depend on its
secrets: it traces the call with three different keys and messages
(`AEKIT_TRACE_SECRET`) and compares the sequences of blocks executed;
exits 1 if they differ. (The addresses of its loads and stores are not
compared: qemu's log does not show them.)

`--loop` models a peer's hand-written loop instead, from its assembly
source: the instructions from `LABEL:` to the branch back to it, which
handle BLOCKS 16-byte blocks an iteration (for a loop no input reaches
under qemu, such as aws-lc's eight-block kernel, which it runs only on the
cores it recognizes by ID), over 100 iterations. An instruction the source
spells as its encoding (`.inst`, perlasm's EOR3) is disassembled back into
its mnemonic. Prints cycles per iteration and per block.

Environment: AEKIT_TRACE (the binary; default: the release build under
CARGO_TARGET_DIR or trace/target), QEMU_CPU (qemu's -cpu, e.g. cortex-a72
for a core without SHA3), AEKIT_KERNEL (passed through to aekit).
"""

import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CPUS = ["neoverse-n1", "neoverse-v1", "neoverse-v2", "apple-m1"]
# Back-to-back runs of a stream given to llvm-mca: up to 20, fewer for
# long streams, at least one; about this many instructions in all.
REPEAT_INSTRUCTIONS = 40_000
# Iterations of a loop (`--loop`): its steady state, the first
# iteration's start-up spread over as many as `loop.py`'s users give
# llvm-mca (`aether.sh`).
LOOP_ITERATIONS = 100
# The secret bytes whose calls `--flow` compares.
SECRETS = [0, 66, 255]


def binary():
    if "AEKIT_TRACE" in os.environ:
        return os.environ["AEKIT_TRACE"]
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(HERE, "trace", "target"))
    return os.path.join(target, "aarch64-unknown-linux-gnu", "release", "aekit-trace")


def executed(args, env=None):
    """The encodings (4-byte words) executed between the two markers."""
    blocks, order = blocks_between_markers(args, env)
    return [word for start in order for word in blocks[start]]


def blocks_between_markers(args, env=None):
    """{start address: encodings} of every block qemu translated, and the
    start addresses of the blocks executed between the markers, in order."""
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "qemu.log")
        cmd = ["qemu-aarch64", "-L", "/usr/aarch64-linux-gnu"]
        if os.environ.get("QEMU_CPU"):
            cmd += ["-cpu", os.environ["QEMU_CPU"]]
        cmd += ["-d", "in_asm,exec,nochain", "-D", log, binary()] + args
        out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env).stdout
        mark = int(re.search(r"^mark (0x[0-9a-f]+)$", out, re.M).group(1), 16)
        blocks, order = {}, []
        block = None
        with open(log) as f:
            for line in f:
                m = re.match(r"^0x([0-9a-f]+):\s+([0-9a-f]{8})\s", line)
                if m:
                    addr = int(m.group(1), 16)
                    if block is None:
                        block = blocks.setdefault(addr, [])
                        block.clear()
                    block.append(int(m.group(2), 16))
                    continue
                block = None
                m = re.match(r"^Trace \d+: 0x[0-9a-f]+ \[[0-9a-f]+/([0-9a-f]+)/", line)
                if m:
                    order.append(int(m.group(1), 16))
    marks = [i for i, a in enumerate(order) if a == mark]
    if len(marks) < 2:
        sys.exit("model.py: the markers were not both executed")
    return blocks, order[marks[0] + 1 : marks[1]]


def same_flow(args):
    """Whether calls that differ only in their secrets (key and message)
    execute the same blocks in the same order; prints what differs."""
    flows = {}
    for secret in SECRETS:
        env = dict(os.environ, AEKIT_TRACE_SECRET=str(secret))
        flows[secret] = blocks_between_markers(args, env)[1]
    first = flows[SECRETS[0]]
    same = True
    for secret, flow in flows.items():
        if flow != first:
            at = next((i for i, (a, b) in enumerate(zip(first, flow)) if a != b), min(len(first), len(flow)))
            print(f"  secret {secret}: {len(flow)} blocks against {len(first)}, first difference at block {at}")
            same = False
    return same


def assembly(words):
    """The words as LLVM assembly, branches retargeted at one local label."""
    data = " ".join(f"0x{b:02x}" for w in words for b in w.to_bytes(4, "little"))
    text = subprocess.run(
        ["llvm-mc-19", "--disassemble", "-triple=aarch64", "-mattr=+aes,+sha3,+crc,+lse,+rdm"],
        input=data, check=True, capture_output=True, text=True,
    ).stdout
    lines = ["L:"]
    for line in text.splitlines():
        line = line.split("//")[0].strip()
        if not line or line.startswith("."):
            continue
        op = line.split()[0]
        if op in ("b", "bl") or op.startswith("b."):
            line = f"{op} L"
        elif op in ("cbz", "cbnz"):
            line = f"{op} {line.split()[1]} L"
        elif op in ("tbz", "tbnz"):
            reg, bit = line.split()[1:3]
            line = f"{op} {reg} {bit} L"
        elif op == "adr" or op == "adrp":
            line = f"{op} {line.split()[1]} L"
        lines.append(line)
    return "\n".join(lines) + "\n", len(lines) - 1


def loop(path, label, blocks):
    """The loop at `label` in an assembly source, as `assembly` returns it.
    An instruction the source spells as its encoding (`.inst 0x…`, as
    perlasm writes EOR3 for assemblers without SHA3) is disassembled back
    into its mnemonic: llvm-mca reads a directive as data, and would leave
    the instruction out of the loop."""
    lines, inside = ["L:"], False
    with open(path) as f:
        for line in f:
            line = line.split("//")[0].strip()
            if line.startswith(label + ":"):
                inside = True
                continue
            if inside and line.startswith(".inst"):
                lines.append(encoded(int(line.split()[1], 0)))
                continue
            if not inside or not line or line.endswith(":") or line.startswith("."):
                continue
            op = line.split()[0]
            if op.startswith("b") and line.split()[-1] == label:
                return "\n".join(lines + [f"{op} L"]) + "\n", len(lines)
            lines.append(line)
    sys.exit(f"model.py: no loop at {label} in {path}")


def encoded(word):
    """The instruction whose encoding is `word`, as `assembly` spells it."""
    body = assembly([word])[0].splitlines()[1:]
    if len(body) != 1:
        sys.exit(f"model.py: .inst {word:#x} is not one instruction")
    return body[0]


def cycles(asm, cpu, repeat=None):
    if repeat is None:
        repeat = max(1, min(20, REPEAT_INSTRUCTIONS // asm.count("\n")))
    out = subprocess.run(
        ["llvm-mca-19", "-mtriple=aarch64", f"-mcpu={cpu}", f"-iterations={repeat}",
         "-mattr=+aes,+sha3", "-summary-view", "-resource-pressure=0", "-instruction-info=0"],
        input=asm, check=True, capture_output=True, text=True,
    ).stdout
    return int(re.search(r"Total Cycles:\s+(\d+)", out).group(1)) / repeat


def main():
    argv = sys.argv[1:]
    cpus = CPUS
    if argv[:1] == ["--cpus"]:
        cpus, argv = argv[1].split(","), argv[2:]
    if argv[:1] == ["--loop"]:
        path, label, blocks = argv[1], argv[2], int(argv[3])
        asm, count = loop(path, label, blocks)
        print(f"{label} ({count} instructions, {blocks} blocks an iteration)")
        for cpu in cpus:
            c = cycles(asm, cpu, LOOP_ITERATIONS)
            print(f"  {cpu:12} {c:10.1f} cycles  {c / blocks:.2f} a block")
        return
    if argv[:1] == ["--flow"]:
        if not same_flow(argv[1:]):
            sys.exit(f"{' '.join(argv[1:])}: the control flow depends on the secrets")
        print(f"{' '.join(argv[1:])}: the same blocks in the same order for secrets {SECRETS}")
        return
    count_only = argv[:1] == ["--count"]
    if count_only:
        argv = argv[1:]
    length = int(argv[2])
    words = executed(argv)
    per_byte = f", {len(words) / length:.2f} per byte" if length else ""
    print(f"{' '.join(argv)}: {len(words)} instructions{per_byte}")
    if count_only:
        return
    asm, _ = assembly(words)
    for cpu in cpus:
        c = cycles(asm, cpu)
        per_byte = f"{c / length:.2f} c/B" if length else ""
        print(f"  {cpu:12} {c:10.1f} cycles  {per_byte}")


if __name__ == "__main__":
    main()
