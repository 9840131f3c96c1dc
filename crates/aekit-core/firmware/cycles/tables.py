#!/usr/bin/env python3
"""The seed's three cycle tables, aekit-core's modelled counts beside its.

Reads `run.sh`'s output (one line a region: `N instructions, C cycles
LABEL`) on stdin and prints, in Markdown and in the seed's layout, cycles
per message at 1, 4, 20 and 40 KiB (the seed's KB read as KiB):

1. GCTR, counter mode alone: plain ("Basic"), FACE rd1, rd1+, rd2+,
   AES-128 and AES-256;
2. GHASH alone: Karatsuba and the 4-bit table (`shoup4`);
3. the whole AES-GCM seal: (table, Karatsuba) x (Basic, rd1, rd1+, rd2+).

Each cell is `aekit-core / seed`. Under each FACE row (and under the
table row of GHASH) a gain row gives the relative saving against the
first row of its group, (first - row) / first, as the seed computes it,
again `aekit-core / seed`; a `*` marks a gain more than 3 points from the
seed's. A line under each table counts the cells where aekit-core's count
is at or below the seed's.

Usage: sh run.sh | python3 tables.py     (or: python3 tables.py < saved)
"""

import re
import sys

SIZES = [1024, 4096, 20480, 40960]
KEYS = [128, 256]
MODES = [("plain", "Basic"), ("rd1", "FACE rd1"), ("rd1+", "FACE rd1+"), ("rd2+", "FACE rd2+")]
STRATEGIES = [("shoup4", "Table-based (`shoup4`)"), ("karatsuba", "Karatsuba")]
TARGET_POINTS = 3.0

# The seed's figures, cycles per message measured with the DWT counter on
# an STM32F407 (Cortex-M4 at 168 MHz, mean of 100 runs): the seed text
# `aes-gcm-cortex-m4-fixslicing-face`, section "성능 평가" (performance
# evaluation), its tables "GCTR 비교", "GHASH 비교" and "전체 GCM 비교".
# Each list: 1, 4, 20, 40 KB; in the GCTR and GCM tables each size holds
# AES-128 then AES-256.
SEED_GCTR = {
    "plain": [117456, 158453, 469488, 633461, 2345712, 3166837, 4691312, 6333557],
    "rd1": [118666, 164420, 431971, 599738, 2102571, 2920616, 4190821, 5821796],
    "rd1+": [118259, 164366, 411574, 580511, 1980866, 2799003, 3941041, 5572118],
    "rd2+": [119107, 164763, 400915, 568391, 1903287, 2718579, 3781252, 5406764],
}
SEED_GHASH = {
    "karatsuba": [158749, 611293, 3024861, 6041821],
    "shoup4": [79402, 302390, 1491670, 2978281],
}
SEED_GCM = {
    ("shoup4", "plain"): [206377, 250657, 780148, 946962, 3929031, 4659716, 7664348, 9301295],
    ("shoup4", "rd1"): [207123, 257089, 740507, 915445, 3592621, 4425658, 7156129, 8813752],
    ("shoup4", "rd1+"): [206894, 256506, 721076, 893638, 3470230, 4291684, 6904704, 8539152],
    ("shoup4", "rd2+"): [207315, 256511, 708758, 880339, 3382451, 4206896, 6724602, 8365109],
    ("karatsuba", "plain"): [286425, 330735, 1091001, 1257903, 5381427, 6201513, 10744627, 12381353],
    ("karatsuba", "rd1"): [287956, 337339, 1054620, 1226429, 5143006, 5967503, 10253496, 11893853],
    ("karatsuba", "rd1+"): [287320, 336580, 1033309, 1204553, 5011815, 5833415, 9984955, 11619500],
    ("karatsuba", "rd2+"): [288077, 337182, 1022429, 1193035, 4938363, 5756741, 9833288, 11461381],
}

LINE = re.compile(r"^\s*(\d+) instructions, (\d+) cycles (.+?)\s*$")


def read(stream):
    """Label -> modelled cycles."""
    cycles = {}
    for line in stream:
        m = LINE.match(line)
        if m:
            cycles[m.group(3)] = int(m.group(2))
    return cycles


def need(cycles, label):
    if label not in cycles:
        sys.exit(f"tables.py: no region labelled {label!r} in the input")
    return cycles[label]


def columns():
    """(size, key) in the seed's column order."""
    return [(size, key) for size in SIZES for key in KEYS]


def gain(first, row):
    return 100.0 * (first - row) / first


