"""C2SP chunked encryption of files (Cobblestone), the format of the
``aekit encrypt`` and ``aekit decrypt`` commands.

A key of 16 bytes selects Cobblestone-128 (AES-128-GCM), 32 bytes
Cobblestone-256 (AES-256-GCM). ``context`` (bytes, default empty) is bound
into the key derivation: decryption needs the same one. Sources and
destinations are paths or binary file objects. ``threads`` (1 to 256,
default one per core, at most 256) is the number of worker threads of
``encrypt_file`` and ``decrypt_file``. A destination path is written under
a temporary name beside it and renamed onto it only once everything
succeeded (decrypted files with mode 0600); an existing one raises
``FileExistsError`` unless ``overwrite=True``.

>>> import io, aekit
>>> key = aekit.AESGCM.generate_key(128)
>>> sealed = io.BytesIO()
>>> aekit.chunked.encrypt_file(key, io.BytesIO(b"x" * 40000), sealed)
40000
>>> with aekit.chunked.Reader(key, io.BytesIO(sealed.getvalue())) as r:
...     _ = r.seek(-5, io.SEEK_END)
...     r.read()
b'xxxxx'
"""

from __future__ import annotations

import io
import os
from typing import BinaryIO, Union

from aekit._aekit import ChunkedReader as _ChunkedReader
from aekit._aekit import decrypt_file, encrypt_file

Source = Union[str, "os.PathLike[str]", BinaryIO]


class Reader(io.RawIOBase):
    """A readable, seekable view of the plaintext of a chunked file.

    Every byte it returns comes from a chunk whose tag verified; seeking
    from the end first verifies the final chunk, so the length is
    authenticated. Failures raise ``aekit.InvalidTag`` with the reason.
    ``src`` is a path (opened and closed by the reader) or a seekable
    binary file object (left open). Wrap it in ``io.BufferedReader`` for
    small reads.
    """

    def __init__(self, key: bytes, src: Source, *, context: bytes = b"") -> None:
        super().__init__()
        self._inner = _ChunkedReader(key, src, context)

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:  # type: ignore[override]
        self._checkClosed()
        return self._inner.readinto(buffer)

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        self._checkClosed()
        return self._inner.seek(offset, whence)

    def tell(self) -> int:
        self._checkClosed()
        return self._inner.tell()

    def size(self) -> int:
        """The plaintext length (authenticated: the final chunk is checked)."""
        self._checkClosed()
        return self._inner.size()

    def close(self) -> None:
        if not self.closed:
            self._inner.close()
        super().close()


__all__ = ["Reader", "decrypt_file", "encrypt_file"]
