"""aekit.chunked: every C2SP test vector through the Python API, round
trips over paths and file objects, the seekable reader, and files that
the `aekit` command reads and writes."""

from __future__ import annotations

import hashlib
import io
import os
import random
import stat
import subprocess
import zlib

import pytest

import aekit
from conftest import load_vectors

VECTOR_FILES = ["c2sp_chunked_encryption_aes_128_gcm_test.json",
                "c2sp_chunked_encryption_aes_256_gcm_test.json"]
CASES = [t for name in VECTOR_FILES for g in load_vectors(name)["testGroups"] for t in g["tests"]]


def vector(case):
    return bytes.fromhex(case["key"]), bytes.fromhex(case["ctx"]), zlib.decompress(bytes.fromhex(case["ct"]))


@pytest.mark.parametrize("case", CASES, ids=[f"{t['tcId']}-{'-'.join(t['flags']) or 'ok'}" for t in CASES])
def test_vector(case, tmp_path):
    key, context, sealed = vector(case)
    src = tmp_path / "sealed"
    src.write_bytes(sealed)
    out = tmp_path / "plain"
    if case["result"] == "valid":
        assert aekit.chunked.decrypt_file(key, src, out, context=context) == case["msgLength"]
        plain = out.read_bytes()
        assert hashlib.sha512(plain).hexdigest() == case["msgSha512"]
        buffered = io.BytesIO()
        aekit.chunked.decrypt_file(key, io.BytesIO(sealed), buffered, context=context, threads=1)
        assert buffered.getvalue() == plain
        with aekit.chunked.Reader(key, io.BytesIO(sealed), context=context) as reader:
            assert reader.size() == len(plain)
            assert reader.read() == plain
            if plain:
                assert reader.seek(-1, io.SEEK_END) == len(plain) - 1
                assert reader.read(1) == plain[-1:]
        return
    expected = ValueError if "InvalidKeySize" in case["flags"] else aekit.InvalidTag
    with pytest.raises(expected):
        aekit.chunked.decrypt_file(key, src, out, context=context)
    assert not out.exists(), "no plaintext file after a failure"
    assert [p.name for p in tmp_path.iterdir()] == ["sealed"], "no temporary file left"
    with pytest.raises(expected):
        with aekit.chunked.Reader(key, io.BytesIO(sealed), context=context) as reader:
            reader.read()
            if "ValidFinalChunk" not in case["flags"]:
                reader.seek(0, io.SEEK_END)


