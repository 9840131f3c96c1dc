"""aekit's exceptions.

Each class subclasses the ``cryptography`` exception of the same name when
``cryptography`` is installed, so code written for ``cryptography``
(``except cryptography.exceptions.InvalidTag:``) catches aekit's too after a
switch; without ``cryptography`` they are plain ``Exception`` subclasses.
"""

from __future__ import annotations

try:
    from cryptography import exceptions as _cryptography
except ImportError:  # cryptography is optional
    _cryptography = None


def _base(name: str) -> type[Exception]:
    return getattr(_cryptography, name, Exception) if _cryptography else Exception


class InvalidTag(_base("InvalidTag")):  # type: ignore[misc]
    """The tag did not verify: the key, nonce, data or associated data is
    not the one that was encrypted, or (chunked files) the file was
    modified, truncated, extended, or the key or context is wrong."""


class AlreadyFinalized(_base("AlreadyFinalized")):  # type: ignore[misc]
    """A streaming object was used after ``finalize``."""


class AlreadyUpdated(_base("AlreadyUpdated")):  # type: ignore[misc]
    """Associated data was given after message data."""


class NotYetFinalized(_base("NotYetFinalized")):  # type: ignore[misc]
    """The tag was asked for before ``finalize``."""


__all__ = ["AlreadyFinalized", "AlreadyUpdated", "InvalidTag", "NotYetFinalized"]
