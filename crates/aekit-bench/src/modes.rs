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
//!
//! The spec's G4 ran AES in software (OpenSSL's C AES, 33.0 cycles per
//! byte, its Table 1's text), so AES was most of every mode's cost. A
//! second table ([`by_aes`]) re-runs the GCM rows over each of aekit's
//! AES strategies — `table` (T-tables, the kind of code the spec ran),
//! `fixslice` (constant-time software) and `ni` — with counter mode alone
//! beside them for the AES share, and a third ([`rankings`]) says which of
//! the spec's orderings reproduce: the GCM storage sizes by speed with
//! each AES, and every mode by speed with AES-NI (the peers have no
//! software AES of aekit's to run on).

use std::hint::black_box;

use aekit::{AesGcm, aes, ghash};
use aekit_harness as harness;
use cbc::cipher::block_padding::Pkcs7;
use cbc::cipher::{BlockModeEncrypt, InnerIvInit};
use ccm::aead::{AeadInOut, KeyInit};
use ccm::consts::{U12, U16};
use hmac::{Hmac, Mac};
use serde_json::json;

use crate::report::{Effort, Panel, Report, Series, measure_all};
use crate::seeds::{SPEC_TABLE3, SPEC_TABLE3_SIZES};

/// The spec's GCM rows: its storage label and the GHASH strategy that has
/// it (64 KiB: `table8`; 8 KiB: `table4`; 4 KiB: `shoup8`; 256 B: `shoup4`).
const GCM_ROWS: [(&str, ghash::Strategy); 4] = [
    ("GCM, 64Kb storage", ghash::Strategy::Table8),
    ("GCM, 8Kb storage", ghash::Strategy::Table4),
    ("GCM, 4Kb storage", ghash::Strategy::Shoup8),
    ("GCM, 256b storage", ghash::Strategy::Shoup4),
];

/// The AES strategies [`by_aes`] runs GCM over.
const AES_WORLDS: [aes::Strategy; 3] = [
    aes::Strategy::Table,
    aes::Strategy::Fixslice,
    aes::Strategy::Ni,
];

/// OpenSSL's C AES on the spec's G4, cycles per byte (text of its Table 1).
const SEED_AES_CPB: f64 = 33.0;

/// Two rows within this fraction of each other are a tie when an ordering
/// is compared: nearer than the run-to-run noise of a shared machine.
const TIE: f64 = 0.05;

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
    let mut gcms: Vec<(&str, AesGcm)> = GCM_ROWS.iter().map(|&(m, g)| (m, build(g))).collect();
    gcms.push((
        "GCM, aekit's fastest",
        AesGcm::new(&key).expect("a default"),
    ));
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
    // Every mode the spec measured and this table did, by speed.
    let modes: Vec<(&str, Vec<Option<f64>>)> = rows
        .iter()
        .enumerate()
        .filter(|(_, r)| SPEC_TABLE3.iter().any(|s| s.0 == r.mode))
        .map(|(i, r)| {
            let cpb = (0..SPEC_TABLE3_SIZES.len())
                .map(|s| results[s][i].map(|x| x.tsc_per_byte()))
                .collect();
            (r.mode, cpb)
        })
        .collect();
    let main = Report::with_sizes_plot("spec_table3", md, json_rows, series);
    let (worlds, measured) = by_aes(effort, &key);
    let mut reports = vec![main, worlds];
    reports.push(rankings(gcm_aes, &measured, &modes));
    reports
}

/// One AES strategy's GCM rows measured: c/B of each of [`GCM_ROWS`] and
/// of counter mode alone, at each of [`SPEC_TABLE3_SIZES`] (`None` where
/// the strategy is unavailable).
struct World {
    aes: aes::Strategy,
    gcm: Vec<Vec<Option<f64>>>,
    ctr: Vec<Option<f64>>,
}