@pytest.mark.parametrize("key_len", [16, 32])
@pytest.mark.parametrize("length", [0, 1, 16383, 16384, 16385, 100000])
def test_round_trip_over_file_objects_and_paths(tmp_path, key_len, length):
    rng = random.Random(length)
    key, message = rng.randbytes(key_len), rng.randbytes(length)
    sealed = io.BytesIO()
    assert aekit.chunked.encrypt_file(key, io.BytesIO(message), sealed, context=b"ctx") == length
    chunks = max(1, -(-length // 16384)) + (length % 16384 == 0 and length > 0)
    assert len(sealed.getvalue()) == 56 + length + 16 * chunks
    (tmp_path / "in").write_bytes(message)
    assert aekit.chunked.encrypt_file(key, str(tmp_path / "in"), tmp_path / "sealed", context=b"ctx") == length
    for src in (tmp_path / "sealed", io.BytesIO(sealed.getvalue())):
        out = io.BytesIO()
        assert aekit.chunked.decrypt_file(key, src, out, context=b"ctx") == length
        assert out.getvalue() == message
    with pytest.raises(aekit.InvalidTag, match="wrong key or wrong context"):
        aekit.chunked.decrypt_file(key, tmp_path / "sealed", io.BytesIO(), context=b"other")


def test_reader_seeks_anywhere(tmp_path):
    rng = random.Random(5)
    key, message = rng.randbytes(16), rng.randbytes(100000)
    path = tmp_path / "sealed"
    aekit.chunked.encrypt_file(key, io.BytesIO(message), path)
    with aekit.chunked.Reader(key, path) as raw:
        reader = io.BufferedReader(raw)
        for _ in range(50):
            start = rng.randrange(0, len(message) + 10)
            n = rng.randrange(0, 40000)
            assert reader.seek(start) == start
            assert reader.read(n) == message[start:start + n]
        assert reader.seek(-100, io.SEEK_END) == len(message) - 100
        assert reader.read() == message[-100:]
        assert raw.size() == len(message)
    assert raw.closed
    with pytest.raises(ValueError):
        raw.read(1)


def test_errors_are_exceptions(tmp_path):
    with pytest.raises(ValueError, match="16 bytes .* or 32 bytes"):
        aekit.chunked.encrypt_file(bytes(24), io.BytesIO(b""), io.BytesIO())
    with pytest.raises(FileNotFoundError):
        aekit.chunked.encrypt_file(bytes(16), tmp_path / "missing", io.BytesIO())
    with pytest.raises(TypeError):
        aekit.chunked.encrypt_file(bytes(16), 42, io.BytesIO())
    with pytest.raises(aekit.InvalidTag, match="truncated"):
        aekit.chunked.decrypt_file(bytes(16), io.BytesIO(b"short"), io.BytesIO())

    class Failing(io.RawIOBase):
        def readable(self):
            return True

        def read(self, n=-1):
            raise RuntimeError("disk on fire")

    with pytest.raises(RuntimeError, match="disk on fire"):
        aekit.chunked.encrypt_file(bytes(16), Failing(), io.BytesIO())


class Collecting:
    """A duck-typed sink: `write` keeps everything and returns None."""

    def __init__(self):
        self.parts = []

    def write(self, data):
        self.parts.append(bytes(data))

    def getvalue(self):
        return b"".join(self.parts)


class Short(io.RawIOBase):
    """A raw stream that takes at most `at_most` bytes a call, and says so."""

    def __init__(self, at_most):
        super().__init__()
        self.at_most, self.data = at_most, bytearray()

    def writable(self):
        return True

    def write(self, data):
        n = min(len(data), self.at_most)
        self.data += bytes(data[:n])
        return n


def test_a_write_that_returns_none_took_everything():
    key, message = bytes(16), random.Random(3).randbytes(70000)
    sink = Collecting()
    assert aekit.chunked.encrypt_file(key, io.BytesIO(message), sink) == len(message)
    plain = Collecting()
    assert aekit.chunked.decrypt_file(key, io.BytesIO(sink.getvalue()), plain) == len(message)
    assert plain.getvalue() == message


def test_short_writes_are_completed():
    key, message = bytes(32), random.Random(4).randbytes(50000)
    sealed = Short(1000)
    assert aekit.chunked.encrypt_file(key, io.BytesIO(message), sealed) == len(message)
    plain = Short(777)
    assert aekit.chunked.decrypt_file(key, io.BytesIO(bytes(sealed.data)), plain) == len(message)
    assert bytes(plain.data) == message


@pytest.mark.parametrize("answer", ["more", -1, 2.5, "1", 0])
def test_a_write_that_returns_a_bad_count_is_an_error(answer):
    class Lying:
        def write(self, data):
            return len(data) + 1 if answer == "more" else answer

    with pytest.raises(OSError, match=r"write\(\) returned"):
        aekit.chunked.encrypt_file(bytes(16), io.BytesIO(b"x" * 100), Lying())


def test_a_raw_stream_that_would_block_is_an_error():
    """None from an `io.RawIOBase` is a non-blocking stream with no room:
    nothing was written, so it is an error, not data taken."""

    class Full(io.RawIOBase):
        def writable(self):
            return True

        def write(self, data):
            return None

    with pytest.raises(BlockingIOError):
        aekit.chunked.encrypt_file(bytes(16), io.BytesIO(b"x" * 100), Full())


def test_threads_is_bounded():
    key, message = bytes(16), random.Random(6).randbytes(40000)
    sealed = io.BytesIO()
    assert aekit.chunked.encrypt_file(key, io.BytesIO(message), sealed, threads=256) == len(message)
    out = io.BytesIO()
    assert aekit.chunked.decrypt_file(key, io.BytesIO(sealed.getvalue()), out, threads=256) == len(message)
    assert out.getvalue() == message
    for function, src in ((aekit.chunked.encrypt_file, message), (aekit.chunked.decrypt_file, sealed.getvalue())):
        for threads in (257, 10**6, 2**64, 2**70):
            with pytest.raises(ValueError, match="threads must be 1 to 256"):
                function(key, io.BytesIO(src), io.BytesIO(), threads=threads)
        for threads in (0, -1, -2**70):
            with pytest.raises(ValueError, match="threads must be 1 to 256"):
                function(key, io.BytesIO(src), io.BytesIO(), threads=threads)
        with pytest.raises(TypeError):
            function(key, io.BytesIO(src), io.BytesIO(), threads=2.0)


def mode(path):
    return stat.S_IMODE(os.lstat(path).st_mode)


def umask():
    old = os.umask(0)
    os.umask(old)
    return old


def tampered(sealed: bytes) -> bytes:
    """`sealed` with a byte of its second chunk flipped (the header and the
    first chunk still verify)."""
    flipped = bytearray(sealed)
    flipped[56 + 16400] ^= 1
    return bytes(flipped)


@pytest.mark.skipif(os.name != "posix", reason="Unix file modes")
def test_path_outputs_are_private_and_appear_only_when_complete(tmp_path):
    key, message = bytes(16), random.Random(8).randbytes(70000)
    (tmp_path / "plain").write_bytes(message)
    aekit.chunked.encrypt_file(key, tmp_path / "plain", tmp_path / "sealed")
    # Ciphertext as the command writes it: 0666 less the umask.
    assert mode(tmp_path / "sealed") == 0o666 & ~umask()
    aekit.chunked.decrypt_file(key, tmp_path / "sealed", tmp_path / "out")
    assert (tmp_path / "out").read_bytes() == message
    # Plaintext: readable by its owner only, whatever the umask.
    assert mode(tmp_path / "out") == 0o600
    (tmp_path / "bad").write_bytes(tampered((tmp_path / "sealed").read_bytes()))
    with pytest.raises(aekit.InvalidTag):
        aekit.chunked.decrypt_file(key, tmp_path / "bad", tmp_path / "nothing")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad", "out", "plain", "sealed"]


def test_an_existing_file_is_replaced_only_when_asked(tmp_path):
    key, message = bytes(32), random.Random(9).randbytes(40000)
    sealed = io.BytesIO()
    aekit.chunked.encrypt_file(key, io.BytesIO(message), sealed)
    (tmp_path / "sealed").write_bytes(sealed.getvalue())
    target = tmp_path / "target"
    target.write_bytes(b"keep me")
    for call in (lambda **kw: aekit.chunked.decrypt_file(key, tmp_path / "sealed", target, **kw),
                 lambda **kw: aekit.chunked.encrypt_file(key, io.BytesIO(message), target, **kw)):
        with pytest.raises(FileExistsError):
            call()
        with pytest.raises(FileExistsError):
            call(overwrite=False)
        assert target.read_bytes() == b"keep me"
        assert sorted(p.name for p in tmp_path.iterdir()) == ["sealed", "target"]
    # A failed decryption with overwrite=True leaves the old file as it was.
    (tmp_path / "bad").write_bytes(tampered(sealed.getvalue()))
    with pytest.raises(aekit.InvalidTag):
        aekit.chunked.decrypt_file(key, tmp_path / "bad", target, overwrite=True)
    assert target.read_bytes() == b"keep me"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad", "sealed", "target"]
    assert aekit.chunked.decrypt_file(key, tmp_path / "sealed", target, overwrite=True) == len(message)
    assert target.read_bytes() == message
    if os.name == "posix":
        assert mode(target) == 0o600
    assert aekit.chunked.encrypt_file(key, io.BytesIO(message), target, overwrite=True) == len(message)
    out = io.BytesIO()
    aekit.chunked.decrypt_file(key, target, out)
    assert out.getvalue() == message


@pytest.mark.skipif(os.name != "posix", reason="symbolic links")
def test_only_a_regular_file_is_replaced(tmp_path):
    key = bytes(16)
    sealed = io.BytesIO()
    aekit.chunked.encrypt_file(key, io.BytesIO(b"secret"), sealed)
    (tmp_path / "sealed").write_bytes(sealed.getvalue())
    (tmp_path / "elsewhere").write_bytes(b"unchanged")
    (tmp_path / "link").symlink_to(tmp_path / "elsewhere")
    (tmp_path / "dir").mkdir()
    for target in ("link", "dir"):
        with pytest.raises(FileExistsError):
            aekit.chunked.decrypt_file(key, tmp_path / "sealed", tmp_path / target)
        with pytest.raises(OSError, match="not a regular file"):
            aekit.chunked.decrypt_file(key, tmp_path / "sealed", tmp_path / target, overwrite=True)
    assert (tmp_path / "link").is_symlink()
    assert (tmp_path / "elsewhere").read_bytes() == b"unchanged"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dir", "elsewhere", "link", "sealed"]


def run_cli(cli, *args):
    return subprocess.run([str(cli), "--quiet", *map(str, args)], capture_output=True, check=False)


@pytest.mark.parametrize("key_len,length", [(16, 0), (16, 16384), (32, 50000)])
def test_the_cli_reads_what_python_writes(aekit_cli, tmp_path, key_len, length):
    key, message = random.Random(length).randbytes(key_len), random.Random(1).randbytes(length)
    (tmp_path / "key").write_bytes(key)
    aekit.chunked.encrypt_file(key, io.BytesIO(message), tmp_path / "sealed", context=b"v1")
    done = run_cli(aekit_cli, "decrypt", "--key", tmp_path / "key", "--context", "v1",
                   "-o", tmp_path / "plain", tmp_path / "sealed")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "plain").read_bytes() == message
    wrong = run_cli(aekit_cli, "decrypt", "--key", tmp_path / "key", "--context", "v2",
                    "-o", tmp_path / "nothing", tmp_path / "sealed")
    assert wrong.returncode == 4, wrong.stderr


@pytest.mark.parametrize("key_len,length", [(16, 1), (16, 16385), (32, 70000)])
def test_python_reads_what_the_cli_writes(aekit_cli, tmp_path, key_len, length):
    key, message = random.Random(length).randbytes(key_len), random.Random(2).randbytes(length)
    (tmp_path / "key").write_bytes(key)
    (tmp_path / "plain").write_bytes(message)
    done = run_cli(aekit_cli, "encrypt", "--key", tmp_path / "key", "--context", "v1",
                   "-o", tmp_path / "sealed", tmp_path / "plain")
    assert done.returncode == 0, done.stderr
    out = io.BytesIO()
    assert aekit.chunked.decrypt_file(key, tmp_path / "sealed", out, context=b"v1") == length
    assert out.getvalue() == message
    with aekit.chunked.Reader(key, tmp_path / "sealed", context=b"v1") as reader:
        assert reader.seek(length // 2) == length // 2
        assert reader.read() == message[length // 2:]


def test_the_docstrings_state_the_bounds():
    for function in (aekit.chunked.encrypt_file, aekit.chunked.decrypt_file):
        doc = " ".join(function.__doc__.split())
        assert "1 to 256" in doc and "overwrite" in doc and "FileExistsError" in doc
    assert "0600" in " ".join(aekit.chunked.decrypt_file.__doc__.split())
