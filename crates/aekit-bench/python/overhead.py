"""What a call of aekit.AESGCM costs beyond CPython's own call, at 64 bytes.

    python crates/aekit-bench/python/overhead.py [--rounds N] [--calls N] [--c-ns NS]
    python crates/aekit-bench/python/overhead.py --only OP --calls N   # for callgrind

Times, interleaved in one process, `encrypt`, `encrypt_into`, `decrypt` and
`decrypt_into` of a 64-byte message with 16 bytes of associated data and a
12-byte nonce (AES-128), and C method calls of the same shape written into
CPython, which cost the interpreter's call and an 80-byte result and no
cryptography:

- `bytes.replace`, the baseline: `data.replace(old, new, 1)` on 80 bytes
  whose first byte is `old` (one byte), so it returns a new 80-byte
  `bytes`. Three positional arguments, two of them read through the buffer
  protocol (as Argument Clinic's `Py_buffer` converter reads them), a
  method called on an object: the shape of `encrypt(nonce, data, aad)`,
  whose three arguments are all buffers.
- `bytes.ljust`: `data.ljust(80, fill)`, two arguments (an int and a
  one-byte `bytes`), a new 80-byte `bytes`: cheaper than the baseline by
  one argument and one buffer.

Each line is timed in rounds of `--calls` calls (written out ten to a loop
iteration, so the loop's own cost is a tenth of an iteration's per call),
the rounds of every line interleaved, so a slow moment of the machine hits
all alike; the best round of each is kept. Prints ns per call, each
line's time over each C method's, and, given `--c-ns` (the C ABI's
`aekit_aes_gcm_encrypt` at 64 bytes in place, from `aekit-bench api`), the
ratio the binding is held to: its time over a C method's plus the C
call's. The ratios depend on what the loop around the call costs (the
less, the stricter): compare figures taken with this script only.

`--only OP` runs `--calls` calls of one line untimed, for counting
instructions: run it under `valgrind --tool=callgrind` with `--calls 0`
and with `--calls N`; the difference of the totals over N is the
instructions of one call, the interpreter's part included.
"""

from __future__ import annotations

import argparse
import os
import platform
import time

import aekit

MESSAGE = 64
AAD = 16
NONCE = 12
UNROLL = 10


def cpu_model() -> str:
    fields = {}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if not line.strip():
                    break
                key, _, value = line.partition(":")
                fields[key.strip()] = value.strip()
    except OSError:
        return platform.processor() or "unknown"
    name = fields.get("model name", "unknown")
    return f"{name} (family {fields.get('cpu family', '?')} model {fields.get('model', '?')})"


def operations() -> dict[str, tuple[str, tuple]]:
    """Each line: the call as written in the loop, over the names `o`,
    `x`, `y`, `z`, `w`, and the values those names take."""
    key = bytes(range(16))
    aes = aekit.AESGCM(key)
    nonce = bytes(range(NONCE))
    data = bytes(range(MESSAGE))
    aad = bytes(range(100, 100 + AAD))
    sealed = aes.encrypt(nonce, data, aad)
    assert aes.decrypt(nonce, sealed, aad) == data
    sealed_out = bytearray(MESSAGE + 16)
    opened_out = bytearray(MESSAGE)
    marked = b"\x01" + bytes(MESSAGE + 15)
    assert len(marked.replace(b"\x01", b"\x02", 1)) == MESSAGE + 16
    assert len(data.ljust(MESSAGE + 16, b"\0")) == MESSAGE + 16
    return {
        "encrypt": ("o.encrypt(x, y, z)", (aes, nonce, data, aad, None)),
        "encrypt_into": ("o.encrypt_into(x, y, z, w)", (aes, nonce, data, aad, sealed_out)),
        "decrypt": ("o.decrypt(x, y, z)", (aes, nonce, sealed, aad, None)),
        "decrypt_into": ("o.decrypt_into(x, y, z, w)", (aes, nonce, sealed, aad, opened_out)),
        "bytes.replace": ("o.replace(x, y, 1)", (marked, b"\x01", b"\x02", None, None)),
        "bytes.ljust": ("o.ljust(x, y)", (data, MESSAGE + 16, b"\0", None, None)),
    }


def looped(call: str):
    """A function that makes `n` iterations of `UNROLL` copies of `call`."""
    body = "\n".join(f"        {call}" for _ in range(UNROLL))
    source = f"def loop(n, o, x, y, z, w):\n    for _ in range(n):\n{body}\n"
    scope: dict = {}
    exec(source, scope)  # noqa: S102 - the source is built above from fixed strings
    return scope["loop"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=60, help="interleaved rounds (best kept)")
    parser.add_argument("--calls", type=int, default=20_000, help="calls per round")
    parser.add_argument("--c-ns", type=float, help="the C ABI call at 64 B in place, ns")
    parser.add_argument("--only", help="run --calls calls of this line untimed, and exit")
    args = parser.parse_args()

    ops = operations()
    loops = {name: looped(call) for name, (call, _) in ops.items()}
    iterations = max(args.calls // UNROLL, 0)
    if args.only is not None:
        loops[args.only](iterations, *ops[args.only][1])
        return

    best = {name: float("inf") for name in ops}
    for name in ops:  # warm-up: the interpreter specializes the calls
        loops[name](100, *ops[name][1])
    for _ in range(args.rounds):
        for name, (_, values) in ops.items():
            loop = loops[name]
            start = time.perf_counter_ns()
            loop(iterations, *values)
            elapsed = time.perf_counter_ns() - start
            best[name] = min(best[name], elapsed / (iterations * UNROLL))

    print(f"CPU: {cpu_model()}; {os.cpu_count()} logical CPUs")
    print(f"Python {platform.python_version()} ({platform.python_implementation()}); "
          f"aekit {aekit.__version__}: {aekit.AESGCM(bytes(16)).implementation}")
    print(f"AES-128-GCM, {MESSAGE}-byte message, {AAD}-byte AAD, {NONCE}-byte nonce; "
          f"best of {args.rounds} interleaved rounds of {iterations * UNROLL} calls")
    print()
    bases = ("bytes.replace", "bytes.ljust")
    header = "| call | ns/call |" + "".join(f" over {b} |" for b in bases)
    rule = "|---|---:|" + "---:|" * len(bases)
    if args.c_ns is not None:
        header += "".join(f" over {b} + C ({args.c_ns:g} ns) |" for b in bases)
        rule += "---:|" * len(bases)
    print(header)
    print(rule)
    for name, (call, _) in ops.items():
        line = f"| `{call}` ({name}) | {best[name]:.1f} |"
        line += "".join(f" {best[name] / best[b]:.2f}× |" for b in bases)
        if args.c_ns is not None:
            line += "".join(f" {best[name] / (best[b] + args.c_ns):.2f}× |" for b in bases)
        print(line)


if __name__ == "__main__":
    main()
