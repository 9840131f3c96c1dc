//! Target `chunked_decrypt`: C2SP chunked decryption of bytes an attacker
//! chose, through every reader.
//!
//! The input picks the AEAD, a key of any length, a context, and one of
//! three ciphertexts: raw bytes (header and all); a valid header for the
//! key and context followed by raw chunks; or a message the target seals
//! (up to three full chunks and a short one) and the input then edits
//! ([`tamper`](crate::tamper)). The ciphertext is decrypted by the
//! sequential [`DecryptReader`], by [`decrypt_parallel`] (a stream) and by
//! [`decrypt_parallel_at`] (by position) on one or two threads, and read
//! at random through [`SeekReader`] at positions the input picks, as
//! `aekit decrypt --range` does. The target checks that:
//!
//! - the three whole-message readers release the same bytes and end the
//!   same way;
//! - every chunk released is authentic: resealed under its index it gives
//!   the ciphertext's chunk back byte for byte, so no plaintext ever comes
//!   from a chunk that did not verify;
//! - a sealed message opens to its plaintext when unedited and fails when
//!   edited, releasing only a prefix of the plaintext in whole chunks;
//! - random reads return the plaintext at the position read (or the bytes
//!   the sequential reader released there), and end of file only at the
//!   authenticated end.

use std::io::{Cursor, Read, Seek, SeekFrom};

use aekit::chunked::{
    self, Aead, CHUNK_LEN, DecryptReader, EncryptWriter, HEADER_LEN, MessageKey, SEALED_CHUNK_LEN,
    Salt, SeekReader, TAG_LEN, decrypt_parallel, decrypt_parallel_at, read_header, seal_header,
};

use crate::input::Input;
use crate::tamper;

const MAX_KEY: usize = 40;
const MAX_CONTEXT: usize = 64;
/// The longest message sealed: three full chunks and a short one.
const MAX_MESSAGE: u32 = 3 * CHUNK_LEN as u32 + 1000;
/// Most random reads per input.
const MAX_READS: u8 = 4;

/// How a decryption ended, comparable across readers.
#[derive(Debug, PartialEq, Eq)]
enum End {
    Complete,
    Failed(String),
}

impl From<chunked::Error> for End {
    fn from(e: chunked::Error) -> End {
        End::Failed(format!("{e:?}"))
    }
}

/// Runs the target on one input.
pub fn run(data: &[u8]) {
    let mut input = Input::new(data);
    let aead = if input.byte().is_multiple_of(2) {
        Aead::Aes128Gcm
    } else {
        Aead::Aes256Gcm
    };
    let key = input.bytes(MAX_KEY);
    let context = input.bytes(MAX_CONTEXT);
    let threads = 1 + usize::from(input.byte() % 2);
    let mode = input.byte() % 3;
    let mut salt: Salt = [0; 24];
    let given = input.bytes(salt.len());
    salt[..given.len()].copy_from_slice(given);

    let mut plaintext = None;
    let ciphertext = match mode {
        0 => input.bytes(usize::MAX).to_vec(),
        1 => {
            let Ok((_, header)) = seal_header(aead, key, context, &salt) else {
                return; // a wrong key length: mode 0 covers it
            };
            [&header[..], input.bytes(usize::MAX)].concat()
        }
        _ => {
            let len = input.u32() % (MAX_MESSAGE + 1);
            let fill = input.byte();
            let message: Vec<u8> = (0..len).map(|i| (i % 251) as u8 ^ fill).collect();
            let Ok(mut writer) = EncryptWriter::with_salt(Vec::new(), aead, key, context, &salt)
            else {
                return;
            };
            std::io::Write::write_all(&mut writer, &message).expect("a Vec takes everything");
            let mut sealed = writer.finish().expect("a Vec takes everything");
            let edited = tamper::apply(&mut sealed, &mut input);
            plaintext = Some((message, edited));
            sealed
        }
    };

    let (released, end) = sequential(&ciphertext, aead, key, context);
    for (how, got) in [
        (
            "stream",
            parallel(&ciphertext, aead, key, context, threads, false),
        ),
        (
            "by position",
            parallel(&ciphertext, aead, key, context, threads, true),
        ),
    ] {
        assert_eq!(got.1, end, "{how}: how it ended");
        assert!(got.0 == released, "{how}: released other bytes");
    }
    if end == End::Complete || !released.is_empty() {
        assert_authentic(
            &ciphertext,
            aead,
            key,
            context,
            &released,
            end == End::Complete,
        );
    }
    if let Some((message, edited)) = &plaintext {
        assert!(
            message.starts_with(&released),
            "released bytes not in the message"
        );
        if *edited {
            assert_ne!(end, End::Complete, "an edited ciphertext opened");
            assert_eq!(released.len() % CHUNK_LEN, 0, "part of a chunk released");
        } else {
            assert_eq!(end, End::Complete, "an unedited ciphertext failed");
            assert_eq!(released.len(), message.len());
        }
    }
    let truth = match &plaintext {
        Some((message, _)) => message,
        None => &released,
    };
    random_reads(&ciphertext, aead, key, context, truth, &mut input);
}

