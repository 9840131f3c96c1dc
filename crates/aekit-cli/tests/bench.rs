//! `aekit bench`: a row for every implementation class and key size, the
//! default named, and the suites' options answered with where they went
//! (timings are not checked: tests are not benchmarks).

mod common;

use common::{aekit, ok};

#[test]
fn every_class_has_a_row() {
    let dir = tempfile::tempdir().unwrap();
    let out = String::from_utf8(ok(dir.path(), &["bench"])).unwrap();
    assert!(out.contains("CPU: "), "{out}");
    assert!(out.contains("Default here: "), "{out}");
    // Whether the core was shared, where it can be measured.
    assert_eq!(
        out.contains("Core width: "),
        cfg!(target_arch = "x86_64"),
        "{out}"
    );
    for class in aekit::gcm::Class::ALL {
        for key in ["AES-128", "AES-256"] {
            let row = out
                .lines()
                .find(|l| l.starts_with(&format!("| {} | {key} |", class.name())))
                .unwrap_or_else(|| panic!("no row for {} {key}: {out}", class.name()));
            let measured = !row.contains("not on this CPU");
            assert_eq!(measured, class.is_available(), "{row}");
            // A measured cell is "GB/s (cycles per byte)"; the others "–".
            assert_eq!(row.contains('('), measured, "{row}");
        }
    }
    assert!(
        out.contains("aekit-bench"),
        "the suites are not named: {out}"
    );
}

#[test]
fn the_suites_options_say_where_the_suites_went() {
    let dir = tempfile::tempdir().unwrap();
    for args in [&["bench", "--suite", "peers"][..], &["bench", "--quick"]] {
        let out = aekit(dir.path(), args, &[]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains("aekit-bench"), "{args:?}: {stderr}");
        assert!(out.stdout.is_empty(), "{args:?}: measured before failing");
    }
}

#[test]
fn help_names_the_full_benchmarks() {
    let dir = tempfile::tempdir().unwrap();
    let help = String::from_utf8(ok(dir.path(), &["bench", "--help"])).unwrap();
    assert!(help.contains("aekit-bench"), "{help}");
}