def gain_cell(ours, seed):
    mark = " *" if abs(ours - seed) > TARGET_POINTS else ""
    return f"{ours:+.2f} % / {seed:+.2f} %{mark}"


def cell(ours, seed):
    return f"{ours:,} / {seed:,}"


class Tally:
    """Cells at or below the seed's count, and gains within the target."""

    def __init__(self):
        self.below = self.cells = self.close = self.gains = 0

    def count(self, ours, seed):
        self.cells += 1
        self.below += ours <= seed

    def count_gain(self, ours, seed):
        self.gains += 1
        self.close += abs(ours - seed) <= TARGET_POINTS

    def line(self):
        text = f"aekit-core at or below the seed in {self.below} of {self.cells} cells"
        if self.gains:
            text += (f"; gains within {TARGET_POINTS:g} points of the seed's in "
                     f"{self.close} of {self.gains}")
        return text + "."


def keyed_rows(ours_of, seed_of, tally, lead=None):
    """The Basic/FACE rows of one keyed group, each with its gain row."""
    rows = []
    first_ours = [ours_of("plain", size, key) for size, key in columns()]
    first_seed = seed_of("plain")
    for mode, name in MODES:
        ours = [ours_of(mode, size, key) for size, key in columns()]
        seed = seed_of(mode)
        for o, s in zip(ours, seed):
            tally.count(o, s)
        head = [lead if lead and mode == "plain" else "", name] if lead is not None else [name]
        rows.append(head + [cell(o, s) for o, s in zip(ours, seed)])
        if mode != "plain":
            gains = []
            for o, s, fo, fs in zip(ours, seed, first_ours, first_seed):
                go, gs = gain(fo, o), gain(fs, s)
                tally.count_gain(go, gs)
                gains.append(gain_cell(go, gs))
            head = ["", "gain"] if lead is not None else ["gain"]
            rows.append(head + gains)
    return rows


def table(header, rows):
    out = ["| " + " | ".join(header) + " |",
           "|" + "|".join("---" if i < len(header) - 8 else "---:"
                          for i in range(len(header))) + "|"]
    out += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(out)


def keyed_header(lead):
    return lead + [f"{size // 1024} KiB, AES-{key}" for size, key in columns()]


def main():
    cycles = read(sys.stdin)
    out = []

    tally = Tally()
    rows = keyed_rows(
        lambda mode, size, key: need(cycles, f"AES-{key}-CTR fixslice+{mode} {size} B"),
        lambda mode: SEED_GCTR[mode], tally)
    out += ["GCTR (counter mode alone), cycles per message, aekit-core / seed:", "",
            table(keyed_header(["FACE variant"]), rows), "", tally.line(), ""]

    tally = Tally()
    ours = {s: [need(cycles, f"GHASH {s} {size} B") for size in SIZES] for s in ("karatsuba", "shoup4")}
    for s in ours:
        for o, seed in zip(ours[s], SEED_GHASH[s]):
            tally.count(o, seed)
    gains = []
    for ok, ot, sk, st in zip(ours["karatsuba"], ours["shoup4"],
                              SEED_GHASH["karatsuba"], SEED_GHASH["shoup4"]):
        go, gs = gain(ok, ot), gain(sk, st)
        tally.count_gain(go, gs)
        gains.append(gain_cell(go, gs))
    rows = [["Karatsuba"] + [cell(o, s) for o, s in zip(ours["karatsuba"], SEED_GHASH["karatsuba"])],
            ["Table-based (`shoup4`)"] + [cell(o, s) for o, s in zip(ours["shoup4"], SEED_GHASH["shoup4"])],
            ["gain"] + gains]
    header = ["GHASH"] + [f"{size // 1024} KiB" for size in SIZES]
    out += ["GHASH alone, cycles per message, aekit-core / seed:", "",
            "| " + " | ".join(header) + " |", "|---|---:|---:|---:|---:|"]
    out += ["| " + " | ".join(row) + " |" for row in rows]
    out += ["", tally.line(), ""]

    tally = Tally()
    rows = []
    for strategy, name in STRATEGIES:
        rows += keyed_rows(
            lambda mode, size, key, strategy=strategy:
                need(cycles, f"AES-{key}-GCM fixslice+{strategy}+{mode} seal {size} B"),
            lambda mode, strategy=strategy: SEED_GCM[(strategy, mode)], tally, lead=name)
    out += ["AES-GCM seal, cycles per message, aekit-core / seed:", "",
            table(keyed_header(["GHASH", "FACE variant"]), rows), "", tally.line()]

    print("\n".join(out))


if __name__ == "__main__":
    main()
