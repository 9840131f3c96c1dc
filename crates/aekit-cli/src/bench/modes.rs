//! GCM spec Table 3 re-measured: AES-128 modes of operation in TSC cycles
//! per byte at 16, 64, 256, 1024 and 8192 bytes — GCM at each of the
//! spec's storage sizes (64 KiB: `table8`; 8 KiB: `table4`; 4 KiB:
//! `shoup8`; 256 B: `shoup4`) and aekit's fastest, beside CCM, EAX, OCB3
//! and CBC-HMAC-SHA1 from the RustCrypto crates (`ccm`, `eax`, `ocb3`,
//! `cbc` + `hmac` + `sha1`).
//!
//! The spec ran every mode over one AES. RustCrypto's modes take a block
//! cipher through the `cipher` traits, and OCB3 and CBC require the
//! inverse cipher, which aekit (forward-only, as GCM needs) does not have;
//! so the peers run over RustCrypto's `aes` crate, which uses AES-NI where
//! the CPU has it and fixsliced software elsewhere, and the GCM rows run
//! over aekit's AES of the same kind (`ni`, or `fixslice` without AES-NI).
//! Same instructions, not the same code. Encryption is measured, with a
//! 12-byte nonce (16 for EAX), no associated data and a 16-byte tag (20
//! for HMAC-SHA1); the CBC message is PKCS#7-padded, the MAC taken over
//! the ciphertext, and the HMAC key state is set up once, as the spec's
//! "single SHA1 context" is.

use std::hint::black_box;

use aekit::{AesGcm, aes, ghash};
use aekit_harness as harness;
use cbc::cipher::block_padding::Pkcs7;
use cbc::cipher::{BlockModeEncrypt, InnerIvInit};
use ccm::aead::{AeadInOut, KeyInit};
use ccm::consts::{U12, U16};
use hmac::{Hmac, Mac};
use serde_json::json;

use super::seeds::{SPEC_TABLE3, SPEC_TABLE3_SIZES};
use super::{Effort, Report, measure_all};

type Ccm = ccm::Ccm<::aes::Aes128, U16, U12>;
type Eax = eax::Eax<::aes::Aes128>;
type Ocb3 = ocb3::Ocb3<::aes::Aes128, U12>;

/// A row: the seed's mode name, what runs it here, and the operation.
struct Row<'a> {
    mode: &'static str,
    implementation: String,
    op: harness::Op<'a>,
}

fn gcm_row<'a>(mode: &'static str, gcm: &'a AesGcm) -> Row<'a> {
    Row {
        mode,
        implementation: format!("aekit {}", gcm.implementation()),
        op: Box::new(move |buf: &mut [u8]| {
            black_box(gcm.encrypt_in_place_detached(&[7; 12], b"", buf, 16).ok());
        }),
    }
}

fn aead_row<'a, A: AeadInOut>(mode: &'static str, name: &str, aead: &'a A) -> Row<'a> {
    let nonce = aead::Nonce::<A>::default();
    Row {
        mode,
        implementation: name.to_string(),
        op: Box::new(move |buf: &mut [u8]| {
            black_box(aead.encrypt_inout_detached(&nonce, b"", buf.into()).ok());
        }),
    }
}

