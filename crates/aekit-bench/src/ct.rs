//! `aekit-bench ct`: a statistical timing test of every
//! implementation aekit calls constant time, in the manner of dudect
//! (O. Reparaz, J. Balasch, I. Verbauwhede, *Dude, is my code constant
//! time?*, DATE 2017).
//!
//! The method: two classes of input, one **fixed** value and fresh
//! **random** values, drawn at random for each measurement so that the two
//! classes interleave and any drift of the machine (frequency, another
//! process, the cache) falls on both alike. Each measurement is one call,
//! timed with the time-stamp counter read between two `LFENCE`s
//! (`harness::tsc_fenced`), so that the window holds the call and nothing
//! around it; whatever the harness does to put an input in place (copy
//! it, repeat it to a long target's length, copy it into each message of
//! a batch) is done before the window opens (`Cipher::load`), because
//! copying zero bytes and random ones takes different times on some
//! CPUs. Read unfenced, the counter let the window overlap the copy
//! of the input made just before the call, and on an Intel Xeon with
//! AVX-512 (Sapphire Rapids class) a zero plaintext and a random one then
//! differed by a cycle or two whatever the implementation: plaintext |t|
//! of 68 for AETHER `avx2`, 25 for FACE `rd1`, 10.9 for `vaes-avx512` at
//! 10 million measurements, while a minimal harness timing the same calls
//! with fences saw nothing. With the fences, the same binary otherwise, in
//! the same minute: AETHER `avx512` 53.7 → 1.1, FACE `rd1` 20.9 → 1.2 at
//! 4 million; the table-driven control is still caught (plaintext |t| 785
//! at 1 million). Welch's t-test then asks whether the
//! two classes' mean times differ; |t| ≥ 4.5 (dudect's threshold, a
//! false-positive chance near 1e-5 for one test) says the time depends on
//! the input. As dudect does, the test is repeated on the measurements
//! cropped below each of a series of percentiles of the first batch
//! (`1 − 0.5^(10(k+1)/CROPS)`), because a leak can hide in the body of a
//! distribution whose tail is all interrupts; the largest |t| of the
//! uncropped and cropped tests is the result. dudect's second-order test is
//! not made.
//!
//! Three tests per implementation, AES-GCM with a 16-byte key (AETHER's
//! 32-byte key), a fixed public IV, no associated data and a `MESSAGE`-byte
//! message (eight blocks for the fused kernels' wide loop, one more, and a
//! partial block):
//!
//! - **key**: the key setup and one encryption, under the fixed key (all
//!   zero bytes) or a random one;
//! - **plaintext**: one encryption under a fixed key of the fixed (zero)
//!   plaintext or a random one;
//! - **tag**: one decryption of a fixed valid ciphertext whose tag is wrong
//!   from byte *p* on, with *p* = 0 (fixed) or random in 0..16: a tag
//!   comparison that stops at the first differing byte is caught here. The
//!   decryption must fail; one that succeeds is an error.
//!
//! The implementations: every kernel class this CPU runs
//! (`aekit::gcm::Class`: the fused kernels, and the `pair` and `portable`
//! classes, which are the pairs `ni+clmul` and `fixslice+karatsuba`); each
//! fused kernel again with a 16-byte IV, whose counter blocks start at
//! J_0 = GHASH(IV), a function of the key, so that a branch on the counter
//! (the kernels' counter fast paths are for 96-bit IVs only) shows in the
//! key test (with `ni-clmul`'s fast path let in for any IV, key |t| = 32
//! at a million measurements on an Intel Xeon); the batch API on the
//! default key (four 37-byte messages: the multi-buffer path of
//! `vaes-avx512` and `vaes-avx2`) and AETHER's batch API on the default
//! key (512 such messages: one group of the bitsliced engine on AVX-512);
//! every (AES, GHASH) pair of strategies that both call themselves constant
//! time, FACE on `fixslice` in each variant, and AETHER's constant-time
//! strategies. A class or strategy the CPU lacks is reported as not run.
//! One implementation known **not** to be constant time, `table+table8`
//! (T-table AES and 8-bit GHASH tables larger than a first-level cache),
//! is measured too as a control: the test must be seen to fail.
//!
//! Verdict: pass when |t| < 4.5 in all three tests. The suite fails (exit
//! status 1) when a constant-time implementation reaches `--fail-at`
//! (default 4.5) or when the control stays under 4.5. A short run on a
//! busy machine can cross 4.5 by noise alone — interrupts and a neighbour's
//! load are not class-correlated, but heavy tails make the t-statistic's
//! false-positive rate larger than the normal law's — so a short run in CI
//! passes a higher `--fail-at` and treats only a far larger |t| as a
//! failure; the verdict column still says where 4.5 was crossed.
//!
//! t grows with the square root of the measurement count for a real leak
//! of fixed size: a pass at N measurements bounds what a run of N can see,
//! nothing more. `--measurements N` sets N per test (default 1 000 000,
//! 100 000 with `--quick`); `--max-seconds S` stops each test after S
//! seconds (at a whole batch) if N is not reached first, and the table says
//! how many were made.

use std::cell::{RefCell, RefMut};
use std::hint::black_box;
use std::path::Path;
use std::time::{Duration, Instant};

use aekit::aether::{self, Aether};
use aekit::ctr::face;
use aekit::gcm::{BatchMessage, Class};
use aekit::{AesGcm, aes, ghash};
use aekit_harness as harness;
use serde_json::{Value, json};

