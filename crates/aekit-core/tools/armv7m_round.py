#!/usr/bin/env python3
"""Writes the ARMv7-M assembly of the fixsliced AES rounds of aekit-core.

A round is `s <- MC_j(S(s ^ key) ^ 0x63)` on two blocks held in eight
32-bit slices (`src/aes/fixslice.rs` specifies the representation and
the formulas). This script takes the S-box circuit from
`ark_sub_circuit!` in `src/aes/sbox.rs`, which the portable rounds run
(every `let v = a ^ b;` / `let v = a & b;` line, in order), and the
MixColumns variants from `src/aes/fixslice.rs`'s `mix_columns` written
out below as straight-line operations, and turns them into Thumb-2 code
for the fourteen registers r0-r12, lr:

- schedule: a list schedule of the S-box that picks, among the ready
  gates, the one that grows the set of live values least (ties broken
  by a seeded random draw; the best of SEEDS draws by the cycle count
  below is kept), then CLIMB_STEPS seeded moves of one gate within the
  span its operands and users allow, each kept if the cost does not
  grow; the output is reproducible;
- registers: linear in the schedule, evicting the value whose next use
  is furthest (Belady), storing it to a stack slot once; constants are
  rematerialised rather than spilled;
- cost: the Cortex-M4 cycle table of `firmware/cycles/m4model.py`
  (a load 2 cycles, 1 after a load; a store 1; everything else 1).

The state's slices stay in r4-r11 (slice b in r(4+b)) from one round to
the next: loaded with `ldm` on entry, stored with `stm` on exit. After
the S-box the code branches on j (0-3: MC_j; 4: no MixColumns) with one
`tbh`; each MixColumns variant is allocated from the S-box's final
register state and moves its output slices into r4-r11 (an output is
computed there when the register is free). A call whose count
carries 65536 (the first round starts at its MixColumns: the state has
been through that round's S-box) loads the slices where the S-box
leaves its outputs and enters the variants by a `tbh` of its own. A
loop around the round takes the next round key and j until the rounds
run out; its pointers
and count live in the stack frame's first four words. Then the finish
(the fifth argument, on the caller's stack): 0 nothing, 1 the next round
key XORed into r4-r11, 2 that and SR^2 (rows 1 and 3 swap the nibbles
of their lanes), before the state is stored.

Usage: armv7m_round.py [FILE]  rewrites the lines between the
`BEGIN GENERATED` and `END GENERATED` markers of FILE (default
src/aes/fixslice/armv7m.rs) and runs rustfmt on it; prints the cost to
stderr.
"""

import copy
import os
import random
import re
import subprocess
import sys

SEEDS = 400
CLIMB_STEPS = 6000
FIXED_SLOTS = 4
SLOT_S, SLOT_K, SLOT_JP, SLOT_N = 0, 4, 8, 12
HERE = os.path.dirname(os.path.abspath(__file__))
REFERENCE = os.path.join(HERE, "..", "src", "aes", "sbox.rs")
TARGET = os.path.join(HERE, "..", "src", "aes", "fixslice", "armv7m.rs")
REGS = ["r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7",
        "r8", "r9", "r10", "r11", "r12", "lr"]
LOW = {"r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7"}
# Slice b of the state lives in STATE[b] from one round to the next.
STATE = ["r%d" % (4 + b) for b in range(8)]


def sbox_gates():
    """The circuit's gates after its input XORs: (dest, op, a, b)."""
    src = open(REFERENCE).read()
    body = src[src.index("macro_rules! ark_sub_circuit"):]
    body = body[:body.index("*$s = [")]
    gates = []
    for m in re.finditer(r"let (\w+) = (\w+) ([\^&]) (\w+);", body):
        d, a, o, b = m.groups()
        if not d.startswith("x"):
            gates.append((d, "eor" if o == "^" else "and", a, b))
    return gates


