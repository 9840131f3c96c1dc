"""The GIL is released while 2 KiB or more are encrypted: a second Python
thread makes progress in the middle of one large `encrypt` call.

A counter thread records the time of each of its loop iterations. If the
GIL were held for the whole call, no iteration could run between the
call's start and end (a thread holding the GIL in C code is never
preempted), except within one switch interval of either end (set to
0.5 ms here); the test requires iterations from a quarter of the call to
a tenth before its end.
"""

from __future__ import annotations

import sys
import threading
import time

import aekit

SIZE = 32 << 20


def samples_inside(call, attempts: int = 3) -> int:
    stamps: list[float] = []
    stop = threading.Event()
    started = threading.Event()

    def count():
        started.set()
        while not stop.is_set():
            stamps.append(time.perf_counter())

    interval = sys.getswitchinterval()
    sys.setswitchinterval(0.0005)
    worker = threading.Thread(target=count)
    worker.start()
    started.wait()
    try:
        best = 0
        for _ in range(attempts):
            start = time.perf_counter()
            call()
            end = time.perf_counter()
            span = end - start
            low, high = start + span / 4, end - span / 10
            best = max(best, sum(low < t < high for t in stamps))
            if best:
                break
    finally:
        stop.set()
        worker.join()
        sys.setswitchinterval(interval)
    return best


def test_a_second_thread_runs_during_a_large_encrypt():
    aekit.set_threads(1)  # one core for the encryption, the other for the counter (the default)
    try:
        a = aekit.AESGCM(bytes(16))
        data = bytes(SIZE)
        assert samples_inside(lambda: a.encrypt(b"\0" * 12, data, None)) > 0
        sealed = a.encrypt(b"\0" * 12, data, None)
        assert samples_inside(lambda: a.decrypt(b"\0" * 12, sealed, None)) > 0
        out = bytearray(SIZE + 16)
        assert samples_inside(lambda: a.encrypt_into(b"\0" * 12, data, None, out)) > 0
    finally:
        aekit.set_threads(1)


def test_aether_releases_the_gil_too():
    x = aekit.AETHER(bytes(32))
    data = bytes(SIZE)
    assert samples_inside(lambda: x.encrypt(b"\0" * 16, data, None)) > 0


def test_threshold_is_two_kib():
    assert aekit._aekit.DETACH_FROM == 2048


def test_control_a_call_that_holds_the_gil_shows_no_progress():
    """The detector can fail: sorting a list of ints is one C call that
    never releases the GIL, and no counter iteration lands inside it."""
    import random

    values = list(range(1_500_000))
    random.Random(0).shuffle(values)
    assert samples_inside(lambda: sorted(values), attempts=1) == 0
