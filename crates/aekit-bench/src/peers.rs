//! `aekit-bench peers`, the one-core table: aekit's AES-GCM beside
//! aws-lc-rs, ring, RustCrypto's `aes-gcm`, OpenSSL and Intel's ipsec-mb
//! (its AVX-512, AVX2 and SSE paths, `ipsec_mb.rs`), measured in one run,
//! interleaved, best of N.
//!
//! For AES-128-GCM and AES-256-GCM, encryption and decryption, at sizes
//! chosen for what they stand for: 16 B (a small record), 64 B (a packet
//! header's worth), 256 B, 1 KiB (the IPsec benchmarks' packet), 1500 B
//! (an Ethernet MTU's packet, off the kernels' 256-byte chunks), 8 KiB and
//! 16 KiB (TLS records), 1 MiB (bulk). Every implementation encrypts in
//! place with a 12-byte nonce, no associated data and a 16-byte tag, and
//! decrypts with the tag checked — the work a real caller pays for.
//!
//! aekit is measured in every implementation class this CPU runs: the
//! default (`AesGcm::new`, the kernel it chose is printed at the top),
//! each other fused kernel the CPU has (`AesGcm::fused`), and the portable
//! constant-time pair `fixslice` + `karatsuba` (`AesGcm::with`) — each
//! row with its ratio to the best peer of that size (above 1: aekit is
//! faster) and to ipsec-mb's path of its class (`vaes-avx512` to AVX-512,
//! `vaes-avx2` to AVX2, `ni-clmul` to SSE). OpenSSL is the system's libssl through the `openssl` crate,
//! one `EVP_CIPHER_CTX` per direction keyed once, its IV reset per message
//! as a caller reusing a context does.
//!
//! Decryption in place turns the buffer into plaintext, so each decrypting
//! case keeps its own buffer and two tags: counter-mode decryption of P
//! under one nonce gives P ⊕ keystream, and decrypting that again gives P
//! back, so the buffer alternates between two valid ciphertexts whose tags
//! are computed up front. Every timed decryption verifies.

use std::cell::RefCell;
use std::hint::black_box;

use aekit::gcm::Fused;
use aekit::{AesGcm, aes, ghash};
use aekit_harness::{self as harness, Case, Sample, size_label};
use aes_gcm::aead::consts::{U12, U16};
use aes_gcm::aead::{AeadInOut, KeyInit};
use serde_json::json;

use crate::ipsec_mb::{Arch, IpsecMb};
use crate::report::{Effort, Report, Series, add_point};

/// Sizes measured, in bytes (see the module header).
const SIZES: [usize; 8] = [16, 64, 256, 1024, 1500, 8192, 16384, 1 << 20];
/// The peers, in the order of the table.
const PEERS: [&str; 7] = [
    "aws-lc-rs",
    "ring",
    "aes-gcm",
    "openssl",
    "ipsec-mb avx512",
    "ipsec-mb avx2",
    "ipsec-mb sse",
];
/// The nonce of every measured message.
pub(crate) const NONCE: [u8; 12] = [7; 12];
/// The key sizes measured: AES-128 and AES-256.
pub(crate) const KEY_LENGTHS: [usize; 2] = [16, 32];

/// Encryption or decryption.
#[derive(Clone, Copy, PartialEq)]
pub(crate) enum Direction {
    Encrypt,
    Decrypt,
}

impl Direction {
    pub(crate) const BOTH: [Direction; 2] = [Direction::Encrypt, Direction::Decrypt];

    pub(crate) fn name(self) -> &'static str {
        match self {
            Direction::Encrypt => "encrypt",
            Direction::Decrypt => "decrypt",
        }
    }
}

/// The AEAD's name for a key length.
pub(crate) fn aead_name(key_len: usize) -> &'static str {
    if key_len == 16 {
        "AES-128-GCM"
    } else {
        "AES-256-GCM"
    }
}

