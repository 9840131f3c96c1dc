//! Constant-time claims, checked: every strategy runs under Valgrind
//! memcheck with its secrets marked undefined. A strategy that says it is
//! constant-time must come out clean; one that says it is not must be
//! caught — so the check is seen to fail where it should.
//!
//! Needs `valgrind` on PATH. Without it the test is skipped with a note,
//! except under CI (`CI` set), where it fails. The checked binary is the
//! one this test was built with, or `AEKIT_CTGRIND_BIN` when set — `.ci/run`
//! points it at the release build, the code users actually run.

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

fn valgrind_present() -> bool {
    let found = Command::new("valgrind")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        assert!(
            std::env::var_os("CI").is_none(),
            "valgrind is required in CI"
        );
        eprintln!("SKIP constant-time checks: valgrind not found");
    }
    found
}

fn check(kind: &str, name: &str, claims_constant_time: bool) {
    let Some(clean) = memcheck(kind, name).unwrap_or_else(|e| panic!("{e}")) else {
        println!("SKIP {kind} {name}: Valgrind's virtual CPU lacks its instructions");
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
}

#[test]
fn aes_strategies_are_constant_time_exactly_when_they_say_so() {
    if !valgrind_present() {
        return;
    }
    for s in aes::Strategy::ALL.into_iter().filter(|s| s.is_available()) {
        check("aes", s.name(), s.is_constant_time());
    }
}

#[test]
fn ghash_strategies_are_constant_time_exactly_when_they_say_so() {
    if !valgrind_present() {
        return;
    }
    for s in ghash::Strategy::ALL
        .into_iter()
        .filter(|s| s.is_available())
    {
        check("ghash", s.name(), s.is_constant_time());
    }
}

#[test]
fn gcm_over_constant_time_pairs_is_constant_time() {
    if !valgrind_present() {
        return;
    }
    let ct_aes = aes::Strategy::ALL
        .into_iter()
        .filter(|s| s.is_available() && s.is_constant_time());
    for a in ct_aes {
        for g in ghash::Strategy::ALL
            .into_iter()
            .filter(|s| s.is_available() && s.is_constant_time())
        {
            check("gcm", &format!("{}+{}", a.name(), g.name()), true);
        }
    }
}

#[test]
fn aether_strategies_are_constant_time_exactly_when_they_say_so() {
    if !valgrind_present() {
        return;
    }
    for s in aekit::aether::Strategy::ALL
        .into_iter()
        .filter(|s| s.is_available())
    {
        check("aether", s.name(), s.is_constant_time());
    }
}

#[test]
fn fused_kernels_are_constant_time() {
    if !valgrind_present() {
        return;
    }
    for f in aekit::gcm::Fused::ALL
        .into_iter()
        .filter(|f| f.is_available())
    {
        check("gcm", f.name(), true);
    }
}

#[test]
fn face_is_constant_time_on_fixslice_and_caught_on_table() {
    if !valgrind_present() {
        return;
    }
    for a in aes::Strategy::ALL
        .into_iter()
        .filter(|&a| aekit::ctr::face::supports(a))
    {
        for v in aekit::ctr::face::Variant::ALL {
            check(
                "face",
                &format!("{}/{}", a.name(), v.name()),
                a.is_constant_time(),
            );
        }
    }
}