/// dudect's threshold on |t|.
pub const THRESHOLD: f64 = 4.5;
/// Message length in bytes: 9 whole blocks and a partial one.
const MESSAGE: usize = 150;
/// Measurements per batch: classes and inputs are drawn a batch at a time.
const BATCH: usize = 10_000;
/// Cropping percentiles besides the uncropped test.
const CROPS: usize = 20;
/// A test needs this many kept measurements before its t counts (dudect's
/// `ENOUGH_MEASUREMENTS`).
const ENOUGH: f64 = 10_000.0;
/// The public GCM IV and AETHER nonce.
const IV: [u8; 16] = [0x0b; 16];

/// Runs the suite: `measurements` per test, exit status by `fail_at`.
pub fn run(
    measurements: u64,
    max_seconds: Option<f64>,
    fail_at: f64,
    only: Option<&str>,
    quick: bool,
    json_path: Option<&Path>,
) -> Result<(), String> {
    if measurements < 2 * BATCH as u64 {
        return Err(format!(
            "--measurements {measurements}: the timing test needs at least {}",
            2 * BATCH
        ));
    }
    if max_seconds.is_some_and(|s| !(s > 0.0 && s.is_finite())) {
        return Err("--max-seconds must be a positive number".into());
    }
    if fail_at.is_nan() || fail_at < THRESHOLD {
        return Err(format!("--fail-at {fail_at}: must be at least {THRESHOLD}"));
    }
    let targets: Vec<Target> = targets()
        .into_iter()
        .filter(|t| only.is_none_or(|name| t.name.contains(name)))
        .collect();
    if targets.is_empty() {
        return Err(format!(
            "--only {}: no implementation's name contains it",
            only.unwrap_or_default()
        ));
    }
    // Fail on an unwritable JSON path now, not after minutes of measuring.
    if let Some(path) = json_path {
        std::fs::write(path, b"").map_err(|e| format!("write {}: {e}", path.display()))?;
    }
    let cpu = harness::cpu_model();
    let ghz = harness::tsc_ghz(std::time::Duration::from_millis(100));
    let seconds = max_seconds.map_or(String::new(), |s| format!(" --max-seconds {s}"));
    let only_flag = only.map_or(String::new(), |name| format!(" --only {name}"));
    println!(
        "# aekit-bench ct{} --measurements {measurements}{seconds} --fail-at {fail_at}{only_flag}\n",
        if quick { " --quick" } else { "" }
    );
    println!("CPU: {cpu}; time-stamp counter {ghz:.2} GHz. Cycles are TSC cycles.\n");
    let cap = match max_seconds {
        Some(s) => format!(" (or {s} s)"),
        None => String::new(),
    };
    println!(
        "Welch's t, fixed against random input, {measurements}{cap} measurements per test, \
         largest |t| of the uncropped and {CROPS} cropped tests; pass: |t| < {THRESHOLD}.\n"
    );
    println!(
        "| implementation | what | constant time | key | plaintext | tag | measurements | cycles | verdict |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");

    let mut rows = Vec::new();
    let mut failures = Vec::new();
    for target in targets {
        let row = match &target.build {
            Err(why) => {
                println!(
                    "| {} | {} | {} | – | – | – | – | – | not run: {why} |",
                    target.name,
                    target.what,
                    yes_no(target.constant_time)
                );
                json!({
                    "implementation": target.name,
                    "what": target.what,
                    "constant_time": target.constant_time,
                    "run": false,
                    "verdict": format!("not run: {why}"),
                })
            }
            Ok(build) => {
                let results = measure_target(&target, build.as_ref(), measurements, max_seconds)?;
                let made = results
                    .iter()
                    .map(|(_, o)| o.measurements)
                    .min()
                    .unwrap_or(0);
                let worst = results.iter().map(|(_, o)| o.t.abs()).fold(0.0, f64::max);
                let verdict = verdict(target.constant_time, worst);
                if target.constant_time && worst >= fail_at {
                    failures.push(format!("{} |t| = {worst:.1}", target.name));
                }
                if !target.constant_time && worst < THRESHOLD {
                    failures.push(format!(
                        "the control {} was not caught (|t| = {worst:.1}): the test sees nothing",
                        target.name
                    ));
                }
                let t = |i: usize| format!("{:.2}", results[i].1.t);
                println!(
                    "| {} | {} | {} | {} | {} | {} | {} | {:.0} | {verdict} |",
                    target.name,
                    target.what,
                    yes_no(target.constant_time),
                    t(0),
                    t(1),
                    t(2),
                    made,
                    results[1].1.mean_cycles,
                );
                let tests: serde_json::Map<String, Value> = results
                    .iter()
                    .map(|(name, o)| (name.to_string(), o.to_json()))
                    .collect();
                json!({
                    "implementation": target.name,
                    "what": target.what,
                    "constant_time": target.constant_time,
                    "run": true,
                    "measurements": made,
                    "tests": tests,
                    "max_abs_t": worst,
                    "verdict": verdict,
                })
            }
        };
        rows.push(row);
    }
    println!(
        "\nt per test is signed (positive: the random class is slower); measurements: the \
         fewest of the three tests (fewer than asked where --max-seconds ran out); cycles: \
         the mean TSC cycles of one plaintext-test encryption of {MESSAGE} bytes \
         (or the length its name gives)."
    );

    if let Some(path) = json_path {
        let doc = json!({
            "suite": "ct",
            "quick": quick,
            "cpu": cpu,
            "tsc_ghz": ghz,
            "measurements_asked": measurements,
            "max_seconds": max_seconds,
            "threshold": THRESHOLD,
            "fail_at": fail_at,
            "message_bytes": MESSAGE,
            "tables": { "ct": rows },
        });
        let text = serde_json::to_string_pretty(&doc).map_err(|e| e.to_string())?;
        std::fs::write(path, text).map_err(|e| format!("write {}: {e}", path.display()))?;
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "timing test failed (fail at |t| >= {fail_at}): {}",
            failures.join("; ")
        ))
    }
}