# Instructions before allocation:
#   ("ld", dest, [ptr], offset)      dest = [ptr + offset]
#   ("op", dest, [a, b], (opc, rot)) dest = a opc (b ror rot)
#   ("const", dest, [], imm)         dest = imm
#   ("place", None, [v], reg)        v into reg, kept there to the end
#   ("use", None, [v], None)         v into a register
# The key pointer is value "kp", j is "j", slice w of the state on entry
# "Sx<7-w>"; the S-box's output s<i> is slice 7 - i.


def sbox_program(rng, temp):
    units, deps = {}, {}
    for i in range(8):
        w = 7 - i
        units["x%d" % i] = [("ld", "Kx%d" % i, ["kp"], 4 * w),
                            ("op", "x%d" % i, ["Sx%d" % i, "Kx%d" % i], ("eor", 0))]
        deps["x%d" % i] = []
    gates = sbox_gates()
    for d, o, a, b in gates:
        units[d] = [("op", d, [a, b], (o, 0))]
        deps[d] = [a, b]
    rank = {n: i for i, n in enumerate(units)}
    users = {}
    for n in units:
        for v in deps[n]:
            users.setdefault(v, set()).add(n)
    remaining = {v: set(u) for v, u in users.items()}
    done, order, lastdef = set(), [], {}
    while len(order) < len(units):
        best = None
        for n in units:
            if n in done or any(v not in done for v in deps[n]):
                continue
            dying = sum(1 for v in set(deps[n]) if remaining[v] == {n})
            recent = max([lastdef.get(v, -1) for v in deps[n]] or [-1])
            key = (1 - dying + rng.random() * temp, -recent, rank[n])
            if best is None or key < best[0]:
                best = (key, n)
        n = best[1]
        done.add(n)
        order.append(n)
        for v in set(deps[n]):
            remaining[v].discard(n)
        lastdef[n] = len(order)
    return order, units, deps


def expand(order, units):
    return [ins for n in order for ins in units[n]]


def mix_program(j):
    """MC_j on slices a0..a7 (a<b> = S-box output s<7-b>), stored to s."""
    prog = []
    a = ["s%d" % (7 - b) for b in range(8)]
    consts = {}

    def const(imm):
        name = "c%08x" % imm
        if name not in consts:
            consts[name] = imm
        return name

    def gather(x, rows, cols, tag):
        """(value or None, rotation): the gathered slice is value ^ (x ror rot)."""
        shift = (8 * rows + 2 * cols) % 32
        if cols == 0:
            return None, shift
        no_wrap = ((1 << (8 - 2 * cols)) - 1) * 0x01010101
        w, fix = "w" + tag, "f" + tag
        prog.append(("op", w, [x, x], ("eor", 24)))
        c = const(~no_wrap & 0xffffffff)
        prog.append(("const", c, [], consts[c]))
        prog.append(("op", fix, [c, w], ("and", shift)))
        return fix, shift

    nxt, t = [], []
    for b in range(8):
        fix, rot = gather(a[b], 1, j, "n%d" % b)
        if fix is None:
            prog.append(("op", "t%d" % b, [a[b], a[b]], ("eor", rot)))
            nxt.append((None, a[b], rot))
        else:
            prog.append(("op", "n%d" % b, [fix, a[b]], ("eor", rot)))
            prog.append(("op", "t%d" % b, [a[b], "n%d" % b], ("eor", 0)))
            nxt.append(("n%d" % b, None, 0))
        t.append("t%d" % b)
    doubled = [[t[7]], [t[0], t[7]], [t[1]], [t[2], t[7]], [t[3], t[7]],
               [t[4]], [t[5]], [t[6]]]
    for b in range(8):
        terms = [(v, 0) for v in doubled[b]]
        n, x, rot = nxt[b]
        terms.append((n, 0) if n else (x, rot))
        fix, rot2 = gather(t[b], 2, (2 * j) % 4, "g%d" % b)
        terms.append((t[b], rot2))
        if fix:
            terms.append((fix, 0))
        # Unrotated terms first, so that the first XOR needs no rotation.
        terms.sort(key=lambda p: p[1] != 0)
        acc = terms[0][0]
        for k, (v, r) in enumerate(terms[1:]):
            d = "o%d" % b if k == len(terms) - 2 else "o%d_%d" % (b, k)
            prog.append(("op", d, [acc, v], ("eor", r)))
            acc = d
        prog.append(("place", None, [acc], STATE[b]))
    return prog


