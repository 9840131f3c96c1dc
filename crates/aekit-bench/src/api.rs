//! What each way of calling aekit's AES-GCM costs, beside Intel ipsec-mb:
//! the Rust call in place and out of place (`encrypt_in_place_detached`,
//! `encrypt_detached_into`, `decrypt_detached_into`), and the C ABI's
//! `aekit_aes_gcm_encrypt` / `aekit_aes_gcm_decrypt` in place and out of
//! place, called through the exported symbols as a C program calls them
//! (the same calling convention; `aekit-ffi` is linked into this binary).
//! ipsec-mb's direct calls on the path of the default kernel's class are
//! the reference: its encryption in place (its out-of-place call takes
//! the same time), its decryption out of place, as aekit's.
//!
//! Messages carry 16 bytes of associated data under a 12-byte IV, as a
//! packet's header would; every form's ciphertext and tag are checked
//! against ipsec-mb's before timing. Every buffer starts on a 64-byte
//! boundary. Every case writes into the one buffer the harness hands it
//! (`size` + 16 bytes, so that the C calls' ciphertext ‖ tag fits), which
//! moves between the harness's placements from one round to the next, so
//! that no case keeps an unlucky address; the inputs of the out-of-place
//! cases stay put. Rejected: an output buffer of each case's own, placed
//! by the case inside the timed call, a cost the in-place cases and
//! ipsec-mb's encryption did not pay (`docs/BENCHMARKS.md`).

use std::rc::Rc;

use aekit::AesGcm;
use aekit_harness::{self as harness, Case, Sample};
use serde_json::json;

use crate::ipsec_mb::{Arch, IpsecMb};
use crate::peers::default_implementation;
use crate::report::{Effort, Report};

use crate::c_abi::Handle;

/// Message sizes unless `--sizes` gives others: a packet's from 16 B to
/// 1500 B, then long messages.
pub(crate) const SIZES: [usize; 7] = [16, 64, 256, 576, 1500, 16 << 10, 1 << 20];

/// Associated data per message.
const AAD: [u8; 16] = [0xa5; 16];

/// The IV of every message.
const IV: [u8; 12] = [0x3c; 12];

/// The forms timed, in the table's column order: encryption first.
const FORMS: [&str; 7] = [
    "Rust in place",
    "Rust out of place",
    "C in place",
    "C out of place",
    "decrypt: Rust out of place",
    "decrypt: C out of place",
    "ipsec-mb decrypt",
];

