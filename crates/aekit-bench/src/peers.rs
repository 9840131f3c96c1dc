//! `peers`: aekit's default AES-GCM beside aws-lc-rs, ring and RustCrypto's
//! `aes-gcm`, measured in one run, interleaved, best of N.
//!
//! For AES-128-GCM and AES-256-GCM, encryption and decryption, at sizes
//! chosen for what they stand for: 16 B (a small record), 64 B (a packet
//! header's worth), 256 B, 1 KiB (the IPsec benchmarks' packet), 8 KiB and
//! 16 KiB (TLS records), 1 MiB (bulk). Every implementation encrypts in
//! place with a 12-byte nonce, no associated data and a 16-byte tag, and
//! decrypts with the tag checked — the work a real caller pays for.
//!
//! Decryption in place turns the buffer into plaintext, so each decrypting
//! case keeps its own buffer and two tags: counter-mode decryption of P
//! under one nonce gives P ⊕ keystream, and decrypting that again gives P
//! back, so the buffer alternates between two valid ciphertexts whose tags
//! are computed up front. Every timed decryption verifies.

use std::hint::black_box;

use aekit::AesGcm;
use aes_gcm::aead::consts::{U12, U16};
use aes_gcm::aead::{AeadInOut, KeyInit};

use crate::harness::{self, Case, Sample, size_label};

/// Sizes measured, in bytes.
const SIZES: [usize; 7] = [16, 64, 256, 1024, 8192, 16384, 1 << 20];
/// The peers, in the order of the table.
const PEERS: [&str; 3] = ["aws-lc-rs", "ring", "aes-gcm"];
const NONCE: [u8; 12] = [7; 12];

#[derive(Clone, Copy, PartialEq)]
enum Direction {
    Encrypt,
    Decrypt,
}

impl Direction {
    fn name(self) -> &'static str {
        match self {
            Direction::Encrypt => "encrypt",
            Direction::Decrypt => "decrypt",
        }
    }
}

/// Runs the comparison and prints its tables. `quick` takes fewer rounds.
pub fn run(quick: bool) {
    let rounds = if quick { 5 } else { 15 };
    println!("# aekit beside its peers: AES-GCM, one core\n");
    println!("CPU: {}", harness::cpu_model());
    println!(
        "TSC: {:.3} GHz (cycles below are TSC cycles)",
        harness::tsc_ghz(std::time::Duration::from_millis(50))
    );
    println!(
        "aekit default: {}",
        AesGcm::new(&[0; 32])
            .map(|g| g.implementation())
            .unwrap_or_default()
    );
    println!(
        "best of {rounds} interleaved rounds after warm-up; 12-byte nonce, no AAD, 16-byte tag\n"
    );

    let mut summary = Vec::new();
    for key_len in [16, 32] {
        let aead = if key_len == 16 {
            "AES-128-GCM"
        } else {
            "AES-256-GCM"
        };
        let key: Vec<u8> = (0..key_len as u8)
            .map(|i| i.wrapping_mul(29) ^ 0x3c)
            .collect();
        for op in [Direction::Encrypt, Direction::Decrypt] {
            println!("## {aead} {}\n", op.name());
            println!("| size | implementation | GB/s | ns/op | TSC cycles/B |");
            println!("|---:|---|---:|---:|---:|");
            for size in SIZES {
                let mut cases = vec![aekit_case(&key, op, size)];
                cases.extend(PEERS.iter().map(|&p| peer_case(p, &key, op, size)));
                let best = harness::measure(&mut cases, size, rounds);
                for (case, sample) in cases.iter().zip(&best) {
                    match sample {
                        Some(s) => println!(
                            "| {} | {} | {:.2} | {:.1} | {:.3} |",
                            size_label(size),
                            case.name,
                            s.gb_per_s(),
                            s.ns_per_op,
                            s.tsc_per_byte()
                        ),
                        None => {
                            println!("| {} | {} | unavailable | | |", size_label(size), case.name)
                        }
                    }
                }
                summary.push((aead, op, size, best));
            }
            println!();
        }
    }
    print_summary(&summary);
}

