"""Bad input raises the exception cryptography raises, with a clear
message, for both libraries alike; never a crash."""

from __future__ import annotations

import pytest
from cryptography import exceptions as cx
from cryptography.hazmat.primitives.ciphers.aead import AESGCM as Reference

import aekit

KEY = bytes(range(16))
NONCE = b"\x07" * 12


@pytest.fixture(params=["aekit", "cryptography"])
def lib(request):
    return aekit.AESGCM if request.param == "aekit" else Reference


def test_exceptions_subclass_cryptographys():
    assert issubclass(aekit.InvalidTag, cx.InvalidTag)
    assert issubclass(aekit.AlreadyFinalized, cx.AlreadyFinalized)
    assert issubclass(aekit.AlreadyUpdated, cx.AlreadyUpdated)
    assert issubclass(aekit.NotYetFinalized, cx.NotYetFinalized)
    with pytest.raises(cx.InvalidTag):
        aekit.AESGCM(KEY).decrypt(NONCE, b"\0" * 16, None)


@pytest.mark.parametrize("length", [0, 1, 15, 17, 20, 31, 33, 64])
def test_wrong_key_length(lib, length):
    with pytest.raises(ValueError, match="AESGCM key must be 128, 192, or 256 bits."):
        lib(b"k" * length)


@pytest.mark.parametrize("key", ["a" * 16, 16, None, [0] * 16])
def test_key_of_the_wrong_type(lib, key):
    with pytest.raises(TypeError):
        lib(key)


@pytest.mark.parametrize("bits", [0, 64, 127, 512, True])
def test_generate_key_bad_length(lib, bits):
    with pytest.raises(ValueError, match="bit_length must be 128, 192, or 256"):
        lib.generate_key(bits)


@pytest.mark.parametrize("bits", [2**63, 2**64 - 1, 2**64, 2**70, -1, -2**70])
def test_generate_key_out_of_range_raises_what_cryptography_raises(bits):
    with pytest.raises(Exception) as theirs:
        Reference.generate_key(bits)
    with pytest.raises(theirs.type):
        aekit.AESGCM.generate_key(bits)


def test_generate_key_bad_type(lib):
    with pytest.raises(TypeError):
        lib.generate_key("128")


@pytest.mark.parametrize("length", [0, 1, 7, 129, 200])
def test_wrong_nonce_length(lib, length):
    a = lib(KEY)
    for call in (lambda: a.encrypt(b"n" * length, b"m", None),
                 lambda: a.decrypt(b"n" * length, b"m" * 32, None),
                 lambda: a.encrypt_into(b"n" * length, b"m", None, bytearray(17)),
                 lambda: a.decrypt_into(b"n" * length, b"m" * 32, None, bytearray(16))):
        with pytest.raises(ValueError, match="Nonce must be between 8 and 128 bytes"):
            call()


@pytest.mark.parametrize("args", [
    ("n" * 12, b"m", None),
    (b"n" * 12, "m", None),
    (b"n" * 12, b"m", "a"),
    (None, b"m", None),
    (b"n" * 12, None, None),
    (b"n" * 12, 5, None),
])
def test_arguments_of_the_wrong_type(lib, args):
    with pytest.raises(TypeError):
        lib(KEY).encrypt(*args)


def test_non_contiguous_buffers_are_refused(lib):
    strided = memoryview(b"abcdefgh")[::2]
    with pytest.raises(BufferError):
        lib(KEY).encrypt(NONCE, strided, None)
    with pytest.raises(BufferError):
        lib(KEY).encrypt(NONCE, b"m", strided)
    with pytest.raises(BufferError, match="not contiguous"):
        lib(KEY).encrypt_into(NONCE, b"m", None, memoryview(bytearray(34))[::2])


def test_non_contiguous_buffers_of_any_format_are_refused():
    import array

    words = memoryview(array.array("I", range(16)))[::2]
    a = aekit.AESGCM(KEY)
    with pytest.raises(BufferError, match="not contiguous"):
        a.encrypt(NONCE, words, None)
    with pytest.raises(BufferError, match="not contiguous"):
        a.encrypt_into(NONCE, b"\0" * 16, None, words)
    with pytest.raises(BufferError, match="not contiguous"):
        a.encryptor(NONCE).update_into(b"\0" * 4, words)