def store_program():
    return [("place", None, ["s%d" % (7 - b)], STATE[b]) for b in range(8)]


class Alloc:
    def __init__(self):
        self.reg_of = {"kp": "r1", "j": "r2"}
        for i in range(8):
            self.reg_of["Sx%d" % i] = STATE[7 - i]
        self.val_in = {r: v for v, r in self.reg_of.items()}
        # Registers already holding their output slice (a round's end).
        self.pinned = set()
        # Fixed slots: the state pointer and the key pointer (clean from
        # the start), the j pointer and the rounds left (the loop's own).
        self.slot = {"kp": 1}
        self.nslots = FIXED_SLOTS
        self.consts = {}
        self.out = []

    def run(self, prog, tail_uses):
        """Allocates prog; tail_uses: values used after it, in order."""
        pins = {ins[2][0]: ins[3] for ins in prog if ins[0] == "place"}
        uses = {}
        for idx, ins in enumerate(prog):
            for v in ins[2]:
                uses.setdefault(v, []).append(idx)
        for k, v in enumerate(tail_uses):
            uses.setdefault(v, []).append(len(prog) + k)

        def next_use(v, idx):
            for u in uses.get(v, []):
                if u >= idx:
                    return u
            return None

        def free_reg(idx, avoid, order=REGS):
            avoid = avoid | self.pinned
            for r in order:
                if r not in self.val_in and r not in avoid:
                    return r
            for r in REGS:
                if r not in avoid and next_use(self.val_in[r], idx) is None:
                    v = self.val_in.pop(r)
                    del self.reg_of[v]
                    return r
            best = None
            for r in REGS:
                if r in avoid:
                    continue
                v = self.val_in[r]
                cheap = v in self.slot or v in self.consts
                key = (next_use(v, idx), cheap)
                if best is None or key > best[0]:
                    best = (key, r)
            r = best[1]
            v = self.val_in.pop(r)
            del self.reg_of[v]
            if v not in self.slot and v not in self.consts:
                self.slot[v] = self.nslots
                self.nslots += 1
                self.out.append(("str", r, "sp", 4 * self.slot[v], "spill " + v))
            return r

        def ensure(v, idx, avoid):
            if v in self.reg_of:
                return self.reg_of[v]
            r = free_reg(idx, avoid)
            if v in self.consts:
                self.out.append(("mov", r, "#%#010x" % self.consts[v], None, v))
            else:
                self.out.append(("ldr", r, "sp", 4 * self.slot[v], "reload " + v))
            self.reg_of[v] = r
            self.val_in[r] = v
            return r

        for idx, ins in enumerate(prog):
            kind, d, srcs, extra = ins
            if kind == "const":
                self.consts[d] = extra
                continue
            avoid, rs = set(), []
            for v in srcs:
                r = ensure(v, idx, avoid)
                avoid.add(r)
                rs.append(r)
            if kind == "use":
                continue
            if kind == "place":
                v, r, target = srcs[0], rs[0], extra
                if r != target:
                    occupant = self.val_in.get(target)
                    if occupant is not None:
                        self.val_in.pop(target)
                        del self.reg_of[occupant]
                        if next_use(occupant, idx + 1) is not None:
                            # Out of the way of the slices still to come.
                            nr = free_reg(idx + 1, {target, r},
                                          [x for x in REGS if x not in STATE] + STATE)
                            self.out.append(("mov", nr, target, None, "move " + occupant))
                            self.reg_of[occupant] = nr
                            self.val_in[nr] = occupant
                    self.out.append(("mov", target, r, None, "%s in place" % v))
                    self.val_in.pop(r)
                    self.reg_of[v] = target
                    self.val_in[target] = v
                self.pinned.add(target)
                continue
            dr = None
            for v, r in zip(srcs, rs):
                if v in self.reg_of and next_use(v, idx + 1) is None:
                    if dr is None:
                        dr = r
                    self.val_in.pop(r)
                    del self.reg_of[v]
            want = pins.get(d)
            if want is not None and want not in self.val_in:
                dr = want
            if dr is None:
                dr = free_reg(idx + 1, avoid)
            if kind == "ld":
                what = "%s = key[%d]" % (d, extra // 4)
                self.out.append(("ldr", dr, rs[0], extra, what))
            else:
                opc, rot = extra
                sym = "^" if opc == "eor" else "&"
                b = srcs[1] if not rot else "(%s >>> %d)" % (srcs[1], rot)
                what = "%s = %s %s %s" % (d, srcs[0], sym, b)
                self.out.append((opc, dr, rs[0], (rs[1], rot), what))
            self.reg_of[d] = dr
            self.val_in[dr] = d


def cost(out):
    cyc, prev = 0, None
    for o in out:
        if o[0] == "ldr":
            cyc += 1 if prev and prev[0] == "ldr" and prev[1] != o[2] else 2
        elif o[0] in ("label", "raw"):
            cyc += o[3] or 0
        else:
            cyc += 1
        prev = o
    return cyc


def render(o):
    kind = o[0]
    if kind == "label":
        return None, o[1]
    if kind == "raw":
        return o[1], o[2]
    if kind in ("ldr", "str"):
        return "%s %s, [%s, #%d]" % (kind, o[1], o[2], o[3]), o[4]
    if kind == "mov":
        return "mov %s, %s" % (o[1], o[2]), o[4]
    rd, rn, (rm, rot) = o[1], o[2], o[3]
    if rot:
        return "%s %s, %s, %s, ror #%d" % (kind, rd, rn, rm, rot), o[4]
    if rd in LOW and rn in LOW and rm in LOW and rd in (rn, rm):
        # The 16-bit, flag-setting two-operand form.
        return "%ss %s, %s" % (kind, rd, rm if rd == rn else rn), o[4]
    return "%s %s, %s, %s" % (kind, rd, rn, rm), o[4]


def mix_entry(head):
    """Moves a call's state (r0, its address) and j (r2) to where the
    S-box leaves its outputs and j: the allocation state `head` the
    MixColumns tails start from."""
    out = [("raw", "sub r3, r3, #65536", "less the flag", 1),
           ("raw", "str r3, [sp, #%d]" % SLOT_N, "the number of rounds", 1)]
    rj = head.reg_of["j"]
    if rj != "r2":
        out.append(("mov", rj, "r2", None, "j"))
    live = {v: r for v, r in head.reg_of.items() if v.startswith("s")}
    for i in range(8):
        v = "s%d" % i
        if v not in live:
            # Only in its spill slot: through a register the S-box's end
            # leaves free.
            tmp = next(r for r in REGS if r not in head.val_in and r not in ("r0", rj))
            out.append(("ldr", tmp, "r0", 4 * (7 - i), "slice %d: %s" % (7 - i, v)))
            out.append(("str", tmp, "sp", 4 * head.slot[v], "spill " + v))
    # The state's address last if r0 is a target.
    order = sorted(live, key=lambda v: (live[v] == "r0", 7 - int(v[1:])))
    for v in order:
        i = int(v[1:])
        out.append(("ldr", live[v], "r0", 4 * (7 - i), "slice %d: %s" % (7 - i, v)))
    for v, r in head.reg_of.items():
        if v in head.consts:
            out.append(("mov", r, "#%#010x" % head.consts[v], None, v))
    return out


def build():
    best = None
    mixes = {j: mix_program(j) for j in range(4)}
    tail = ["s%d" % (7 - b) for b in range(8)]
    def allocate(order, units):
        a = Alloc()
        a.run(expand(order, units) + [("use", None, ["j"], None)], tail)
        return cost(a.out), a

    for seed in range(SEEDS):
        rng = random.Random(seed)
        order, units, deps = sbox_program(
            rng, 0.0 if seed == 0 else rng.choice([0.5, 1.0, 1.5, 2.5]))
        c, a = allocate(order, units)
        if best is None or c < best[0]:
            best = (c, seed, a, order, units, deps)
    c, seed, head, order, units, deps = best
    # Then hill climbing: move one unit within the span its dependencies
    # allow; keep the move if the allocated cost does not grow.
    rng = random.Random(0)
    users = {}
    for n in units:
        for v in deps[n]:
            users.setdefault(v, []).append(n)
    cur = (c, order)
    for _ in range(CLIMB_STEPS):
        rest = list(cur[1])
        n = rest.pop(rng.randrange(len(rest)))
        at = {m: i for i, m in enumerate(rest)}
        lo = max([at[d] + 1 for d in deps[n]] or [0])
        hi = min([at[u] for u in users.get(n, [])] or [len(rest)])
        p = rng.randint(lo, hi)
        new = rest[:p] + [n] + rest[p:]
        nc, na = allocate(new, units)
        if nc <= cur[0]:
            cur = (nc, new)
            if nc < c:
                c, head = nc, na
    # Dispatch on j, then the five tails from the S-box's final state.
    rj = head.reg_of["j"]
    body = [("label", "1:", None, 0)] + list(head.out)
    body.append(("raw", "tbh [pc, %s, lsl #1]" % rj, "on j: MC_j, or 4: no MixColumns", 3))
    body.append(("label", "2:", None, 0))
    labels = {4: 10, 0: 11, 1: 12, 2: 13, 3: 14}
    for j in range(5):
        body.append(("raw", ".hword (%df - 2b) / 2" % labels[j], "j = %d" % j, 0))
    # The entry of a call whose first round starts at its MixColumns (the
    # state already through its S-box): the slices go where the S-box
    # leaves its outputs, j where the dispatch reads it, and a table of
    # its own sends it to the same tails.
    body.append(("label", "5:", None, 0))
    body += mix_entry(head)
    body.append(("raw", "tbh [pc, %s, lsl #1]" % rj, "on j: MC_j, or 4: nothing", 3))
    body.append(("label", "3:", None, 0))
    for j in range(5):
        body.append(("raw", ".hword (%df - 3b) / 2" % labels[j], "j = %d" % j, 0))
    nslots = head.nslots
    tail_cost = {}
    tails = [(4, store_program())] + [(j, mixes[j]) for j in (0, 2, 1, 3)]
    for k, (j, prog) in enumerate(tails):
        a = copy.deepcopy(head)
        a.out = []
        a.run(prog, [])
        nslots = max(nslots, a.nslots)
        body.append(("label", "%d:" % labels[j], None, 0))
        body += a.out
        tail_cost[j] = cost(a.out)
        if k != len(tails) - 1:
            body.append(("raw", "b 9f", "the loop", 3))
    # The next round, if any: its key, its j, the state pointer.
    body += [
        ("label", "9:", None, 0),
        ("raw", "ldr r3, [sp, #%d]" % SLOT_N, "rounds left", 2),
        ("raw", "ldr r1, [sp, #%d]" % SLOT_K, "this round's key", 1),
        ("raw", "subs r3, #1", "one fewer", 1),
        ("raw", "beq 8f", "none: return", 1),
        ("raw", "adds r1, #32", "the next round key", 1),
        ("raw", "str r3, [sp, #%d]" % SLOT_N, "rounds left", 1),
        ("raw", "str r1, [sp, #%d]" % SLOT_K, "this round's key", 1),
        ("raw", "ldr r3, [sp, #%d]" % SLOT_JP, "this round's j", 2),
        ("raw", "ldrb r2, [r3, #1]!", "the next j", 2),
        ("raw", "str r3, [sp, #%d]" % SLOT_JP, "this round's j", 1),
        ("raw", "b 1b", "the next round", 3),
        ("label", "8:", None, 0),
        ("raw", "ldr r2, [sp, #FINISH]", "the finish: 0, 1 or 2", 2),
        ("raw", "adds r1, #32", "the key after the rounds'", 1),
        ("raw", "subs r2, #1", "-1, 0 or 1; the flags kept to the SR² test", 1),
        ("raw", "bmi 7f", "was 0: nothing", 1),
        ("raw", "ldm r1!, {r0, r3, r12, lr}", "its slices 0-3", 5),
    ]
    for b, r in enumerate(["r0", "r3", "r12", "lr"]):
        body.append(("raw", "eor %s, %s, %s" % (STATE[b], STATE[b], r), "s%d ^= key[%d]" % (b, b), 1))
    body.append(("raw", "ldm r1, {r0, r3, r12, lr}", "its slices 4-7", 5))
    for b, r in enumerate(["r0", "r3", "r12", "lr"], 4):
        body.append(("raw", "eor %s, %s, %s" % (STATE[b], STATE[b], r), "s%d ^= key[%d]" % (b, b), 1))
    body += [
        ("raw", "beq 7f", "was 1: the key only", 1),
        ("raw", "mov r12, #0x0f000f00", "rows 1 and 3, low nibbles", 1),
    ]
    # SR^2 on each slice: rows 1 and 3 swap the two nibbles of their lanes.
    for b in range(8):
        x = STATE[b]
        body += [
            ("raw", "eor r0, %s, %s, lsr #4" % (x, x), "s%d ^ s%d >> 4" % (b, b), 1),
            ("raw", "and r0, r0, r12", "t: the nibbles that differ", 1),
            ("raw", "eors %s, r0" % x, "s%d ^= t" % b, 1),
            ("raw", "eor %s, %s, r0, lsl #4" % (x, x), "s%d ^= t << 4" % b, 1),
        ]
    body += [
        ("label", "7:", None, 0),
        ("raw", "ldr r0, [sp, #%d]" % SLOT_S, "the state", 2),
        ("raw", "stm r0, {r4-r11}", "its eight slices", 9),
    ]
    return c, seed, body, nslots, tail_cost


def main():
    target = sys.argv[1] if len(sys.argv) > 1 else TARGET
    c, seed, body, nslots, tail_cost = build()
    # The frame keeps sp 8-byte aligned after the nine saved registers.
    frame = 4 * nslots + (4 if nslots % 2 == 0 else 0)
    lines = ["\"push {{r4-r11, lr}}\",",
             "\"sub sp, #%d\"," % frame,
             ("\"str r0, [sp, #%d]\"," % SLOT_S) + "  // the state",
             ("\"str r1, [sp, #%d]\"," % SLOT_K) + "  // the first round's key",
             ("\"str r2, [sp, #%d]\"," % SLOT_JP) + "  // the rounds' j",
             ("\"ldrb r2, [r2]\",") + "  // the first round's j",
             "\"cmp r3, #65536\",  // the first round from its MixColumns?",
             "\"bhs 5f\",",
             ("\"str r3, [sp, #%d]\"," % SLOT_N) + "  // the number of rounds",
             ("\"ldm r0, {{r4-r11}}\",") + "  // the state's eight slices"]
    # The fifth argument, above the frame and the nine saved registers.
    finish = frame + 4 * 9
    for o in body:
        text, what = render(o)
        if text is not None:
            text = text.replace("#FINISH", "#%d" % finish)
        if text is None:
            lines.append("\"%s\"," % what)
            continue
        text = text.replace("{", "{{").replace("}", "}}")
        lines.append("\"%s\"," % text + ("  // " + what if what else ""))
    lines += ["\"add sp, #%d\"," % frame,
              "\"pop {{r4-r11, pc}}\","]
    print("S-box: seed %d, %d cycles; MixColumns tails: %s; %d spill slots"
          % (seed, c, tail_cost, nslots), file=sys.stderr)
    src = open(target).read()
    begin = src.index("// BEGIN GENERATED")
    begin = src.index("\n", begin) + 1
    end = src.index("// END GENERATED")
    indent = src[src.rindex("\n", 0, end) + 1:end]
    src = src[:begin] + "".join(indent + l + "\n" for l in lines) + indent + src[end:]
    open(target, "w").write(src)
    # rustfmt aligns the comments; the file is kept as it leaves it.
    subprocess.run(["rustfmt", "--edition", "2024", target], check=True)


if __name__ == "__main__":
    main()
