//! End-to-end tests of the `aekit` binary: round trips at every length the
//! chunking cares about, range reads, and every kind of damage failing with
//! its documented exit status, in one line, leaving no output file behind.

use std::fs;
use std::process::Command;

mod common;

use common::*;

#[test]
fn keygen_makes_private_keys_and_never_overwrites() {
    let (_tmp, dir) = setup();
    assert_eq!(fs::read(dir.join("k.key")).expect("key").len(), 16);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = fs::metadata(dir.join("k.key"))
            .expect("meta")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    ok(&dir, &["keygen", "--aead", "aes-256-gcm", "-o", "k256.key"]);
    assert_eq!(fs::read(dir.join("k256.key")).expect("key").len(), 32);
    let before = fs::read(dir.join("k.key")).expect("key");
    let out = aekit(&dir, &["keygen", "-o", "k.key"], &[]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(fs::read(dir.join("k.key")).expect("key"), before);
    // Two keys are different.
    assert_ne!(
        fs::read(dir.join("k256.key")).expect("key")[..16],
        before[..]
    );
}

#[test]
fn round_trips_at_every_boundary() {
    let (_tmp, dir) = setup();
    ok(&dir, &["keygen", "--aead", "aes-256-gcm", "-o", "k256.key"]);
    for (i, len) in [0, 1, CHUNK - 1, CHUNK, CHUNK + 1, 5 << 20]
        .into_iter()
        .enumerate()
    {
        for key in ["k.key", "k256.key"] {
            let message = data(len, i as u64);
            fs::write(dir.join("m"), &message).expect("write");
            for threads in ["1", "2"] {
                let _ = fs::remove_file(dir.join("m.aekit"));
                let _ = fs::remove_file(dir.join("m.out"));
                ok(
                    &dir,
                    &[
                        "encrypt",
                        "--key",
                        key,
                        "--threads",
                        threads,
                        "-o",
                        "m.aekit",
                        "m",
                    ],
                );
                let sealed = fs::read(dir.join("m.aekit")).expect("ciphertext");
                assert_eq!(sealed.len(), HEADER + len + 16 * (len / CHUNK + 1), "{len}");
                ok(
                    &dir,
                    &[
                        "decrypt",
                        "--key",
                        key,
                        "--threads",
                        threads,
                        "-o",
                        "m.out",
                        "m.aekit",
                    ],
                );
                assert!(
                    fs::read(dir.join("m.out")).expect("plaintext") == message,
                    "{len} {key}"
                );
            }
        }
    }
}

#[test]
fn stdin_to_stdout_with_a_context() {
    let (_tmp, dir) = setup();
    let message = data(3 * CHUNK + 5, 9);
    let sealed = aekit(
        &dir,
        &["encrypt", "--key", "k.key", "--context", "v1"],
        &message,
    );
    assert!(sealed.status.success());
    let opened = aekit(
        &dir,
        &[
            "decrypt",
            "--key",
            "k.key",
            "--context",
            "v1",
            "-",
            "-o",
            "-",
        ],
        &sealed.stdout,
    );
    assert!(opened.status.success());
    assert!(opened.stdout == message);
    let wrong = aekit(&dir, &["decrypt", "--key", "k.key"], &sealed.stdout);
    assert_eq!(wrong.status.code(), Some(4));
    assert!(
        wrong.stdout.is_empty(),
        "nothing released under a wrong context"
    );
}

#[test]
fn range_reads_decrypt_only_what_is_asked() {
    let (_tmp, dir) = setup();
    let message = data(5 << 20, 3);
    fs::write(dir.join("m"), &message).expect("write");
    ok(&dir, &["encrypt", "--key", "k.key", "-o", "m.aekit", "m"]);
    let len = message.len();
    let ranges = [
        (0, 1),
        (100, 200),
        (CHUNK - 3, CHUNK + 3),
        (2 * CHUNK, 5 * CHUNK),
        (len - 10, len),
        (len - 10, len + 1000),
        (len, len),
    ];
    let range = |spec: &str| ok(&dir, &split(&format!("decrypt --key k.key --range {spec}")));
    for (start, end) in ranges {
        let out = range(&format!("{start}..{end} m.aekit"));
        assert!(
            out == message[start.min(len)..end.min(len)],
            "{start}..{end}"
        );
    }
    assert!(range("5000000.. m.aekit") == message[5_000_000..]);
    assert!(range("..70000 -o r m.aekit").is_empty());
    assert!(fs::read(dir.join("r")).expect("range file") == message[..70000]);

    // A range of valid chunks reads even if the end was cut off; a range
    // that needs the end fails as truncated.
    let sealed = fs::read(dir.join("m.aekit")).expect("ciphertext");
    fs::write(dir.join("cut.aekit"), &sealed[..sealed.len() - 5]).expect("write");
    assert!(range("0..100 cut.aekit") == message[..100]);
    fails(
        &dir,
        &split("decrypt --key k.key --range 0.. -o x cut.aekit"),
        5,
        "x",
    );
    let usage = aekit(
        &dir,
        &split("decrypt --key k.key --range 9..3 m.aekit"),
        &[],
    );
    assert_eq!(usage.status.code(), Some(2));

    // An input that cannot be read or seeked is named, as everywhere.
    fs::create_dir(dir.join("d")).expect("dir");
    let message = fails(&dir, &split("decrypt --key k.key --range 0.. d"), 1, "x");
    assert!(message.contains("reading d"), "{message}");
    let piped = aekit(
        &dir,
        &split("decrypt --key k.key --range 0.. /dev/stdin"),
        &sealed[..4096],
    );
    let message = String::from_utf8_lossy(&piped.stderr);
    assert_eq!(piped.status.code(), Some(1), "{message}");
    assert!(
        message.contains("needs a seekable input file; /dev/stdin"),
        "{message}"
    );
}

#[test]
fn damage_fails_with_its_exit_code_and_leaves_nothing() {
    let (_tmp, dir) = setup();
    let message = data(5 << 20, 5);
    fs::write(dir.join("m"), &message).expect("write");
    ok(&dir, &["encrypt", "--key", "k.key", "-o", "m.aekit", "m"]);
    let good = fs::read(dir.join("m.aekit")).expect("ciphertext");

    let mut flipped = good.clone();
    flipped[HEADER + 100 * SEALED + 1234] ^= 0x10;
    let mut swapped = good.clone();
    swapped[HEADER + 7 * SEALED..HEADER + 9 * SEALED].rotate_left(SEALED);
    let mut trailing = good.clone();
    trailing.extend_from_slice(b"trailing bytes");
    let mut header = good.clone();
    header[3] ^= 1;
    let cases: [(&str, &[u8], i32); 9] = [
        ("truncated inside a chunk", &good[..good.len() - 1000], 5),
        (
            "truncated at a chunk boundary",
            &good[..HEADER + 200 * SEALED],
            5,
        ),
        ("truncated inside the header", &good[..30], 5),
        ("empty", &[], 5),
        ("trailing data", &trailing, 5),
        ("flipped bit", &flipped, 6),
        ("swapped chunks", &swapped, 6),
        ("modified salt", &header, 4),
        ("intact", &good, 0),
    ];
    for (name, bytes, code) in cases {
        fs::write(dir.join("bad.aekit"), bytes).expect("write");
        for threads in ["1", "2"] {
            let args = [
                "decrypt",
                "--key",
                "k.key",
                "--threads",
                threads,
                "-o",
                "out",
                "bad.aekit",
            ];
            if code == 0 {
                ok(&dir, &args);
                fs::remove_file(dir.join("out")).expect("output of the intact file");
            } else {
                let stderr = fails(&dir, &args, code, "out");
                assert!(!stderr.contains("panick"), "{name}: {stderr}");
            }
        }
    }

    ok(&dir, &["keygen", "-o", "other.key"]);
    write_key(&dir.join("k256.key"), &[7u8; 32]);
    write_key(&dir.join("odd.key"), &[7u8; 20]);
    let stderr = fails(
        &dir,
        &split("decrypt --key other.key -o out m.aekit"),
        4,
        "out",
    );
    assert!(stderr.contains("wrong key"), "{stderr}");
    let wrong = [
        ("decrypt --key k.key --context x -o out m.aekit", 4),
        ("decrypt --key k256.key -o out m.aekit", 4),
        ("decrypt --key odd.key -o out m.aekit", 3),
        ("decrypt --key k.key --aead aes-256-gcm -o out m.aekit", 3),
        ("encrypt --key odd.key -o out m", 3),
        ("decrypt --key k.key -o out missing.aekit", 1),
    ];
    for (args, code) in wrong {
        fails(&dir, &split(args), code, "out");
    }
}

#[test]
fn existing_outputs_are_replaced_only_with_force() {
    let (_tmp, dir) = setup();
    fs::write(dir.join("m"), b"new").expect("write");
    fs::write(dir.join("m.aekit"), b"precious").expect("write");
    let out = aekit(
        &dir,
        &["encrypt", "--key", "k.key", "-o", "m.aekit", "m"],
        &[],
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(fs::read(dir.join("m.aekit")).expect("kept"), b"precious");
    ok(
        &dir,
        &["encrypt", "--key", "k.key", "--force", "-o", "m.aekit", "m"],
    );
    fs::write(dir.join("m.out"), b"precious").expect("write");
    let out = aekit(
        &dir,
        &["decrypt", "--key", "k.key", "-o", "m.out", "m.aekit"],
        &[],
    );
    assert_eq!(out.status.code(), Some(1));
    ok(
        &dir,
        &[
            "decrypt", "--key", "k.key", "--force", "-o", "m.out", "m.aekit",
        ],
    );
    assert_eq!(fs::read(dir.join("m.out")).expect("replaced"), b"new");
}

/// `AEKIT_KERNEL` caps the default implementation at a lower class.
#[test]
fn aekit_kernel_caps_the_default() {
    let info = |value: &str| {
        let out = Command::new(env!("CARGO_BIN_EXE_aekit"))
            .arg("info")
            .env("AEKIT_KERNEL", value)
            .output()
            .expect("run aekit");
        assert!(
            out.status.success(),
            "AEKIT_KERNEL={value} aekit info failed"
        );
        let text = String::from_utf8(out.stdout).expect("utf-8");
        let line = text
            .lines()
            .find(|l| l.starts_with("Default: "))
            .expect("a default line");
        line.to_string()
    };
    assert!(info("portable").starts_with("Default: fixslice + karatsuba"));
    let pair = info("pair");
    assert!(!pair.contains("fused"), "{pair}");
    let ni = info("ni-clmul");
    assert!(!ni.contains("vaes"), "{ni}");
}

/// An unknown `AEKIT_KERNEL` is a usage error (status 2) before anything is
/// done, with the same one line from every command, `info` included.
#[test]
fn an_unknown_aekit_kernel_is_a_usage_error_everywhere() {
    let (_tmp, dir) = setup();
    fs::write(dir.join("m"), b"message").expect("write");
    let mut messages = Vec::new();
    for args in [
        "info",
        "selftest",
        "keygen -o new.key",
        "encrypt --key k.key -o m.aekit m",
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_aekit"))
            .args(split(args))
            .current_dir(&dir)
            .env("AEKIT_KERNEL", "bogus")
            .output()
            .expect("run aekit");
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(2), "aekit {args}: {stderr}");
        assert!(out.stdout.is_empty(), "aekit {args} wrote to stdout");
        assert!(stderr.starts_with("aekit: AEKIT_KERNEL: "), "{stderr}");
        assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
        messages.push(stderr);
    }
    assert!(messages.iter().all(|m| *m == messages[0]), "{messages:?}");
    assert!(!dir.join("new.key").exists() && !dir.join("m.aekit").exists());
    assert!(leftovers(&dir).is_empty());
}

#[test]
fn info_and_selftest() {
    let (_tmp, dir) = setup();
    let info = String::from_utf8(ok(&dir, &["info"])).expect("utf-8");
    assert!(info.contains("Default: "), "{info}");
    assert!(info.contains("Fused kernels"), "{info}");
    assert!(
        info.contains("fixslice") && info.contains("karatsuba"),
        "{info}"
    );
    let selftest = String::from_utf8(ok(&dir, &["selftest"])).expect("utf-8");
    assert!(
        selftest.contains("PASS  fixslice + karatsuba"),
        "{selftest}"
    );
    assert!(!selftest.contains("FAIL"), "{selftest}");
    // Every family, with known answers; what this CPU lacks is a SKIP line.
    for family in [
        "PASS  class portable",
        "PASS  class pair",
        "PASS  face fixslice/rd2+",
        "PASS  face table/rd0",
        "PASS  aether reference",
        "PASS  aether portable",
        "PASS  esp inline",
        "PASS  esp pipeline",
        "PASS  Cobblestone-128",
        "PASS  Cobblestone-256",
    ] {
        assert!(selftest.contains(family), "selftest lacks {family:?}");
    }
    for kernel in ["vaes-avx512", "vaes-avx2", "ni-clmul", "aes-pmull"] {
        let listed = ["PASS  fused ", "SKIP  fused "]
            .iter()
            .any(|verdict| selftest.contains(&format!("{verdict}{kernel}")));
        assert!(listed, "selftest does not list fused {kernel}");
    }
    for engine in ["avx2", "avx512", "neon"] {
        let listed = ["PASS  aether ", "SKIP  aether "]
            .iter()
            .any(|verdict| selftest.contains(&format!("{verdict}{engine}")));
        assert!(listed, "selftest does not list aether {engine}");
    }
    let help = String::from_utf8(ok(&dir, &["--help"])).expect("utf-8");
    for code in [
        "3  not a key",
        "4  wrong key",
        "5  truncated",
        "6  modified",
    ] {
        assert!(help.contains(code), "--help lacks {code:?}");
    }
}