@pytest.mark.parametrize("length", [0, 1, 15])
def test_ciphertext_shorter_than_a_tag(lib, length):
    with pytest.raises(cx.InvalidTag):
        lib(KEY).decrypt(NONCE, b"c" * length, None)
    with pytest.raises(cx.InvalidTag):
        lib(KEY).decrypt_into(NONCE, b"c" * length, None, bytearray(0))


@pytest.mark.parametrize("size", [0, 18, 20, 100])
def test_encrypt_into_wrong_sized_buffer(lib, size):
    with pytest.raises(ValueError, match="buffer must be 19 bytes"):
        lib(KEY).encrypt_into(NONCE, b"abc", None, bytearray(size))


@pytest.mark.parametrize("size", [0, 2, 4, 100])
def test_decrypt_into_wrong_sized_buffer(lib, size):
    sealed = Reference(KEY).encrypt(NONCE, b"abc", None)
    buf = bytearray(b"\xaa" * size)
    with pytest.raises(ValueError, match="buffer must be 3 bytes"):
        lib(KEY).decrypt_into(NONCE, sealed, None, buf)
    assert buf == b"\xaa" * size


def test_into_needs_a_writable_buffer(lib):
    with pytest.raises(TypeError, match="not writable"):
        lib(KEY).encrypt_into(NONCE, b"abc", None, b"\0" * 19)
    with pytest.raises(TypeError):
        lib(KEY).encrypt_into(NONCE, b"abc", None, "x" * 19)


def test_into_accepts_memoryview_and_array_destinations():
    import array

    a = aekit.AESGCM(KEY)
    expected = a.encrypt(NONCE, b"abc", None)
    target = bytearray(b"\0" * 25)
    assert a.encrypt_into(NONCE, b"abc", None, memoryview(target)[3:22]) == 19
    assert target[3:22] == expected and target[:3] == b"\0" * 3 and target[22:] == b"\0" * 3
    plain = array.array("B", [0, 0, 0])
    assert a.decrypt_into(NONCE, expected, None, plain) == 3
    assert plain.tobytes() == b"abc"


def test_streaming_errors():
    a = aekit.AESGCM(KEY)
    e = a.encryptor(NONCE)
    with pytest.raises(cx.NotYetFinalized):
        e.tag
    e.update(b"message")
    with pytest.raises(cx.AlreadyUpdated):
        e.authenticate_additional_data(b"late")
    e.finalize()
    assert len(e.tag) == 16
    with pytest.raises(cx.AlreadyFinalized):
        e.update(b"more")
    with pytest.raises(cx.AlreadyFinalized):
        e.finalize()
    with pytest.raises(ValueError, match="Nonce must be between 8 and 128 bytes"):
        a.encryptor(b"short")
    d = a.decryptor(NONCE)
    with pytest.raises(ValueError, match="16 bytes or longer"):
        d.finalize_with_tag(b"t" * 15)
    with pytest.raises(ValueError, match="more than 16 bytes"):
        d.finalize_with_tag(b"t" * 17)
    with pytest.raises(ValueError, match="at least 5 bytes"):
        d.update_into(b"12345", bytearray(4))
    with pytest.raises(cx.InvalidTag):
        d.finalize_with_tag(b"t" * 16)
    with pytest.raises(cx.AlreadyFinalized):
        d.update(b"x")


def test_decrypt_into_says_its_buffer_holds_unverified_plaintext_during_the_call():
    doc = " ".join(aekit.AESGCM.decrypt_into.__doc__.split())
    assert "before the tag is checked" in doc
    assert "GIL released" in doc and "another thread" in doc


def test_aad_after_an_empty_update_is_refused_as_cryptography_does():
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

    reference = Cipher(algorithms.AES(KEY), modes.GCM(NONCE)).encryptor()
    reference.update(b"")
    with pytest.raises(cx.AlreadyUpdated):
        reference.authenticate_additional_data(b"late")
    a = aekit.AESGCM(KEY)
    for stream in (a.encryptor(NONCE), a.decryptor(NONCE)):
        stream.update(b"")
        with pytest.raises(cx.AlreadyUpdated):
            stream.authenticate_additional_data(b"late")
    e = a.encryptor(NONCE)
    e.update_into(b"", bytearray(0))
    with pytest.raises(cx.AlreadyUpdated):
        e.authenticate_additional_data(b"late")
    e.finalize()
    with pytest.raises(cx.AlreadyFinalized):
        e.authenticate_additional_data(b"late")