fn yes_no(b: bool) -> &'static str {
    if b { "yes" } else { "no" }
}

/// The verdict on an implementation's largest |t|.
fn verdict(constant_time: bool, worst: f64) -> &'static str {
    match (constant_time, worst < THRESHOLD) {
        (true, true) => "pass",
        (true, false) => "FAIL",
        (false, true) => "control NOT caught",
        (false, false) => "leaks (control, as expected)",
    }
}

/// An AEAD under test: AES-GCM in some implementation, or AETHER.
enum Cipher {
    Gcm(AesGcm),
    /// AES-GCM with the 16-byte IV (not 96 bits): the counter blocks start
    /// at J_0 = GHASH(IV), a function of the key, which no counter fast
    /// path may look at.
    GcmLongIv(AesGcm),
    /// The batch API on four copies of the message's first
    /// [`BATCH_MESSAGE`] bytes (the multi-buffer path on a `vaes-avx512`
    /// key): the buffers of the four, kept between calls.
    GcmBatch(AesGcm, RefCell<[[u8; BATCH_MESSAGE]; 4]>),
    Aether(Aether),
    /// AETHER's batch API on [`AETHER_BATCH`] copies of the message's first
    /// [`BATCH_MESSAGE`] bytes (a group on the bitsliced engine where the
    /// key's batch runs one): the buffers, kept between calls.
    AetherBatch(Aether, RefCell<Vec<[u8; BATCH_MESSAGE]>>),
}

/// Messages in an AETHER batch target: enough that a batch of short
/// messages runs as one group of 512 lanes on AVX-512 (`aether/batch.rs`,
/// "Which engine").
const AETHER_BATCH: usize = 512;

/// The length of each of a batch target's four messages: three blocks,
/// the last partial (a multi-buffer shape).
const BATCH_MESSAGE: usize = 37;

/// Each fused kernel's targets at other lengths than [`MESSAGE`], with
/// what each covers. 32 bytes: the short whole-message path every x86
/// kernel shares (`kernels::Short`: one batch of 128-bit AES lanes,
/// every block times its own power of H). 600 bytes: two chunks of
/// sixteen blocks, five blocks and a partial one: the main loops with
/// the blocks before them and the end hashed with the last chunk
/// (`vaes-avx2`, `ni-clmul`), or `vaes-avx512`'s own-powers path (up to
/// 132 hashed blocks). 4096 bytes: every fused kernel's main loop
/// (`vaes-avx512` runs AES-128 in spans of its stored powers instead).
const OTHER_MESSAGES: [(usize, &str); 3] = [
    (32, "class, fused kernel, the short whole-message path"),
    (600, "class, fused kernel, a long whole message"),
    (4096, "class, fused kernel, its main loop"),
];

impl Cipher {
    /// Puts `input`, repeated to `buf`'s length, where the next
    /// [`Cipher::seal`] or [`Cipher::open`] reads it: in `buf`, and for a
    /// batch target in each of its messages. Called outside the timed
    /// window: on an Intel Xeon with AVX-512 (Emerald Rapids) copying a
    /// zero message and a random one take different times, so a copy inside
    /// the window is a difference of this harness, not of the cipher.
    fn load(&self, input: &[u8], buf: &mut [u8]) {
        for chunk in buf.chunks_mut(input.len()) {
            chunk.copy_from_slice(&input[..chunk.len()]);
        }
        if let Some(mut messages) = self.batch_messages() {
            for m in messages.iter_mut() {
                m.copy_from_slice(&buf[..BATCH_MESSAGE]);
            }
        }
    }