/// Everything the sequential reader releases, and how it ends.
fn sequential(ciphertext: &[u8], aead: Aead, key: &[u8], context: &[u8]) -> (Vec<u8>, End) {
    let mut reader = match DecryptReader::new(ciphertext, aead, key, context) {
        Ok(reader) => reader,
        Err(e) => return (Vec::new(), e.into()),
    };
    let mut out = Vec::new();
    // `read_to_end` keeps what it read before an error.
    match reader.read_to_end(&mut out) {
        Ok(_) => (out, End::Complete),
        Err(e) => (out, chunked::Error::from(e).into()),
    }
}

/// Everything a parallel decryptor writes, and how it ends.
fn parallel(
    ciphertext: &[u8],
    aead: Aead,
    key: &[u8],
    context: &[u8],
    threads: usize,
    by_position: bool,
) -> (Vec<u8>, End) {
    let mut input = ciphertext;
    let message_key = match read_header(&mut input, aead, key, context) {
        Ok(k) => k,
        Err(e) => return (Vec::new(), e.into()),
    };
    let mut out = Vec::new();
    let result = if by_position {
        decrypt_parallel_at(
            &message_key,
            ciphertext,
            HEADER_LEN as u64,
            &mut out,
            threads,
        )
    } else {
        decrypt_parallel(&message_key, input, &mut out, threads)
    };
    match result {
        Ok(n) => {
            assert_eq!(n, out.len() as u64, "the length returned");
            (out, End::Complete)
        }
        Err(e) => (out, e.into()),
    }
}

/// Reseals every chunk of `released` (the final one too when the message
/// completed) and checks that it is the ciphertext's chunk at that index.
fn assert_authentic(
    ciphertext: &[u8],
    aead: Aead,
    key: &[u8],
    context: &[u8],
    released: &[u8],
    complete: bool,
) {
    let salt: &Salt = ciphertext[..24].try_into().expect("a header was read");
    let (message_key, header) = seal_header(aead, key, context, salt).expect("the header opened");
    assert_eq!(
        header[..],
        ciphertext[..HEADER_LEN],
        "released under another header"
    );
    let mut chunks: Vec<&[u8]> = released.chunks(CHUNK_LEN).collect();
    if released.len().is_multiple_of(CHUNK_LEN) && complete {
        chunks.push(&[]); // the empty final chunk
    }
    if !complete && !released.len().is_multiple_of(CHUNK_LEN) {
        panic!("a partial chunk released from a message that failed");
    }
    for (index, chunk) in chunks.iter().enumerate() {
        let at = HEADER_LEN + index * SEALED_CHUNK_LEN;
        let mut sealed = [chunk, &[0u8; TAG_LEN][..]].concat();
        reseal(&message_key, index as u64, &mut sealed);
        assert!(
            ciphertext.get(at..at + sealed.len()) == Some(&sealed[..]),
            "chunk {index} released but not the ciphertext's"
        );
    }
}

fn reseal(key: &MessageKey, index: u64, sealed: &mut [u8]) {
    key.seal_chunk(index, sealed).expect("an index in range");
}

/// Seeks and reads through [`SeekReader`] where the input says; what comes
/// back must be `truth` at that position, end of file only past its end.
fn random_reads(
    ciphertext: &[u8],
    aead: Aead,
    key: &[u8],
    context: &[u8],
    truth: &[u8],
    input: &mut Input<'_>,
) {
    let Ok(mut reader) = SeekReader::new(Cursor::new(ciphertext), aead, key, context) else {
        return;
    };
    let authenticated_len = reader.len().ok();
    if let Some(len) = authenticated_len {
        assert!(
            len >= truth.len() as u64,
            "authenticated length {len} too short"
        );
    }
    for _ in 0..input.byte() % (MAX_READS + 1) {
        let whence = input.byte();
        let offset = i64::from(input.u32() as i32);
        let want = usize::from(input.u16());
        let to = match whence % 3 {
            0 => SeekFrom::Start(offset.unsigned_abs()),
            1 => SeekFrom::Current(offset),
            _ => SeekFrom::End(offset),
        };
        let Ok(pos) = reader.seek(to) else { continue };
        let mut buf = vec![0u8; want];
        let mut got = 0;
        let mut eof = false;
        while got < want {
            match reader.read(&mut buf[got..]) {
                Ok(0) => {
                    eof = true;
                    break;
                }
                Ok(n) => got += n,
                Err(_) => break,
            }
        }
        let at = usize::try_from(pos).unwrap_or(usize::MAX);
        let end = at.saturating_add(got);
        if let Some(expected) = truth.get(at..end.min(truth.len())) {
            assert_eq!(&buf[..expected.len()], expected, "random read at {pos}");
        }
        if eof {
            let len = authenticated_len.expect("end of file before the length authenticated");
            assert_eq!(
                end as u64,
                len.max(pos),
                "end of file at {end}, length {len}"
            );
        }
    }
}
