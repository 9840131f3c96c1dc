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
