//! C2SP chunked encryption (Cobblestone) against Wycheproof's vectors,
//! through every way in: the streaming reader, the parallel decryptor, the
//! random-access reader (whole message, and length authentication from the
//! end), and raw mode; plus encryption, sequential and parallel, checked
//! byte for byte against the vectors and against each other.
//!
//! The vectors' `ct` is zlib-compressed hex (some messages are 4 MiB);
//! `PartialPlaintext` vectors name the longest valid prefix, which is the
//! most a decryptor may release; `ValidFinalChunk` vectors may pass length
//! authentication although the message is invalid.

mod common;

use std::io::{Cursor, Read, Seek, SeekFrom, Write};

use aekit::chunked::{
    self, Aead, DecryptReader, EncryptWriter, Error, HEADER_LEN, MessageKey, SeekReader,
};
use common::{Rng, unhex};
use flate2::read::ZlibDecoder;
use serde_json::Value;
use sha2::{Digest, Sha512};

struct Vector {
    id: u64,
    aead: Aead,
    key: Vec<u8>,
    ctx: Vec<u8>,
    ct: Vec<u8>,
    raw: Option<(Vec<u8>, Vec<u8>)>,
    msg_len: usize,
    msg_sha512: Option<Vec<u8>>,
    valid: bool,
    flags: Vec<String>,
}

impl Vector {
    fn has(&self, flag: &str) -> bool {
        self.flags.iter().any(|f| f == flag)
    }

    /// Checks what a decryption released and how it ended.
    fn check(&self, how: &str, out: &[u8], result: Result<(), Error>) {
        let id = self.id;
        if self.valid {
            if let Err(e) = result {
                panic!("tcId {id} via {how}: valid vector failed: {e}");
            }
            assert_eq!(out.len(), self.msg_len, "tcId {id} via {how}: length");
        } else {
            assert!(
                result.is_err(),
                "tcId {id} via {how}: invalid vector accepted"
            );
            // Never a byte beyond the valid prefix (none at all without one).
            assert!(
                out.len() <= self.msg_len,
                "tcId {id} via {how}: {} bytes released, the valid prefix is {}",
                out.len(),
                self.msg_len
            );
        }
        if let Some(sha) = &self.msg_sha512
            && out.len() == self.msg_len
        {
            assert_eq!(
                Sha512::digest(out)[..],
                sha[..],
                "tcId {id} via {how}: SHA-512"
            );
        }
    }
}

fn vectors() -> Vec<Vector> {
    let mut all = Vec::new();
    for file in ["aes_128", "aes_256"] {
        let path = format!(
            "{}/../../vectors/c2sp_chunked_encryption_{file}_gcm_test.json",
            env!("CARGO_MANIFEST_DIR")
        );
        let json: Value =
            serde_json::from_str(&std::fs::read_to_string(path).expect("vectors")).expect("json");
        for group in json["testGroups"].as_array().expect("groups") {
            assert_eq!(group["sha"], "SHA-512");
            let aead = Aead::ALL
                .into_iter()
                .find(|a| group["aead"] == a.iana_name())
                .expect("known AEAD");
            for t in group["tests"].as_array().expect("tests") {
                let hex = |name: &str| t[name].as_str().map(unhex);
                let mut ct = Vec::new();
                ZlibDecoder::new(&hex("ct").expect("ct")[..])
                    .read_to_end(&mut ct)
                    .expect("zlib");
                all.push(Vector {
                    id: t["tcId"].as_u64().expect("tcId"),
                    aead,
                    key: hex("key").expect("key"),
                    ctx: hex("ctx").expect("ctx"),
                    ct,
                    raw: hex("aeadKey").zip(hex("baseNonce")),
                    msg_len: t["msgLength"].as_u64().unwrap_or(0) as usize,
                    msg_sha512: hex("msgSha512"),
                    valid: t["result"] == "valid",
                    flags: t["flags"]
                        .as_array()
                        .expect("flags")
                        .iter()
                        .map(|f| f.as_str().expect("flag").to_owned())
                        .collect(),
                });
            }
        }
    }
    assert_eq!(all.len(), 70, "both files, 35 vectors each");
    all
}