/// GCM spec Table 3's GCM rows over every AES strategy of [`AES_WORLDS`],
/// with counter mode alone (`aes::Cipher::ctr32`) beside them.
fn by_aes(effort: Effort, key: &[u8; 16]) -> (Report, Vec<World>) {
    let gcms: Vec<Result<AesGcm, String>> = AES_WORLDS
        .iter()
        .flat_map(|&a| {
            GCM_ROWS
                .iter()
                .map(move |&(_, g)| AesGcm::with(key, a, g).map_err(|e| e.to_string()))
        })
        .collect();
    let ciphers: Vec<Result<aes::Cipher, String>> = AES_WORLDS
        .iter()
        .map(|&a| aes::Cipher::new(a, key).map_err(|e| e.to_string()))
        .collect();
    let mut cases: Vec<harness::Case<'_>> = gcms
        .iter()
        .enumerate()
        .map(|(i, gcm)| harness::Case {
            name: format!(
                "{} {}",
                AES_WORLDS[i / GCM_ROWS.len()].name(),
                GCM_ROWS[i % GCM_ROWS.len()].0
            ),
            run: gcm.as_ref().map_err(Clone::clone).map(|gcm| {
                Box::new(move |buf: &mut [u8]| {
                    black_box(gcm.encrypt_in_place_detached(&[7; 12], b"", buf, 16).ok());
                }) as harness::Op<'_>
            }),
        })
        .collect();
    cases.extend(ciphers.iter().enumerate().map(|(a, cipher)| harness::Case {
        name: format!("{} counter mode", AES_WORLDS[a].name()),
        run: cipher.as_ref().map_err(Clone::clone).map(|cipher| {
            Box::new(move |buf: &mut [u8]| {
                let mut counter = [7u8; 16];
                cipher.ctr32(&mut counter, buf);
                black_box(counter);
            }) as harness::Op<'_>
        }),
    }));
    let results = measure_all(&mut cases, &SPEC_TABLE3_SIZES, effort);
    let cpb = |case: usize| -> Vec<Option<f64>> {
        (0..SPEC_TABLE3_SIZES.len())
            .map(|s| results[s][case].map(|x| x.tsc_per_byte()))
            .collect()
    };
    let ctr_base = gcms.len();
    let worlds: Vec<World> = AES_WORLDS
        .iter()
        .enumerate()
        .map(|(a, &aes)| World {
            aes,
            gcm: (0..GCM_ROWS.len())
                .map(|g| cpb(a * GCM_ROWS.len() + g))
                .collect(),
            ctr: cpb(ctr_base + a),
        })
        .collect();

    let mut md = String::from(
        "## GCM spec Table 3's GCM rows over each AES: TSC cycles per byte (seed: G4 cycles \
         per byte)\n\n\
         The spec's G4 ran AES in software (OpenSSL's C AES, 33.0 cycles per byte), so AES was \
         most of GCM's cost there. The same GCM rows over aekit's `table` (T-table, the kind \
         of code the spec ran), `fixslice` (constant-time bitsliced) and `ni` AES, all \
         interleaved in one run; \"AES alone\" is counter mode over the message \
         (`aes::Cipher::ctr32`), the AES share of every row. Encryption, 12-byte IV, no \
         associated data. Each cell: ours (seed).\n\n| AES | row |",
    );
    for n in SPEC_TABLE3_SIZES {
        md.push_str(&format!(" {n} B |"));
    }
    md.push_str("\n|---|---|");
    md.push_str(&"---:|".repeat(SPEC_TABLE3_SIZES.len()));
    md.push('\n');
    let mut rows = Vec::new();
    let cell = |x: Option<f64>, seed: Option<f64>| {
        let seed = seed.map_or("—".to_string(), |v| format!("{v}"));
        x.map_or(format!(" unavailable ({seed}) |"), |x| {
            format!(" {x:.2} ({seed}) |")
        })
    };
    for w in &worlds {
        for (g, (mode, strategy)) in GCM_ROWS.iter().enumerate() {
            let seed = SPEC_TABLE3.iter().find(|r| r.0 == *mode).map(|r| r.1);
            md.push_str(&format!(
                "| `{}` | {mode} (`{}`) |",
                w.aes.name(),
                strategy.name()
            ));
            for (s, &n) in SPEC_TABLE3_SIZES.iter().enumerate() {
                md.push_str(&cell(w.gcm[g][s], seed.map(|v| v[s])));
                rows.push(json!({
                    "aes": w.aes.name(),
                    "mode": mode,
                    "ghash": strategy.name(),
                    "size_bytes": n,
                    "tsc_cycles_per_byte": w.gcm[g][s],
                    "seed_cycles_per_byte": seed.map(|v| v[s]),
                }));
            }
            md.push('\n');
        }
        md.push_str(&format!(
            "| `{}` | AES alone (counter mode) |",
            w.aes.name()
        ));
        for (s, &n) in SPEC_TABLE3_SIZES.iter().enumerate() {
            md.push_str(&cell(w.ctr[s], Some(SEED_AES_CPB)));
            rows.push(json!({
                "aes": w.aes.name(),
                "mode": "AES alone (counter mode)",
                "ghash": null,
                "size_bytes": n,
                "tsc_cycles_per_byte": w.ctr[s],
                "seed_cycles_per_byte": SEED_AES_CPB,
            }));
        }
        md.push('\n');
    }
    // A panel per AES: the AES share differs by ten times between them.
    let line = |name: String, case: usize| -> Series {
        let points = SPEC_TABLE3_SIZES
            .iter()
            .enumerate()
            .filter_map(|(s, &n)| results[s][case].map(|x| (n as f64, x.gb_per_s())))
            .collect();
        (name, points)
    };
    let panels: Vec<Panel> = AES_WORLDS
        .iter()
        .enumerate()
        .map(|(a, aes)| {
            let mut lines: Vec<Series> = GCM_ROWS
                .iter()
                .enumerate()
                .map(|(g, (mode, strategy))| {
                    let name = format!("GCM {} ({})", short(mode), strategy.name());
                    line(name, a * GCM_ROWS.len() + g)
                })
                .collect();
            lines.push(line("AES alone (counter mode)".into(), ctr_base + a));
            Panel::new(format!("{} AES", aes.name()), lines)
        })
        .collect();
    let report = Report::with_panels_plot("spec_table3_aes", md, rows, "GB/s", panels);
    (report, worlds)
}

