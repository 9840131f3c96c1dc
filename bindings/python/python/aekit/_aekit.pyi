"""Type stubs of the native module `aekit._aekit` (Rust, PyO3)."""

import os
from typing_extensions import Buffer
from typing import BinaryIO, Final, Optional, Union

__version__: Final[str]
DETACH_FROM: Final[int]

_Path = Union[str, "os.PathLike[str]"]

def set_threads(threads: int) -> None:
    """How many threads one AES-GCM message of 128 KiB or more may be split
    across: 1 (the default) the calling thread only, 0 one per core."""

class AEAD:
    """The one-shot methods of AESGCM and AETHER (cryptography's AEAD
    interface): ciphertext followed by a 16-byte tag."""

    def encrypt(self, nonce: Buffer, data: Buffer, associated_data: Optional[Buffer]) -> bytes: ...
    def decrypt(self, nonce: Buffer, data: Buffer, associated_data: Optional[Buffer]) -> bytes: ...
    def encrypt_into(
        self, nonce: Buffer, data: Buffer, associated_data: Optional[Buffer], buf: Buffer
    ) -> int: ...
    def decrypt_into(
        self, nonce: Buffer, data: Buffer, associated_data: Optional[Buffer], buf: Buffer
    ) -> int:
        """Decrypts into `buf` (zeroed if the tag does not verify). During
        the call `buf` holds plaintext not yet verified, with the GIL
        released from 2 KiB on: read it only after the call returns."""

class AESGCM(AEAD):
    """AES-GCM with a 128-, 192- or 256-bit key: cryptography's AESGCM,
    computed by aekit. Nonces of 8 to 128 bytes, 16-byte tags."""

    def __init__(self, key: Buffer) -> None: ...
    @classmethod
    def generate_key(cls, bit_length: int) -> bytes: ...
    def encryptor(self, nonce: Buffer) -> AESGCMEncryptor: ...
    def decryptor(self, nonce: Buffer) -> AESGCMDecryptor: ...
    @property
    def implementation(self) -> str: ...

class AESGCMContext:
    """The steps both AES-GCM stream directions take."""

    def authenticate_additional_data(self, data: Buffer) -> None: ...
    def update(self, data: Buffer) -> bytes: ...
    def update_into(self, data: Buffer, buf: Buffer) -> int: ...

class AESGCMEncryptor(AESGCMContext):
    """An AES-GCM encryption in progress: associated data first, then the
    message in pieces, then `finalize()` and `tag`."""

    def finalize(self) -> bytes: ...
    @property
    def tag(self) -> bytes: ...

class AESGCMDecryptor(AESGCMContext):
    """An AES-GCM decryption in progress. `update` returns plaintext
    before it is authenticated: discard it unless `finalize_with_tag`
    succeeds."""

    def finalize_with_tag(self, tag: Buffer) -> bytes: ...

class AETHER(AEAD):
    """AETHER with a 256-bit key, 16-byte nonces and 16-byte tags.
    Warning: use it only with fixed (for example empty) associated data."""

    def __init__(self, key: Buffer) -> None: ...
    @classmethod
    def generate_key(cls) -> bytes: ...
    @property
    def implementation(self) -> str: ...

class ChunkedReader:
    def __init__(self, key: Buffer, src: Union[_Path, BinaryIO], context: Optional[Buffer] = None) -> None: ...
    def readinto(self, buf: Buffer) -> int: ...
    def seek(self, offset: int, whence: int = 0) -> int: ...
    def tell(self) -> int: ...
    def size(self) -> int: ...
    def close(self) -> None: ...

def encrypt_file(
    key: Buffer,
    src: Union[_Path, BinaryIO],
    dst: Union[_Path, BinaryIO],
    *,
    context: Optional[Buffer] = None,
    threads: Optional[int] = None,
    overwrite: bool = False,
) -> int:
    """Encrypts `src` into `dst` in the C2SP chunked format; returns the
    plaintext length. `threads`: 1 to 256 (default one per core, at most
    256). An existing `dst` path raises `FileExistsError` unless
    `overwrite`."""

def decrypt_file(
    key: Buffer,
    src: Union[_Path, BinaryIO],
    dst: Union[_Path, BinaryIO],
    *,
    context: Optional[Buffer] = None,
    threads: Optional[int] = None,
    overwrite: bool = False,
) -> int:
    """Decrypts the C2SP chunked file `src` into `dst`; returns the
    plaintext length. Raises `aekit.InvalidTag` with the reason. A `dst`
    path is created with mode 0600 and appears only if everything
    verified; an existing one raises `FileExistsError` unless
    `overwrite`. `threads`: 1 to 256 (default one per core, at most 256)."""
