//! Constant-time claims, checked: every strategy runs under Valgrind
//! memcheck with its secrets marked undefined. A strategy that says it is
//! constant-time must come out clean; one that says it is not must be
//! caught — so the check is seen to fail where it should.
//!
//! Needs `valgrind` on PATH. Without it the checks are skipped with a note
//! that the test harness does not capture, unless they are asked for:
//! with `AEKIT_CTGRIND_REQUIRED=1` (which `.ci/run` sets) or `CI` set, a
//! missing Valgrind is a failure. Valgrind's virtual CPU has no VAES and no
//! AVX-512, so the kernels built on them (`vaes`, `vclmul`, `vaes-avx2`,
//! `vaes-avx512`, AETHER `avx512`) cannot be checked here; each test prints
//! how many it checked, how many Valgrind could not run and how many this
//! CPU lacks, with their names, also uncaptured. Those kernels' timing is
//! tested statistically by `aekit-bench ct` instead.
//!
//! The checked binary is the one this test was built with, or
//! `AEKIT_CTGRIND_BIN` when set — `.ci/run` points it at the release
//! build, the code users actually run.

use std::io::Write;
use std::process::Command;

use aekit::{aes, ghash};

/// memcheck's verdict on one run: Ok(Some(clean)), Ok(None) when
/// Valgrind's virtual CPU lacks the strategy's instructions, or Err(report).
fn memcheck(kind: &str, name: &str) -> Result<Option<bool>, String> {
    let out = Command::new("valgrind")
        .args([
            "--tool=memcheck",
            "--error-exitcode=42",
            "--track-origins=no",
            "-q",
        ])
        .arg(checked_binary())
        .args([kind, name])
        .output()
        .map_err(|e| e.to_string())?;
    match out.status.code() {
        Some(0) => Ok(Some(true)),
        Some(42) => Ok(Some(false)),
        Some(3) => Ok(None),
        other => Err(format!(
            "{kind} {name}: exit {other:?}\n{}",
            String::from_utf8_lossy(&out.stderr)
        )),
    }
}

fn checked_binary() -> std::ffi::OsString {
    std::env::var_os("AEKIT_CTGRIND_BIN")
        .unwrap_or_else(|| env!("CARGO_BIN_EXE_aekit-ctgrind").into())
}

/// Writes a line to the process's stderr directly: the test harness
/// captures `println!`/`eprintln!` of a passing test, not this, so skips
/// are seen in a plain `cargo test`.
fn uncaptured(line: &str) {
    let _ = writeln!(std::io::stderr(), "{line}");
}

/// Whether the checks were asked for, so that they may not be skipped.
fn required() -> bool {
    let set = |var: &str| std::env::var_os(var).is_some_and(|v| !v.is_empty() && v != "0");
    set("AEKIT_CTGRIND_REQUIRED") || set("CI")
}

/// Whether Valgrind can run; without it, a loud skip, or a failure when
/// the checks are required.
fn valgrind_present(what: &str) -> bool {
    let found = Command::new("valgrind")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        assert!(
            !required(),
            "valgrind not found, and the constant-time checks are required \
             (AEKIT_CTGRIND_REQUIRED or CI is set): install it (apt-get install valgrind)"
        );
        uncaptured(&format!(
            "SKIP all {what} constant-time checks: valgrind not found \
             (AEKIT_CTGRIND_REQUIRED=1 makes this a failure)"
        ));
    }
    found
}

/// What one test checked and what it could not, reported at its end.
struct Tally {
    what: &'static str,
    checked: usize,
    /// Valgrind's virtual CPU lacks their instructions.
    skipped: Vec<String>,
    /// This CPU lacks their instructions.
    unavailable: Vec<String>,
}

impl Tally {
    fn new(what: &'static str) -> Tally {
        Tally {
            what,
            checked: 0,
            skipped: Vec::new(),
            unavailable: Vec::new(),
        }
    }

    /// Checks one strategy under memcheck; an unavailable one is counted.
    fn check(&mut self, kind: &str, name: &str, available: bool, claims_constant_time: bool) {
        if !available {
            self.unavailable.push(name.to_string());
            return;
        }
        let Some(clean) = memcheck(kind, name).unwrap_or_else(|e| panic!("{e}")) else {
            self.skipped.push(name.to_string());
            return;
        };
        assert_eq!(
            clean, claims_constant_time,
            "{kind} {name}: claims constant-time = {claims_constant_time}, memcheck clean = {clean}"
        );
        println!(
            "{kind} {name}: constant-time = {clean} (as claimed) in {:?}",
            checked_binary()
        );
        self.checked += 1;
    }

