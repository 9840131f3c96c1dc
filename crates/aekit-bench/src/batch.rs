//! `aekit-bench batch`: many short messages at once.
//!
//! Each case encrypts a batch of `n` messages cut from one buffer (the
//! harness's) and is timed on the batch's total bytes, so every row of a
//! table moves the same bytes:
//!
//! - AES-128-GCM: aekit's default implementation called once per message,
//!   the batch API (`AesGcm::encrypt_batch_into`, the results into a slice
//!   made once), the peers aws-lc-rs, ring and Intel's ipsec-mb (its best
//!   path, `ipsec_mb.rs`) called once per message, and ipsec-mb's
//!   multi-buffer job API (each message a job, submitted in turn and the
//!   rest flushed: the batch API's counterpart);
//! - AETHER: aekit's best one-message strategy called once per message, the
//!   batch API (`Aether::encrypt_batch`) on that key (bitsliced across
//!   messages where that costs less, `aether/batch.rs`) and on a `portable`
//!   key (bitsliced wherever a group pays), and AEGIS-256 and AEGIS-256X4
//!   (the `aegis` crate, libaegis) once per message.
//!
//! Message lengths: 64 B, 576 B, 1500 B (the classic IMIX sizes) and an
//! IMIX mix of 7:4:1 of them, repeating `64, 576, 64, 64, 576, 64, 1500,
//! 64, 576, 64, 576, 64`; batch sizes 1 to 1024. Encryption only, empty
//! associated data, 16-byte tags, one nonce per message slot (the same
//! nonces every round: speed does not depend on them).

use aekit::aether::{self, Aether};
use aekit::gcm::BatchMessage;
use aekit::{AesGcm, Error};
use aekit_harness::{self as harness, Case, Sample};
use serde_json::json;

use crate::ipsec_mb::{Arch, IpsecMb};
use crate::peers::{Gcm, NONCE, peer};
use crate::report::{Effort, Mix, Panel, Plot, Report, Series, XAxis, add_point};

/// Batch sizes measured.
const BATCHES: [usize; 6] = [1, 4, 16, 64, 256, 1024];
/// Cuts `buf` into consecutive messages of `lengths`, one by one (no
/// vector of them: building one per call cost both the one-message loop
/// and the batch about 2 TSC cycles a 64-byte message, the same for both,
/// which only narrowed the ratio between them).
fn cut<'b>(buf: &'b mut [u8], lengths: &'b [usize]) -> impl Iterator<Item = &'b mut [u8]> {
    let mut rest = buf;
    lengths.iter().map(move |&len| {
        let (m, tail) = core::mem::take(&mut rest).split_at_mut(len);
        rest = tail;
        m
    })
}

/// `v` emptied, its allocation kept for messages that borrow for another
/// lifetime (the next call's buffer): the batch's list of messages is
/// built every call, as a caller builds it, into memory it keeps. (A new
/// `Vec` each call, an allocation and a free, made a batch of one 64-byte
/// message 0.57× the one-message call in this table; the API itself,
/// over a list built once, 0.83–1.01×.) Collecting a vector's own
/// `into_iter` into elements of the same size and alignment reuses its
/// buffer (a new vector collected from nothing would have no capacity:
/// the check below fails if the buffer was not kept).
fn recycle<'x, 'y>(mut v: Vec<BatchMessage<'x>>) -> Vec<BatchMessage<'y>> {
    v.clear();
    let capacity = v.capacity();
    let v: Vec<BatchMessage<'y>> = v.into_iter().map(|_| unreachable!("empty")).collect();
    assert_eq!(v.capacity(), capacity, "the allocation was kept");
    v
}

/// Each message's one-message call, in order.
fn per_message<'a>(
    name: &str,
    lengths: Vec<usize>,
    mut seal: impl FnMut(&mut [u8]) + 'a,
) -> Case<'a> {
    Case {
        name: name.into(),
        run: Ok(Box::new(move |buf: &mut [u8]| {
            for m in cut(buf, &lengths) {
                seal(m);
            }
        })),
    }
}

/// One 12-byte IV per message slot: [`NONCE`] with the slot's number in
/// its first eight bytes.
fn ivs(n: usize) -> Vec<[u8; 12]> {
    (0..n)
        .map(|i| {
            let mut iv = NONCE;
            iv[..8].copy_from_slice(&(i as u64).to_be_bytes());
            iv
        })
        .collect()
}

