//! aekit-core's test firmware for Cortex-M: checks the AES rounds'
//! assembly against the portable rounds on random inputs, then runs the
//! GCM spec's test cases 1–18, Wycheproof's AES-GCM cases and
//! FACE-against-plain cross-checks on nine configurations of the core
//! (Karatsuba with plain counters and every FACE variant, the 4-bit table
//! with plain, rd1+ and rd2+), prints a line per suite over ARM
//! semihosting, and exits with success or failure (SYS_EXIT), so that
//! `qemu-system-arm -semihosting` returns the verdict as its status.
//!
//! The runtime (vector table, reset, semihosting) is the crate's library,
//! `src/lib.rs`; the reset handler calls `firmware_main` here.

#![no_std]
#![no_main]

use core::fmt::Write;

use aekit_core::aes::fixslice::{State, rounds_match_portable};
use aekit_core::aes::{Block, Fixslice};
use aekit_core::ctr::face::{Rd0, Rd1, Rd1Plus, Rd2, Rd2Plus};
use aekit_core::ctr::{Mode, Plain, apply_keystream};
use aekit_core::gcm::TAG_LENGTHS;
use aekit_core::ghash::{GhashKey, Karatsuba, Shoup4};
use aekit_core::{AesGcm, Error};
use zeroize::Zeroize;

use aekit_core_firmware::semihosting::{self, Console};

/// One test vector, as `build.rs` writes them.
pub struct Case {
    id: u32,
    key: &'static [u8],
    iv: &'static [u8],
    aad: &'static [u8],
    pt: &'static [u8],
    ct: &'static [u8],
    tag: &'static [u8],
    valid: bool,
}

mod vectors {
    use super::Case;
    include!(concat!(env!("OUT_DIR"), "/vectors.rs"));
}

/// The longest message among the vectors and the cross-checks.
const MAX_LEN: usize = 16 * 600 + 5;

/// Failures so far, and the console to report them on.
struct Run {
    console: Console,
    failures: u32,
    checks: u32,
}

impl Run {
    fn check(&mut self, ok: bool, what: &str, id: u32, config: &[&str; 2]) {
        self.checks += 1;
        if !ok {
            self.failures += 1;
            if self.failures <= 20 {
                let _ = writeln!(
                    self.console,
                    "FAIL {what} case {id} fixslice+{}+{}",
                    config[0], config[1]
                );
            }
        }
    }
}

/// The spec's cases with every tag length, and Wycheproof, on one
/// configuration.
fn vectors_on<G: GhashKey + Zeroize, C: Mode>(run: &mut Run, buf: &mut [u8]) {
    let cfg = [G::NAME, C::NAME];
    for case in &vectors::SPEC {
        let gcm = AesGcm::<G, C>::new(case.key)
            .unwrap()
            .with_relaxed_tag_rules();
        for tag_len in TAG_LENGTHS {
            let b = &mut buf[..case.pt.len()];
            b.copy_from_slice(case.pt);
            let tag = gcm.encrypt_in_place_detached(case.iv, case.aad, b, tag_len);
            let ok = tag.is_ok_and(|t| t.as_bytes() == &case.tag[..tag_len]) && b == case.ct;
            run.check(ok, "spec seal", case.id, &cfg);
            let opened = gcm.decrypt_in_place_detached(case.iv, case.aad, b, &case.tag[..tag_len]);
            run.check(opened.is_ok() && b == case.pt, "spec open", case.id, &cfg);
        }
    }
    for case in &vectors::WYCHEPROOF {
        let gcm = AesGcm::<G, C>::new(case.key)
            .unwrap()
            .with_relaxed_tag_rules();
        let b = &mut buf[..case.ct.len()];
        b.copy_from_slice(case.ct);
        let opened = gcm.decrypt_in_place_detached(case.iv, case.aad, b, case.tag);
        if case.valid {
            run.check(
                opened.is_ok() && b == case.pt,
                "wycheproof open",
                case.id,
                &cfg,
            );
            b.copy_from_slice(case.pt);
            let tag = gcm.encrypt_in_place_detached(case.iv, case.aad, b, case.tag.len());
            let ok = tag.is_ok_and(|t| t.as_bytes() == case.tag) && b == case.ct;
            run.check(ok, "wycheproof seal", case.id, &cfg);
        } else {
            let want = if case.iv.is_empty() {
                Error::EmptyIv
            } else {
                Error::AuthenticationFailed
            };
            let wiped = want == Error::EmptyIv || b.iter().all(|&x| x == 0);
            run.check(
                opened == Err(want) && wiped,
                "wycheproof reject",
                case.id,
                &cfg,
            );
        }
    }
}