/// Reads to the end, returning what was released and how it ended.
fn drain(reader: &mut impl Read) -> (Vec<u8>, Result<(), Error>) {
    let mut out = Vec::new();
    let result = reader
        .read_to_end(&mut out)
        .map(|_| ())
        .map_err(Error::from);
    (out, result)
}

/// A header that must fail must fail when the reader is built.
fn header_result<T>(v: &Vector, how: &str, built: Result<T, Error>) -> Option<T> {
    match built {
        Ok(reader) => {
            assert!(
                !v.has("HeaderFailure"),
                "tcId {} via {how}: header accepted",
                v.id
            );
            Some(reader)
        }
        Err(e) => {
            assert!(
                v.has("HeaderFailure") || v.has("Truncation"),
                "tcId {} via {how}: header rejected: {e}",
                v.id
            );
            if v.has("InvalidKeySize") {
                assert!(matches!(e, Error::KeyLength { .. }), "tcId {}: {e}", v.id);
            }
            if v.has("WrongKey") || v.has("WrongContext") {
                assert!(matches!(e, Error::Commitment), "tcId {}: {e}", v.id);
            }
            v.check(how, &[], Err(e));
            None
        }
    }
}

#[test]
fn wycheproof_streaming_reader() {
    for v in vectors() {
        let built = DecryptReader::new(Cursor::new(&v.ct), v.aead, &v.key, &v.ctx);
        let Some(mut reader) = header_result(&v, "stream", built) else {
            continue;
        };
        let (out, result) = drain(&mut reader);
        v.check("stream", &out, result);
        // Ours releases every verified chunk: exactly the valid prefix.
        assert_eq!(out.len(), v.msg_len, "tcId {}: prefix", v.id);
        // Failure is sticky; success stays at end of file.
        for _ in 0..2 {
            let again = reader.read(&mut [0u8; 64]);
            if v.valid {
                assert_eq!(again.expect("end of file"), 0);
            } else {
                assert!(
                    again.is_err(),
                    "tcId {}: read after failure succeeded",
                    v.id
                );
            }
        }
    }
}

#[test]
fn wycheproof_streaming_reader_in_small_reads() {
    // Reads of 1000 bytes cross chunk boundaries at odd places.
    for v in vectors().into_iter().filter(|v| v.ct.len() < 100_000) {
        let built = DecryptReader::new(Cursor::new(&v.ct), v.aead, &v.key, &v.ctx);
        let Some(mut reader) = header_result(&v, "small reads", built) else {
            continue;
        };
        let mut out = Vec::new();
        let mut piece = [0u8; 1000];
        let result = loop {
            match reader.read(&mut piece) {
                Ok(0) => break Ok(()),
                Ok(n) => out.extend_from_slice(&piece[..n]),
                Err(e) => break Err(Error::from(e)),
            }
        };
        v.check("small reads", &out, result);
    }
}

#[test]
fn wycheproof_parallel() {
    for v in vectors() {
        for threads in [1, 2, 3] {
            let mut input = Cursor::new(&v.ct);
            let built = chunked::read_header(&mut input, v.aead, &v.key, &v.ctx);
            let Some(key) = header_result(&v, "parallel", built) else {
                continue;
            };
            let mut out = Vec::new();
            let result = chunked::decrypt_parallel(&key, input, &mut out, threads);
            if let Ok(n) = result {
                assert_eq!(n as usize, out.len());
            }
            v.check(&format!("parallel/{threads}"), &out, result.map(|_| ()));
            assert_eq!(out.len(), v.msg_len, "tcId {}: prefix", v.id);
        }
    }
}

#[test]
fn wycheproof_random_access_whole_message() {
    for v in vectors() {
        let built = SeekReader::new(Cursor::new(&v.ct), v.aead, &v.key, &v.ctx);
        let Some(mut reader) = header_result(&v, "seek", built) else {
            continue;
        };
        let (out, result) = drain(&mut reader);
        v.check("seek", &out, result);
    }
}

