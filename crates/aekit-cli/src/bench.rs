//! `aekit bench`: a few seconds' measurement of this machine's AES-GCM,
//! in every implementation class (`gcm::Class`: each fused kernel, the
//! best pair of separate strategies, portable constant-time software), so
//! that a user sees what the default gives here and what each class below
//! it would. No peers, no plots: the comparisons with other libraries,
//! the seeds' tables and the rest are the suites of `aekit-bench`.
//!
//! AES-128 and AES-256 encryption in place, 12-byte nonce, no associated
//! data, 16-byte tag, at 64 B (a small packet: the per-call cost), 1500 B
//! (an Ethernet MTU's packet), 16 KiB (a TLS record, and a chunk of
//! `aekit encrypt`) and 1 MiB (bulk). Timing is `aekit-harness`'s: the
//! cases of a size interleaved, best batch of [`ROUNDS`]; GB/s and cycles
//! of the time-stamp counter (a constant-rate clock, not the core's).

use std::hint::black_box;
use std::io::{self, Write};
use std::time::Duration;

use aekit::AesGcm;
use aekit::gcm::Class;
use aekit_harness::{self as harness, Case, size_label};

/// The options of `aekit bench`: none. Whatever is given (the suites'
/// `--suite`, `--quick`, `--json`, ...) is caught to say where it went.
#[derive(clap::Args)]
pub struct Args {
    #[arg(hide = true, trailing_var_arg = true, allow_hyphen_values = true)]
    moved: Vec<String>,
}

/// Sizes measured, in bytes (see the module header).
const SIZES: [usize; 4] = [64, 1500, 16 << 10, 1 << 20];
/// Interleaved rounds per size.
const ROUNDS: usize = 5;
/// The key lengths measured: AES-128 and AES-256.
const KEY_LENGTHS: [usize; 2] = [16, 32];

/// Where the full benchmarks are, for the help and the refusal.
pub const SUITES: &str = "\
The comparisons with other libraries (aws-lc-rs, ring, OpenSSL, ...), the seed papers'
tables, the timing test and the other suites are aekit-bench's; in aekit's repository:
  cargo run --release -p aekit-bench -- --help";

/// Why `args` cannot run, if they are the suites' options.
pub fn refusal(args: &Args) -> Option<String> {
    (!args.moved.is_empty()).then(|| {
        format!(
            "`aekit bench` takes no options ({} given).\n{SUITES}",
            args.moved.join(" ")
        )
    })
}

/// Measures every class and writes the table to `out`.
pub fn run(out: &mut dyn Write) -> io::Result<()> {
    let ghz = harness::tsc_ghz(Duration::from_millis(50));
    let default = AesGcm::new(&[0; 16]).map_or_else(|e| e.to_string(), |g| g.implementation());
    writeln!(
        out,
        "AES-GCM encryption in place on one core: 12-byte nonce, no AAD, 16-byte tag; \
         best of {ROUNDS} interleaved rounds.\n\
         CPU: {}; time-stamp counter {ghz:.2} GHz (cycles are TSC cycles).",
        harness::cpu_model()
    )?;
    if let Some(width) = harness::core_per_tsc().and_then(harness::adds_per_cycle) {
        writeln!(out, "Core width: {}.", harness::width_words(width))?;
    }
    writeln!(out, "Default here: {default}.\n")?;
    // One case per (class, key length), in the order of the table's rows.
    let rows: Vec<(Class, usize)> = Class::ALL
        .into_iter()
        .flat_map(|class| KEY_LENGTHS.map(|len| (class, len)))
        .collect();
    let mut cases: Vec<Case<'_>> = rows.iter().map(|&(c, len)| case(c, len)).collect();
    let results: Vec<_> = SIZES
        .iter()
        .map(|&size| harness::measure(&mut cases, size, ROUNDS))
        .collect();

    let sizes: Vec<String> = SIZES.iter().map(|&n| size_label(n)).collect();
    writeln!(
        out,
        "| class | key | implementation | {} |",
        sizes.join(" | ")
    )?;
    writeln!(out, "|---|---|---|{}", "---:|".repeat(SIZES.len()))?;
    for (i, ((class, len), case)) in rows.iter().zip(&cases).enumerate() {
        let cells: Vec<String> = results
            .iter()
            .map(|by_case| match by_case[i] {
                Some(s) => format!("{:.2} ({:.2})", s.gb_per_s(), s.tsc_per_byte()),
                None => "–".into(),
            })
            .collect();
        let what = match &case.run {
            Ok(_) => case.name.as_str(),
            Err(why) => why.as_str(),
        };
        writeln!(
            out,
            "| {} | AES-{} | {what} | {} |",
            class.name(),
            len * 8,
            cells.join(" | ")
        )?;
    }
    writeln!(out, "\nCells: GB/s (TSC cycles per byte).\n\n{SUITES}")
}

/// Encrypting with `class` under a key of `len` bytes, named by the
/// implementation it builds; or why it cannot run here.
fn case(class: Class, len: usize) -> Case<'static> {
    let unavailable = |why: String| Case {
        name: String::new(),
        run: Err(why),
    };
    if !class.is_available() {
        return unavailable("not on this CPU".into());
    }
    match AesGcm::with_class(&vec![0x42; len], class) {
        Ok(gcm) => Case {
            name: gcm.implementation(),
            run: Ok(Box::new(move |buf: &mut [u8]| {
                let tag = gcm.encrypt_in_place_detached(&[7; 12], b"", buf, 16);
                black_box(tag.expect("a 12-byte nonce and a 16-byte tag"));
            })),
        },
        Err(e) => unavailable(format!("failed: {e}")),
    }
}