fn gcm_batch<'a>(gcm: AesGcm, lengths: Vec<usize>) -> Case<'a> {
    let ivs = ivs(lengths.len());
    let mut tags = vec![[0u8; 16]; lengths.len()];
    let mut results = vec![Ok(()); lengths.len()];
    let mut spare: Vec<BatchMessage<'static>> = Vec::with_capacity(lengths.len());
    Case {
        name: "aekit batch".into(),
        run: Ok(Box::new(move |buf: &mut [u8]| {
            let mut batch = recycle(core::mem::take(&mut spare));
            batch.extend(cut(buf, &lengths).zip(&ivs).zip(tags.iter_mut()).map(
                |((buf, iv), tag)| BatchMessage {
                    iv,
                    aad: &[],
                    buf,
                    tag,
                },
            ));
            gcm.encrypt_batch_into(&mut batch, &mut results);
            check(&results);
            spare = recycle(batch);
        })),
    }
}

fn aether_batch<'a>(name: &str, a: Aether, lengths: Vec<usize>) -> Case<'a> {
    let nonces: Vec<[u8; 16]> = (0..lengths.len())
        .map(|i| (i as u128).to_be_bytes())
        .collect();
    let mut tags = vec![[0u8; 16]; lengths.len()];
    Case {
        name: name.into(),
        run: Ok(Box::new(move |buf: &mut [u8]| {
            let mut batch: Vec<aether::AetherMessage<'_>> = cut(buf, &lengths)
                .zip(&nonces)
                .zip(tags.iter_mut())
                .map(|((buf, nonce), tag)| aether::AetherMessage {
                    nonce,
                    ad: &[],
                    buf,
                    tag,
                })
                .collect();
            check(&a.encrypt_batch(&mut batch));
        })),
    }
}

/// ipsec-mb's job API over the batch: one job per message, the IVs of
/// [`ivs`].
fn ipsec_mb_jobs<'a>(p: IpsecMb, lengths: &[usize]) -> Case<'a> {
    let lens: Vec<u64> = lengths.iter().map(|&l| l as u64).collect();
    let ivs = ivs(lengths.len());
    let mut tags = vec![[0u8; 16]; lengths.len()];
    // Byte for byte against aekit first, ciphertexts and tags.
    let total: usize = lengths.iter().sum();
    let plain: Vec<u8> = (0..total).map(|i| (i * 7) as u8).collect();
    let mut theirs = plain.clone();
    p.seal_jobs(&mut theirs, &lens, &ivs, &mut tags);
    let gcm = AesGcm::new(p.key()).expect("aekit takes the key ipsec-mb took");
    let mut ours = plain;
    for ((m, iv), tag) in cut(&mut ours, lengths).zip(&ivs).zip(&tags) {
        let t = gcm.encrypt_in_place_detached(iv, &[], m, 16).expect("seal");
        assert_eq!(
            t.as_bytes(),
            tag,
            "ipsec-mb's job API and aekit disagree on a tag"
        );
    }
    assert!(
        ours == theirs,
        "ipsec-mb's job API and aekit disagree on a ciphertext"
    );
    Case {
        name: "ipsec-mb jobs".into(),
        run: Ok(Box::new(move |buf: &mut [u8]| {
            p.seal_jobs(buf, &lens, &ivs, &mut tags);
        })),
    }
}

fn check(results: &[Result<(), Error>]) {
    assert!(results.iter().all(|r| r.is_ok()), "a batch message failed");
}

