"""aekit.AESGCM against cryptography's AESGCM, in one process.

    python crates/aekit-bench/python/bench.py [--rounds N] [--key-bits 128|256] [--threads N]

Both objects get the same key, nonce (12 bytes), no associated data; the
operations are `encrypt`, `decrypt`, and `encrypt_into` / `decrypt_into`
into a buffer made once (where the installed `cryptography` has them); each
(size, operation, library) is timed in interleaved rounds of about 256 KiB
(one call at 1 MiB), so a slow moment of the machine hits both libraries
alike, and the best round of each is kept. Every timed decryption verifies its tag. The 0-byte row is
the per-call overhead: argument parsing, buffer handling, the result
object, and the fixed cost of GCM (two AES blocks and the lengths block).
Prints a markdown table with the CPU model and aekit's implementation.
"""

from __future__ import annotations

import argparse
import os
import platform
import time

import aekit
from cryptography.hazmat.primitives.ciphers.aead import AESGCM as CryptographyAESGCM

SIZES = [0, 64, 1024, 16 * 1024, 1024 * 1024]


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def calls_for(size: int) -> int:
    """Calls per round: about 256 KiB of data, at most 20,000 calls, at
    least one. Short rounds keep a round of the large sizes shorter than a
    scheduler time slice, so a loaded machine preempts fewer of them."""
    return max(1, min(20_000, (256 << 10) // max(size, 1)))


def time_round(fn, args, calls: int) -> float:
    """Seconds per call over one round of `calls` calls."""
    start = time.perf_counter()
    for _ in range(calls):
        fn(*args)
    return (time.perf_counter() - start) / calls


def nominal_hz() -> float | None:
    """The clock /proc/cpuinfo reports (on a VM: the host's nominal one)."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("cpu MHz"):
                    return float(line.split(":", 1)[1]) * 1e6
    except (OSError, ValueError):
        pass
    return None


def label(size: int) -> str:
    if size >= 1 << 20:
        return f"{size >> 20} MiB"
    if size >= 1 << 10:
        return f"{size >> 10} KiB"
    return f"{size} B"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=40, help="interleaved rounds (best kept)")
    parser.add_argument("--key-bits", type=int, default=128, choices=[128, 192, 256])
    parser.add_argument(
        "--threads", type=int, default=1,
        help="aekit.set_threads: 1 the calling thread only (the default), 0 one per core",
    )
    args = parser.parse_args()
    aekit.set_threads(args.threads)

    key = os.urandom(args.key_bits // 8)
    nonce = os.urandom(12)
    libs = {"aekit": aekit.AESGCM(key), "cryptography": CryptographyAESGCM(key)}

    rows = []
    for size in SIZES:
        data = os.urandom(size)
        sealed = libs["cryptography"].encrypt(nonce, data, None)
        assert libs["aekit"].encrypt(nonce, data, None) == sealed
        assert libs["aekit"].decrypt(nonce, sealed, None) == data
        calls = calls_for(size)
        # The `_into` forms write into a buffer the caller made once (and
        # `cryptography` has them from version 45 on).
        ops = (
            ("encrypt", data, None),
            ("decrypt", sealed, None),
            ("encrypt_into", data, len(sealed)),
            ("decrypt_into", sealed, size),
        )
        for op, payload, out_len in ops:
            if not all(hasattr(lib, op) for lib in libs.values()):
                continue
            best = {name: float("inf") for name in libs}
            call_args = {
                name: (nonce, payload, None) + (() if out_len is None else (bytearray(out_len),))
                for name in libs
            }
            for _ in range(args.rounds):
                for name, lib in libs.items():
                    t = time_round(getattr(lib, op), call_args[name], calls)
                    best[name] = min(best[name], t)
            rows.append((size, op, best["aekit"], best["cryptography"]))

    print(f"CPU: {cpu_model()}; {os.cpu_count()} logical CPUs")
    threads = args.threads or os.cpu_count()
    print(f"aekit {aekit.__version__}: {libs['aekit'].implementation}, large messages on {threads} thread(s);")
    print(f"AES-{args.key_bits}-GCM,", end=" ")
    print(f"12-byte nonce, no AAD; best of {args.rounds} interleaved rounds")
    hz = nominal_hz()
    print(f"cycles/byte at the nominal clock, {hz / 1e9:.2f} GHz" if hz else "cycles/byte: clock unknown")
    print()
    print("| size | op | aekit µs/call | aekit GB/s | aekit c/B | cryptography µs/call "
          "| cryptography GB/s | cryptography c/B | aekit speed-up |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|---:|")
    for size, op, ours, theirs in rows:
        gbps = lambda t: f"{size / t / 1e9:.2f}" if size else "–"  # noqa: E731
        cpb = lambda t: f"{t * hz / size:.2f}" if size and hz else "–"  # noqa: E731
        print(
            f"| {label(size)} | {op} | {ours * 1e6:.3f} | {gbps(ours)} | {cpb(ours)} "
            f"| {theirs * 1e6:.3f} | {gbps(theirs)} | {cpb(theirs)} | {theirs / ours:.2f}× |"
        )


if __name__ == "__main__":
    main()
