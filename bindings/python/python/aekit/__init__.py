"""aekit: fast authenticated encryption.

``aekit.AESGCM`` is a drop-in for
``cryptography.hazmat.primitives.ciphers.aead.AESGCM`` (same constructor,
methods, arguments and exceptions), computed by aekit's Rust library;
``aekit.AETHER`` is the AETHER AEAD with the same interface (read its
warning about associated data); ``aekit.chunked`` encrypts files in the
C2SP chunked format that the ``aekit`` command reads and writes.

>>> import aekit
>>> key = aekit.AESGCM.generate_key(bit_length=128)
>>> aesgcm = aekit.AESGCM(key)
>>> nonce = b"\\x00" * 12  # never repeat a nonce under one key
>>> ct = aesgcm.encrypt(nonce, b"attack at dawn", b"header")
>>> aesgcm.decrypt(nonce, ct, b"header")
b'attack at dawn'
"""

from __future__ import annotations

from aekit import chunked
from aekit._aekit import (
    AESGCM,
    AETHER,
    AESGCMDecryptor,
    AESGCMEncryptor,
    __version__,
    set_threads,
)
from aekit.exceptions import (
    AlreadyFinalized,
    AlreadyUpdated,
    InvalidTag,
    NotYetFinalized,
)

__all__ = [
    "AESGCM",
    "AESGCMDecryptor",
    "AESGCMEncryptor",
    "AETHER",
    "AlreadyFinalized",
    "AlreadyUpdated",
    "InvalidTag",
    "NotYetFinalized",
    "__version__",
    "chunked",
    "set_threads",
]
