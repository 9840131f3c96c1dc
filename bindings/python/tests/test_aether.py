"""aekit.AETHER: the project's known answers (vectors/aether-kat.json)
through the Python API, round trips, tampering, bad input, and the
associated-data warning."""

from __future__ import annotations

import random

import pytest

import aekit
from conftest import load_vectors

KAT = load_vectors("aether-kat.json")["aead"]


@pytest.mark.parametrize("case", KAT, ids=range(len(KAT)))
def test_known_answer(case):
    key, nonce, ad, msg, ct, tag = (bytes.fromhex(case[k]) for k in ("key", "nonce", "ad", "msg", "ct", "tag"))
    x = aekit.AETHER(key)
    assert x.encrypt(nonce, msg, ad) == ct + tag
    assert x.decrypt(nonce, ct + tag, ad) == msg
    out = bytearray(len(msg))
    assert x.decrypt_into(nonce, ct + tag, ad, out) == len(msg) and out == msg
    with pytest.raises(aekit.InvalidTag):
        x.decrypt(nonce, ct + bytes([tag[0] ^ 1]) + tag[1:], ad)


def test_round_trips_and_tampering():
    rng = random.Random(3)
    key = aekit.AETHER.generate_key()
    assert len(key) == 32
    x = aekit.AETHER(key)
    for length in (0, 1, 47, 48, 49, 2048, 70000):
        nonce, msg = rng.randbytes(16), rng.randbytes(length)
        sealed = x.encrypt(nonce, msg, None)
        assert x.decrypt(nonce, sealed, b"") == msg
        buf = bytearray(length + 16)
        assert x.encrypt_into(nonce, msg, None, buf) == length + 16 and buf == sealed
        bad = bytearray(sealed)
        bad[rng.randrange(len(bad))] ^= 0x10
        with pytest.raises(aekit.InvalidTag):
            x.decrypt(nonce, bytes(bad), None)


def test_bad_input():
    with pytest.raises(ValueError, match="AETHER key must be 256 bits"):
        aekit.AETHER(bytes(16))
    x = aekit.AETHER(bytes(32))
    for n in (0, 12, 15, 17):
        with pytest.raises(ValueError, match="AETHER nonce must be 16 bytes"):
            x.encrypt(bytes(n), b"m", None)
    with pytest.raises(ValueError, match="buffer must be 17 bytes"):
        x.encrypt_into(bytes(16), b"m", None, bytearray(16))
    with pytest.raises(aekit.InvalidTag):
        x.decrypt(bytes(16), b"short", None)


def test_the_docstring_warns_about_associated_data():
    doc = aekit.AETHER.__doc__
    assert "Warning" in doc and "associated data" in doc and "forgery" in doc