/// The cases of one (mix, batch size) cell: GCM first (index 0 is
/// aekit's one-message calls), then AETHER.
fn cases<'a>(lengths: &[usize]) -> Vec<Case<'a>> {
    let key = [0x42u8; 32];
    let mut cases = Vec::new();
    let build = || AesGcm::new(&key[..16]).map_err(|e| e.to_string());
    match build() {
        Ok(gcm) => cases.push(per_message(
            "aekit per-message",
            lengths.to_vec(),
            move |m| {
                std::hint::black_box(gcm.seal(m));
            },
        )),
        Err(e) => cases.push(Case {
            name: "aekit per-message".into(),
            run: Err(e),
        }),
    }
    match build() {
        Ok(gcm) => cases.push(gcm_batch(gcm, lengths.to_vec())),
        Err(e) => cases.push(Case {
            name: "aekit batch".into(),
            run: Err(e),
        }),
    }
    for name in ["aws-lc-rs", "ring"] {
        cases.push(match peer(name, &key[..16]) {
            Ok(p) => per_message(&format!("{name} per-message"), lengths.to_vec(), move |m| {
                std::hint::black_box(p.seal(m));
            }),
            Err(e) => Case {
                name: format!("{name} per-message"),
                run: Err(e),
            },
        });
    }
    cases.push(match IpsecMb::new(Arch::Best, &key[..16]) {
        Ok(p) => per_message("ipsec-mb per-message", lengths.to_vec(), move |m| {
            std::hint::black_box(p.seal(m));
        }),
        Err(e) => Case {
            name: "ipsec-mb per-message".into(),
            run: Err(e),
        },
    });
    cases.push(match IpsecMb::new(Arch::Best, &key[..16]) {
        Ok(p) => ipsec_mb_jobs(p, lengths),
        Err(e) => Case {
            name: "ipsec-mb jobs".into(),
            run: Err(e),
        },
    });
    match Aether::new(&key) {
        Ok(a) => cases.push(per_message(
            "AETHER per-message",
            lengths.to_vec(),
            move |m| {
                std::hint::black_box(
                    a.encrypt_in_place_detached(&[0x24; 16], b"", m)
                        .expect("seal"),
                );
            },
        )),
        Err(e) => cases.push(Case {
            name: "AETHER per-message".into(),
            run: Err(e.to_string()),
        }),
    }
    // The default key's batch, and a `portable` key's, which runs
    // bitsliced across messages wherever a group pays (`aether/batch.rs`,
    // "Which engine").
    for (name, key) in [
        ("AETHER batch", Aether::new(&key)),
        (
            "AETHER portable batch",
            Aether::with(&key, aether::Strategy::Portable),
        ),
    ] {
        cases.push(match key {
            Ok(a) => aether_batch(name, a, lengths.to_vec()),
            Err(e) => Case {
                name: name.into(),
                run: Err(e.to_string()),
            },
        });
    }
    let nonce32 = [0x24u8; 32];
    cases.push(per_message(
        "AEGIS-256 per-message",
        lengths.to_vec(),
        move |m| {
            std::hint::black_box(
                aegis::aegis256::Aegis256::<16>::new(&key, &nonce32).encrypt_in_place(m, b""),
            );
        },
    ));
    cases.push(per_message(
        "AEGIS-256X4 per-message",
        lengths.to_vec(),
        move |m| {
            std::hint::black_box(
                aegis::aegis256x4::Aegis256X4::<16>::new(&key, &nonce32).encrypt_in_place(m, b""),
            );
        },
    ));
    cases
}

/// Index of each case in [`cases`].
const GCM_ONE: usize = 0;
const GCM_BATCH: usize = 1;
const GCM_PEERS: [usize; 4] = [2, 3, 4, 5];
const IPSEC_MB_JOBS: usize = 5;
const AETHER_ONE: usize = 6;
const AETHER_BATCH: usize = 7;
const AETHER_BITSLICED: usize = 8;
const AEGIS: usize = 9;
const AEGIS_X4: usize = 10;

