//! The Cortex-M4 seed's cycle tables re-made in TSC cycles: GCTR (counter
//! mode) plain and with FACE, GHASH with the seed's table against
//! `karatsuba`, and full GCM, at 1, 4, 20 and 40 KiB with AES-128 and
//! AES-256, each with the seed's "% change" against its basic row.
//!
//! The seed's table-based GHASH keeps 256 bytes per key (Shoup's 4-bit
//! method with its R table): aekit's `shoup4`, which is what its rows are
//! compared with. The GHASH table adds `table4` (the simple 4-bit table,
//! 8 KiB per key) without a seed figure, to show what the larger table
//! buys.
//!
//! The seed's AES is fixsliced, which is aekit's `fixslice`; FACE is also
//! measured on `table` (T-table AES), where the caching is byte-oriented.
//! The seed's rows are basic, rd1, rd1+ and rd2+; rd0 and rd2 are measured
//! too and have no seed figure. Messages start where GCM starts them (a
//! 12-byte IV: low counter word 2), and every FACE call builds its tables
//! for the message, as the seed's precomputation does.

use std::hint::black_box;

use aekit::AesGcm;
use aekit::aes::{Cipher, Strategy as Aes};
use aekit::ctr::face::{self, Variant};
use aekit::ghash::{Key, Strategy as Ghash};
use aekit_harness as harness;
use serde_json::{Value, json};

use crate::report::{Effort, Report, Series, add_line, change, cycles, measure_all, pct};
use crate::seeds::{M4_GCM, M4_GCTR, M4_GHASH, M4_KEY_BITS, M4_SIZES_KB, m4_cell};

/// The seed's sizes in bytes (its KB read as KiB).
fn sizes() -> Vec<usize> {
    M4_SIZES_KB.iter().map(|kb| kb * 1024).collect()
}

/// The rows of the GCTR and GCM tables: plain counter mode, then FACE.
const ROWS: [Option<Variant>; 6] = [
    None,
    Some(Variant::Rd0),
    Some(Variant::Rd1),
    Some(Variant::Rd1Plus),
    Some(Variant::Rd2),
    Some(Variant::Rd2Plus),
];

fn row_name(row: Option<Variant>) -> &'static str {
    row.map_or("basic", Variant::name)
}

/// The first counter block of a GCM message with a 12-byte IV.
fn first_counter() -> [u8; 16] {
    let mut c = [0x5au8; 16];
    c[12..].copy_from_slice(&2u32.to_be_bytes());
    c
}

fn key(bits: usize) -> Vec<u8> {
    (0..bits / 8)
        .map(|i| (i as u8).wrapping_mul(53) ^ 0xa1)
        .collect()
}

/// One markdown table: a row per label, a column per size with the seed
/// beside it. `cells[row][size] = Some((cycles, change))`.
fn markdown(
    title: &str,
    labels: &[String],
    cells: &[Vec<Option<(f64, f64)>>],
    seed: &[Option<Vec<(f64, f64)>>],
) -> String {
    let mut md = format!("| {title} |");
    for kb in M4_SIZES_KB {
        md.push_str(&format!(" {kb} KiB, TSC cycles | seed {kb} KB |"));
    }
    md.push_str("\n|---|");
    md.push_str(&"---:|---:|".repeat(M4_SIZES_KB.len()));
    md.push('\n');
    for ((label, row), seed) in labels.iter().zip(cells).zip(seed) {
        md.push_str(&format!("| {label} |"));
        for (s, cell) in row.iter().enumerate() {
            match cell {
                Some((c, p)) => md.push_str(&format!(" {} ({}) |", cycles(*c), pct(*p))),
                None => md.push_str(" unavailable |"),
            }
            match seed {
                Some(seed) => {
                    md.push_str(&format!(" {} ({}) |", cycles(seed[s].0), pct(seed[s].1)))
                }
                None => md.push_str(" — |"),
            }
        }
        md.push('\n');
    }
    md
}

/// Turns measured samples into (cycles, change against `basic[size]`).
fn with_change(samples: &[Option<harness::Sample>], basic: &[f64]) -> Vec<Option<(f64, f64)>> {
    samples
        .iter()
        .zip(basic)
        .map(|(s, &b)| s.map(|s| (s.tsc_per_op, change(b, s.tsc_per_op))))
        .collect()
}

/// The seed's row as (cycles, change) at each size for key index `k`.
fn seed_row(cells: &[f64; 8], basic: &[f64; 8], k: usize) -> Vec<(f64, f64)> {
    (0..M4_SIZES_KB.len())
        .map(|s| {
            let c = m4_cell(cells, s, k);
            (c, change(m4_cell(basic, s, k), c))
        })
        .collect()
}

