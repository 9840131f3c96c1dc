//! `aether`: AETHER encryption beside AEGIS-256, Ascon-AEAD128 and
//! AES-256-GCM, in one interleaved run.
//!
//! Sizes: 64 B (a small packet or a record header's worth: initialization
//! and finalization dominate), 1 KiB, 16 KiB (a TLS record) and 1 MiB (bulk,
//! the steady-state rate). Every case encrypts in place with empty
//! associated data, the one use AETHER's documentation recommends.

use aekit::aether::{Aether, Strategy};
use ascon_aead::AsconAead128;
use ascon_aead::aead::{AeadInOut, KeyInit};

use crate::harness::{Case, Op, Sample, measure, print_machine, print_table, size_label};

const SIZES: [usize; 4] = [64, 1 << 10, 16 << 10, 1 << 20];
const ROUNDS: usize = 25;

/// Runs the comparison and prints the tables.
pub fn run() {
    let key = [0x42u8; 32];
    let nonce16 = [0x24u8; 16];

    let mut cases: Vec<Case<'_>> = Vec::new();
    for s in Strategy::ALL {
        let run: Result<Op<'_>, String> = match Aether::with(&key, s) {
            Ok(a) => Ok(Box::new(move |buf: &mut [u8]| {
                let tag = a
                    .encrypt_in_place_detached(&nonce16, b"", buf)
                    .expect("valid lengths");
                std::hint::black_box(tag);
            })),
            Err(e) => Err(e.to_string()),
        };
        cases.push(Case {
            name: format!("AETHER {}", s.name()),
            run,
        });
    }
    let aether_cases = cases.len();

    let aegis_nonce = [0x24u8; 32];
    cases.push(Case {
        name: "AEGIS-256 (aegis)".into(),
        run: Ok(Box::new(move |buf: &mut [u8]| {
            let tag =
                aegis::aegis256::Aegis256::<16>::new(&key, &aegis_nonce).encrypt_in_place(buf, b"");
            std::hint::black_box(tag);
        })),
    });
    let aegis_index = cases.len() - 1;

    let ascon = AsconAead128::new(&key[..16].try_into().expect("16 bytes"));
    let ascon_nonce = [0x24u8; 16].into();
    cases.push(Case {
        name: "Ascon-AEAD128 (ascon-aead)".into(),
        run: Ok(Box::new(move |buf: &mut [u8]| {
            let tag = ascon
                .encrypt_inout_detached(&ascon_nonce, b"", buf.into())
                .expect("valid lengths");
            std::hint::black_box(tag);
        })),
    });

    cases.push(Case {
        name: "AES-256-GCM (aekit)".into(),
        run: match aekit::AesGcm::new(&key) {
            Ok(gcm) => Ok(Box::new(move |buf: &mut [u8]| {
                let tag = gcm
                    .encrypt_in_place_detached(&[0x24; 12], b"", buf, 16)
                    .expect("valid lengths");
                std::hint::black_box(tag);
            })),
            Err(e) => Err(e.to_string()),
        },
    });

    println!("## AETHER\n");
    print_machine();
    println!("Encryption in place, empty associated data, best of {ROUNDS} interleaved batches.\n");
    for c in &cases {
        if let Err(why) = &c.run {
            println!("- {} unavailable: {why}", c.name);
        }
    }
    println!();

    let results: Vec<Vec<Option<Sample>>> = SIZES
        .iter()
        .map(|&size| measure(&mut cases, size, ROUNDS))
        .collect();
    let names: Vec<String> = cases.iter().map(|c| c.name.clone()).collect();
    print_table(&names, &SIZES, &results);

    println!("\n| size | fastest AETHER | AETHER / AEGIS-256 |");
    println!("|---:|---|---:|");
    for (j, &size) in SIZES.iter().enumerate() {
        let best = (0..aether_cases)
            .filter_map(|i| results[j][i].map(|s| (i, s)))
            .min_by(|a, b| a.1.ns_per_op.total_cmp(&b.1.ns_per_op));
        match (best, results[j][aegis_index]) {
            (Some((i, a)), Some(g)) => println!(
                "| {} | {} | {:.2} |",
                size_label(size),
                names[i],
                a.gb_per_s() / g.gb_per_s()
            ),
            _ => println!("| {} | | n/a |", size_label(size)),
        }
    }
}
