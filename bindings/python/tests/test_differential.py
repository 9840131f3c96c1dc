"""aekit.AESGCM against cryptography's AESGCM: random keys, nonces,
associated data and messages of 0 to 70,000 bytes, each library decrypting
the other's output; the `_into` methods and every kind of bytes-like input
too."""

from __future__ import annotations

import random

import pytest
from cryptography.hazmat.primitives.ciphers.aead import AESGCM as Reference

import aekit

# Boundaries of blocks, of the kernels' 8-block batches, of the 2 KiB GIL
# threshold, of 64 KiB, and the 70,000-byte top of the range.
LENGTHS = [0, 1, 15, 16, 17, 31, 32, 33, 127, 128, 129, 255, 256, 257, 2047, 2048,
           2049, 4096, 16383, 16384, 16385, 65535, 65536, 65537, 69999, 70000]


def cases(seed: int, count: int):
    """(key, nonce, aad, message) tuples from a seeded generator: every
    length above plus `count` random ones, random key sizes, nonce lengths
    across 8..128 bytes (12 half of the time), AAD of 0..300 bytes or None."""
    rng = random.Random(seed)
    lengths = LENGTHS + [rng.randrange(0, 70001) for _ in range(count)]
    for length in lengths:
        key = rng.randbytes(rng.choice([16, 24, 32]))
        nonce = rng.randbytes(12 if rng.random() < 0.5 else rng.randrange(8, 129))
        aad = None if rng.random() < 0.2 else rng.randbytes(rng.randrange(0, 301))
        yield key, nonce, aad, rng.randbytes(length)


@pytest.mark.parametrize("seed", range(4))
def test_both_libraries_agree_and_decrypt_each_other(seed):
    for key, nonce, aad, message in cases(seed, 40):
        ours, theirs = aekit.AESGCM(key), Reference(key)
        sealed = ours.encrypt(nonce, message, aad)
        assert sealed == theirs.encrypt(nonce, message, aad), (len(key), len(nonce), len(message))
        assert len(sealed) == len(message) + 16
        assert theirs.decrypt(nonce, sealed, aad) == message
        assert ours.decrypt(nonce, sealed, aad) == message


def test_into_methods_agree_with_cryptography():
    for key, nonce, aad, message in cases(10, 10):
        ours, theirs = aekit.AESGCM(key), Reference(key)
        sealed = bytearray(len(message) + 16)
        assert ours.encrypt_into(nonce, message, aad, sealed) == len(sealed)
        assert bytes(sealed) == theirs.encrypt(nonce, message, aad)
        plain = bytearray(len(message))
        assert ours.decrypt_into(nonce, bytes(sealed), aad, plain) == len(message)
        assert plain == message
        theirs_plain = bytearray(len(message))
        theirs.decrypt_into(nonce, bytes(sealed), aad, theirs_plain)
        assert theirs_plain == message


def test_into_methods_with_overlapping_buffers():
    """The input and the output may be views of one buffer (the result
    written where the input lies, or over part of it): the result is the
    same as from separate buffers, and with the input `bytes`-like but not
    `bytes` (copied before anything is written), at the lengths around the
    GIL threshold and the kernels' batches."""
    key, nonce, aad = bytes(range(32)), b"\x07" * 12, b"aad"
    ours, theirs = aekit.AESGCM(key), Reference(key)
    for n in (0, 1, 100, 255, 256, 257, 4096, 70000):
        message = random.Random(n).randbytes(n)
        expected = theirs.encrypt(nonce, message, aad)
        for shift in (0, 5, 16, n, n + 16):
            # The message at `shift` in a shared buffer (at `n`, over the
            # tag's room alone for short ones); the result at 0.
            shared = bytearray(max(n + 16, shift + n))
            shared[shift:shift + n] = message
            view = memoryview(shared)
            ours.encrypt_into(nonce, view[shift:shift + n], aad, view[:n + 16])
            assert bytes(shared[:n + 16]) == expected, (n, shift)
            # And back: the plaintext written over the ciphertext's start.
            shared[:n + 16] = expected
            ours.decrypt_into(nonce, view[:n + 16], aad, view[shift % 16:shift % 16 + n])
            assert bytes(shared[shift % 16:shift % 16 + n]) == message, (n, shift)


def test_every_bytes_like_input_is_accepted():
    import array

    key, nonce, aad, message = bytes(range(16)), b"n" * 12, b"header", bytes(range(256)) * 20
    ours, theirs = aekit.AESGCM(bytearray(key)), Reference(key)
    expected = theirs.encrypt(nonce, message, aad)
    for wrap in (bytes, bytearray, memoryview, lambda b: array.array("B", b),
                 lambda b: memoryview(bytearray(b))):
        assert ours.encrypt(wrap(nonce), wrap(message), wrap(aad)) == expected
        assert ours.decrypt(wrap(nonce), wrap(expected), wrap(aad)) == message
    # A slice of a larger buffer (contiguous) is read from where it starts.
    padded = b"xx" + message + b"yy"
    assert ours.encrypt(nonce, memoryview(padded)[2:-2], aad) == expected