fn json_rows(
    out: &mut Vec<Value>,
    fields: Value,
    key_bits: usize,
    cells: &[Option<(f64, f64)>],
    samples: &[Option<harness::Sample>],
    seed: Option<&Vec<(f64, f64)>>,
) {
    for (s, size) in sizes().into_iter().enumerate() {
        let mut row = fields.clone();
        let obj = row.as_object_mut().expect("an object");
        obj.insert("key_bits".into(), json!(key_bits));
        obj.insert("size_bytes".into(), json!(size));
        obj.insert("tsc_cycles".into(), json!(cells[s].map(|c| c.0)));
        obj.insert("change_pct".into(), json!(cells[s].map(|c| c.1)));
        obj.insert("gb_per_s".into(), json!(samples[s].map(|x| x.gb_per_s())));
        obj.insert("seed_cycles".into(), json!(seed.map(|r| r[s].0)));
        obj.insert("seed_change_pct".into(), json!(seed.map(|r| r[s].1)));
        out.push(row);
    }
}

/// A plot line: (bytes, GB/s) at each size measured.
fn curve(name: String, samples: &[Option<harness::Sample>]) -> Series {
    let points = sizes()
        .iter()
        .zip(samples)
        .filter_map(|(&n, s)| s.map(|s| (n as f64, s.gb_per_s())))
        .collect();
    (name, points)
}

/// Transposes `results[size][case]` to `[case][size]`.
fn by_case(results: Vec<Vec<Option<harness::Sample>>>) -> Vec<Vec<Option<harness::Sample>>> {
    let cases = results.first().map_or(0, Vec::len);
    (0..cases)
        .map(|c| results.iter().map(|r| r[c]).collect())
        .collect()
}

fn gctr(effort: Effort) -> Report {
    let mut md = String::from(
        "## Cortex-M4 tables: GCTR with FACE\n\n\
         Counter mode alone over the message, TSC cycles per message (best batch); % change \
         against the basic row of the same AES, as in the seed (positive: fewer cycles). \
         Seed: fixsliced AES on a Cortex-M4 at 168 MHz.\n\n",
    );
    let (mut rows, mut panels) = (Vec::new(), Vec::new());
    for (k, bits) in M4_KEY_BITS.into_iter().enumerate() {
        let key = key(bits);
        let ciphers: Vec<(Aes, Cipher)> = [Aes::Table, Aes::Fixslice]
            .into_iter()
            .map(|a| (a, Cipher::new(a, &key).expect("portable AES")))
            .collect();
        let mut cases = Vec::new();
        for (a, cipher) in &ciphers {
            for row in ROWS {
                let op: harness::Op<'_> = match row {
                    None => Box::new(move |buf: &mut [u8]| {
                        let mut c = first_counter();
                        cipher.ctr32(&mut c, buf);
                        black_box(c);
                    }),
                    Some(v) => Box::new(move |buf: &mut [u8]| {
                        let mut c = first_counter();
                        face::ctr32(cipher, v, &mut c, buf).expect("FACE applies");
                        black_box(c);
                    }),
                };
                cases.push(harness::Case {
                    name: format!("{}/{}", a.name(), row_name(row)),
                    run: Ok(op),
                });
            }
        }
        let samples = by_case(measure_all(&mut cases, &sizes(), effort));
        let (mut labels, mut cells, mut seeds) = (Vec::new(), Vec::new(), Vec::new());
        for (i, (a, _)) in ciphers.iter().enumerate() {
            let basic: Vec<f64> = samples[i * ROWS.len()]
                .iter()
                .map(|s| s.map_or(f64::NAN, |s| s.tsc_per_op))
                .collect();
            for (j, row) in ROWS.into_iter().enumerate() {
                let these = &samples[i * ROWS.len() + j];
                let cell = with_change(these, &basic);
                let seed = M4_GCTR
                    .iter()
                    .find(|r| r.0 == row_name(row))
                    .map(|r| seed_row(&r.1, &M4_GCTR[0].1, k));
                labels.push(format!("`{}` {}", a.name(), row_name(row)));
                json_rows(
                    &mut rows,
                    json!({ "aes": a.name(), "variant": row_name(row) }),
                    bits,
                    &cell,
                    these,
                    seed.as_ref(),
                );
                if bits == 128 {
                    let panel = format!("{} AES", a.name());
                    add_line(&mut panels, &panel, curve(row_name(row).into(), these));
                }
                cells.push(cell);
                seeds.push(seed);
            }
        }
        md.push_str(&markdown(
            &format!("AES-{bits} GCTR"),
            &labels,
            &cells,
            &seeds,
        ));
        md.push('\n');
    }
    Report::with_panels_plot("m4_gctr", md, rows, "GB/s", panels)
}