/// One line per (AEAD, operation, size): aekit against the best peer and
/// against aws-lc-rs.
fn print_summary(rows: &[(&str, Direction, usize, Vec<Option<Sample>>)]) {
    println!("## Summary: aekit / peers (higher is better for aekit)\n");
    println!(
        "| AEAD | op | size | aekit GB/s | best peer | best peer GB/s | aekit / best peer | aekit / aws-lc-rs |"
    );
    println!("|---|---|---:|---:|---|---:|---:|---:|");
    for (aead, op, size, best) in rows {
        let Some(ours) = best[0] else { continue };
        let peer = best[1..]
            .iter()
            .enumerate()
            .filter_map(|(i, s)| s.map(|s| (PEERS[i], s)))
            .min_by(|a, b| a.1.ns_per_op.total_cmp(&b.1.ns_per_op));
        let aws = best[1].map(|s| s.ns_per_op / ours.ns_per_op);
        match peer {
            Some((name, s)) => println!(
                "| {aead} | {} | {} | {:.2} | {name} | {:.2} | {:.2}× | {} |",
                op.name(),
                size_label(*size),
                ours.gb_per_s(),
                s.gb_per_s(),
                s.ns_per_op / ours.ns_per_op,
                aws.map(|r| format!("{r:.2}×"))
                    .unwrap_or_else(|| "–".into()),
            ),
            None => println!(
                "| {aead} | {} | {} | {:.2} | none | | | |",
                op.name(),
                size_label(*size),
                ours.gb_per_s()
            ),
        }
    }
}

/// Prepares a decrypting case: its own buffer, alternating between two
/// ciphertexts, and their two tags (see the module header).
struct Alternating {
    buf: Vec<u8>,
    tags: [Vec<u8>; 2],
    turn: usize,
}

impl Alternating {
    /// `seal` encrypts in place and returns the tag.
    fn new(size: usize, mut seal: impl FnMut(&mut [u8]) -> Vec<u8>) -> Alternating {
        // Sealing P gives C = P ⊕ KS and T(C); sealing C gives P again and
        // T(P), the tag under which P itself is a valid ciphertext.
        let mut buf = vec![0xa5u8; size];
        let tag_of_c = seal(&mut buf);
        let tag_of_p = seal(&mut buf.clone());
        Alternating {
            buf,
            tags: [tag_of_c, tag_of_p],
            turn: 0,
        }
    }

    /// Decrypts in place with the tag of what the buffer now holds.
    fn step(&mut self, open: impl FnOnce(&mut [u8], &[u8]) -> bool) {
        let ok = open(&mut self.buf, &self.tags[self.turn]);
        assert!(ok, "a benchmark decryption failed to verify");
        self.turn ^= 1;
    }
}

/// One AES-GCM implementation as the benchmark drives it: seal in place
/// and return the tag, open in place and say whether the tag verified —
/// always with [`NONCE`], no associated data and 16-byte tags.
trait Gcm {
    fn seal(&self, buf: &mut [u8]) -> [u8; 16];
    fn open(&self, buf: &mut [u8], tag: &[u8]) -> bool;
}

impl Gcm for AesGcm {
    fn seal(&self, buf: &mut [u8]) -> [u8; 16] {
        let tag = self.encrypt_in_place_detached(&NONCE, &[], buf, 16);
        tag.expect("seal").as_bytes().try_into().expect("16 bytes")
    }

    fn open(&self, buf: &mut [u8], tag: &[u8]) -> bool {
        self.decrypt_in_place_detached(&NONCE, &[], buf, tag)
            .is_ok()
    }
}

impl Gcm for aws_lc_rs::aead::LessSafeKey {
    fn seal(&self, buf: &mut [u8]) -> [u8; 16] {
        use aws_lc_rs::aead::{Aad, Nonce};
        let nonce = Nonce::assume_unique_for_key(NONCE);
        let tag = self.seal_in_place_separate_tag(nonce, Aad::empty(), buf);
        tag.expect("seal").as_ref().try_into().expect("16 bytes")
    }

    fn open(&self, buf: &mut [u8], tag: &[u8]) -> bool {
        use aws_lc_rs::aead::{Aad, Nonce};
        let nonce = Nonce::assume_unique_for_key(NONCE);
        self.open_in_place_separate_tag(nonce, Aad::empty(), tag, buf)
            .is_ok()
    }
}