    /// A batch target's messages, kept between calls.
    fn batch_messages(&self) -> Option<RefMut<'_, [[u8; BATCH_MESSAGE]]>> {
        match self {
            Cipher::GcmBatch(_, messages) => {
                Some(RefMut::map(messages.borrow_mut(), |m| &mut m[..]))
            }
            Cipher::AetherBatch(_, messages) => {
                Some(RefMut::map(messages.borrow_mut(), |m| &mut m[..]))
            }
            _ => None,
        }
    }

    /// Encrypts what [`Cipher::load`] put in place (a new batch target's
    /// messages are zero bytes) and returns the tag: the call alone.
    fn seal(&self, buf: &mut [u8]) -> Result<[u8; 16], aekit::Error> {
        let mut out = [0u8; 16];
        match self {
            Cipher::Gcm(g) | Cipher::GcmLongIv(g) => {
                let iv = if matches!(self, Cipher::Gcm(_)) {
                    &IV[..12]
                } else {
                    &IV
                };
                let tag = g.encrypt_in_place_detached(iv, &[], buf, 16)?;
                out.copy_from_slice(tag.as_bytes());
            }
            Cipher::GcmBatch(g, messages) => {
                let mut messages = messages.borrow_mut();
                let mut tags = [[0u8; 16]; 4];
                // One IV for the four: a timing test, and one ciphertext
                // and tag for the four to check against.
                let results = g.encrypt_batch(&mut batch(&mut messages, &mut tags));
                results.into_iter().try_for_each(|r| r)?;
                out = tags[0];
            }
            Cipher::Aether(a) => out = a.encrypt_in_place_detached(&IV, &[], buf)?,
            Cipher::AetherBatch(a, messages) => {
                let mut messages = messages.borrow_mut();
                let mut tags = vec![[0u8; 16]; AETHER_BATCH];
                let results = a.encrypt_batch(&mut aether_batch(&mut messages, &mut tags));
                results.into_iter().try_for_each(|r| r)?;
                out = tags[0];
            }
        }
        Ok(out)
    }

    /// Copies the ciphertext [`Cipher::seal`] made into `buf`: for a batch
    /// target, its first message (the others are the same); the other
    /// targets sealed `buf` itself.
    fn ciphertext(&self, buf: &mut [u8]) {
        if let Some(messages) = self.batch_messages() {
            buf[..BATCH_MESSAGE].copy_from_slice(&messages[0]);
        }
    }

    /// Decrypts what [`Cipher::load`] put in place under `tag` (every
    /// message of a batch target under the same tag): the call alone.
    fn open(&self, buf: &mut [u8], tag: &[u8]) -> bool {
        match self {
            Cipher::Gcm(g) => g.decrypt_in_place_detached(&IV[..12], &[], buf, tag),
            Cipher::GcmLongIv(g) => g.decrypt_in_place_detached(&IV, &[], buf, tag),
            Cipher::GcmBatch(g, messages) => {
                let mut messages = messages.borrow_mut();
                let mut tags = [[0u8; 16]; 4];
                for t in &mut tags {
                    t.copy_from_slice(tag);
                }
                let results = g.decrypt_batch(&mut batch(&mut messages, &mut tags));
                results.into_iter().try_for_each(|r| r)
            }
            Cipher::Aether(a) => a.decrypt_in_place_detached(&IV, &[], buf, tag),
            Cipher::AetherBatch(a, messages) => {
                let mut messages = messages.borrow_mut();
                let mut tags = vec![[0u8; 16]; AETHER_BATCH];
                for t in &mut tags {
                    t.copy_from_slice(tag);
                }
                let results = a.decrypt_batch(&mut aether_batch(&mut messages, &mut tags));
                results.into_iter().try_for_each(|r| r)
            }
        }
        .is_ok()
    }
}

/// A batch of the four `messages`, each with `IV`'s first 12 bytes and
/// its tag slot in `tags`.
fn batch<'a>(
    messages: &'a mut [[u8; BATCH_MESSAGE]; 4],
    tags: &'a mut [[u8; 16]; 4],
) -> [BatchMessage<'a>; 4] {
    let mut slots = messages
        .iter_mut()
        .zip(tags.iter_mut())
        .map(|(m, tag)| BatchMessage {
            iv: &IV[..12],
            aad: &[],
            buf: m,
            tag,
        });
    core::array::from_fn(|_| slots.next().expect("four slots"))
}

/// AETHER's batch of `messages`, each with the nonce `IV` and its tag
/// slot in `tags`.
fn aether_batch<'a>(
    messages: &'a mut [[u8; BATCH_MESSAGE]],
    tags: &'a mut [[u8; 16]],
) -> Vec<aether::AetherMessage<'a>> {
    messages
        .iter_mut()
        .zip(tags.iter_mut())
        .map(|(m, tag)| aether::AetherMessage {
            nonce: &IV,
            ad: &[],
            buf: m,
            tag,
        })
        .collect()
}

type Build = Box<dyn Fn(&[u8]) -> Result<Cipher, aekit::Error>>;

/// One implementation to test.
struct Target {
    name: String,
    /// Class, pair, FACE, AETHER or control.
    what: String,
    constant_time: bool,
    key_len: usize,
    /// The message's length: [`MESSAGE`], or one of [`OTHER_MESSAGES`].
    message: usize,
    /// How to key it, or why this CPU cannot run it.
    build: Result<Build, String>,
}

fn gcm_target(
    name: String,
    what: String,
    constant_time: bool,
    message: usize,
    make: Build,
) -> Target {
    // Built once here, so that an implementation this CPU lacks is reported
    // as not run rather than failing mid-measurement.
    let build = match make(&[0u8; 16]) {
        Ok(_) => Ok(make),
        Err(e) => Err(e.to_string()),
    };
    Target {
        name,
        what,
        constant_time,
        key_len: 16,
        message,
        build,
    }
}