/// The report: one table per key size, a row per message size.
pub(crate) fn run(effort: Effort, sizes: &[usize]) -> Vec<Report> {
    // More rounds than `peers` takes: differences of a few nanoseconds,
    // on machines whose speed moves by more than that from one second to
    // the next.
    let rounds = if effort.quick { 9 } else { 45 };
    let implementation = default_implementation();
    let arch = Arch::of_class(&implementation).unwrap_or(Arch::Best);
    let mut md = format!(
        "## AES-GCM through each API, beside Intel ipsec-mb\n\n\
         aekit's default (`{implementation}`) called in place and out of place from Rust \
         and through its C ABI (`aekit_aes_gcm_encrypt`, `aekit_aes_gcm_decrypt`: ciphertext \
         ‖ tag), against {} (its direct calls: encryption in place, decryption out of place). 12-byte IV, 16 bytes of AAD, \
         16-byte tag; best of {rounds} interleaved rounds, the buffers moved between four placements in a page \
         from one round to the next. Each cell: ns per message, and \
         ipsec-mb's time over it (above 1: aekit faster).\n\n\
         | AEAD | size | ipsec-mb encrypt ns | {} |\n\
         |---|---:|---:|{}\n",
        arch.name(),
        FORMS.join(" | "),
        "---:|".repeat(FORMS.len()),
    );
    let mut rows = Vec::new();
    // Every (key, size) row's cases, made and checked first; then each
    // round measures every row once, so that each row's best is taken
    // over the whole run rather than over the few seconds its rounds
    // would take in a row.
    let mut table: Vec<(usize, usize, Result<Vec<Case<'static>>, String>)> = Vec::new();
    for key_len in [16usize, 32] {
        let key = vec![0x5au8; key_len];
        for &size in sizes {
            table.push((key_len, size, cases(&key, arch, size)));
        }
    }
    let mut bests: Vec<Vec<Option<Sample>>> = table.iter().map(|_| vec![None; 8]).collect();
    for _ in 0..rounds {
        for ((_, size, cases), best) in table.iter_mut().zip(&mut bests) {
            let Ok(cases) = cases else { continue };
            for (b, s) in best.iter_mut().zip(harness::measure(cases, *size + 16, 1)) {
                if let Some(s) = s
                    && b.is_none_or(|b: Sample| s.ns_per_op < b.ns_per_op)
                {
                    *b = Some(s);
                }
            }
        }
    }
    for ((key_len, size, cases), best) in table.iter().zip(&bests) {
        let (key_len, size) = (*key_len, *size);
        if let Err(e) = cases {
            md.push_str(&format!(
                "| AES-{} | {} | {e} |\n",
                8 * key_len,
                size_name(size)
            ));
            continue;
        }
        let ns = |i: usize| best[i].map(|s: Sample| s.ns_per_op);
        let cell = |i: usize, reference: Option<f64>| match (ns(i), reference) {
            (Some(t), Some(r)) => format!("{t:.1} ({:.2}×)", r / t),
            (Some(t), None) => format!("{t:.1}"),
            _ => "–".into(),
        };
        // Case 0 is ipsec-mb's encryption, case 5 its decryption.
        let (enc, dec) = (ns(0), ns(5));
        let cells: Vec<String> = (1..=4)
            .map(|i| cell(i, enc))
            .chain([
                cell(6, dec),
                cell(7, dec),
                ns(5).map_or("–".into(), |t| format!("{t:.1}")),
            ])
            .collect();
        md.push_str(&format!(
            "| AES-{} | {} | {} | {} |\n",
            8 * key_len,
            size_name(size),
            enc.map_or("–".into(), |t| format!("{t:.1}")),
            cells.join(" | "),
        ));
        rows.push(json!({
            "aead": format!("AES-{}-GCM", 8 * key_len),
            "size": size,
            "ipsec_mb_encrypt_ns": enc,
            "ipsec_mb_decrypt_ns": dec,
            "rust_in_place_ns": ns(1),
            "rust_out_of_place_ns": ns(2),
            "c_in_place_ns": ns(3),
            "c_out_of_place_ns": ns(4),
            "decrypt_rust_out_of_place_ns": ns(6),
            "decrypt_c_out_of_place_ns": ns(7),
        }));
    }
    vec![Report {
        key: "api",
        markdown: md,
        rows,
        plots: Vec::new(),
    }]
}

/// The cases at one size, in the order [ipsec-mb encrypt, the four aekit
/// encryptions, ipsec-mb decrypt, the two aekit decryptions], once every
/// form's output matched ipsec-mb's; else why not, or why ipsec-mb cannot
/// run.
fn cases(key: &[u8], arch: Arch, size: usize) -> Result<Vec<Case<'static>>, String> {
    let ipsec = IpsecMb::new(arch, key)?;
    let gcm = AesGcm::new(key).map_err(|e| e.to_string())?;
    let c = Handle::new(key)?;
    let plaintext: Vec<u8> = (0..size).map(|i| i as u8).collect();
    let mut sealed = plaintext.clone();
    let tag = ipsec.seal_in_place(&IV, &AAD, &mut sealed);
    sealed.extend_from_slice(&tag);
    check(&gcm, &c, &plaintext, &sealed)?;
    let gcm = Rc::new(gcm);
    let c = Rc::new(c);
    let ipsec = Rc::new(ipsec);
    let text = Rc::new(harness::Aligned::new(&plaintext));
    let sealed = Rc::new(harness::Aligned::new(&sealed));
    let mut cases: Vec<Case<'static>> = Vec::new();
    let mut add = |name: &str, op: harness::Op<'static>| {
        cases.push(Case {
            name: name.into(),
            run: Ok(op),
        })
    };
    // Every case writes into the harness's buffer (`size` + 16 bytes,
    // placed anew each round), the in-place ones in its first `size`.
    {
        let ipsec = ipsec.clone();
        add(
            "ipsec-mb encrypt",
            Box::new(move |buf: &mut [u8]| {
                std::hint::black_box(ipsec.seal_in_place(&IV, &AAD, &mut buf[..size]));
            }),
        );
    }
    {
        let gcm = gcm.clone();
        add(
            FORMS[0],
            Box::new(move |buf: &mut [u8]| {
                std::hint::black_box(
                    gcm.encrypt_in_place_detached(&IV, &AAD, &mut buf[..size], 16)
                        .ok(),
                );
            }),
        );
    }
    {
        let (gcm, text) = (gcm.clone(), text.clone());
        add(
            FORMS[1],
            Box::new(move |buf: &mut [u8]| {
                std::hint::black_box(
                    gcm.encrypt_detached_into(&IV, &AAD, &text, &mut buf[..size], 16)
                        .ok(),
                );
            }),
        );
    }
    {
        let c = c.clone();
        add(
            FORMS[2],
            Box::new(move |buf: &mut [u8]| {
                std::hint::black_box(c.encrypt(&IV, &AAD, None, buf));
            }),
        );
    }
    {
        let (c, text) = (c.clone(), text.clone());
        add(
            FORMS[3],
            Box::new(move |buf: &mut [u8]| {
                std::hint::black_box(c.encrypt(&IV, &AAD, Some(&text), buf));
            }),
        );
    }
    {
        let (ipsec, sealed) = (ipsec.clone(), sealed.clone());
        add(
            "ipsec-mb decrypt",
            Box::new(move |buf: &mut [u8]| {
                let (ct, tag) = sealed.split_at(size);
                std::hint::black_box(ipsec.open_from(&IV, &AAD, ct, &mut buf[..size], tag));
            }),
        );
    }
    {
        let (gcm, sealed) = (gcm.clone(), sealed.clone());
        add(
            FORMS[4],
            Box::new(move |buf: &mut [u8]| {
                let (ct, tag) = sealed.split_at(size);
                std::hint::black_box(
                    gcm.decrypt_detached_into(&IV, &AAD, ct, &mut buf[..size], tag)
                        .ok(),
                );
            }),
        );
    }
    {
        let (c, sealed) = (c.clone(), sealed.clone());
        add(
            FORMS[5],
            Box::new(move |buf: &mut [u8]| {
                std::hint::black_box(c.decrypt(&IV, &AAD, &sealed, &mut buf[..size]));
            }),
        );
    }
    Ok(cases)
}

