#!/usr/bin/env python3
"""Cuts one function's steady-state loop out of a disassembly, for llvm-mca.

Usage: loop.py DISASSEMBLY FUNCTION [--taken K,...] > loop.s

DISASSEMBLY is the output of `llvm-objdump -d -r --no-show-raw-insn
--demangle` over an object or rlib built with v0 symbol mangling (so
generic arguments appear in the names). FUNCTION is the demangled name of
the function, without the crate disambiguator, for example
`aekit::aether::neon::imp::crypt_tf::<true>`.

The loop is the widest backward branch in the function: every instruction
from its target to the branch, in address order. Each call in it (`bl`,
resolved through its relocation) is replaced by the called function's
instructions (all of them, prologue and epilogue included, without its
`ret`), once per call, so a loop that calls a helper per step is modelled
with the helper's work. The branch and every address operand become the
label `.Lloop`; llvm-mca reads the body as straight-line code (a forward
branch inside the loop is modelled as not taken: every instruction counts).
The output is bracketed by `# LLVM-MCA-BEGIN` / `# LLVM-MCA-END`.

`--taken K,...` models the loop's K-th forward branches (counted from 1
in address order, each listed in the output's header) as taken: the
instructions between one and its target are left out. So one path
through a loop with branches inside it is modelled, for example
`aes-pmull`'s batch loop for an AES-128 key and a public counter whose
low byte does not wrap (docs/ARM.md).
"""

import re
import sys

FUNC = re.compile(r"^[0-9a-f]+ <(.*)>:$")
SECTION = re.compile(r"^Disassembly of section (\S+):$")
INSN = re.compile(r"^\s*([0-9a-f]+):\s+(.*)$")
RELOC = re.compile(r"^\s*[0-9a-f]+:\s+(R_AARCH64_\w+)\s+(\S+)")
BRANCH = re.compile(r"^(b|b\.\w+|cbn?z|tbn?z)\s")
ADDR_OPERAND = re.compile(r"0x[0-9a-f]+ <.*>$")  # the last operand: names hold `<>`
DISAMBIGUATOR = re.compile(r"\[[0-9a-f]+\]")


def parse(path):
    """{name: [(addr, text, reloc)]} and {section: name}."""
    funcs, by_section = {}, {}
    section, current = None, None
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            m = SECTION.match(line)
            if m:
                section = m.group(1)
                continue
            m = FUNC.match(line)
            if m:
                current = DISAMBIGUATOR.sub("", m.group(1))
                funcs.setdefault(current, [])
                by_section.setdefault(section, current)
                continue
            if current is None:
                continue
            m = RELOC.match(line)
            if m and funcs[current]:
                addr, text, _ = funcs[current][-1]
                funcs[current][-1] = (addr, text, m.group(2))
                continue
            m = INSN.match(line)
            if m:
                funcs[current].append((int(m.group(1), 16), m.group(2).strip(), None))
    return funcs, by_section


def find(funcs, name):
    hits = [n for n in funcs if n == name or n.startswith(name + " ")]
    if len(hits) != 1:
        sys.exit(f"loop.py: {len(hits)} functions named {name!r}: {hits[:5]}")
    return funcs[hits[0]]


def callee(funcs, by_section, reloc):
    if reloc in by_section:
        return funcs[by_section[reloc]]
    sys.exit(f"loop.py: call to {reloc}, not in this disassembly")


def body(funcs, by_section, insns):
    """The instructions as assembly text, calls spliced in."""
    out = []
    for _, text, reloc in insns:
        mnemonic = text.split()[0]
        if mnemonic == "bl":
            inner = [i for i in callee(funcs, by_section, reloc) if i[1] != "ret"]
            out.append(f"# call {reloc}")
            out.extend(body(funcs, by_section, inner))
            out.append("# end of call")
            continue
        out.append(ADDR_OPERAND.sub(".Lloop", text.split("//")[0].strip()))
    return out


def forward_target(addr, text):
    """The target of a forward branch at `addr`, or None."""
    if not BRANCH.match(text):
        return None
    m = re.search(r"0x([0-9a-f]+) <", text)
    if m and int(m.group(1), 16) > addr:
        return int(m.group(1), 16)
    return None


def one_path(insns, taken):
    """`insns` less what the forward branches numbered in `taken` jump
    over; the header lines naming every forward branch."""
    kept, header, number, skip_to = [], [], 0, None
    for insn in insns:
        addr, text, _ = insn
        if skip_to is not None and addr < skip_to:
            continue
        skip_to = None
        kept.append(insn)
        target = forward_target(addr, text)
        if target is None:
            continue
        number += 1
        mark = "taken" if number in taken else "not taken"
        header.append(f"# forward branch {number} at {addr:#x}: {text.split()[0]} to {target:#x}, {mark}")
        if number in taken:
            skip_to = target
    unknown = taken - set(range(1, number + 1))
    if unknown:
        sys.exit(f"loop.py: no forward branch numbered {sorted(unknown)}")
    return kept, header


def main():
    args = sys.argv[1:]
    taken = set()
    if "--taken" in args:
        at = args.index("--taken")
        taken = {int(k) for k in args[at + 1].split(",")}
        del args[at : at + 2]
    path, name = args
    funcs, by_section = parse(path)
    insns = find(funcs, name)
    loops = []
    for i, (addr, text, _) in enumerate(insns):
        if BRANCH.match(text):
            m = re.search(r"0x([0-9a-f]+) <", text)
            if m and int(m.group(1), 16) <= addr:
                start = int(m.group(1), 16)
                loops.append((addr - start, start, i))
    if not loops:
        sys.exit(f"loop.py: no loop in {name}")
    _, start, end = max(loops)
    first = next(i for i, x in enumerate(insns) if x[0] == start)
    window, header = one_path(insns[first : end + 1], taken)
    lines = body(funcs, by_section, window)
    print(f"# {name}: the loop at {start:#x}, {len(lines)} lines")
    for line in header:
        print(line)
    print("# LLVM-MCA-BEGIN loop")
    print(".Lloop:")
    for line in lines:
        print(line if line.startswith("#") else "\t" + line)
    print("# LLVM-MCA-END loop")


if __name__ == "__main__":
    main()
