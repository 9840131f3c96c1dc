"""The one-shot calls read an exact `bytes` by its type and header, and
every other bytes-like object through the buffer protocol; their `*_into`
forms write a caller's buffer exported into the call's own frame. Every
kind of argument must give cryptography's result: each message length
from 0 to 100 bytes with each associated-data length from 0 to 40, each
argument as `bytes`, a subclass of `bytes`, a `bytearray`, a `memoryview`
(of `bytes`, and of a slice of a larger `bytearray`) and an `array`."""

from __future__ import annotations

import array
import random

import pytest
from cryptography.hazmat.primitives.ciphers.aead import AESGCM as Reference

import aekit


class Sub(bytes):
    """A subclass of `bytes`: not read by the exact-type path."""


def as_kind(kind: str, data: bytes):
    if kind == "bytes":
        return bytes(data)
    if kind == "subclass":
        return Sub(data)
    if kind == "bytearray":
        return bytearray(data)
    if kind == "memoryview":
        return memoryview(data)
    if kind == "offset view":
        # A view into the middle of a larger buffer.
        return memoryview(bytearray(b"\xee" * 3 + data + b"\xee" * 5))[3 : 3 + len(data)]
    if kind == "array":
        return array.array("B", data)
    raise AssertionError(kind)


KINDS = ["bytes", "subclass", "bytearray", "memoryview", "offset view", "array"]

KEY = bytes(range(16))


@pytest.mark.parametrize("kind", KINDS)
def test_every_length_and_kind_gives_cryptographys_result(kind):
    ours, reference = aekit.AESGCM(KEY), Reference(KEY)
    rng = random.Random(kind)
    checked = 0
    for length in range(101):
        for aad_len in range(41):
            nonce = rng.randbytes(12)
            data = rng.randbytes(length)
            aad = rng.randbytes(aad_len)
            sealed = reference.encrypt(nonce, data, aad)
            # This kind for every argument, and mixed with exact bytes (the
            # nonce, the data or the associated data alone of this kind).
            shapes = [
                (as_kind(kind, nonce), as_kind(kind, data), as_kind(kind, aad)),
                (as_kind(kind, nonce), data, aad),
                (nonce, as_kind(kind, data), aad),
                (nonce, data, as_kind(kind, aad)),
            ]
            for n, d, a in shapes:
                assert ours.encrypt(n, d, a) == sealed
                out = bytearray(b"\xaa" * (length + 16))
                assert ours.encrypt_into(n, d, a, out) == length + 16
                assert out == sealed
            s = as_kind(kind, sealed)
            assert ours.decrypt(as_kind(kind, nonce), s, as_kind(kind, aad)) == data
            # Into a view of a larger buffer: its neighbours stay as they were.
            room = bytearray(b"\x55" * (length + 7))
            view = memoryview(room)[3 : 3 + length]
            assert ours.decrypt_into(as_kind(kind, nonce), s, as_kind(kind, aad), view) == length
            assert room == b"\x55" * 3 + data + b"\x55" * 4
            checked += 1
    assert checked == 101 * 41


@pytest.mark.parametrize("kind", KINDS)
def test_a_wrong_tag_in_any_kind_raises_and_zeroes(kind):
    ours, reference = aekit.AESGCM(KEY), Reference(KEY)
    nonce, aad = bytes(12), b"header"
    for length in [0, 1, 15, 16, 17, 64, 100]:
        sealed = bytearray(reference.encrypt(nonce, bytes(range(length)), aad))
        sealed[-1] ^= 1
        with pytest.raises(aekit.InvalidTag):
            ours.decrypt(nonce, as_kind(kind, bytes(sealed)), aad)
        out = bytearray(b"\xaa" * length)
        with pytest.raises(aekit.InvalidTag):
            ours.decrypt_into(nonce, as_kind(kind, bytes(sealed)), aad, out)
        assert out == bytes(length)


def test_associated_data_none_is_empty():
    ours = aekit.AESGCM(KEY)
    nonce = bytes(12)
    for length in range(0, 101, 7):
        data = bytes(range(length))
        assert ours.encrypt(nonce, data, None) == ours.encrypt(nonce, data, b"")
        assert ours.encrypt(nonce, data, None) == ours.encrypt(nonce, bytearray(data), bytearray())


@pytest.mark.parametrize("kind", ["bytearray", "memoryview", "offset view", "array"])
def test_outputs_of_every_writable_kind(kind):
    """`*_into` writes any writable C-contiguous buffer; an `array` of
    bytes is exported with the same one-dimensional layout as a
    `bytearray`."""
    ours = aekit.AESGCM(KEY)
    nonce, data, aad = bytes(12), bytes(range(50)), b"aad"
    sealed = Reference(KEY).encrypt(nonce, data, aad)

    def writable(n: int):
        if kind == "bytearray":
            return bytearray(n)
        if kind == "memoryview":
            return memoryview(bytearray(n))
        if kind == "offset view":
            return memoryview(bytearray(n + 9))[4 : 4 + n]
        return array.array("B", bytes(n))

    out = writable(len(sealed))
    ours.encrypt_into(nonce, data, aad, out)
    assert bytes(out) == sealed
    out = writable(len(data))
    ours.decrypt_into(nonce, sealed, aad, out)
    assert bytes(out) == data


def test_an_output_refused_is_released():
    """A `bytearray` whose export was refused (read-only view, wrong size,
    not contiguous) can be resized afterwards: no export is left behind."""
    ours = aekit.AESGCM(KEY)
    nonce = bytes(12)
    buf = bytearray(40)
    with pytest.raises(ValueError):
        ours.encrypt_into(nonce, b"abc", None, buf)
    with pytest.raises(TypeError, match="not writable"):
        ours.encrypt_into(nonce, b"abc", None, memoryview(buf).toreadonly()[:19])
    with pytest.raises(BufferError, match="not contiguous"):
        ours.encrypt_into(nonce, b"abc", None, memoryview(buf)[::2][:19])
    ours.encrypt_into(nonce, b"abc", None, memoryview(buf)[:19])
    buf.extend(b"more")  # raises BufferError if an export were still held
    assert len(buf) == 44
