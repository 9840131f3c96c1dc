//! GCM spec Table 1 re-measured: for every GHASH strategy, its
//! key-dependent storage, GHASH alone over 8 KiB in TSC cycles per byte,
//! and the time to build its tables from H (one key setup).
//!
//! The spec's five methods map to `table8`, `table4`, `shoup8`, `shoup4`
//! and `bitserial`; `table1`, `karatsuba`, `clmul` and `vclmul` are aekit's
//! additions and have no seed figure. Storage is `Strategy::storage_bytes`
//! (key-dependent bytes; Shoup's shared R table is not counted, as the
//! spec writes it apart).

use std::hint::black_box;

use aekit::ghash::{Key, Strategy};
use aekit_harness as harness;
use serde_json::json;

use crate::report::{Effort, Report, measure_all};
use crate::seeds::SPEC_TABLE1;

/// Bytes hashed per measurement, as in the spec's table.
const SIZE: usize = 8192;

pub(crate) fn run(effort: Effort) -> Vec<Report> {
    let h = [
        0x66u8, 0xe9, 0x4b, 0xd4, 0xef, 0x8a, 0x2c, 0x3b, 0x88, 0x4c, 0xfa, 0x59, 0xca, 0x34, 0x2b,
        0x2e,
    ];
    let keys: Vec<Result<Key, String>> = Strategy::ALL
        .iter()
        .map(|&s| Key::new(s, &h).map_err(|e| e.to_string()))
        .collect();
    let mut hashing: Vec<harness::Case<'_>> = Strategy::ALL
        .iter()
        .zip(&keys)
        .map(|(s, key)| harness::Case {
            name: s.name().to_string(),
            run: match key {
                Ok(key) => Ok(Box::new(move |buf: &mut [u8]| {
                    let mut y = [0u8; 16];
                    key.update_blocks(&mut y, buf);
                    black_box(y);
                }) as harness::Op<'_>),
                Err(e) => Err(e.clone()),
            },
        })
        .collect();
    let hashed = measure_all(&mut hashing, &[SIZE], effort).remove(0);
    let mut setup: Vec<harness::Case<'_>> = Strategy::ALL
        .iter()
        .map(|&s| harness::Case {
            name: s.name().to_string(),
            run: if s.is_available() {
                Ok(Box::new(move |_: &mut [u8]| {
                    black_box(Key::new(s, black_box(&h)).ok());
                }) as harness::Op<'_>)
            } else {
                Err("not available on this CPU".to_string())
            },
        })
        .collect();
    let built = measure_all(&mut setup, &[16], effort).remove(0);

    let mut md = String::from(
        "## GCM spec Table 1: GHASH methods, storage and speed\n\n\
         GHASH alone over 8 KiB; table construction is one `ghash::Key::new` (tables from H, \
         heap allocation included). Seed: Motorola G4, C, gcc 3.3.\n\n\
         | method (spec) | aekit | constant-time | storage, bytes/key | seed storage | \
         TSC cycles/B | seed cycles/B | table construction, TSC cycles |\n\
         |---|---|---|---:|---|---:|---:|---:|\n",
    );
    let mut rows = Vec::new();
    for (i, s) in Strategy::ALL.iter().enumerate() {
        let seed = SPEC_TABLE1.iter().find(|r| r.0 == s.name());
        let (method, seed_storage, seed_cpb) = match seed {
            Some(r) => (r.1, r.2, Some(r.3)),
            None => ("—", "—", None),
        };
        let cpb = hashed[i].map(|x| x.tsc_per_byte());
        let build = built[i].map(|x| x.tsc_per_op);
        let show = |x: Option<f64>, digits: usize| {
            x.map_or("unavailable".to_string(), |v| format!("{v:.digits$}"))
        };
        md.push_str(&format!(
            "| {method} | `{}` | {} | {} | {seed_storage} | {} | {} | {} |\n",
            s.name(),
            if s.is_constant_time() { "yes" } else { "no" },
            s.storage_bytes(),
            show(cpb, 2),
            seed_cpb.map_or("—".to_string(), |v| format!("{v}")),
            show(build, 0),
        ));
        rows.push(json!({
            "strategy": s.name(),
            "spec_method": seed.map(|r| r.1),
            "available": s.is_available(),
            "constant_time": s.is_constant_time(),
            "storage_bytes": s.storage_bytes(),
            "ghash_8k_tsc_cycles_per_byte": cpb,
            "table_construction_tsc_cycles": build,
            "table_construction_ns": built[i].map(|x| x.ns_per_op),
            "seed_storage": seed.map(|r| r.2),
            "seed_cycles_per_byte": seed_cpb,
        }));
    }
    vec![Report {
        key: "spec_table1",
        markdown: md,
        rows,
        plots: Vec::new(),
    }]
}
