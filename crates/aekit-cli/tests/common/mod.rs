//! Helpers shared by the command's integration tests: run the real
//! `aekit` binary in a directory and check how it ended.
#![allow(dead_code)] // Each test file uses its own subset.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

pub const CHUNK: usize = 16384;
pub const SEALED: usize = CHUNK + 16;
pub const HEADER: usize = 56;

/// Runs `aekit` in `dir` with `args`, feeding `stdin`.
pub fn aekit(dir: &Path, args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_aekit"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run aekit");
    let mut input = child.stdin.take().expect("stdin");
    // A failing aekit may stop reading early; a broken pipe here is fine.
    let _ = input.write_all(stdin);
    drop(input);
    child.wait_with_output().expect("aekit output")
}

/// Runs `aekit` and asserts it succeeds; returns stdout.
pub fn ok(dir: &Path, args: &[&str]) -> Vec<u8> {
    let out = aekit(dir, args, &[]);
    assert!(
        out.status.success(),
        "aekit {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// Runs `aekit` and asserts it fails with `code`, one line on stderr, and
/// leaves neither `output` nor a temporary file in `dir`.
pub fn fails(dir: &Path, args: &[&str], code: i32, output: &str) -> String {
    let out = aekit(dir, args, &[]);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(code), "aekit {args:?}: {stderr}");
    assert!(stderr.starts_with("aekit: "), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
    assert!(
        !dir.join(output).exists(),
        "{output} left behind by {args:?}"
    );
    let left = leftovers(dir);
    assert!(left.is_empty(), "temporary files left: {left:?}");
    stderr
}

/// Deterministic bytes that differ from chunk to chunk.
pub fn data(len: usize, seed: u64) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

pub fn setup() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().expect("temp dir");
    let dir = tmp.path().to_path_buf();
    ok(&dir, &["keygen", "-o", "k.key"]);
    (tmp, dir)
}

pub fn split(args: &str) -> Vec<&str> {
    args.split_whitespace().collect()
}

/// The temporary files (`.NAME.RANDOM.aekit-tmp`) in `dir`.
pub fn leftovers(dir: &Path) -> Vec<PathBuf> {
    fs::read_dir(dir)
        .expect("dir")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.to_string_lossy().ends_with(".aekit-tmp"))
        .collect()
}

/// Writes a key file readable by its owner only, as `aekit keygen` does.
pub fn write_key(path: &Path, key: &[u8]) {
    fs::write(path, key).expect("write key");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(path, fs::Permissions::from_mode(0o600)).expect("chmod");
    }
}

/// Prints `SKIP <why>` where a reader sees it: straight to stderr, which
/// the test harness does not capture (it captures `eprintln!`).
#[allow(dead_code)] // not every test file skips
pub fn skip(why: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "SKIP {why}");
}
