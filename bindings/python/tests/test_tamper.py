"""Any change to the key, nonce, associated data, ciphertext or tag is
rejected with InvalidTag, and nothing is released: `decrypt_into` zeroes
the destination (it decrypts where the buffer lies; `cryptography`'s leaves
the unauthenticated plaintext there)."""

from __future__ import annotations

import random

import pytest

import aekit

RNG = random.Random(1)
KEY, NONCE, AAD = RNG.randbytes(16), RNG.randbytes(12), RNG.randbytes(20)


def flip(data: bytes, bit: int) -> bytes:
    out = bytearray(data)
    out[bit // 8] ^= 1 << (bit % 8)
    return bytes(out)


@pytest.mark.parametrize("length", [0, 1, 16, 100, 4096, 70000])
def test_every_kind_of_change_is_rejected(length):
    a = aekit.AESGCM(KEY)
    message = RNG.randbytes(length)
    sealed = a.encrypt(NONCE, message, AAD)
    bits = len(sealed) * 8
    changes = [
        ("ciphertext or tag bit", lambda b=b: (NONCE, flip(sealed, b), AAD))
        for b in {0, 7, bits // 2, bits - 129, bits - 128, bits - 1} if 0 <= b < bits
    ]
    changes += [
        ("nonce bit", lambda: (flip(NONCE, 5), sealed, AAD)),
        ("aad bit", lambda: (NONCE, sealed, flip(AAD, 77))),
        ("aad dropped", lambda: (NONCE, sealed, None)),
        ("aad extended", lambda: (NONCE, sealed, AAD + b"\0")),
        ("truncated", lambda: (NONCE, sealed[:-1], AAD)),
        ("extended", lambda: (NONCE, sealed + b"\0", AAD)),
        ("tag only", lambda: (NONCE, sealed[-16:], AAD)) if length else ("empty", lambda: (NONCE, b"", AAD)),
    ]
    for what, change in changes:
        nonce, data, aad = change()
        with pytest.raises(aekit.InvalidTag):
            a.decrypt(nonce, data, aad)
        if len(data) >= 16:
            buf = bytearray(b"\x55" * (len(data) - 16))
            with pytest.raises(aekit.InvalidTag):
                a.decrypt_into(nonce, data, aad, buf)
            assert buf == bytes(len(buf)), what
    with pytest.raises(aekit.InvalidTag):
        aekit.AESGCM(flip(KEY, 0)).decrypt(NONCE, sealed, AAD)
    assert a.decrypt(NONCE, sealed, AAD) == message


def test_streaming_decryption_rejects_a_changed_tag():
    a = aekit.AESGCM(KEY)
    sealed = a.encrypt(NONCE, b"streamed message", AAD)
    d = a.decryptor(NONCE)
    d.authenticate_additional_data(AAD)
    d.update(sealed[:-16])
    with pytest.raises(aekit.InvalidTag):
        d.finalize_with_tag(flip(sealed[-16:], 3))