impl Gcm for ring::aead::LessSafeKey {
    fn seal(&self, buf: &mut [u8]) -> [u8; 16] {
        use ring::aead::{Aad, Nonce};
        let nonce = Nonce::assume_unique_for_key(NONCE);
        let tag = self.seal_in_place_separate_tag(nonce, Aad::empty(), buf);
        tag.expect("seal").as_ref().try_into().expect("16 bytes")
    }

    fn open(&self, buf: &mut [u8], tag: &[u8]) -> bool {
        use ring::aead::{Aad, Nonce, Tag};
        let nonce = Nonce::assume_unique_for_key(NONCE);
        let tag = Tag::try_from(tag).expect("16-byte tag");
        self.open_in_place_separate_tag(nonce, Aad::empty(), tag, buf, 0..)
            .is_ok()
    }
}

/// The `aes-gcm` crate, either key size.
struct RustCrypto<C>(C);

impl<C: AeadInOut<NonceSize = U12, TagSize = U16>> Gcm for RustCrypto<C> {
    fn seal(&self, buf: &mut [u8]) -> [u8; 16] {
        let nonce = aes_gcm::Nonce::from(NONCE);
        let tag = self.0.encrypt_inout_detached(&nonce, &[], buf.into());
        tag.expect("seal").into()
    }

    fn open(&self, buf: &mut [u8], tag: &[u8]) -> bool {
        let nonce = aes_gcm::Nonce::from(NONCE);
        let tag = aes_gcm::Tag::try_from(tag).expect("16-byte tag");
        self.0
            .decrypt_inout_detached(&nonce, &[], buf.into(), &tag)
            .is_ok()
    }
}

/// The timed operation for one implementation: sealing the harness's
/// buffer, or opening the alternating ciphertexts (see the module header).
fn case<'a>(name: String, gcm: Box<dyn Gcm + 'a>, op: Direction, size: usize) -> Case<'a> {
    let run: harness::Op<'a> = match op {
        Direction::Encrypt => Box::new(move |buf: &mut [u8]| {
            black_box(gcm.seal(buf));
        }),
        Direction::Decrypt => {
            let mut alt = Alternating::new(size, |b| gcm.seal(b).to_vec());
            Box::new(move |_: &mut [u8]| alt.step(|b, t| gcm.open(b, t)))
        }
    };
    Case { name, run: Ok(run) }
}

fn aekit_case<'a>(key: &[u8], op: Direction, size: usize) -> Case<'a> {
    match AesGcm::new(key) {
        Ok(gcm) => case(
            format!("aekit ({})", gcm.implementation()),
            Box::new(gcm),
            op,
            size,
        ),
        Err(e) => Case {
            name: "aekit".into(),
            run: Err(e.to_string()),
        },
    }
}

fn peer_case<'a>(peer: &str, key: &[u8], op: Direction, size: usize) -> Case<'a> {
    let aes128 = key.len() == 16;
    let gcm: Box<dyn Gcm> = match peer {
        "aws-lc-rs" => {
            use aws_lc_rs::aead::{AES_128_GCM, AES_256_GCM, LessSafeKey, UnboundKey};
            let alg = if aes128 { &AES_128_GCM } else { &AES_256_GCM };
            Box::new(LessSafeKey::new(
                UnboundKey::new(alg, key).expect("aws-lc-rs key"),
            ))
        }
        "ring" => {
            use ring::aead::{AES_128_GCM, AES_256_GCM, LessSafeKey, UnboundKey};
            let alg = if aes128 { &AES_128_GCM } else { &AES_256_GCM };
            Box::new(LessSafeKey::new(
                UnboundKey::new(alg, key).expect("ring key"),
            ))
        }
        _ if aes128 => Box::new(RustCrypto(
            aes_gcm::Aes128Gcm::new_from_slice(key).expect("key"),
        )),
        _ => Box::new(RustCrypto(
            aes_gcm::Aes256Gcm::new_from_slice(key).expect("key"),
        )),
    };
    case(peer.to_string(), gcm, op, size)
}