    /// One uncaptured line per test: the counts, and the names skipped.
    fn report(self) {
        let mut line = format!("ctgrind {}: {} checked", self.what, self.checked);
        if !self.skipped.is_empty() {
            line += &format!(
                ", {} SKIPPED because Valgrind cannot execute their instructions \
                 (VAES, VPCLMULQDQ, AVX-512): {} (timing: aekit-bench ct)",
                self.skipped.len(),
                self.skipped.join(", ")
            );
        }
        if !self.unavailable.is_empty() {
            line += &format!(
                ", {} not run because this CPU lacks them: {}",
                self.unavailable.len(),
                self.unavailable.join(", ")
            );
        }
        uncaptured(&line);
        assert!(
            self.checked > 0,
            "ctgrind {}: nothing was checked",
            self.what
        );
    }
}

#[test]
fn aes_strategies_are_constant_time_exactly_when_they_say_so() {
    if !valgrind_present("aes") {
        return;
    }
    let mut tally = Tally::new("aes");
    for s in aes::Strategy::ALL {
        tally.check("aes", s.name(), s.is_available(), s.is_constant_time());
    }
    tally.report();
}

#[test]
fn ghash_strategies_are_constant_time_exactly_when_they_say_so() {
    if !valgrind_present("ghash") {
        return;
    }
    let mut tally = Tally::new("ghash");
    for s in ghash::Strategy::ALL {
        tally.check("ghash", s.name(), s.is_available(), s.is_constant_time());
    }
    tally.report();
}

#[test]
fn gcm_over_constant_time_pairs_is_constant_time() {
    if !valgrind_present("gcm pair") {
        return;
    }
    let mut tally = Tally::new("gcm pairs");
    for a in aes::Strategy::ALL
        .into_iter()
        .filter(|s| s.is_constant_time())
    {
        for g in ghash::Strategy::ALL
            .into_iter()
            .filter(|s| s.is_constant_time())
        {
            let available = a.is_available() && g.is_available();
            tally.check(
                "gcm",
                &format!("{}+{}", a.name(), g.name()),
                available,
                true,
            );
        }
    }
    tally.report();
}

#[test]
fn aether_strategies_are_constant_time_exactly_when_they_say_so() {
    if !valgrind_present("aether") {
        return;
    }
    let mut tally = Tally::new("aether");
    for s in aekit::aether::Strategy::ALL {
        tally.check("aether", s.name(), s.is_available(), s.is_constant_time());
    }
    tally.report();
}

#[test]
fn fused_kernels_are_constant_time() {
    if !valgrind_present("fused kernel") {
        return;
    }
    let mut tally = Tally::new("gcm fused kernels");
    for f in aekit::gcm::Fused::ALL {
        tally.check("gcm", f.name(), f.is_available(), true);
    }
    // A CPU with none of the fused kernels has nothing to check here.
    if tally.checked == 0 && tally.skipped.is_empty() {
        uncaptured("ctgrind gcm fused kernels: this CPU runs none");
        return;
    }
    tally.report();
}

#[test]
fn face_is_constant_time_on_fixslice_and_caught_on_table() {
    if !valgrind_present("face") {
        return;
    }
    let mut tally = Tally::new("face");
    for a in aes::Strategy::ALL
        .into_iter()
        .filter(|&a| aekit::ctr::face::supports(a))
    {
        for v in aekit::ctr::face::Variant::ALL {
            tally.check(
                "face",
                &format!("{}/{}", a.name(), v.name()),
                a.is_available(),
                a.is_constant_time(),
            );
        }
    }
    tally.report();
}

/// The missing-Valgrind rule, on this very test binary re-run with a PATH
/// that holds no `valgrind`: a loud skip when not asked for, a failure
/// when `AEKIT_CTGRIND_REQUIRED=1` asks for the checks.
#[test]
fn missing_valgrind_is_a_loud_skip_or_a_failure_when_required() {
    let rerun = |required: Option<&str>| {
        let mut cmd = Command::new(std::env::current_exe().expect("test binary"));
        cmd.args([
            "--exact",
            "aes_strategies_are_constant_time_exactly_when_they_say_so",
        ])
        .env("PATH", concat!(env!("CARGO_MANIFEST_DIR"), "/src"))
        .env_remove("CI")
        .env_remove("AEKIT_CTGRIND_REQUIRED");
        if let Some(v) = required {
            cmd.env("AEKIT_CTGRIND_REQUIRED", v);
        }
        cmd.output().expect("re-run the test binary")
    };
    let skipped = rerun(None);
    let err = String::from_utf8_lossy(&skipped.stderr);
    assert!(skipped.status.success(), "{err}");
    assert!(
        err.contains("SKIP all aes constant-time checks: valgrind not found"),
        "the skip is not visible without --nocapture: {err}"
    );

    let asked = rerun(Some("1"));
    let out = String::from_utf8_lossy(&asked.stdout);
    assert!(!asked.status.success(), "required, yet passed: {out}");
    assert!(
        out.contains("valgrind not found") || out.contains("failures"),
        "{out}"
    );
}