/// The key measured at `key_len` bytes.
pub(crate) fn key(key_len: usize) -> Vec<u8> {
    (0..key_len as u8)
        .map(|i| i.wrapping_mul(29) ^ 0x3c)
        .collect()
}

/// How to build a key in one implementation class.
type Build = Box<dyn Fn(&[u8]) -> Result<AesGcm, aekit::Error>>;

/// One aekit implementation class measured: its row label and how to
/// build a key for it.
struct Class {
    label: String,
    /// ipsec-mb's path of the same class, as its index in [`PEERS`].
    ipsec_mb: Option<usize>,
    build: Build,
}

/// The classes this CPU runs: the default, each other available fused
/// kernel, and `fixslice` + `karatsuba` — each once, by implementation.
fn classes() -> Vec<Class> {
    let probe = [0u8; 16];
    let mut out: Vec<Class> = Vec::new();
    let mut seen = Vec::new();
    let mut add = |label: &dyn Fn(&str) -> String, build: Build| {
        if let Ok(gcm) = build(&probe) {
            let imp = gcm.implementation();
            if !seen.contains(&imp) {
                let ipsec_mb = Arch::of_class(&imp)
                    .and_then(|arch| PEERS.iter().position(|&p| p == arch.name()));
                out.push(Class {
                    label: label(&imp),
                    ipsec_mb,
                    build,
                });
                seen.push(imp);
            }
        }
    };
    add(
        &|imp| format!("aekit default ({imp})"),
        Box::new(AesGcm::new),
    );
    for fused in Fused::ALL.into_iter().filter(|f| f.is_available()) {
        add(
            &|imp| format!("aekit {imp}"),
            Box::new(move |k| AesGcm::fused(k, fused)),
        );
    }
    add(
        &|imp| format!("aekit {imp}"),
        Box::new(|k| AesGcm::with(k, aes::Strategy::Fixslice, ghash::Strategy::Karatsuba)),
    );
    out
}

/// The implementation `AesGcm::new` chooses here, for the header.
pub(crate) fn default_implementation() -> String {
    AesGcm::new(&[0; 16])
        .map(|g| g.implementation())
        .unwrap_or_else(|e| format!("none ({e})"))
}