#[test]
fn wycheproof_random_access_length_from_the_end() {
    for v in vectors() {
        let built = SeekReader::new(Cursor::new(&v.ct), v.aead, &v.key, &v.ctx);
        let Some(mut reader) = header_result(&v, "seek end", built) else {
            continue;
        };
        match reader.seek(SeekFrom::End(0)) {
            Ok(len) => {
                assert!(
                    v.valid || v.has("ValidFinalChunk"),
                    "tcId {}: length of an invalid message authenticated",
                    v.id
                );
                if v.valid {
                    assert_eq!(len as usize, v.msg_len, "tcId {}", v.id);
                }
            }
            Err(e) => assert!(!v.valid, "tcId {}: valid length rejected: {e}", v.id),
        }
    }
}

#[test]
fn wycheproof_random_access_reads_match_the_stream() {
    for v in vectors().into_iter().filter(|v| v.valid) {
        let mut whole = Vec::new();
        DecryptReader::new(Cursor::new(&v.ct), v.aead, &v.key, &v.ctx)
            .expect("header")
            .read_to_end(&mut whole)
            .expect("valid");
        let mut reader =
            SeekReader::new(Cursor::new(&v.ct), v.aead, &v.key, &v.ctx).expect("header");
        let len = whole.len() as u64;
        let c = chunked::CHUNK_LEN as u64;
        for start in [
            0,
            1,
            c - 1,
            c,
            c + 1,
            len / 2,
            len.saturating_sub(1),
            len,
            len + 5,
        ] {
            for want in [1u64, 7, c + 3] {
                reader.seek(SeekFrom::Start(start)).expect("seek");
                let mut got = Vec::new();
                (&mut reader)
                    .take(want)
                    .read_to_end(&mut got)
                    .expect("read");
                let s = start.min(len) as usize;
                let e = (start + want).min(len) as usize;
                assert_eq!(got, whole[s..e.max(s)], "tcId {} at {start}+{want}", v.id);
            }
        }
        let from_end = reader.seek(SeekFrom::End(-1));
        if len > 0 {
            assert_eq!(from_end.expect("seek"), len - 1);
        } else {
            assert!(from_end.is_err(), "tcId {}: seek before the start", v.id);
        }
    }
}

#[test]
fn wycheproof_raw_mode() {
    for v in vectors() {
        let Some((aead_key, nonce)) = &v.raw else {
            assert!(v.has("HeaderFailure"), "tcId {} lacks raw keys", v.id);
            continue;
        };
        let body = &v.ct[HEADER_LEN.min(v.ct.len())..];
        let key = || MessageKey::raw(v.aead, aead_key, nonce).expect("raw key");
        let (out, result) = drain(&mut DecryptReader::raw(Cursor::new(body), key()));
        v.check("raw", &out, result);
        let mut reader = SeekReader::raw(Cursor::new(body), key()).expect("seekable");
        let (out, result) = drain(&mut reader);
        v.check("raw seek", &out, result);
    }
}

#[test]
fn encryption_reproduces_the_valid_vectors() {
    for v in vectors().into_iter().filter(|v| v.valid) {
        let mut message = Vec::new();
        DecryptReader::new(Cursor::new(&v.ct), v.aead, &v.key, &v.ctx)
            .expect("header")
            .read_to_end(&mut message)
            .expect("valid");
        let salt: chunked::Salt = v.ct[..chunked::SALT_LEN].try_into().expect("salt");

        let mut writer =
            EncryptWriter::with_salt(Vec::new(), v.aead, &v.key, &v.ctx, &salt).expect("writer");
        writer.write_all(&message).expect("write");
        assert!(
            writer.finish().expect("finish") == v.ct,
            "tcId {}: stream",
            v.id
        );

        let (key, header) = chunked::seal_header(v.aead, &v.key, &v.ctx, &salt).expect("header");
        let mut parallel = header.to_vec();
        chunked::encrypt_parallel(&key, &message[..], &mut parallel, 2).expect("parallel");
        assert!(parallel == v.ct, "tcId {}: parallel", v.id);

        let (aead_key, nonce) = v.raw.as_ref().expect("raw keys");
        let raw = MessageKey::raw(v.aead, aead_key, nonce).expect("raw key");
        let mut writer = EncryptWriter::raw(Vec::new(), raw);
        writer.write_all(&message).expect("write");
        assert!(
            writer.finish().expect("finish") == v.ct[HEADER_LEN..],
            "tcId {}: raw",
            v.id
        );
    }
}