/// Every implementation the suite covers, the control last.
fn targets() -> Vec<Target> {
    let mut out = Vec::new();
    // The fused classes; `pair` and `portable` are the pairs below.
    for class in Class::ALL {
        let Class::Fused(f) = class else { continue };
        let make: Build =
            Box::new(move |k| AesGcm::with_class(k, Class::Fused(f)).map(Cipher::Gcm));
        out.push(gcm_target(
            f.name().into(),
            "class, fused kernel".into(),
            true,
            MESSAGE,
            make,
        ));
        for (len, what) in OTHER_MESSAGES {
            let make: Build =
                Box::new(move |k| AesGcm::with_class(k, Class::Fused(f)).map(Cipher::Gcm));
            out.push(gcm_target(
                format!("{} {len}-byte message", f.name()),
                what.into(),
                true,
                len,
                make,
            ));
        }
        let make: Build =
            Box::new(move |k| AesGcm::with_class(k, Class::Fused(f)).map(Cipher::GcmLongIv));
        out.push(gcm_target(
            format!("{} 128-bit IV", f.name()),
            "class, fused kernel, J0 = GHASH(IV)".into(),
            true,
            MESSAGE,
            make,
        ));
    }
    let make: Build = Box::new(|k| {
        AesGcm::new(k).map(|g| Cipher::GcmBatch(g, RefCell::new([[0; BATCH_MESSAGE]; 4])))
    });
    out.push(gcm_target(
        "batch".into(),
        "batch API, four messages (multi-buffer on vaes-avx512 and vaes-avx2)".into(),
        true,
        MESSAGE,
        make,
    ));
    for a in aes::Strategy::ALL
        .into_iter()
        .filter(|a| a.is_constant_time())
    {
        for g in ghash::Strategy::ALL
            .into_iter()
            .filter(|g| g.is_constant_time())
        {
            let class = Class::ALL
                .into_iter()
                .filter(|c| !matches!(c, Class::Fused(_)))
                .find(|&c| class_pair(c) == (a, g));
            let what = match class {
                Some(c) => format!("pair; class {}", c.name()),
                None => "pair".into(),
            };
            let make: Build = Box::new(move |k| AesGcm::with(k, a, g).map(Cipher::Gcm));
            out.push(gcm_target(
                format!("{}+{}", a.name(), g.name()),
                what,
                true,
                MESSAGE,
                make,
            ));
        }
    }
    for a in aes::Strategy::ALL
        .into_iter()
        .filter(|&a| face::supports(a) && a.is_constant_time())
    {
        for v in face::Variant::ALL {
            let make: Build = Box::new(move |k| {
                AesGcm::with_face(k, a, ghash::Strategy::Karatsuba, v).map(Cipher::Gcm)
            });
            out.push(gcm_target(
                format!("{}/{}+karatsuba", a.name(), v.name()),
                "FACE".into(),
                true,
                MESSAGE,
                make,
            ));
        }
    }
    for s in aether::Strategy::ALL
        .into_iter()
        .filter(|s| s.is_constant_time())
    {
        out.push(Target {
            name: format!("aether {}", s.name()),
            what: "AETHER".into(),
            constant_time: true,
            key_len: 32,
            message: MESSAGE,
            build: match Aether::with(&[0u8; 32], s) {
                Ok(_) => Ok(Box::new(move |k| Aether::with(k, s).map(Cipher::Aether))),
                Err(e) => Err(e.to_string()),
            },
        });
    }
    out.push(Target {
        name: "aether batch".into(),
        what: format!(
            "AETHER batch API, {AETHER_BATCH} messages (bitsliced on AVX-512 and `portable` keys)"
        ),
        constant_time: true,
        key_len: 32,
        message: MESSAGE,
        build: match Aether::new(&[0u8; 32]) {
            Ok(_) => Ok(Box::new(|k| {
                Aether::new(k).map(|a| {
                    Cipher::AetherBatch(a, RefCell::new(vec![[0; BATCH_MESSAGE]; AETHER_BATCH]))
                })
            })),
            Err(e) => Err(e.to_string()),
        },
    });
    let (a, g) = (aes::Strategy::Table, ghash::Strategy::Table8);
    let make: Build = Box::new(move |k| AesGcm::with(k, a, g).map(Cipher::Gcm));
    out.push(gcm_target(
        format!("{}+{}", a.name(), g.name()),
        "control: not constant time".into(),
        a.is_constant_time() && g.is_constant_time(),
        MESSAGE,
        make,
    ));
    out
}

/// The pair a two-pass class runs on this CPU.
fn class_pair(class: Class) -> (aes::Strategy, ghash::Strategy) {
    match class {
        Class::Fused(f) => f.strategies(),
        Class::Pair => (aes::Strategy::best(), ghash::Strategy::best()),
        Class::Portable => (aes::Strategy::Fixslice, ghash::Strategy::Karatsuba),
    }
}