/// Runs the one-core comparison: a table per (AEAD, direction) and a
/// summary.
pub(crate) fn run(effort: Effort) -> Vec<Report> {
    let rounds = if effort.quick { 5 } else { 15 };
    let classes = classes();
    let mut reports = Vec::new();
    let mut summary = Vec::new();
    for key_len in KEY_LENGTHS {
        let aead = aead_name(key_len);
        let key = key(key_len);
        for op in Direction::BOTH {
            let mut md = format!(
                "## {aead} {}, one core: aekit beside its peers\n\n\
                 Best of {rounds} interleaved rounds; 12-byte nonce, no AAD, 16-byte tag. \
                 The last columns are the row's speed over the best peer's at that size \
                 and over ipsec-mb's path of the row's class (above 1: faster).\n\n\
                 | size | implementation | GB/s | ns/op | TSC cycles/B | / best peer | / ipsec-mb of its class |\n\
                 |---:|---|---:|---:|---:|---:|---:|\n",
                op.name()
            );
            let mut rows = Vec::new();
            let mut series: Vec<Series> = Vec::new();
            for size in SIZES {
                let mut cases: Vec<Case<'_>> = classes
                    .iter()
                    .map(|c| match (c.build)(&key) {
                        Ok(gcm) => case(c.label.clone(), Box::new(gcm), op, size),
                        Err(e) => Case {
                            name: c.label.clone(),
                            run: Err(e.to_string()),
                        },
                    })
                    .collect();
                cases.extend(PEERS.iter().map(|&p| peer_case(p, &key, op, size)));
                let best = harness::measure(&mut cases, size, rounds);
                let peer = best_peer(&best[classes.len()..]);
                for (i, (case, sample)) in cases.iter().zip(&best).enumerate() {
                    let ratio = match (sample, peer) {
                        (Some(s), Some((_, p))) => Some(p.ns_per_op / s.ns_per_op),
                        _ => None,
                    };
                    let of_class = classes
                        .get(i)
                        .and_then(|c| c.ipsec_mb)
                        .and_then(|j| best[classes.len() + j])
                        .zip(*sample)
                        .map(|(p, s)| p.ns_per_op / s.ns_per_op);
                    let times = |r: Option<f64>| r.map_or("–".into(), |r| format!("{r:.2}×"));
                    md.push_str(&match sample {
                        Some(s) => format!(
                            "| {} | {} | {:.2} | {:.1} | {:.3} | {} | {} |\n",
                            size_label(size),
                            case.name,
                            s.gb_per_s(),
                            s.ns_per_op,
                            s.tsc_per_byte(),
                            times(ratio),
                            times(of_class),
                        ),
                        None => format!(
                            "| {} | {} | unavailable: {} | | | | |\n",
                            size_label(size),
                            case.name,
                            case.run.as_ref().err().map_or("", String::as_str),
                        ),
                    });
                    rows.push(json!({
                        "aead": aead,
                        "op": op.name(),
                        "size_bytes": size,
                        "implementation": case.name,
                        "aekit": i < classes.len(),
                        "gb_per_s": sample.map(|s| s.gb_per_s()),
                        "ns_per_op": sample.map(|s| s.ns_per_op),
                        "tsc_cycles_per_byte": sample.map(|s| s.tsc_per_byte()),
                        "best_peer": peer.map(|(name, _)| name),
                        "ratio_to_best_peer": ratio,
                        "ratio_to_ipsec_mb_of_class": of_class,
                    }));
                    if let Some(s) = sample {
                        add_point(&mut series, &case.name, size as f64, s.gb_per_s());
                    }
                }
                summary.push((aead, op, size, peer, best.clone()));
            }
            reports.push(Report::with_sizes_plot(
                report_key(key_len, op),
                md,
                rows,
                series,
            ));
        }
    }
    reports.push(summary_report(&classes, &summary));
    reports
}

/// The key of a table in the JSON output.
fn report_key(key_len: usize, op: Direction) -> &'static str {
    match (key_len, op) {
        (16, Direction::Encrypt) => "peers_aes128_encrypt",
        (16, Direction::Decrypt) => "peers_aes128_decrypt",
        (_, Direction::Encrypt) => "peers_aes256_encrypt",
        (_, Direction::Decrypt) => "peers_aes256_decrypt",
    }
}

/// The fastest peer measured, by name.
fn best_peer(peers: &[Option<Sample>]) -> Option<(&'static str, Sample)> {
    peers
        .iter()
        .enumerate()
        .filter_map(|(i, s)| s.map(|s| (PEERS[i], s)))
        .min_by(|a, b| a.1.ns_per_op.total_cmp(&b.1.ns_per_op))
}