pub(crate) fn run(effort: Effort) -> Vec<Report> {
    let aether_strategy = Aether::new(&[0; 32])
        .map(|a| a.strategy().name())
        .unwrap_or("none");
    let gcm_impl = AesGcm::new(&[0; 16])
        .map(|g| g.implementation())
        .unwrap_or_default();
    let mut gcm_md = format!(
        "## Batches: AES-128-GCM, many messages per call\n\n\
         Encryption, empty AAD, 16-byte tags; GB/s over the batch's total bytes, best of {} \
         interleaved rounds. aekit: {gcm_impl}; batch: `AesGcm::encrypt_batch_into`. \
         ipsec-mb: its best path, one call per message, and its job API. Ratios: the batch \
         API over aekit's own one-message calls, over ipsec-mb's job API, and over the fastest \
         peer.\n\n\
         | messages | batch | aekit per-message | aekit batch | aws-lc-rs | ring | ipsec-mb | ipsec-mb jobs | batch / aekit | batch / ipsec-mb jobs | batch / best peer |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
        effort.rounds
    );
    let mut aether_md = format!(
        "## Batches: AETHER beside AEGIS-256\n\n\
         Same bytes, same harness. AETHER per-message: `Aether::new` ({aether_strategy}); \
         AETHER batch: `Aether::encrypt_batch` on that key (an `avx512` key runs a piece of a \
         batch bitsliced across messages where that costs less than its one-message calls, \
         an `avx2` key message by message); bitsliced: the batch of a `portable` key, \
         bitsliced wherever a group pays. AEGIS: the `aegis` crate, one call per message.\n\n\
         | messages | batch | AETHER per-message | AETHER batch | bitsliced | AEGIS-256 | AEGIS-256X4 | batch / per-message | batch / AEGIS-256 |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|---:|\n"
    );
    let (mut gcm_rows, mut aether_rows) = (Vec::new(), Vec::new());
    let (mut gcm_plots, mut aether_plots) = (Vec::new(), Vec::new());
    for mix in Mix::ALL {
        let (mut gcm_lines, mut aether_lines) = (Vec::new(), Vec::new());
        for n in BATCHES {
            let lengths = mix.lengths(n);
            let total: usize = lengths.iter().sum();
            let mut cs = cases(&lengths);
            let r: Vec<Option<Sample>> = harness::measure(&mut cs, total, effort.rounds);
            let gb = |i: usize| r[i].map(|s| s.gb_per_s());
            let cell = |i: usize| gb(i).map_or("–".into(), |g| format!("{g:.2}"));
            let ratio = |a: Option<f64>, b: Option<f64>| match (a, b) {
                (Some(a), Some(b)) => format!("{:.2}×", a / b),
                _ => "–".into(),
            };
            let best_peer = GCM_PEERS.iter().filter_map(|&i| gb(i)).reduce(f64::max);
            gcm_md.push_str(&format!(
                "| {} | {n} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
                mix.name(),
                cell(GCM_ONE),
                cell(GCM_BATCH),
                cell(GCM_PEERS[0]),
                cell(GCM_PEERS[1]),
                cell(GCM_PEERS[2]),
                cell(GCM_PEERS[3]),
                ratio(gb(GCM_BATCH), gb(GCM_ONE)),
                ratio(gb(GCM_BATCH), gb(IPSEC_MB_JOBS)),
                ratio(gb(GCM_BATCH), best_peer),
            ));
            aether_md.push_str(&format!(
                "| {} | {n} | {} | {} | {} | {} | {} | {} | {} |\n",
                mix.name(),
                cell(AETHER_ONE),
                cell(AETHER_BATCH),
                cell(AETHER_BITSLICED),
                cell(AEGIS),
                cell(AEGIS_X4),
                ratio(gb(AETHER_BATCH), gb(AETHER_ONE)),
                ratio(gb(AETHER_BATCH), gb(AEGIS)),
            ));
            for (i, (c, s)) in cs.iter().zip(&r).enumerate() {
                let (rows, lines) = if i < AETHER_ONE {
                    (&mut gcm_rows, &mut gcm_lines)
                } else {
                    (&mut aether_rows, &mut aether_lines)
                };
                rows.push(json!({
                    "mix": mix.name(),
                    "messages": n,
                    "bytes": total,
                    "case": c.name,
                    "gb_per_s": s.map(|s| s.gb_per_s()),
                    "tsc_per_byte": s.map(|s| s.tsc_per_byte()),
                }));
                if let Some(s) = s {
                    add_point(lines, &c.name, n as f64, s.gb_per_s());
                }
            }
        }
        gcm_plots.push(batch_plot("gcm", "AES-128-GCM", mix, gcm_lines));
        aether_plots.push(batch_plot("aether", "AETHER and AEGIS", mix, aether_lines));
    }
    vec![
        Report {
            key: "batch_gcm",
            markdown: gcm_md,
            rows: gcm_rows,
            plots: gcm_plots,
        },
        Report {
            key: "batch_aether",
            markdown: aether_md,
            rows: aether_rows,
            plots: aether_plots,
        },
    ]
}

/// One mix's plot of a table: GB/s against the number of messages a batch
/// (`batch-gcm-64b.png`, …, `batch-aether-imix.png`).
fn batch_plot(table: &str, what: &str, mix: Mix, series: Vec<Series>) -> Plot {
    let stem = match mix {
        Mix::Fixed(n) => format!("{n}b"),
        Mix::Imix => "imix".into(),
    };
    Plot {
        name: format!("batch-{table}-{stem}"),
        title: format!("{what}: batches of {} messages", mix.name()),
        x: XAxis::Count("messages a batch"),
        y_desc: "GB/s",
        panels: vec![Panel::new("", series)],
    }
}
