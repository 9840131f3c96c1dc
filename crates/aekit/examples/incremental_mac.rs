//! The incremental MAC measured (GCM spec §1, §6): updating a GMAC tag
//! after an edit against recomputing GMAC over the whole data.
//!
//!     cargo run --release -p aekit --example incremental_mac -- [--quick]
//!
//! For 1 MiB, 16 MiB, 256 MiB and 1 GiB of data (`--quick`: 1 and 16 MiB):
//! the full recomputation (`Gmac::compute` on aekit's default
//! implementation, the fastest this CPU runs), and three edits each
//! followed by a fresh tag (`IncrementalGmac::tag`): one byte replaced at a
//! random offset, a 4 KiB page replaced at a random page, and 100 bytes
//! appended. Each edit is timed over many repetitions at random offsets
//! (the median is reported; the powers of H cost one product per set bit
//! of the distance to the end, so offsets matter); the full recomputation
//! is repeated fewer times at the larger sizes (median of the runs shown).

use std::time::{Duration, Instant};

use aekit::Gmac;
use aekit::gcm::IncrementalGmac;
use aekit_harness::{cpu_model, random_bytes, size_label};

const MIB: usize = 1 << 20;
const PAGE: usize = 4096;

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let sizes: &[usize] = if quick {
        &[MIB, 16 * MIB]
    } else {
        &[MIB, 16 * MIB, 256 * MIB, 1024 * MIB]
    };
    let key = [0x42u8; 16];
    let gmac = Gmac::new(&key).expect("key");
    println!("CPU: {}", cpu_model());
    println!(
        "GMAC implementation: {}\n",
        aekit::AesGcm::new(&key).expect("key").implementation()
    );
    println!(
        "| data | full GMAC (runs) | GB/s | 1-byte replace + tag | 4 KiB page replace + tag | 100 B append + tag | full / 1-byte update |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|");
    for &size in sizes {
        let mut data = random_bytes(size, size as u64);
        let runs = match size {
            s if s <= MIB => 50,
            s if s <= 16 * MIB => 10,
            s if s <= 256 * MIB => 3,
            _ => 2,
        };
        let full = median(
            (0..runs)
                .map(|i| {
                    let t = Instant::now();
                    let tag = gmac.compute(&iv(i), &data, 16).expect("GMAC");
                    std::hint::black_box(tag);
                    t.elapsed()
                })
                .collect(),
        );

        let mut mac = IncrementalGmac::new(&key, &data).expect("MAC");
        let mut rng = size as u64 ^ 0x5eed;
        let one_byte = median(
            (0..10_000)
                .map(|_| {
                    let at = (next(&mut rng) % size as u64) as usize;
                    let new = [data[at] ^ 0x5a];
                    let t = Instant::now();
                    mac.replace(at as u64, &data[at..at + 1], &new)
                        .expect("edit");
                    std::hint::black_box(mac.tag().expect("tag"));
                    let d = t.elapsed();
                    data[at] = new[0];
                    d
                })
                .collect(),
        );
        let page = median(
            (0..2_000)
                .map(|_| {
                    let at = (next(&mut rng) % (size / PAGE) as u64) as usize * PAGE;
                    let new = random_bytes(PAGE, next(&mut rng));
                    let t = Instant::now();
                    mac.replace(at as u64, &data[at..at + PAGE], &new)
                        .expect("edit");
                    std::hint::black_box(mac.tag().expect("tag"));
                    let d = t.elapsed();
                    data[at..at + PAGE].copy_from_slice(&new);
                    d
                })
                .collect(),
        );
        let append = median(
            (0..2_000)
                .map(|_| {
                    let more = [0xa5u8; 100];
                    let t = Instant::now();
                    mac.append(&more).expect("append");
                    std::hint::black_box(mac.tag().expect("tag"));
                    let d = t.elapsed();
                    data.extend_from_slice(&more);
                    d
                })
                .collect(),
        );
        // The state must still be GMAC's: one check from scratch.
        let (iv, tag) = mac.tag().expect("tag");
        gmac.verify(&iv, &data, tag.as_ref())
            .expect("the incremental tag equals the recomputed one");

        println!(
            "| {} | {} ({runs}) | {:.2} | {} | {} | {} | {:.0}× |",
            size_label(size),
            human(full),
            size as f64 / full.as_secs_f64() / 1e9,
            human(one_byte),
            human(page),
            human(append),
            full.as_secs_f64() / one_byte.as_secs_f64(),
        );
    }
}

/// A 96-bit IV for run `i` of the full recomputation.
fn iv(i: usize) -> [u8; 12] {
    let mut iv = [0u8; 12];
    iv[4..].copy_from_slice(&(i as u64).to_be_bytes());
    iv
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

/// SplitMix64 step, for offsets.
fn next(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A duration in µs or ms, three significant figures.
fn human(d: Duration) -> String {
    let us = d.as_secs_f64() * 1e6;
    if us < 1000.0 {
        format!("{us:.2} µs")
    } else {
        format!("{:.1} ms", us / 1000.0)
    }
}
