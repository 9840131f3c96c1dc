"""Every Wycheproof AES-GCM case (vectors/aes_gcm_test.json) through the
Python API. Nonces outside 8..128 bytes are refused with ValueError, as
cryptography's AESGCM refuses them (checked against it case by case)."""

from __future__ import annotations

import pytest
from cryptography.hazmat.primitives.ciphers.aead import AESGCM as Reference

import aekit
from conftest import load_vectors

VECTORS = load_vectors("aes_gcm_test.json")
CASES = [(g, t) for g in VECTORS["testGroups"] for t in g["tests"]]


def test_the_file_is_complete():
    assert len(CASES) == VECTORS["numberOfTests"] == 316


@pytest.mark.parametrize("group,case", CASES, ids=[f"tc{t['tcId']}" for _, t in CASES])
def test_case(group, case):
    key, iv, aad, msg, ct, tag = (bytes.fromhex(case[k]) for k in ("key", "iv", "aad", "msg", "ct", "tag"))
    assert group["tagSize"] == 128
    ours, theirs = aekit.AESGCM(key), Reference(key)
    if not 8 <= len(iv) <= 128:
        for lib in (ours, theirs):
            with pytest.raises(ValueError, match="Nonce must be between 8 and 128 bytes"):
                lib.decrypt(iv, ct + tag, aad)
            with pytest.raises(ValueError, match="Nonce must be between 8 and 128 bytes"):
                lib.encrypt(iv, msg, aad)
        return
    if case["result"] == "valid":
        assert ours.encrypt(iv, msg, aad) == ct + tag
        assert ours.decrypt(iv, ct + tag, aad) == msg
        encryptor = ours.encryptor(iv)
        encryptor.authenticate_additional_data(aad)
        assert encryptor.update(msg) + encryptor.finalize() == ct
        assert encryptor.tag == tag
    else:
        with pytest.raises(aekit.InvalidTag):
            ours.decrypt(iv, ct + tag, aad)
        decryptor = ours.decryptor(iv)
        decryptor.authenticate_additional_data(aad)
        decryptor.update(ct)
        with pytest.raises(aekit.InvalidTag):
            decryptor.finalize_with_tag(tag)