/// The three tests on one implementation: [(name, outcome)].
fn measure_target(
    target: &Target,
    build: &dyn Fn(&[u8]) -> Result<Cipher, aekit::Error>,
    n: u64,
    max_seconds: Option<f64>,
) -> Result<[(&'static str, Outcome); 3], String> {
    let err = |e: aekit::Error| format!("{}: {e}", target.name);
    let fixed_key = vec![0u8; target.key_len];
    // The plaintext test's inputs are `MESSAGE` bytes, repeated to the
    // target's length by `Cipher::load`.
    let zero = [0u8; MESSAGE];
    let mut buf = vec![0u8; target.message];
    let seed = harness::tsc();
    let deadline = || max_seconds.map(|s| Instant::now() + Duration::from_secs_f64(s));
    let keep = |_: &mut [u8]| {};

    // Key: setup and one encryption of zero bytes (a batch target's new
    // messages are zero bytes too).
    let key = dudect(n, deadline(), &fixed_key, seed, &keep, &mut |k| {
        buf.fill(0);
        let t0 = harness::tsc_fenced();
        let cipher = build(k);
        let sealed = match &cipher {
            Ok(c) => c.seal(&mut buf).map_err(|e| e.to_string()),
            Err(e) => Err(e.to_string()),
        };
        let t1 = harness::tsc_fenced();
        black_box(&sealed);
        drop(cipher);
        sealed.map_err(|e| format!("{}: {e}", target.name))?;
        Ok(t1.wrapping_sub(t0))
    })?;

    // Plaintext: one encryption under the fixed key.
    let cipher = build(&fixed_key).map_err(err)?;
    let plaintext = dudect(n, deadline(), &zero, seed ^ 1, &keep, &mut |p| {
        cipher.load(p, &mut buf);
        let t0 = harness::tsc_fenced();
        let tag = cipher.seal(&mut buf);
        let t1 = harness::tsc_fenced();
        black_box(&tag);
        tag.map_err(err)?;
        Ok(t1.wrapping_sub(t0))
    })?;

    // Tag: decryption of a valid ciphertext with a tag wrong from byte p on.
    let mut ciphertext = vec![0u8; target.message];
    cipher.load(&zero, &mut ciphertext);
    let tag = cipher.seal(&mut ciphertext).map_err(err)?;
    cipher.ciphertext(&mut ciphertext);
    // The wrong tags are made when a batch is drawn, not just before the
    // call: a tag written byte by byte from position p on, right before a
    // 16-byte load of it, stalls store forwarding by an amount that
    // depends on p — a difference of this harness, not of the decryption.
    let mut fixed_wrong = [0x3cu8; 16];
    fixed_wrong[0] = 0;
    let fixed_wrong = wrong_tag(&tag, &fixed_wrong);
    let make_wrong = |input: &mut [u8]| {
        let wrong = wrong_tag(&tag, input);
        input.copy_from_slice(&wrong);
    };
    let tag_test = dudect(
        n,
        deadline(),
        &fixed_wrong,
        seed ^ 2,
        &make_wrong,
        &mut |wrong| {
            cipher.load(&ciphertext, &mut buf);
            let t0 = harness::tsc_fenced();
            let ok = cipher.open(&mut buf, wrong);
            let t1 = harness::tsc_fenced();
            if black_box(ok) {
                return Err(format!("{}: a wrong tag was accepted", target.name));
            }
            Ok(t1.wrapping_sub(t0))
        },
    )?;
    Ok([("key", key), ("plaintext", plaintext), ("tag", tag_test)])
}

/// `tag` made wrong from byte `p = random[0] % 16` on: bytes before p
/// kept, byte p changed (xor with the non-zero `random[p] | 1`), bytes
/// after p taken from `random` (16 bytes).
fn wrong_tag(tag: &[u8; 16], random: &[u8]) -> [u8; 16] {
    let p = usize::from(random[0] % 16);
    let mut wrong = *tag;
    wrong[p] ^= random[p] | 1;
    wrong[p + 1..].copy_from_slice(&random[p + 1..]);
    wrong
}

/// Welch's t-test on two classes, by running sums (Welford's update).
#[derive(Clone, Copy, Debug, Default)]
struct Welch {
    n: [f64; 2],
    mean: [f64; 2],
    m2: [f64; 2],
}

impl Welch {
    fn push(&mut self, class: usize, x: f64) {
        self.n[class] += 1.0;
        let delta = x - self.mean[class];
        self.mean[class] += delta / self.n[class];
        self.m2[class] += delta * (x - self.mean[class]);
    }

    /// (mean of random − mean of fixed) / its standard error.
    fn t(&self) -> f64 {
        if self.n[0] < 2.0 || self.n[1] < 2.0 {
            return 0.0;
        }
        let var = |c: usize| self.m2[c] / (self.n[c] - 1.0);
        let se = (var(0) / self.n[0] + var(1) / self.n[1]).sqrt();
        if se == 0.0 {
            // Both classes took exactly one time each: equal means are no
            // leak, different ones an unbounded one.
            return if self.mean[0] == self.mean[1] {
                0.0
            } else {
                f64::INFINITY
            };
        }
        (self.mean[1] - self.mean[0]) / se
    }
}

/// One test's result.
#[derive(Clone, Copy, Debug)]
struct Outcome {
    /// Measurements made (both classes, past the first batch).
    measurements: u64,
    /// The t of largest magnitude among the uncropped and cropped tests.
    t: f64,
    /// The cropping percentile of that test (1.0: uncropped).
    percentile: f64,
    /// Measurements that test kept.
    kept: f64,
    /// Mean cycles over both classes, uncropped.
    mean_cycles: f64,
}

impl Outcome {
    fn to_json(self) -> Value {
        json!({
            "measurements": self.measurements,
            "t": self.t,
            "cropped_at_percentile": self.percentile,
            "kept": self.kept,
            "mean_cycles": self.mean_cycles,
        })
    }
}

/// `p`-quantile of sorted values.
fn quantile(sorted: &[u64], p: f64) -> u64 {
    let i = ((sorted.len() as f64 * p) as usize).min(sorted.len() - 1);
    sorted[i]
}

/// dudect's cropping percentiles.
fn crop_percentiles() -> [f64; CROPS] {
    core::array::from_fn(|k| 1.0 - 0.5f64.powf(10.0 * (k + 1) as f64 / CROPS as f64))
}

/// The fixed-against-random test: `n` measurements of `measure` (which
/// times one call on the input it is given and returns TSC cycles), or as
/// many whole batches as fit before `deadline`, after a first batch that
/// warms up and sets the cropping thresholds. A random input is `prepare`d
/// from random bytes when its batch is drawn. Inputs of both classes are
/// read from the same batch buffer, so that the fixed input is not
/// favoured by staying in one cache line.
fn dudect(
    n: u64,
    deadline: Option<Instant>,
    fixed: &[u8],
    seed: u64,
    prepare: &dyn Fn(&mut [u8]),
    measure: &mut dyn FnMut(&[u8]) -> Result<u64, String>,
) -> Result<Outcome, String> {
    let len = fixed.len();
    let mut times = vec![0u64; BATCH];
    let mut classes = vec![0usize; BATCH];
    let mut thresholds = [u64::MAX; CROPS];
    let mut tests = [Welch::default(); CROPS + 1];
    let mut done = 0u64;
    for batch in 0u64.. {
        if done >= n || (batch > 1 && deadline.is_some_and(|d| Instant::now() >= d)) {
            break;
        }
        // One random byte per measurement picks its class; the rest is
        // the random input, overwritten by the fixed one for class 0.
        let mut inputs = harness::random_bytes(BATCH * (1 + len), seed.wrapping_add(batch));
        for (i, record) in inputs.chunks_exact_mut(1 + len).enumerate() {
            classes[i] = usize::from(record[0] & 1);
            if classes[i] == 0 {
                record[1..].copy_from_slice(fixed);
            } else {
                prepare(&mut record[1..]);
            }
        }
        for (i, record) in inputs.chunks_exact(1 + len).enumerate() {
            times[i] = measure(&record[1..])?;
        }
        if batch == 0 {
            let mut sorted = times.clone();
            sorted.sort_unstable();
            for (t, p) in thresholds.iter_mut().zip(crop_percentiles()) {
                *t = quantile(&sorted, p);
            }
            continue;
        }
        let take = BATCH.min((n - done) as usize);
        accumulate(&mut tests, &thresholds, &classes[..take], &times[..take]);
        done += take as u64;
    }
    Ok(outcome(&tests, done))
}

/// Adds measurements to the uncropped test (`tests[0]`) and to each
/// cropped test whose threshold they fall under.
fn accumulate(
    tests: &mut [Welch; CROPS + 1],
    thresholds: &[u64; CROPS],
    classes: &[usize],
    times: &[u64],
) {
    for (&c, &x) in classes.iter().zip(times) {
        tests[0].push(c, x as f64);
        for (test, &limit) in tests[1..].iter_mut().zip(thresholds) {
            if x < limit {
                test.push(c, x as f64);
            }
        }
    }
}

/// The largest |t| among the tests with enough measurements.
fn outcome(tests: &[Welch; CROPS + 1], measurements: u64) -> Outcome {
    let percentiles: Vec<f64> = [1.0].into_iter().chain(crop_percentiles()).collect();
    let all = &tests[0];
    let mut best = Outcome {
        measurements,
        t: all.t(),
        percentile: 1.0,
        kept: all.n[0] + all.n[1],
        mean_cycles: (all.mean[0] * all.n[0] + all.mean[1] * all.n[1]) / (all.n[0] + all.n[1]),
    };
    for (test, &p) in tests.iter().zip(&percentiles).skip(1) {
        let kept = test.n[0] + test.n[1];
        if kept >= ENOUGH && test.t().abs() > best.t.abs() {
            best.t = test.t();
            best.percentile = p;
            best.kept = kept;
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Welch's t on small samples, computed by hand: means 2 and 5,
    /// variances 1 and 1 with 3 values each: t = 3 / sqrt(2/3).
    #[test]
    fn welch_t_matches_the_formula() {
        let mut w = Welch::default();
        for x in [1.0, 2.0, 3.0] {
            w.push(0, x);
        }
        for x in [4.0, 5.0, 6.0] {
            w.push(1, x);
        }
        assert!((w.t() - 3.0 / (2.0f64 / 3.0).sqrt()).abs() < 1e-12);
        let mut same = Welch::default();
        for c in [0, 1] {
            for x in [7.0, 9.0] {
                same.push(c, x);
            }
        }
        assert_eq!(same.t(), 0.0);
    }

    /// Synthetic "timings" that depend on the class by 1 % of their noise
    /// are caught; the same timings without that dependence are not. The
    /// "time" is a pure function of the input (a hash), so this is not a
    /// timed test.
    #[test]
    fn a_leak_is_caught_and_its_absence_is_not() {
        let fixed = [0u8; 8];
        let noise = |input: &[u8]| {
            let h = input.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
                (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
            });
            // Noise spread over 0..1000, independent of the class.
            1000 + (h >> 54)
        };
        let mut counter = 0u64;
        // Each measurement of either class gets fresh noise from a counter;
        // the leaky one adds 30 cycles to inputs that differ from `fixed`.
        let mut clean = |_: &[u8]| {
            counter += 1;
            Ok(noise(&counter.to_le_bytes()))
        };
        let quiet = dudect(200_000, None, &fixed, 7, &|_| {}, &mut clean).unwrap();
        assert!(quiet.t.abs() < THRESHOLD, "no leak, yet t = {}", quiet.t);

        let mut counter = 0u64;
        let mut leaky = |input: &[u8]| {
            counter += 1;
            let extra = if input == fixed { 0 } else { 30 };
            Ok(noise(&counter.to_le_bytes()) + extra)
        };
        let loud = dudect(200_000, None, &fixed, 7, &|_| {}, &mut leaky).unwrap();
        assert!(loud.t > 10.0, "a leak of 30 cycles, yet t = {}", loud.t);
    }

    /// A leak confined to the body of the distribution, under a heavy tail
    /// of rare huge outliers that swamps the uncropped test, is found by a
    /// cropped test.
    #[test]
    fn cropping_finds_a_leak_under_outliers() {
        let fixed = [0u8; 4];
        let mut counter = 0u64;
        let mut measure = |input: &[u8]| {
            counter += 1;
            let h = counter.wrapping_mul(0x9e37_79b9_7f4a_7c15);
            let base = 1000 + (h >> 58); // 1000..1064
            let extra = if input == fixed { 0 } else { 2 };
            // One measurement in 64 is a huge "interrupt".
            let tail = if h.is_multiple_of(64) {
                1_000_000 + (h >> 40)
            } else {
                0
            };
            Ok(base + extra + tail)
        };
        let o = dudect(200_000, None, &fixed, 3, &|_| {}, &mut measure).unwrap();
        assert!(o.t.abs() > 10.0, "t = {}", o.t);
        assert!(o.percentile < 1.0, "found only uncropped");
    }

    /// Bad options are refused before anything is measured.
    #[test]
    fn bad_options_are_refused_at_once() {
        for (n, secs, fail_at) in [
            (5, None, THRESHOLD),
            (100_000, Some(0.0), THRESHOLD),
            (100_000, Some(f64::NAN), THRESHOLD),
            (100_000, None, 3.0),
            (100_000, None, f64::NAN),
        ] {
            assert!(
                run(n, secs, fail_at, None, false, None).is_err(),
                "{n} {secs:?} {fail_at}"
            );
        }
        // A name nothing has.
        let err = run(100_000, None, THRESHOLD, Some("no such thing"), false, None).unwrap_err();
        assert!(err.contains("--only no such thing"), "{err}");
    }

    #[test]
    fn wrong_tags_differ_first_at_the_position_asked() {
        let tag = [0xaau8; 16];
        for p in 0..16u8 {
            let mut input = [0x55u8; 16];
            input[0] = p + 16 * 3; // the position is taken mod 16
            let wrong = wrong_tag(&tag, &input);
            let first = wrong.iter().zip(&tag).position(|(a, b)| a != b);
            assert_eq!(first, Some(usize::from(p)));
        }
    }

    /// What each target seals is what it was loaded with (repeated to
    /// its length; a batch target's first `BATCH_MESSAGE` bytes), sealed
    /// as the one-message call seals it, and it opens that ciphertext
    /// under that tag and no other.
    #[test]
    fn every_target_seals_and_opens_what_it_loads() {
        let input: Vec<u8> = (0..MESSAGE).map(|i| (i * 7 + 1) as u8).collect();
        for target in targets() {
            let Ok(build) = &target.build else {
                eprintln!("SKIP {}: not run on this CPU", target.name);
                continue;
            };
            let key: Vec<u8> = (0..target.key_len).map(|i| (i * 13 + 5) as u8).collect();
            let cipher = build(&key).unwrap();
            let mut buf = vec![0u8; target.message];
            cipher.load(&input, &mut buf);
            let mut expected: Vec<u8> =
                input.iter().copied().cycle().take(target.message).collect();
            assert_eq!(buf, expected, "{}: loaded", target.name);
            let tag = cipher.seal(&mut buf).unwrap();
            cipher.ciphertext(&mut buf);
            let batch = matches!(cipher, Cipher::GcmBatch(..) | Cipher::AetherBatch(..));
            if batch {
                expected.truncate(BATCH_MESSAGE);
            }
            let want = match &cipher {
                Cipher::Aether(_) | Cipher::AetherBatch(..) => Aether::new(&key)
                    .unwrap()
                    .encrypt_in_place_detached(&IV, &[], &mut expected),
                _ => {
                    let iv = if matches!(cipher, Cipher::GcmLongIv(_)) {
                        &IV[..]
                    } else {
                        &IV[..12]
                    };
                    AesGcm::new(&key)
                        .unwrap()
                        .encrypt_in_place_detached(iv, &[], &mut expected, 16)
                        .map(|t| t.as_bytes().try_into().unwrap())
                }
            }
            .unwrap();
            let sealed = &buf[..expected.len()];
            assert_eq!(
                (sealed, tag),
                (&expected[..], want),
                "{}: sealed",
                target.name
            );
            let ciphertext = buf.clone();
            cipher.load(&ciphertext, &mut buf);
            assert!(cipher.open(&mut buf, &tag), "{}: opens", target.name);
            let mut wrong = tag;
            wrong[15] ^= 1;
            cipher.load(&ciphertext, &mut buf);
            assert!(
                !cipher.open(&mut buf, &wrong),
                "{}: a wrong tag",
                target.name
            );
        }
    }

    #[test]
    fn the_control_is_not_constant_time_and_the_rest_are() {
        let targets = targets();
        let control = targets.last().unwrap();
        assert!(!control.constant_time && control.build.is_ok());
        assert!(targets[..targets.len() - 1].iter().all(|t| t.constant_time));
        // Every class this CPU runs is among the targets that run.
        for class in Class::ALL.into_iter().filter(|c| c.is_available()) {
            let name = match class {
                Class::Fused(f) => f.name().to_string(),
                c => {
                    let (a, g) = class_pair(c);
                    format!("{}+{}", a.name(), g.name())
                }
            };
            assert!(
                targets.iter().any(|t| t.name == name && t.build.is_ok()),
                "class {} not measured",
                class.name()
            );
        }
    }
}