/// How a measured ordering compares with the seed's.
#[derive(Debug, PartialEq)]
pub(crate) enum Verdict {
    /// The same order.
    Same,
    /// The same order once rows within [`TIE`] of each other are taken as
    /// level: the pairs that swapped, each within it.
    SameUpToTies(Vec<(String, String)>),
    /// Pairs the seed orders one way and the measurement the other, by
    /// more than [`TIE`].
    Different(Vec<(String, String)>),
}

impl Verdict {
    fn name(&self) -> &'static str {
        match self {
            Verdict::Same => "same",
            Verdict::SameUpToTies(_) => "same up to ties",
            Verdict::Different(_) => "different",
        }
    }

    fn pairs(&self) -> &[(String, String)] {
        match self {
            Verdict::Same => &[],
            Verdict::SameUpToTies(p) | Verdict::Different(p) => p,
        }
    }
}

/// Compares the order of `rows` (name, seed cycles/B, measured cycles/B;
/// fewer is faster) by speed: every pair the seed orders strictly whose
/// measured order is the other way is a swap, a tie if the two measured
/// values are within [`TIE`] of each other. Returns the measured order,
/// fastest first, and the verdict.
pub(crate) fn compare_order(rows: &[(&str, f64, f64)]) -> (Vec<String>, Verdict) {
    let mut order: Vec<&(&str, f64, f64)> = rows.iter().collect();
    order.sort_by(|a, b| a.2.total_cmp(&b.2));
    let (mut ties, mut swaps) = (Vec::new(), Vec::new());
    for (i, a) in rows.iter().enumerate() {
        for b in &rows[i + 1..] {
            let (fast, slow) = match a.1.total_cmp(&b.1) {
                std::cmp::Ordering::Less => (a, b),
                std::cmp::Ordering::Greater => (b, a),
                std::cmp::Ordering::Equal => continue,
            };
            if slow.2 < fast.2 {
                let pair = (slow.0.to_string(), fast.0.to_string());
                if (fast.2 - slow.2) / slow.2 <= TIE {
                    ties.push(pair);
                } else {
                    swaps.push(pair);
                }
            }
        }
    }
    let verdict = if !swaps.is_empty() {
        swaps.extend(ties);
        Verdict::Different(swaps)
    } else if !ties.is_empty() {
        Verdict::SameUpToTies(ties)
    } else {
        Verdict::Same
    };
    (order.iter().map(|r| r.0.to_string()).collect(), verdict)
}

/// The short name of a Table 3 row in an ordering.
fn short(mode: &str) -> &str {
    mode.strip_prefix("GCM, ")
        .and_then(|m| m.strip_suffix(" storage"))
        .unwrap_or(mode)
}

