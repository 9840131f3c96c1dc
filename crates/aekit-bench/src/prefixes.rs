//! `prefixes`: fixed parts of the IV and of the associated data processed
//! in advance (GCM spec §6, Table 2), against the same messages computed
//! whole, in one interleaved run.
//!
//! The IV rows use the spec's 60-byte IV (its test cases 6, 12 and 18): 52
//! bytes fixed and an 8-byte message counter, hashed whole for every
//! message or as an [`aekit::IvPrefix`] and the 8 bytes. The associated
//! data rows use 64 fixed bytes and 8 per message, hashed whole or as an
//! [`aekit::AadPrefix`]; both AAD rows go through the on-line API, the
//! only one an AAD prefix has, so that they differ by the prefix alone.
//! Every case encrypts in place with a 16-byte tag on AES-128 in the
//! default implementation; `AEKIT_KERNEL` caps it as anywhere.

use aekit::AesGcm;

use crate::harness::{Case, Op, Sample, measure, print_machine, print_table, size_label};

const SIZES: [usize; 4] = [16, 64, 256, 1500];
const ROUNDS: usize = 25;
const FIXED_IV: usize = 52;
const FIXED_AAD: usize = 64;

/// Runs the comparison and prints the tables.
pub fn run() {
    let gcm = match AesGcm::new(&[0x42u8; 16]) {
        Ok(gcm) => gcm,
        Err(e) => {
            eprintln!("aekit-bench prefixes: no AES-GCM key: {e}");
            std::process::exit(1);
        }
    };
    let iv = [0x24u8; FIXED_IV + 8];
    let aad = [0x35u8; FIXED_AAD + 8];
    let iv_prefix = gcm.iv_prefix(&iv[..FIXED_IV]).expect("a valid IV prefix");
    let aad_prefix = gcm
        .aad_prefix(&aad[..FIXED_AAD])
        .expect("valid associated data");

    let mut cases: Vec<Case<'_>> = vec![
        Case {
            name: "12-byte IV (for reference)".into(),
            run: Ok(seal(&gcm, &iv[..12])),
        },
        Case {
            name: "60-byte IV, whole".into(),
            run: Ok(seal(&gcm, &iv)),
        },
        Case {
            name: "60-byte IV, 52-byte IvPrefix".into(),
            run: Ok(Box::new(|buf: &mut [u8]| {
                let tag = iv_prefix
                    .encrypt_in_place_detached(&iv[FIXED_IV..], b"", buf, 16)
                    .expect("valid");
                std::hint::black_box(tag);
            })),
        },
        Case {
            name: "72-byte AAD, whole (on-line)".into(),
            run: Ok(Box::new(|buf: &mut [u8]| {
                let mut enc = gcm.encryptor(&iv[..12]).expect("valid");
                enc.update_aad(&aad).expect("valid");
                enc.update(buf).expect("valid");
                std::hint::black_box(enc.finish(16).expect("valid"));
            })),
        },
        Case {
            name: "72-byte AAD, 64-byte AadPrefix (on-line)".into(),
            run: Ok(Box::new(|buf: &mut [u8]| {
                let mut prefix = aad_prefix.clone();
                prefix.update_aad(&aad[FIXED_AAD..]).expect("valid");
                let mut enc = prefix.encryptor(&iv[..12]).expect("valid");
                enc.update(buf).expect("valid");
                std::hint::black_box(enc.finish(16).expect("valid"));
            })),
        },
    ];

    println!("## Fixed IV and AAD prefixes processed in advance\n");
    print_machine();
    println!("AES-GCM implementation: {}", gcm.implementation());
    println!("AES-128, encryption in place, 16-byte tag, best of {ROUNDS} interleaved batches.\n");
    let results: Vec<Vec<Option<Sample>>> = SIZES
        .iter()
        .map(|&size| measure(&mut cases, size, ROUNDS))
        .collect();
    let names: Vec<String> = cases.iter().map(|c| c.name.clone()).collect();
    print_table(&names, &SIZES, &results);

    println!("\n| size | IV prefix: whole / prefixed | AAD prefix: whole / prefixed |");
    println!("|---:|---:|---:|");
    let ratio =
        |j: usize, whole: usize, prefixed: usize| match (results[j][whole], results[j][prefixed]) {
            (Some(w), Some(p)) => format!("{:.2}×", w.ns_per_op / p.ns_per_op),
            _ => "n/a".into(),
        };
    for (j, &size) in SIZES.iter().enumerate() {
        println!(
            "| {} | {} | {} |",
            size_label(size),
            ratio(j, 1, 2),
            ratio(j, 3, 4)
        );
    }
}

/// One-shot encryption under the whole IV given.
fn seal<'a>(gcm: &'a AesGcm, iv: &'a [u8]) -> Op<'a> {
    Box::new(move |buf: &mut [u8]| {
        let tag = gcm
            .encrypt_in_place_detached(iv, b"", buf, 16)
            .expect("valid");
        std::hint::black_box(tag);
    })
}