/// Lengths around every boundary the format and the parallel batches have.
const LENGTHS: [usize; 12] = [
    0,
    1,
    16383,
    16384,
    16385,
    32768,
    64 * 16384 - 1,
    64 * 16384,
    64 * 16384 + 1,
    130 * 16384,
    200 * 16384 + 77,
    3 * 64 * 16384 + 5,
];

#[test]
fn parallel_encryption_is_byte_identical_to_sequential() {
    let mut rng = Rng(0xc0bb1e);
    for aead in Aead::ALL {
        let key = rng.bytes(aead.key_len());
        for len in LENGTHS {
            let message = rng.bytes(len);
            let salt: chunked::Salt = rng.bytes(24).try_into().expect("salt");
            let mut writer =
                EncryptWriter::with_salt(Vec::new(), aead, &key, b"ctx", &salt).expect("writer");
            // Pieces of awkward sizes exercise the buffering.
            for piece in message.chunks(10_000) {
                writer.write_all(piece).expect("write");
            }
            let sequential = writer.finish().expect("finish");
            let overhead = 56 + 16 * (len / 16384 + 1);
            assert_eq!(sequential.len(), len + overhead, "{len}");
            for threads in [1, 2, 4] {
                let (k, header) = chunked::seal_header(aead, &key, b"ctx", &salt).expect("header");
                let mut parallel = header.to_vec();
                let n = chunked::encrypt_parallel(&k, &message[..], &mut parallel, threads)
                    .expect("parallel");
                assert_eq!(n as usize, len);
                assert!(
                    parallel == sequential,
                    "{} {len} bytes, {threads} threads",
                    aead.name()
                );

                let mut input = Cursor::new(&sequential);
                let k = chunked::read_header(&mut input, aead, &key, b"ctx").expect("header");
                let mut back = Vec::new();
                chunked::decrypt_parallel(&k, input, &mut back, threads).expect("decrypt");
                assert!(back == message, "{len} bytes back, {threads} threads");
            }
        }
    }
}

/// A file in the temporary directory, removed when dropped.
struct TempFile(std::path::PathBuf);

impl TempFile {
    fn new(name: &str, contents: &[u8]) -> TempFile {
        let path = std::env::temp_dir().join(format!("aekit-{}-{name}", std::process::id()));
        std::fs::write(&path, contents).expect("write temp file");
        TempFile(path)
    }