def test_buffers_of_any_format_are_read_as_their_bytes():
    """An `array('I')`, a cast memoryview, a NumPy array of any dtype: any
    C-contiguous buffer is its bytes, as hashlib takes it, for every
    argument and every destination."""
    import array

    rng = random.Random(11)
    key, nonce, aad, message = rng.randbytes(32), rng.randbytes(12), rng.randbytes(40), rng.randbytes(4000)
    expected = Reference(key).encrypt(nonce, message, aad)

    def as_words(b: bytes):
        return array.array("I", b)

    def as_cast(b: bytes):
        return memoryview(bytearray(b)).cast("I")

    wraps = [as_words, as_cast]
    try:
        import numpy as np
    except ImportError:
        pass
    else:
        wraps += [lambda b: np.frombuffer(b, dtype=np.uint32).copy(),
                  lambda b: np.frombuffer(b, dtype=np.float32).copy(),
                  lambda b: np.frombuffer(b, dtype=">u2").reshape(2, -1).copy()]
    for wrap in wraps:
        ours = aekit.AESGCM(wrap(key))
        assert ours.encrypt(wrap(nonce), wrap(message), wrap(aad)) == expected
        assert ours.decrypt(wrap(nonce), wrap(expected), wrap(aad)) == message
        sealed = wrap(bytes(len(expected)))
        assert ours.encrypt_into(wrap(nonce), wrap(message), wrap(aad), sealed) == len(expected)
        assert bytes(memoryview(sealed).cast("B")) == expected
        plain = wrap(bytes(len(message)))
        assert ours.decrypt_into(wrap(nonce), wrap(expected), wrap(aad), plain) == len(message)
        assert bytes(memoryview(plain).cast("B")) == message
        stream = ours.encryptor(wrap(nonce))
        stream.authenticate_additional_data(wrap(aad))
        out = wrap(bytes(len(message)))
        assert stream.update_into(wrap(message), out) == len(message)
        assert bytes(memoryview(out).cast("B")) == expected[:-16]


def test_empty_buffers_without_memory():
    """An exporter may give an empty buffer a null pointer (here a
    memoryview made by `PyMemoryView_FromMemory(NULL, 0)`): read and
    written as empty, in a child process so that a crash fails this test
    and only it."""
    import subprocess
    import sys
    import textwrap

    code = textwrap.dedent("""
        import ctypes, io
        import aekit
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM as Reference
        view = ctypes.pythonapi.PyMemoryView_FromMemory
        view.restype = ctypes.py_object
        view.argtypes = (ctypes.c_void_p, ctypes.c_ssize_t, ctypes.c_int)
        def empty():
            return view(None, 0, 0x100)
        def space():
            return view(None, 0, 0x200)
        key, nonce = bytes(16), bytes(12)
        a = aekit.AESGCM(key)
        expected = Reference(key).encrypt(nonce, b"", None)
        assert a.encrypt(nonce, empty(), empty()) == expected
        assert a.decrypt(nonce, expected, empty()) == b""
        assert a.decrypt_into(nonce, expected, empty(), space()) == 0
        assert aekit.AETHER(bytes(32)).encrypt(bytes(16), empty(), empty())
        e = a.encryptor(nonce)
        e.authenticate_additional_data(empty())
        assert e.update(empty()) == b""
        assert e.update_into(empty(), space()) == 0
        e.finalize()
        assert e.tag == expected
        sealed = io.BytesIO()
        aekit.chunked.encrypt_file(key, io.BytesIO(b"abc"), sealed, context=empty())
        with aekit.chunked.Reader(key, io.BytesIO(sealed.getvalue()), context=empty()) as r:
            assert r.readinto(space()) == 0
            assert r.read() == b"abc"
        print("ok")
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-3000:]


def test_generate_key_makes_keys_cryptography_accepts():
    for bits in (128, 192, 256):
        key = aekit.AESGCM.generate_key(bits)
        assert isinstance(key, bytes) and len(key) == bits // 8
        nonce = b"\x01" * 12
        assert Reference(key).decrypt(nonce, aekit.AESGCM(key).encrypt(nonce, b"m", None), None) == b"m"
    assert aekit.AESGCM.generate_key(bit_length=128) != aekit.AESGCM.generate_key(bit_length=128)


def test_large_messages_split_across_threads_match():
    """From 128 KiB on a message may be split across cores; ciphertext and
    tag must not change, with the pool and without it."""
    rng = random.Random(7)
    key, nonce = rng.randbytes(32), rng.randbytes(12)
    ours, theirs = aekit.AESGCM(key), Reference(key)
    try:
        for threads in (0, 2, 1):
            aekit.set_threads(threads)
            for length in (128 * 1024 - 1, 128 * 1024, 1 << 20, (1 << 20) + 13):
                message = rng.randbytes(length)
                sealed = ours.encrypt(nonce, message, b"aad")
                assert sealed == theirs.encrypt(nonce, message, b"aad")
                assert ours.decrypt(nonce, sealed, b"aad") == message
    finally:
        aekit.set_threads(1)