type SummaryRow = (
    &'static str,
    Direction,
    usize,
    Option<(&'static str, Sample)>,
    Vec<Option<Sample>>,
);

/// One line per (AEAD, direction, size): the best peer and every aekit
/// class's ratio to it.
fn summary_report(classes: &[Class], rows: &[SummaryRow]) -> Report {
    let mut md = String::from(
        "## Summary: each aekit class over the best peer (above 1: aekit is faster), \
         in parentheses over ipsec-mb's path of its class\n\n\
         | AEAD | op | size | best peer | GB/s |",
    );
    for c in classes {
        md.push_str(&format!(" {} |", c.label));
    }
    md.push_str("\n|---|---|---:|---|---:|");
    md.push_str(&"---:|".repeat(classes.len()));
    md.push('\n');
    let mut json_rows = Vec::new();
    for (aead, op, size, peer, ours) in rows {
        let Some((name, p)) = peer else { continue };
        md.push_str(&format!(
            "| {aead} | {} | {} | {name} | {:.2} |",
            op.name(),
            size_label(*size),
            p.gb_per_s()
        ));
        for (c, s) in classes.iter().zip(ours) {
            let ratio = s.map(|s| p.ns_per_op / s.ns_per_op);
            let of_class = c
                .ipsec_mb
                .and_then(|j| ours[classes.len() + j])
                .zip(*s)
                .map(|(p, s)| p.ns_per_op / s.ns_per_op);
            md.push_str(&match (ratio, of_class) {
                (Some(r), Some(k)) => format!(" {r:.2}× ({k:.2}×) |"),
                (Some(r), None) => format!(" {r:.2}× |"),
                _ => " – |".to_string(),
            });
            json_rows.push(json!({
                "aead": aead,
                "op": op.name(),
                "size_bytes": size,
                "implementation": c.label,
                "best_peer": name,
                "ratio_to_best_peer": ratio,
                "ratio_to_ipsec_mb_of_class": of_class,
            }));
        }
        md.push('\n');
    }
    Report {
        key: "peers_summary",
        markdown: md,
        rows: json_rows,
        plots: Vec::new(),
    }
}

/// Prepares a decrypting case: its own buffer, alternating between two
/// ciphertexts, and their two tags (see the module header).
struct Alternating {
    buf: Vec<u8>,
    tags: [[u8; 16]; 2],
    turn: usize,
}

impl Alternating {
    /// `seal` encrypts in place and returns the tag.
    fn new(size: usize, mut seal: impl FnMut(&mut [u8]) -> [u8; 16]) -> Alternating {
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
pub(crate) trait Gcm {
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

/// OpenSSL's EVP interface: a context per direction, keyed once; each
/// message resets only the IV (`EVP_CipherInit_ex` with no cipher and no
/// key keeps both).
struct OpenSsl {
    seal: RefCell<openssl::cipher_ctx::CipherCtx>,
    open: RefCell<openssl::cipher_ctx::CipherCtx>,
}

impl OpenSsl {
    fn new(key: &[u8]) -> Result<OpenSsl, openssl::error::ErrorStack> {
        use openssl::cipher::Cipher;
        use openssl::cipher_ctx::CipherCtx;
        let cipher = if key.len() == 16 {
            Cipher::aes_128_gcm()
        } else {
            Cipher::aes_256_gcm()
        };
        let mut seal = CipherCtx::new()?;
        seal.encrypt_init(Some(cipher), Some(key), None)?;
        let mut open = CipherCtx::new()?;
        open.decrypt_init(Some(cipher), Some(key), None)?;
        Ok(OpenSsl {
            seal: RefCell::new(seal),
            open: RefCell::new(open),
        })
    }
}

impl Gcm for OpenSsl {
    fn seal(&self, buf: &mut [u8]) -> [u8; 16] {
        let ctx = &mut *self.seal.borrow_mut();
        let mut tag = [0u8; 16];
        let len = buf.len();
        ctx.encrypt_init(None, None, Some(&NONCE))
            .and_then(|()| ctx.cipher_update_inplace(buf, len))
            .and_then(|_| ctx.cipher_final(&mut []))
            .and_then(|_| ctx.tag(&mut tag))
            .expect("OpenSSL seal");
        tag
    }

    fn open(&self, buf: &mut [u8], tag: &[u8]) -> bool {
        let ctx = &mut *self.open.borrow_mut();
        let len = buf.len();
        ctx.decrypt_init(None, None, Some(&NONCE))
            .and_then(|()| ctx.cipher_update_inplace(buf, len))
            .and_then(|_| ctx.set_tag(tag))
            .and_then(|()| ctx.cipher_final(&mut []))
            .is_ok()
    }
}

impl Gcm for IpsecMb {
    fn seal(&self, buf: &mut [u8]) -> [u8; 16] {
        self.seal_in_place(&NONCE, &[], buf)
    }

    fn open(&self, buf: &mut [u8], tag: &[u8]) -> bool {
        self.open_in_place(&NONCE, &[], buf, tag)
    }
}

/// The timed operation for one implementation: sealing the harness's
/// buffer, or opening the alternating ciphertexts (see the module header).
pub(crate) fn case<'a>(
    name: String,
    gcm: Box<dyn Gcm + 'a>,
    op: Direction,
    size: usize,
) -> Case<'a> {
    let run: harness::Op<'a> = match op {
        Direction::Encrypt => Box::new(move |buf: &mut [u8]| {
            black_box(gcm.seal(buf));
        }),
        Direction::Decrypt => {
            let mut alt = Alternating::new(size, |b| gcm.seal(b));
            Box::new(move |_: &mut [u8]| alt.step(|b, t| gcm.open(b, t)))
        }
    };
    Case { name, run: Ok(run) }
}

/// A peer keyed with `key`, or why it cannot run here.
pub(crate) fn peer(name: &str, key: &[u8]) -> Result<Box<dyn Gcm>, String> {
    let aes128 = key.len() == 16;
    Ok(match name {
        "aws-lc-rs" => {
            use aws_lc_rs::aead::{AES_128_GCM, AES_256_GCM, LessSafeKey, UnboundKey};
            let alg = if aes128 { &AES_128_GCM } else { &AES_256_GCM };
            let key = UnboundKey::new(alg, key).map_err(|e| e.to_string())?;
            Box::new(LessSafeKey::new(key))
        }
        "ring" => {
            use ring::aead::{AES_128_GCM, AES_256_GCM, LessSafeKey, UnboundKey};
            let alg = if aes128 { &AES_128_GCM } else { &AES_256_GCM };
            let key = UnboundKey::new(alg, key).map_err(|e| e.to_string())?;
            Box::new(LessSafeKey::new(key))
        }
        "openssl" => Box::new(OpenSsl::new(key).map_err(|e| e.to_string())?),
        _ if name.starts_with("ipsec-mb") => {
            let arch = Arch::ALL
                .into_iter()
                .find(|a| a.name() == name)
                .ok_or_else(|| format!("no peer {name}"))?;
            Box::new(IpsecMb::new(arch, key)?)
        }
        _ if aes128 => Box::new(RustCrypto(
            aes_gcm::Aes128Gcm::new_from_slice(key).map_err(|e| e.to_string())?,
        )),
        _ => Box::new(RustCrypto(
            aes_gcm::Aes256Gcm::new_from_slice(key).map_err(|e| e.to_string())?,
        )),
    })
}

fn peer_case<'a>(name: &str, key: &[u8], op: Direction, size: usize) -> Case<'a> {
    match peer(name, key) {
        Ok(gcm) => case(name.to_string(), gcm, op, size),
        Err(e) => Case {
            name: name.to_string(),
            run: Err(e),
        },
    }
}

/// Every peer and every aekit class agree on one message: the same tag
/// from each, and each opens what it sealed (run before timing anything,
/// so a table never compares implementations that compute different
/// things).
pub(crate) fn cross_check() -> Result<(), String> {
    for key_len in KEY_LENGTHS {
        let key = key(key_len);
        let mut gcms: Vec<(String, Box<dyn Gcm>)> = classes()
            .into_iter()
            .filter_map(|c| Some((c.label, Box::new((c.build)(&key).ok()?) as Box<dyn Gcm>)))
            .collect();
        // A peer that cannot run here is reported unavailable in its rows.
        for p in PEERS {
            if let Ok(gcm) = peer(p, &key) {
                gcms.push((p.to_string(), gcm));
            }
        }
        let plain: Vec<u8> = (0..1000u32).map(|i| (i * 7) as u8).collect();
        let mut expected: Option<(Vec<u8>, [u8; 16])> = None;
        for (name, gcm) in &gcms {
            let mut buf = plain.clone();
            let tag = gcm.seal(&mut buf);
            let mut back = buf.clone();
            if !gcm.open(&mut back, &tag) || back != plain {
                return Err(format!("{name} does not open what it sealed"));
            }
            match &expected {
                None => expected = Some((buf, tag)),
                Some(e) if *e != (buf, tag) => {
                    return Err(format!("{name} disagrees with {}", gcms[0].0));
                }
                Some(_) => {}
            }
        }
    }
    Ok(())
}
