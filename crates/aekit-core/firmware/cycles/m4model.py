#!/usr/bin/env python3
"""A Cortex-M4 cycle model over an executed instruction stream.

Input: an ELF and QEMU's per-instruction execution trace of it
(`qemu-system-arm -singlestep -d exec,nochain -D trace.txt`: one line per
executed instruction, its PC in the second bracketed field). Regions are
delimited by calls to two marker functions (`mark_begin`, `mark_end`, or
for Rust firmware the symbols given): every instruction executed between
the entry of `mark_begin` and the entry of `mark_end` that follows it is
costed, excluding the markers' own bodies.

Model (ARM Cortex-M4 Technical Reference Manual r0p1, §3.3 "Instruction
set summary", Table 3-1, and "Load/store timings"):

  data processing, shifts, bit field, RBIT/REV, MUL, UMULL/SMULL/UMLAL   1
  MLA, MLS                                                                 2
  UDIV, SDIV                                                               UDIV_CYCLES
  LDR/LDRB/LDRH/LDRSB/LDRSH (single)                                       2, or 1 when it
      directly follows a single load (pipelined address and data phases)
      and its address does not use that load's destination
  STR/STRB/STRH (single)                                                   1 after a single
      load ("STR can only be pipelined when it follows an LDR"), else
      STORE_CYCLES ("nothing can be pipelined after the store"; the write
      buffer usually hides the second cycle)
  LDRD, STRD                                                               3 (1 + N, N = 2)
  LDM, STM, PUSH, POP                                                      1 + N
  branch taken (B, BL, BX, BLX, CBZ/CBNZ, conditional), and LDM/POP/LDR/
      MOV/ADD that write PC                                                + P (refill)
  conditional branch not taken                                             1
  IT                                                                       0 after a 16-bit
      instruction (folded), else 1

with P = REFILL cycles. Memory is taken to have no wait states (SRAM, or
flash behind an accelerator that hits), which is what the published
Cortex-M4 cycle counts used for validation measure. `taken` is read off
the trace: the next PC is not the fall-through address.

Usage: m4model.py ELF TRACE|- [--begin SYM --end SYM] [--store N] [--refill N]
Prints one line per region: its index, instructions, modelled cycles.
"""

import argparse
import bisect
import re
import subprocess
import sys

LINE = re.compile(r"^\s*([0-9a-f]+):\s+((?:[0-9a-f]{4}\s)+)\s*(\S+)\s*(.*)$")

BRANCHES = {"b", "bl", "bx", "blx", "cbz", "cbnz", "tbb", "tbh"}
LOADS = {"ldr", "ldrb", "ldrh", "ldrsb", "ldrsh", "ldrex"}
STORES = {"str", "strb", "strh", "strex"}
CONDS = {"eq", "ne", "cs", "hs", "cc", "lo", "mi", "pl", "vs", "vc", "hi", "ls",
         "ge", "lt", "gt", "le"}


def disassemble(elf):
    """PC -> (mnemonic without width suffix, operands, size in bytes)."""
    out = subprocess.run(["llvm-objdump-19", "-d", "--no-print-imm-hex", elf],
                         check=True, capture_output=True, text=True).stdout
    insns = {}
    for line in out.splitlines():
        m = LINE.match(line)
        if not m:
            continue
        pc = int(m.group(1), 16)
        size = 2 * len(m.group(2).split())
        mnem = m.group(3).lower().split(".")[0]
        insns[pc] = (mnem, m.group(4).split("@")[0].strip(), size)
    return insns


def symbols(elf):
    out = subprocess.run(["llvm-nm-19", elf], check=True, capture_output=True,
                         text=True).stdout
    table = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3:
            table.setdefault(parts[2], int(parts[0], 16) & ~1)
    return table


def base_mnemonic(mnem):
    """Strips the S flag and a condition code: 'eors' -> 'eor', 'bne' -> 'b'."""
    if mnem in BRANCHES or mnem in LOADS or mnem in STORES:
        return mnem, False
    for c in CONDS:
        if mnem.endswith(c) and mnem[:-2] in BRANCHES | {"b"}:
            return mnem[:-2], True
    return mnem, False


def registers(text):
    return re.findall(r"\b(r\d+|sp|lr|pc|ip|fp|sl|sb)\b", text)