/// FACE variant `C` against plain counter mode from counters around the
/// resets and the 32-bit wrap, every key size.
fn face_against_plain<C: Mode>(run: &mut Run, a: &mut [u8], b: &mut [u8]) {
    for (k, key) in [[7u8; 32], [9; 32], [11; 32]].iter().enumerate() {
        let aes = Fixslice::new(&key[..16 + 8 * k]).unwrap();
        for (s, start) in [0xffff_fefdu32, 0xffff_ffff, 0x0000_00fe, 3, 0]
            .into_iter()
            .enumerate()
        {
            for len in [0, 1, 17, 32, 33, 16 * 257, MAX_LEN] {
                let mut counter: Block = [0x3c; 16];
                counter[12..].copy_from_slice(&start.to_be_bytes());
                for (i, (x, y)) in a[..len].iter_mut().zip(b[..len].iter_mut()).enumerate() {
                    *x = (i * 7) as u8;
                    *y = *x;
                }
                let (mut c1, mut c2) = (counter, counter);
                apply_keystream(&aes, &mut c1, &mut a[..len]);
                C::apply(&aes, &mut c2, &mut b[..len]);
                let ok = a[..len] == b[..len] && c1 == c2;
                run.check(
                    ok,
                    "face-vs-plain",
                    (100 * k + 10 * s) as u32,
                    &["plain", C::NAME],
                );
            }
        }
    }
}

/// The AES rounds of this target (the assembly on ARMv7-M) against the
/// portable rounds on random states and round keys and on all-zero and
/// all-one words: one round with each MixColumns variant, and runs of
/// three rounds.
fn rounds_against_portable(run: &mut Run) {
    const FIXED: [(State, State); 3] = [([0; 8], [0; 8]), ([!0; 8], [!0; 8]), ([0; 8], [!0; 8])];
    // xorshift32: a fixed, reproducible stream.
    let mut x = 0x2545_f491u32;
    let mut word = move || {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        x
    };
    let mut slices = || -> State { core::array::from_fn(|_| word()) };
    for i in 0..1000u32 {
        let (state, keys) = match FIXED.get(i as usize) {
            Some(&(state, key)) => (state, [key; 3]),
            None => (slices(), [slices(), slices(), slices()]),
        };
        let ok = rounds_match_portable(&state, &keys);
        run.check(ok, "rounds", i, &["asm", "portable"]);
    }
}

/// Runs the vectors on one configuration and reports it.
fn suite<G: GhashKey + Zeroize, C: Mode>(run: &mut Run, buf: &mut [u8]) {
    let before = (run.checks, run.failures);
    vectors_on::<G, C>(run, buf);
    let _ = writeln!(
        run.console,
        "vectors fixslice+{}+{}: {} checks, {} failed",
        G::NAME,
        C::NAME,
        run.checks - before.0,
        run.failures - before.1
    );
}

#[unsafe(no_mangle)]
fn firmware_main() -> ! {
    static mut A: [u8; MAX_LEN] = [0; MAX_LEN];
    static mut B: [u8; MAX_LEN] = [0; MAX_LEN];
    // SAFETY: `main` runs once, with interrupts never enabled: these are
    // the only references to A and B.
    let (a, b) = unsafe {
        (
            &mut *core::ptr::addr_of_mut!(A),
            &mut *core::ptr::addr_of_mut!(B),
        )
    };
    let mut run = Run {
        console: Console::new(),
        failures: 0,
        checks: 0,
    };
    let _ = writeln!(
        run.console,
        "aekit-core firmware: {} spec cases, {} Wycheproof cases",
        vectors::SPEC.len(),
        vectors::WYCHEPROOF.len()
    );
    let before = (run.checks, run.failures);
    rounds_against_portable(&mut run);
    let _ = writeln!(
        run.console,
        "AES rounds against the portable rounds: {} checks, {} failed",
        run.checks - before.0,
        run.failures - before.1
    );
    suite::<Karatsuba, Plain>(&mut run, a);
    suite::<Karatsuba, Rd0>(&mut run, a);
    suite::<Karatsuba, Rd1>(&mut run, a);
    suite::<Karatsuba, Rd1Plus>(&mut run, a);
    suite::<Karatsuba, Rd2>(&mut run, a);
    suite::<Karatsuba, Rd2Plus>(&mut run, a);
    suite::<Shoup4, Plain>(&mut run, a);
    suite::<Shoup4, Rd1Plus>(&mut run, a);
    suite::<Shoup4, Rd2Plus>(&mut run, a);
    let before = (run.checks, run.failures);
    face_against_plain::<Rd0>(&mut run, a, b);
    face_against_plain::<Rd1>(&mut run, a, b);
    face_against_plain::<Rd1Plus>(&mut run, a, b);
    face_against_plain::<Rd2>(&mut run, a, b);
    face_against_plain::<Rd2Plus>(&mut run, a, b);
    let _ = writeln!(
        run.console,
        "FACE against plain: {} checks, {} failed",
        run.checks - before.0,
        run.failures - before.1
    );
    let _ = writeln!(
        run.console,
        "{}: {} checks, {} failed",
        if run.failures == 0 { "PASS" } else { "FAIL" },
        run.checks,
        run.failures
    );
    semihosting::exit(run.failures == 0)
}