    fn open(&self) -> std::fs::File {
        std::fs::File::open(&self.0).expect("open temp file")
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

#[cfg(unix)]
#[test]
fn parallel_file_by_position_is_byte_identical_to_sequential() {
    let mut rng = Rng(0xf11e);
    let key = rng.bytes(16);
    let aead = Aead::Aes128Gcm;
    for len in LENGTHS {
        let message = rng.bytes(len);
        let salt: chunked::Salt = rng.bytes(24).try_into().expect("salt");
        let mut writer =
            EncryptWriter::with_salt(Vec::new(), aead, &key, b"ctx", &salt).expect("writer");
        writer.write_all(&message).expect("write");
        let sequential = writer.finish().expect("finish");
        // The plaintext after a few bytes that are not part of it.
        let mut prefixed = b"skip".to_vec();
        prefixed.extend_from_slice(&message);
        let plain = TempFile::new(&format!("plain-{len}"), &prefixed);
        let sealed = TempFile::new(&format!("sealed-{len}"), &sequential);
        for threads in [1, 2, 3] {
            let (k, header) = chunked::seal_header(aead, &key, b"ctx", &salt).expect("header");
            let mut parallel = header.to_vec();
            let n = chunked::encrypt_parallel_at(&k, &plain.open(), 4, &mut parallel, threads)
                .expect("parallel");
            assert_eq!(n as usize, len);
            assert!(parallel == sequential, "{len} bytes, {threads} threads");

            let mut file = sealed.open();
            let k = chunked::read_header(&mut file, aead, &key, b"ctx").expect("header");
            let offset = file.stream_position().expect("position");
            let mut back = Vec::new();
            let n = chunked::decrypt_parallel_at(&k, &file, offset, &mut back, threads)
                .expect("decrypt");
            assert_eq!(n as usize, len);
            assert!(back == message, "{len} bytes back, {threads} threads");
        }
    }
}

#[cfg(unix)]
#[test]
fn damaged_files_by_position_fail_as_the_stream_does() {
    let mut rng = Rng(0xbad);
    let key = rng.bytes(16);
    let aead = Aead::Aes128Gcm;
    let sealed = chunked::SEALED_CHUNK_LEN;
    let batch = 64 * sealed;
    for len in [3 * 64 * 16384, 3 * 64 * 16384 + 100] {
        let message = rng.bytes(len);
        let mut writer = EncryptWriter::new(Vec::new(), aead, &key, b"").expect("writer");
        writer.write_all(&message).expect("write");
        let good = writer.finish().expect("finish");
        let body_end = good.len();
        let mut damaged: Vec<(String, Vec<u8>)> = Vec::new();
        for at in [
            0,
            batch - 1,
            batch,
            2 * batch + 7,
            body_end - HEADER_LEN - 1,
        ] {
            let mut flipped = good.clone();
            flipped[HEADER_LEN + at] ^= 1;
            damaged.push((format!("flipped at {at}"), flipped));
        }
        for cut in [
            HEADER_LEN + batch,
            HEADER_LEN + batch + 10,
            HEADER_LEN + 2 * batch - 1,
            body_end - 1,
        ] {
            damaged.push((format!("cut at {cut}"), good[..cut].to_vec()));
        }
        let mut extended = good.clone();
        extended.extend_from_slice(&[0; 20]);
        damaged.push(("extended".into(), extended));
        let mut extended = good.clone();
        extended.extend_from_slice(&vec![0; batch + 3]);
        damaged.push(("extended by a batch".into(), extended));
        for (name, ct) in damaged {
            // What the streaming reader releases and how it fails: code
            // the parallel decryptors share nothing with.
            let mut reader = DecryptReader::new(Cursor::new(&ct), aead, &key, b"").expect("header");
            let (expected_out, expected) = drain(&mut reader);
            let expected = format!("{:?}", expected.expect_err(&name));
            let k = chunked::read_header(&mut Cursor::new(&ct), aead, &key, b"").expect("header");
            let file = TempFile::new("damaged", &ct);
            for threads in [1, 2, 3] {
                let mut out = Vec::new();
                let result = chunked::decrypt_parallel_at(
                    &k,
                    &file.open(),
                    HEADER_LEN as u64,
                    &mut out,
                    threads,
                );
                assert_eq!(
                    format!("{:?}", result.expect_err(&name)),
                    expected,
                    "{len} bytes {name}, {threads} threads"
                );
                assert!(
                    out == expected_out,
                    "{len} bytes {name}, {threads} threads: output"
                );
            }
        }
    }
}

#[test]
fn tampering_fails_every_reader_the_same_way() {
    let mut rng = Rng(7);
    let key = rng.bytes(16);
    let message = rng.bytes(5 * 16384 + 100);
    let mut writer = EncryptWriter::new(Vec::new(), Aead::Aes128Gcm, &key, b"").expect("writer");
    writer.write_all(&message).expect("write");
    let good = writer.finish().expect("finish");
    let sealed = chunked::SEALED_CHUNK_LEN;

    let mut flipped = good.clone();
    flipped[HEADER_LEN + 2 * sealed + 5] ^= 1;
    let mut swapped = good.clone();
    swapped[HEADER_LEN..HEADER_LEN + 2 * sealed].rotate_left(sealed);
    let mut extended = good.clone();
    extended.extend_from_slice(&[0; 20]);
    type Expected = fn(&Error) -> bool;
    let cases: [(&str, &[u8], Expected); 6] = [
        ("flipped", &flipped, |e| {
            matches!(
                e,
                Error::Authentication {
                    chunk: 2,
                    last: false
                }
            )
        }),
        ("swapped", &swapped, |e| {
            matches!(
                e,
                Error::Authentication {
                    chunk: 0,
                    last: false
                }
            )
        }),
        ("extended", &extended, |e| {
            matches!(
                e,
                Error::Authentication {
                    chunk: 5,
                    last: true
                }
            )
        }),
        ("cut in a chunk", &good[..good.len() - 10], |e| {
            matches!(
                e,
                Error::Authentication {
                    chunk: 5,
                    last: true
                }
            )
        }),
        ("cut at a chunk", &good[..HEADER_LEN + 5 * sealed], |e| {
            matches!(e, Error::Truncated)
        }),
        ("cut in the header", &good[..40], |e| {
            matches!(e, Error::Truncated)
        }),
    ];
    for (name, ct, expected) in cases {
        let stream = DecryptReader::new(Cursor::new(ct), Aead::Aes128Gcm, &key, b"")
            .and_then(|mut r| drain(&mut r).1);
        let mut input = Cursor::new(ct);
        let parallel = chunked::read_header(&mut input, Aead::Aes128Gcm, &key, b"")
            .and_then(|k| chunked::decrypt_parallel(&k, input, std::io::sink(), 2).map(|_| ()));
        let at =
            chunked::read_header(&mut Cursor::new(ct), Aead::Aes128Gcm, &key, b"").and_then(|k| {
                chunked::decrypt_parallel_at(&k, ct, HEADER_LEN as u64, std::io::sink(), 2)
                    .map(|_| ())
            });
        let seek = SeekReader::new(Cursor::new(ct), Aead::Aes128Gcm, &key, b"")
            .and_then(|mut r| drain(&mut r).1);
        let readers = [
            ("stream", stream),
            ("parallel", parallel),
            ("parallel at", at),
            ("seek", seek),
        ];
        for (how, result) in readers {
            match result {
                Err(e) if expected(&e) => {}
                other => panic!("{name} via {how}: {other:?}"),
            }
        }
    }
    let wrong = DecryptReader::new(Cursor::new(&good), Aead::Aes128Gcm, &[0; 16], b"");
    assert!(matches!(wrong.err(), Some(Error::Commitment)));
    let wrong_ctx = DecryptReader::new(Cursor::new(&good), Aead::Aes128Gcm, &key, b"x");
    assert!(matches!(wrong_ctx.err(), Some(Error::Commitment)));
}

#[test]
fn a_writer_dropped_without_finish_leaves_a_truncated_message() {
    let key = [1u8; 32];
    let mut out = Vec::new();
    let mut writer =
        EncryptWriter::with_salt(&mut out, Aead::Aes256Gcm, &key, b"", &[0; 24]).expect("writer");
    writer.write_all(&[9u8; 40_000]).expect("write");
    drop(writer);
    let (_, result) = drain(
        &mut DecryptReader::new(Cursor::new(&out), Aead::Aes256Gcm, &key, b"").expect("header"),
    );
    assert!(matches!(result, Err(Error::Truncated)), "{result:?}");
}

/// An inner writer that records what it is given in `out` (shared, to be
/// read once the writer is gone), takes `take` bytes of the write numbered
/// `fail_at` (counting from 1) and fails the write after them; every other
/// write succeeds.
struct FailingWrite {
    out: std::rc::Rc<std::cell::RefCell<Vec<u8>>>,
    writes: usize,
    fail_at: usize,
    take: usize,
}

impl Write for FailingWrite {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        self.writes += 1;
        let failing = self.fail_at + usize::from(self.take > 0);
        if self.writes == failing {
            return Err(std::io::ErrorKind::TimedOut.into());
        }
        let n = if self.writes == self.fail_at {
            self.take.min(data.len())
        } else {
            data.len()
        };
        self.out.borrow_mut().extend_from_slice(&data[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Once writing a sealed chunk failed (wholly, or after part of it went
/// out), every later `write`, `flush` and `finish` fails, also through a
/// `BufWriter` (whose drop writes what it holds again), and no run of the
/// plaintext reaches the inner writer: sealing the chunk again under its
/// nonce would give the plaintext back.
#[test]
fn a_failed_chunk_write_is_never_retried() {
    let key = [3u8; 16];
    let plaintext = Rng(0xfa11).bytes(2 * 16384 + 100);
    // Write 1 is the header, write 2 the first chunk.
    for take in [0, 5000] {
        let out = std::rc::Rc::default();
        let inner = FailingWrite {
            out: std::rc::Rc::clone(&out),
            writes: 0,
            fail_at: 2,
            take,
        };
        let mut writer =
            EncryptWriter::with_salt(inner, Aead::Aes128Gcm, &key, b"", &[0; 24]).expect("writer");
        writer.write_all(&plaintext[..16384]).expect("buffered");
        let first = writer.write(&plaintext[16384..]);
        let kind = first.expect_err("the chunk's write fails").kind();
        assert_eq!(kind, std::io::ErrorKind::TimedOut, "take {take}");
        for _ in 0..3 {
            assert!(
                writer.write(&plaintext[16384..]).is_err(),
                "take {take}: write again"
            );
            assert!(writer.flush().is_err(), "take {take}: flush");
        }
        assert!(
            matches!(writer.finish(), Err(Error::Io(_))),
            "take {take}: finish"
        );

        let inner = FailingWrite {
            out: std::rc::Rc::clone(&out),
            writes: 0,
            fail_at: 2,
            take,
        };
        let writer =
            EncryptWriter::with_salt(inner, Aead::Aes128Gcm, &key, b"", &[0; 24]).expect("writer");
        let mut buffered = std::io::BufWriter::with_capacity(100, writer);
        assert!(
            buffered.write_all(&plaintext).is_err(),
            "take {take}: BufWriter"
        );
        drop(buffered);

        let out = out.borrow();
        assert_eq!(out.len(), 2 * (HEADER_LEN + take), "take {take}: written");
        let leaked = out
            .windows(32)
            .any(|w| plaintext.windows(32).any(|p| p == w));
        assert!(!leaked, "take {take}: plaintext written");
    }
}

/// `flush` seals and writes a full chunk at once (a peer reading the
/// stream gets it without waiting for more data), and the message is the
/// same bytes as without the flush.
#[test]
fn flush_writes_a_full_chunk() {
    let key = [4u8; 32];
    let plaintext = Rng(0xf1).bytes(16384);
    let out = std::rc::Rc::default();
    let recording = FailingWrite {
        out: std::rc::Rc::clone(&out),
        writes: 0,
        fail_at: usize::MAX,
        take: 0,
    };
    let mut writer =
        EncryptWriter::with_salt(recording, Aead::Aes256Gcm, &key, b"", &[5; 24]).expect("writer");
    writer.write_all(&plaintext).expect("write");
    assert_eq!(out.borrow().len(), HEADER_LEN, "buffered");
    writer.flush().expect("flush");
    assert_eq!(
        out.borrow().len(),
        HEADER_LEN + 16384 + 16,
        "the chunk went out"
    );
    writer.finish().expect("finish");
    let mut writer =
        EncryptWriter::with_salt(Vec::new(), Aead::Aes256Gcm, &key, b"", &[5; 24]).expect("writer");
    writer.write_all(&plaintext).expect("write");
    let unflushed = writer.finish().expect("finish");
    assert_eq!(*out.borrow(), unflushed);
    let (opened, result) = drain(
        &mut DecryptReader::new(Cursor::new(&unflushed), Aead::Aes256Gcm, &key, b"").unwrap(),
    );
    assert!(result.is_ok() && opened == plaintext);
}