fn ghash(effort: Effort) -> Report {
    let h = [0x3bu8; 16];
    let strategies = [Ghash::Karatsuba, Ghash::Shoup4, Ghash::Table4];
    let keys: Vec<Key> = strategies
        .iter()
        .map(|&s| Key::new(s, &h).expect("portable GHASH"))
        .collect();
    let mut cases: Vec<harness::Case<'_>> = strategies
        .iter()
        .zip(&keys)
        .map(|(s, key)| harness::Case {
            name: s.name().to_string(),
            run: Ok(Box::new(move |buf: &mut [u8]| {
                let mut y = [0u8; 16];
                key.update_blocks(&mut y, buf);
                black_box(y);
            }) as harness::Op<'_>),
        })
        .collect();
    let samples = by_case(measure_all(&mut cases, &sizes(), effort));
    let basic: Vec<f64> = samples[0]
        .iter()
        .map(|s| s.map_or(f64::NAN, |s| s.tsc_per_op))
        .collect();
    let (mut labels, mut cells, mut seeds, mut rows) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for (s, these) in strategies.iter().zip(&samples) {
        let cell = with_change(these, &basic);
        let seed_basic = M4_GHASH[0].1;
        let seed = M4_GHASH.iter().find(|r| r.0 == s.name()).map(|r| {
            r.1.iter()
                .zip(seed_basic)
                .map(|(&c, b)| (c, change(b, c)))
                .collect::<Vec<_>>()
        });
        labels.push(format!("`{}`", s.name()));
        json_rows(
            &mut rows,
            json!({ "ghash": s.name() }),
            128,
            &cell,
            these,
            seed.as_ref(),
        );
        cells.push(cell);
        seeds.push(seed);
    }
    let mut md = String::from(
        "## Cortex-M4 tables: GHASH, the seed's 256-byte table (shoup4) against karatsuba\n\n\
         GHASH alone over the message (the key size does not enter); % change against \
         `karatsuba`, as in the seed. The seed's table-based row is a 4-bit table of 256 bytes \
         per key (Shoup's, with the R table): `shoup4`. `table4` (8 KiB per key) has no seed \
         figure.\n\n",
    );
    md.push_str(&markdown("GHASH", &labels, &cells, &seeds));
    Report {
        key: "m4_ghash",
        markdown: md,
        rows,
        plots: Vec::new(),
    }
}

fn gcm(effort: Effort) -> Report {
    let mut md = String::from(
        "## Cortex-M4 tables: full GCM, FACE × GHASH\n\n\
         `encrypt_in_place_detached` with a 12-byte IV and no associated data, TSC cycles per \
         message; % change against the basic row of the same AES and GHASH. The seed's rows \
         are its fixsliced AES with its 256-byte 4-bit GHASH table (`shoup4`) or \
         Karatsuba.\n\n",
    );
    let (mut rows, mut panels) = (Vec::new(), Vec::new());
    let combos: Vec<(Ghash, Aes)> = [Ghash::Shoup4, Ghash::Karatsuba]
        .into_iter()
        .flat_map(|g| [Aes::Fixslice, Aes::Table].map(|a| (g, a)))
        .collect();
    for (k, bits) in M4_KEY_BITS.into_iter().enumerate() {
        let key = key(bits);
        let mut gcms = Vec::new();
        for &(g, a) in &combos {
            for row in ROWS {
                let gcm = match row {
                    None => AesGcm::with(&key, a, g),
                    Some(v) => AesGcm::with_face(&key, a, g, v),
                };
                gcms.push((g, a, row, gcm.expect("portable strategies")));
            }
        }
        let mut cases: Vec<harness::Case<'_>> = gcms
            .iter()
            .map(|(_, _, _, gcm)| harness::Case {
                name: gcm.implementation(),
                run: Ok(Box::new(move |buf: &mut [u8]| {
                    let tag = gcm.encrypt_in_place_detached(&[0x5a; 12], b"", buf, 16);
                    black_box(tag.ok());
                }) as harness::Op<'_>),
            })
            .collect();
        let samples = by_case(measure_all(&mut cases, &sizes(), effort));
        let (mut labels, mut cells, mut seeds) = (Vec::new(), Vec::new(), Vec::new());
        for (c, chunk) in samples.chunks(ROWS.len()).enumerate() {
            let (g, a) = combos[c];
            let basic: Vec<f64> = chunk[0]
                .iter()
                .map(|s| s.map_or(f64::NAN, |s| s.tsc_per_op))
                .collect();
            for (row, these) in ROWS.into_iter().zip(chunk) {
                let cell = with_change(these, &basic);
                let seed_basic = M4_GCM.iter().find(|r| r.0 == g.name() && r.1 == "basic");
                let seed = M4_GCM
                    .iter()
                    .find(|r| r.0 == g.name() && r.1 == row_name(row))
                    .zip(seed_basic)
                    .map(|(r, b)| seed_row(&r.2, &b.2, k));
                labels.push(format!("`{}` `{}` {}", g.name(), a.name(), row_name(row)));
                json_rows(
                    &mut rows,
                    json!({ "ghash": g.name(), "aes": a.name(), "variant": row_name(row) }),
                    bits,
                    &cell,
                    these,
                    seed.as_ref(),
                );
                if bits == 128 && a == Aes::Fixslice {
                    let panel = format!("{} GHASH, fixslice AES", g.name());
                    add_line(&mut panels, &panel, curve(row_name(row).into(), these));
                }
                cells.push(cell);
                seeds.push(seed);
            }
        }
        md.push_str(&markdown(
            &format!("AES-{bits}-GCM"),
            &labels,
            &cells,
            &seeds,
        ));
        md.push('\n');
    }
    Report::with_panels_plot("m4_gcm", md, rows, "GB/s", panels)
}

pub(crate) fn run(effort: Effort) -> Vec<Report> {
    vec![gctr(effort), ghash(effort), gcm(effort)]
}
