//! The table blog's timing table re-made: AES-GCM encryption then
//! decryption of 10 MiB with `table0` (no table: the bit-serial
//! Algorithm 1), `table1`, `table4` and `table8`, in seconds, TSC cycles
//! and heap bytes allocated.
//!
//! As in the blog, the whole operation is timed: the key setup (tables
//! built), `encrypt` (which returns a new ciphertext ‖ tag) and `decrypt`
//! (a new plaintext); the message is made beforehand. The AES is aekit's
//! `table` strategy — software AES, like the blog's Common Lisp — so the
//! rows differ in GHASH alone.
//!
//! Heap bytes stand in for the blog's `cons` column (the bytes its Lisp
//! allocated): they are counted by the `aekit-bench` binary's global allocator
//! (`aekit_harness::CountingAlloc`), every byte asked of it during the
//! run. Both outputs are 10 MiB, so about 20 MiB is the floor; what is
//! above it is the tables and the mode's own.

use std::hint::black_box;
use std::time::Instant;

use aekit::{AesGcm, aes, ghash};
use aekit_harness as harness;
use serde_json::json;

use crate::report::{Effort, Report, cycles};
use crate::seeds::BLOG;

/// The blog's message: 10 MiB.
const SIZE: usize = 10 * 1024 * 1024;

/// One timed run: (seconds, TSC cycles, heap bytes).
fn once(strategy: ghash::Strategy, key: &[u8], message: &[u8]) -> (f64, f64, u64) {
    let iv = [0x2au8; 12];
    let heap = harness::allocated_bytes();
    let t = Instant::now();
    let c = harness::tsc();
    let gcm = AesGcm::with(key, aes::Strategy::Table, strategy).expect("table AES runs everywhere");
    let sealed = gcm
        .encrypt(&iv, b"", message, 16)
        .expect("10 MiB is within GCM's limit");
    let opened = gcm
        .decrypt(&iv, b"", &sealed, 16)
        .expect("it authenticates");
    let tsc = harness::tsc().wrapping_sub(c) as f64;
    let seconds = t.elapsed().as_secs_f64();
    let heap = harness::allocated_bytes() - heap;
    assert!(opened == message, "decryption differs");
    black_box((sealed, opened));
    (seconds, tsc, heap)
}

pub(crate) fn run(effort: Effort) -> Vec<Report> {
    let key: Vec<u8> = (0..16u8).map(|i| i.wrapping_mul(29) ^ 0x3c).collect();
    let message: Vec<u8> = (0..SIZE)
        .map(|i| (i as u32).wrapping_mul(2_654_435_761).to_be_bytes()[0])
        .collect();
    let mut md = String::from(
        "## The table blog: AES-GCM encrypt + decrypt of 10 MiB\n\n\
         Key setup, encryption and decryption timed together (best of the runs); AES is \
         aekit's `table` (software). Heap bytes: counted by the binary's global allocator — \
         the stand-in for the blog's Lisp `cons` bytes. Seed: Common Lisp.\n\n\
         | type | GHASH | size [byte] | time [s] | TSC cycles | heap [byte] | \
         seed time [s] | seed cycles | seed cons [byte] |\n\
         |---|---|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    let mut rows = Vec::new();
    for (name, token, size, seed_s, seed_cycles, seed_cons) in BLOG {
        let strategy = ghash::Strategy::from_name(token).expect("a table strategy");
        let best = (0..effort.blog_runs)
            .map(|_| once(strategy, &key, &message))
            .min_by(|a, b| a.0.total_cmp(&b.0))
            .expect("at least one run");
        md.push_str(&format!(
            "| {name} | `{token}` | {} | {:.3} | {} | {} | {seed_s} | {} | {} |\n",
            strategy.storage_bytes(),
            best.0,
            cycles(best.1),
            cycles(best.2 as f64),
            cycles(seed_cycles),
            cycles(seed_cons),
        ));
        rows.push(json!({
            "type": name,
            "ghash": token,
            "aes": "table",
            "message_bytes": SIZE,
            "size_bytes": strategy.storage_bytes(),
            "seconds": best.0,
            "tsc_cycles": best.1,
            "heap_bytes": best.2,
            "seed_size_bytes": size,
            "seed_seconds": seed_s,
            "seed_cycles": seed_cycles,
            "seed_cons_bytes": seed_cons,
        }));
    }
    vec![Report {
        key: "blog_10mib",
        markdown: md,
        rows,
        plots: Vec::new(),
    }]
}
