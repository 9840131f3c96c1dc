//! `aekit-bench peers`, the multi-core rows: one message of 1, 16
//! and 256 MiB (256 MiB not with `--quick`) encrypted and decrypted by
//! aekit's default implementation on one thread
//! (`encrypt_in_place_detached`) and split across a persistent
//! `aekit::gcm::Pool` of 2 threads and of every core
//! (`encrypt_in_place_detached_par`), with the speedup over one thread.
//! No peer splits one message across cores, so these rows have none.
//!
//! Same harness, nonce, tag and alternating decryption as the one-core
//! table (`peers.rs`); every timed decryption verifies. The pools are
//! built before timing starts: their threads are created once, as a
//! caller's would be.

use std::sync::Arc;

use aekit::AesGcm;
use aekit::gcm::Pool;
use aekit_harness::{self as harness, Case, size_label};
use serde_json::json;

use crate::peers::{Direction, KEY_LENGTHS, aead_name, case, key};
use crate::report::{Effort, Report};

/// Message sizes; the last only without `--quick`.
const SIZES: [usize; 3] = [1 << 20, 16 << 20, 256 << 20];

/// The thread counts measured besides one: 2, and every core when that is
/// more.
pub(crate) fn thread_counts() -> Vec<usize> {
    let all = std::thread::available_parallelism().map_or(1, usize::from);
    let mut counts = vec![2];
    if all > 2 {
        counts.push(all);
    }
    counts
}

pub(crate) fn run(effort: Effort) -> Vec<Report> {
    let rounds = if effort.quick { 3 } else { 9 };
    let sizes = if effort.quick {
        &SIZES[..2]
    } else {
        &SIZES[..]
    };
    let counts = thread_counts();
    let pools: Vec<Result<Arc<Pool>, String>> = counts
        .iter()
        .map(|&t| Pool::new(t).map(Arc::new).map_err(|e| e.to_string()))
        .collect();
    let mut md = format!(
        "## One message on many cores (aekit default, `aekit::gcm::Pool`)\n\n\
         Best of {rounds} interleaved rounds; 12-byte nonce, no AAD, 16-byte tag. \
         {} cores available to this process. Speedup: over the same message on one \
         thread.\n\n\
         | AEAD | op | size | threads | GB/s | ms/op | speedup |\n\
         |---|---|---:|---:|---:|---:|---:|\n",
        std::thread::available_parallelism().map_or(1, usize::from),
    );
    let mut rows = Vec::new();
    for key_len in KEY_LENGTHS {
        let aead = aead_name(key_len);
        let key = key(key_len);
        for op in Direction::BOTH {
            for &size in sizes {
                let mut cases: Vec<Case<'_>> = Vec::new();
                cases.push(match AesGcm::new(&key) {
                    Ok(gcm) => case("1 thread".into(), Box::new(gcm), op, size),
                    Err(e) => Case {
                        name: "1 thread".into(),
                        run: Err(e.to_string()),
                    },
                });
                for (&threads, pool) in counts.iter().zip(&pools) {
                    let name = format!("{threads} threads");
                    cases.push(match (pool, AesGcm::new(&key)) {
                        (Ok(pool), Ok(gcm)) => {
                            let gcm = gcm.with_pool(Arc::clone(pool));
                            case(name, Box::new(gcm), op, size)
                        }
                        (Err(e), _) => Case {
                            name,
                            run: Err(e.clone()),
                        },
                        (_, Err(e)) => Case {
                            name,
                            run: Err(e.to_string()),
                        },
                    });
                }
                let best = harness::measure(&mut cases, size, rounds);
                let one = best[0];
                let threads = std::iter::once(1).chain(counts.iter().copied());
                for (t, sample) in threads.zip(&best) {
                    let speedup = match (one, sample) {
                        (Some(o), Some(s)) => Some(o.ns_per_op / s.ns_per_op),
                        _ => None,
                    };
                    md.push_str(&match sample {
                        Some(s) => format!(
                            "| {aead} | {} | {} | {t} | {:.2} | {:.2} | {} |\n",
                            op.name(),
                            size_label(size),
                            s.gb_per_s(),
                            s.ns_per_op / 1e6,
                            speedup.map_or("–".into(), |x| format!("{x:.2}×"))
                        ),
                        None => format!(
                            "| {aead} | {} | {} | {t} | unavailable | | |\n",
                            op.name(),
                            size_label(size)
                        ),
                    });
                    rows.push(json!({
                        "aead": aead,
                        "op": op.name(),
                        "size_bytes": size,
                        "threads": t,
                        "gb_per_s": sample.map(|s| s.gb_per_s()),
                        "ns_per_op": sample.map(|s| s.ns_per_op),
                        "speedup_over_one_thread": speedup,
                    }));
                }
            }
        }
    }
    vec![Report {
        key: "multicore",
        markdown: md,
        rows,
        plots: Vec::new(),
    }]
}