/// Every aekit form against ipsec-mb's `sealed` (ciphertext ‖ tag) of
/// `plaintext`, both directions.
fn check(gcm: &AesGcm, c: &Handle, plaintext: &[u8], sealed: &[u8]) -> Result<(), String> {
    let n = plaintext.len();
    let mismatch = |form: &str| {
        Err(format!(
            "SKIP: aekit's {form} differs from ipsec-mb's output"
        ))
    };
    let mut buf = plaintext.to_vec();
    let tag = gcm
        .encrypt_in_place_detached(&IV, &AAD, &mut buf, 16)
        .map_err(|e| e.to_string())?;
    if buf != sealed[..n] || tag.as_bytes() != &sealed[n..] {
        return mismatch("Rust in place");
    }
    let mut out = vec![0u8; n];
    let tag = gcm
        .encrypt_detached_into(&IV, &AAD, plaintext, &mut out, 16)
        .map_err(|e| e.to_string())?;
    if out != sealed[..n] || tag.as_bytes() != &sealed[n..] {
        return mismatch("Rust out of place");
    }
    let mut out = vec![0u8; n + 16];
    out[..n].copy_from_slice(plaintext);
    if c.encrypt(&IV, &AAD, None, &mut out) != 0 || out != sealed {
        return mismatch("C in place");
    }
    let mut out = vec![0u8; n + 16];
    if c.encrypt(&IV, &AAD, Some(plaintext), &mut out) != 0 || out != sealed {
        return mismatch("C out of place");
    }
    let mut out = vec![0u8; n];
    let (ct, tag) = sealed.split_at(n);
    if gcm
        .decrypt_detached_into(&IV, &AAD, ct, &mut out, tag)
        .is_err()
        || out != plaintext
    {
        return mismatch("Rust decryption");
    }
    let mut out = vec![0u8; n];
    if c.decrypt(&IV, &AAD, sealed, &mut out) != 0 || out != plaintext {
        return mismatch("C decryption");
    }
    Ok(())
}

/// A size as the tables print it: 16 B, 16 KiB, 1 MiB.
fn size_name(size: usize) -> String {
    match size {
        s if s >= 1 << 20 && s % (1 << 20) == 0 => format!("{} MiB", s >> 20),
        s if s >= 1 << 10 && s % (1 << 10) == 0 => format!("{} KiB", s >> 10),
        s => format!("{s} B"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every form agrees with ipsec-mb at sizes around the kernels' paths
    /// and runs as timed; without ipsec-mb, says SKIP.
    #[test]
    fn every_form_matches_ipsec_mb_and_runs() {
        for key_len in [16, 32] {
            let key = vec![7u8; key_len];
            for size in [0, 1, 16, 17, 112, 255, 256, 1500, 4096] {
                let mut cases = match cases(&key, Arch::Best, size) {
                    Err(e) if e.contains("ipsec-mb") && !e.contains("differs") => {
                        eprintln!("SKIP: {e}");
                        return;
                    }
                    Err(e) => panic!("AES-{} at {size} B: {e}", 8 * key_len),
                    Ok(cases) => cases,
                };
                assert_eq!(cases.len(), 8);
                let mut buf = vec![0u8; size + 16];
                for case in &mut cases {
                    (case.run.as_mut().expect("every form runs"))(&mut buf);
                }
            }
        }
    }
}
