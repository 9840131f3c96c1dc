"""The on-line encryptor and decryptor: any split of the associated data
and of the message gives the one-shot result (and cryptography's)."""

from __future__ import annotations

import random

import pytest
from cryptography.hazmat.primitives.ciphers.aead import AESGCM as Reference

import aekit


def pieces(rng: random.Random, data: bytes):
    at = 0
    while at < len(data):
        n = rng.choice([1, 15, 16, 17, 100, 2048, 5000])
        yield data[at:at + n]
        at += n


@pytest.mark.parametrize("seed", range(6))
def test_any_split_gives_the_one_shot_result(seed):
    rng = random.Random(seed)
    key = rng.randbytes(rng.choice([16, 24, 32]))
    nonce = rng.randbytes(rng.choice([12, 8, 16, 60]))
    aad, message = rng.randbytes(rng.randrange(0, 200)), rng.randbytes(rng.randrange(0, 30000))
    ours = aekit.AESGCM(key)
    sealed = Reference(key).encrypt(nonce, message, aad)

    enc = ours.encryptor(nonce)
    for piece in pieces(rng, aad):
        enc.authenticate_additional_data(piece)
    out = bytearray()
    for i, piece in enumerate(pieces(rng, message)):
        if i % 2:
            out += enc.update(piece)
        else:
            buf = bytearray(len(piece) + 7)
            assert enc.update_into(piece, buf) == len(piece)
            out += buf[:len(piece)]
    assert enc.finalize() == b""
    assert bytes(out) + enc.tag == sealed

    dec = ours.decryptor(nonce)
    for piece in pieces(rng, aad):
        dec.authenticate_additional_data(piece)
    plain = b"".join(dec.update(p) for p in pieces(rng, sealed[:-16]))
    assert dec.finalize_with_tag(sealed[-16:]) == b""
    assert plain == message


@pytest.mark.parametrize("wrap", [bytes, bytearray, memoryview])
def test_update_into_from_any_buffer_and_from_a_view_of_the_output(wrap):
    """Pieces read where they lie (any buffer, below and above the GIL
    threshold), and pieces that are views of the output buffer itself
    (read before anything is written over them), both directions."""
    rng = random.Random(7)
    key, nonce = rng.randbytes(16), rng.randbytes(12)
    ours, theirs = aekit.AESGCM(key), Reference(key)
    for n in (0, 17, 300, 4096, 70000):
        message = rng.randbytes(n)
        sealed = theirs.encrypt(nonce, message, None)
        enc = ours.encryptor(nonce)
        out = bytearray(n + 3)
        assert enc.update_into(wrap(message), out) == n
        enc.finalize()
        assert bytes(out[:n]) + enc.tag == sealed, n
        for shift in (0, 5, n):
            shared = bytearray(message) + bytearray(shift)
            view = memoryview(shared)
            enc = ours.encryptor(nonce)
            assert enc.update_into(view[:n], view[shift:]) == n
            enc.finalize()
            assert bytes(shared[shift:shift + n]) + enc.tag == sealed, (n, shift)
            dec = ours.decryptor(nonce)
            assert dec.update_into(view[shift:shift + n], view) == n
            assert dec.finalize_with_tag(enc.tag) == b""
            assert bytes(shared[:n]) == message, (n, shift)