def writes_pc(mnem, ops):
    regs = registers(ops)
    if mnem in ("pop", "ldm", "ldmia", "ldmfd") and "pc" in regs:
        return True
    if regs and regs[0] == "pc" and mnem not in STORES | {"push", "stm", "stmdb", "cmp", "tst"}:
        return True
    return False


class Model:
    def __init__(self, store, refill, udiv):
        self.store, self.refill, self.udiv = store, refill, udiv

    def cost(self, insn, prev, next_pc, pc):
        mnem, ops, size = insn
        base, conditional = base_mnemonic(mnem)
        taken = next_pc is not None and next_pc != pc + size
        prev_base = prev[0] if prev else None
        if re.fullmatch(r"it[te]{0,3}", base):
            return 0 if prev and prev[2] == 2 else 1
        if base in BRANCHES:
            return 1 + self.refill if taken else 1
        if base in ("pop", "ldm", "ldmia", "ldmfd", "push", "stm", "stmia", "stmdb", "stmea"):
            n = len(registers(ops.split("{", 1)[1] if "{" in ops else ops))
            if "-" in ops:  # a range such as {r4-r11}
                lo, hi = re.search(r"r(\d+)\s*-\s*r(\d+)", ops).groups()
                n += int(hi) - int(lo) - 1
            return 1 + n + (self.refill if writes_pc(base, ops) else 0)
        if base in ("ldrd", "strd"):
            return 3
        if base in LOADS:
            c = 2
            if prev_base in LOADS:
                dest = registers(prev[1])[:1]
                addr = registers(ops)[1:]
                if not (dest and dest[0] in addr):
                    c = 1
            return c + (self.refill if writes_pc(base, ops) else 0)
        if base in STORES:
            return 1 if prev_base in LOADS else self.store
        if base in ("mla", "mls"):
            return 2
        if base in ("udiv", "sdiv"):
            return self.udiv
        return 1 + (self.refill if writes_pc(base, ops) else 0)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("elf")
    ap.add_argument("trace")
    ap.add_argument("--begin", default="mark_begin")
    ap.add_argument("--end", default="mark_end")
    ap.add_argument("--store", type=int, default=1, help="cycles of a store not after a load")
    ap.add_argument("--refill", type=int, default=2, help="pipeline refill P of a taken branch")
    ap.add_argument("--udiv", type=int, default=7)
    args = ap.parse_args()

    insns = disassemble(args.elf)
    syms = symbols(args.elf)
    begin = next(v for k, v in syms.items() if args.begin in k)
    end = next(v for k, v in syms.items() if args.end in k)
    model = Model(args.store, args.refill, args.udiv)
    marker_ranges = []
    addrs = sorted(insns)
    for start in (begin, end):
        # The marker's body: from its entry to its first return.
        i = bisect.bisect_left(addrs, start)
        while i < len(addrs) and insns[addrs[i]][0] not in ("bx", "pop"):
            i += 1
        marker_ranges.append((start, addrs[min(i, len(addrs) - 1)]))

    def in_marker(pc):
        return any(a <= pc <= b for a, b in marker_ranges)

    # Streamed: one instruction of look-ahead tells whether a branch was
    # taken.
    k = 0
    inside = False
    cycles = count = 0
    pending = None  # the previous PC inside a region, not yet costed
    with (sys.stdin if args.trace == "-" else open(args.trace)) as f:
        memo = {}
        prev_pc = None
        for line in f:
            # "Trace 0: 0x… [flags/PC/…": the PC is the second field.
            at = line.find("[")
            if at < 0:
                continue
            pc = int(line[at + 10:at + 18], 16)
            if pending is not None:
                key = (prev_pc, pending, pc)
                c = memo.get(key)
                if c is None:
                    insn = insns.get(pending)
                    if insn is None:
                        print(f"warning: no disassembly at {pending:#x}", file=sys.stderr)
                        c = 0
                    else:
                        p = insns.get(prev_pc)
                        prev = (base_mnemonic(p[0])[0], p[1], p[2]) if p else None
                        c = model.cost(insn, prev, pc, pending)
                    memo[key] = c
                cycles += c
                count += 1
                prev_pc = pending
                pending = None
            if pc == begin:
                inside, cycles, count, prev_pc = True, 0, 0, None
            elif pc == end and inside:
                print(f"region {k}: {count} instructions, {cycles} cycles", flush=True)
                k += 1
                inside = False
            elif inside:
                if in_marker(pc):
                    prev_pc = None
                else:
                    pending = pc


if __name__ == "__main__":
    main()