/// Which of the spec's Table 3 orderings reproduce: the four GCM storage
/// sizes by speed over each AES (`worlds`), and every mode by speed with
/// AES-NI (`modes`, the main table's rows over `gcm_aes`).
fn rankings(
    gcm_aes: aes::Strategy,
    worlds: &[World],
    modes: &[(&str, Vec<Option<f64>>)],
) -> Report {
    let seed = |mode: &str, s: usize| {
        SPEC_TABLE3
            .iter()
            .find(|r| r.0 == mode)
            .map(|r| r.1[s])
            .expect("a seed row")
    };
    let mut md = format!(
        "## Which of GCM spec Table 3's orderings reproduce\n\n\
         Orderings by cycles per byte, fastest first; rows within {:.0}% of each other count \
         as level (the noise of one cell on a shared machine), and a swap between them is a \
         tie, not a difference. The spec orders its GCM storage sizes 64Kb < 8Kb < 4Kb < 256b \
         at every size. Gaps at 8192 B: each row over the 64Kb row (seed: 8Kb 1.05, 4Kb 1.40, \
         256b 2.22), and AES alone over the 64Kb row (seed: 33.0 / 38.1 = 0.87).\n\n\
         | AES | size | measured order | verdict | swapped pairs (slower in the seed first) |\n\
         |---|---:|---|---|---|\n",
        100.0 * TIE
    );
    let mut rows = Vec::new();
    let mut gaps = String::from(
        "\n| AES | 8Kb / 64Kb | 4Kb / 64Kb | 256b / 64Kb | AES alone / 64Kb | AES alone, c/B |\n\
         |---|---:|---:|---:|---:|---:|\n",
    );
    for w in worlds {
        for (s, &n) in SPEC_TABLE3_SIZES.iter().enumerate() {
            let measured: Option<Vec<(&str, f64, f64)>> = GCM_ROWS
                .iter()
                .zip(&w.gcm)
                .map(|(&(mode, _), cpb)| cpb[s].map(|x| (short(mode), seed(mode, s), x)))
                .collect();
            let Some(measured) = measured else {
                md.push_str(&format!(
                    "| `{}` | {n} B | unavailable | | |\n",
                    w.aes.name()
                ));
                continue;
            };
            push_ranking(
                &mut md,
                &mut rows,
                w.aes.name(),
                "gcm storage",
                n,
                &measured,
            );
        }
        let last = SPEC_TABLE3_SIZES.len() - 1;
        let base = w.gcm[0][last];
        let ratio = |x: Option<f64>| match (x, base) {
            (Some(x), Some(b)) => format!("{:.2}", x / b),
            _ => "—".into(),
        };
        gaps.push_str(&format!(
            "| `{}` | {} | {} | {} | {} | {} |\n",
            w.aes.name(),
            ratio(w.gcm[1][last]),
            ratio(w.gcm[2][last]),
            ratio(w.gcm[3][last]),
            ratio(w.ctr[last]),
            w.ctr[last].map_or("—".into(), |x| format!("{x:.2}")),
        ));
    }
    md.push_str(&gaps);
    md.push_str(&format!(
        "\nEvery mode by speed, GCM over `{}` and the others over RustCrypto's `aes` (see the \
         Table 3 above); CWC is not measured and left out of the seed's order.\n\n\
         | AES | size | measured order | verdict | swapped pairs (slower in the seed first) | \
         seed order |\n\
         |---|---:|---|---|---|---|\n",
        gcm_aes.name()
    ));
    for (s, &n) in SPEC_TABLE3_SIZES.iter().enumerate() {
        let measured: Vec<(&str, f64, f64)> = modes
            .iter()
            .filter_map(|(mode, cpb)| cpb[s].map(|x| (short(mode), seed(mode, s), x)))
            .collect();
        let mut seed_order: Vec<(&str, f64)> = measured.iter().map(|r| (r.0, r.1)).collect();
        seed_order.sort_by(|a, b| a.1.total_cmp(&b.1));
        let seed_order: Vec<&str> = seed_order.iter().map(|r| r.0).collect();
        push_ranking(
            &mut md,
            &mut rows,
            gcm_aes.name(),
            "all modes",
            n,
            &measured,
        );
        // The seed's order closes the row.
        md.pop();
        md.push_str(&format!(" {} |\n", seed_order.join(" < ")));
    }
    Report {
        key: "spec_table3_rankings",
        markdown: md,
        rows,
        plots: Vec::new(),
    }
}

/// One ordering's markdown row and JSON row.
fn push_ranking(
    md: &mut String,
    rows: &mut Vec<serde_json::Value>,
    aes: &str,
    scope: &str,
    size: usize,
    measured: &[(&str, f64, f64)],
) {
    let (order, verdict) = compare_order(measured);
    let pairs: Vec<String> = verdict
        .pairs()
        .iter()
        .map(|(a, b)| format!("{a} / {b}"))
        .collect();
    md.push_str(&format!(
        "| `{aes}` | {size} B | {} | {} | {} |\n",
        order.join(" < "),
        verdict.name(),
        pairs.join(", ")
    ));
    rows.push(json!({
        "aes": aes,
        "scope": scope,
        "size_bytes": size,
        "measured_order": order,
        "verdict": verdict.name(),
        "swapped_pairs": verdict.pairs(),
    }));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orderings_compare_with_ties() {
        let same = [("a", 1.0, 10.0), ("b", 2.0, 20.0), ("c", 3.0, 30.0)];
        assert_eq!(
            compare_order(&same),
            (vec!["a".into(), "b".into(), "c".into()], Verdict::Same)
        );
        let tie = [("a", 1.0, 10.2), ("b", 2.0, 10.0), ("c", 3.0, 30.0)];
        assert_eq!(
            compare_order(&tie).1,
            Verdict::SameUpToTies(vec![("b".into(), "a".into())])
        );
        let swap = [("a", 1.0, 12.0), ("b", 2.0, 10.0), ("c", 3.0, 30.0)];
        let (order, verdict) = compare_order(&swap);
        assert_eq!(order, ["b", "a", "c"]);
        assert_eq!(verdict, Verdict::Different(vec![("b".into(), "a".into())]));
        assert_eq!(short("GCM, 64Kb storage"), "64Kb");
        assert_eq!(short("OCB"), "OCB");
    }
}