pub(crate) fn run(effort: Effort) -> Vec<Report> {
    let key = [0x42u8; 16];
    let mac_key = [0x24u8; 20];
    let gcm_aes = if aes::Strategy::Ni.is_available() {
        aes::Strategy::Ni
    } else {
        aes::Strategy::Fixslice
    };
    let build = |g| AesGcm::with(&key, gcm_aes, g).expect("available strategies");
    let gcms = [
        ("GCM, 64Kb storage", build(ghash::Strategy::Table8)),
        ("GCM, 8Kb storage", build(ghash::Strategy::Table4)),
        ("GCM, 4Kb storage", build(ghash::Strategy::Shoup8)),
        ("GCM, 256b storage", build(ghash::Strategy::Shoup4)),
        (
            "GCM, aekit's fastest",
            AesGcm::new(&key).expect("a default"),
        ),
    ];
    let ccm = Ccm::new_from_slice(&key).expect("16-byte key");
    let eax = Eax::new_from_slice(&key).expect("16-byte key");
    let ocb = Ocb3::new_from_slice(&key).expect("16-byte key");
    let block_cipher = <::aes::Aes128 as KeyInit>::new_from_slice(&key).expect("16-byte key");
    let hmac = <Hmac<sha1::Sha1> as KeyInit>::new_from_slice(&mac_key).expect("any key length");

    let mut rows: Vec<Row<'_>> = gcms.iter().map(|(m, g)| gcm_row(m, g)).collect();
    rows.push(aead_row("CCM", "RustCrypto ccm + aes", &ccm));
    rows.push(aead_row("EAX", "RustCrypto eax + aes", &eax));
    rows.push(aead_row("OCB", "RustCrypto ocb3 + aes (OCB3)", &ocb));
    let mut out = vec![0u8; 8192 + 16];
    let (bc, mac) = (&block_cipher, &hmac);
    rows.push(Row {
        mode: "CBC-HMAC-SHA1",
        implementation: "RustCrypto cbc + aes, hmac + sha1".to_string(),
        op: Box::new(move |buf: &mut [u8]| {
            let enc = cbc::Encryptor::<::aes::Aes128>::inner_iv_init(bc.clone(), &[9u8; 16].into());
            let ct = enc
                .encrypt_padded_b2b::<Pkcs7>(buf, &mut out)
                .expect("room for the padding");
            let mut m = mac.clone();
            m.update(ct);
            black_box(m.finalize());
        }),
    });

    let mut cases: Vec<harness::Case<'_>> = rows
        .iter_mut()
        .map(|r| harness::Case {
            name: r.mode.to_string(),
            run: Ok(std::mem::replace(&mut r.op, Box::new(|_: &mut [u8]| {}))),
        })
        .collect();
    let results = measure_all(&mut cases, &SPEC_TABLE3_SIZES, effort);

    let mut md = format!(
        "## GCM spec Table 3: AES-128 modes, TSC cycles per byte (seed: G4 cycles per byte)\n\n\
         Encryption, no associated data. GCM rows over aekit's `{}` AES; CCM, EAX, OCB3 and \
         CBC-HMAC-SHA1 over RustCrypto's `aes` crate (AES-NI where present, fixsliced software \
         otherwise) — their traits need the inverse cipher for OCB3 and CBC, which aekit lacks. \
         Each cell: ours (seed).\n\n| mode | implementation |",
        gcm_aes.name()
    );
    for n in SPEC_TABLE3_SIZES {
        md.push_str(&format!(" {n} B |"));
    }
    md.push_str("\n|---|---|");
    md.push_str(&"---:|".repeat(SPEC_TABLE3_SIZES.len()));
    md.push('\n');
    let (mut json_rows, mut series) = (Vec::new(), Vec::new());
    let mut emit = |mode: &str, implementation: &str, measured: Option<usize>| {
        let seed = SPEC_TABLE3.iter().find(|r| r.0 == mode).map(|r| r.1);
        md.push_str(&format!("| {mode} | {implementation} |"));
        let mut points = Vec::new();
        for (s, &n) in SPEC_TABLE3_SIZES.iter().enumerate() {
            let ours = measured.and_then(|i| results[s][i]);
            let seed_cell = seed.map_or("—".to_string(), |v| format!("{}", v[s]));
            match ours {
                Some(x) => {
                    md.push_str(&format!(" {:.2} ({seed_cell}) |", x.tsc_per_byte()));
                    points.push((n as f64, x.gb_per_s()));
                }
                None => md.push_str(&format!(" — ({seed_cell}) |")),
            }
            json_rows.push(json!({
                "mode": mode,
                "implementation": implementation,
                "size_bytes": n,
                "tsc_cycles_per_byte": ours.map(|x| x.tsc_per_byte()),
                "gb_per_s": ours.map(|x| x.gb_per_s()),
                "seed_cycles_per_byte": seed.map(|v| v[s]),
            }));
        }
        md.push('\n');
        if !points.is_empty() {
            series.push((mode.to_string(), points));
        }
    };
    for (i, r) in rows.iter().enumerate() {
        emit(r.mode, &r.implementation, Some(i));
    }
    emit("CWC", "not measured (no maintained Rust CWC)", None);
    vec![Report::with_sizes_plot(
        "spec_table3",
        md,
        json_rows,
        series,
    )]
}
