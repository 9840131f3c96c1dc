//! The `aekit` binary when the world around it misbehaves: outputs that are
//! not regular files, full disks and file-size limits, closed pipes,
//! terminating signals, key files that are not keys, thread limits, and
//! data appended after the end. Each case ends in a documented exit
//! status and one line on stderr, never a panic (status 101), never a
//! success that lost data, and never a plaintext file left behind.

use std::fs;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

mod common;

use common::*;

/// `dir` with a key and a 5 MiB message encrypted under it (`m`, `m.aekit`).
fn with_ciphertext() -> (tempfile::TempDir, std::path::PathBuf, Vec<u8>) {
    let (tmp, dir) = setup();
    let message = data(5 << 20, 11);
    fs::write(dir.join("m"), &message).expect("write");
    ok(&dir, &split("encrypt --key k.key -o m.aekit m"));
    (tmp, dir, message)
}

/// Runs a shell command line (bash, for `ulimit`) in `dir` with `$AEKIT`
/// set to the binary.
fn shell(dir: &Path, script: &str) -> std::process::Output {
    Command::new("bash")
        .args(["-c", script])
        .env("AEKIT", env!("CARGO_BIN_EXE_aekit"))
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .expect("run bash")
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.trim_ascii() == b"0")
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[cfg(unix)]
#[test]
fn force_replaces_only_regular_files() {
    use std::os::unix::fs::FileTypeExt;
    let (_tmp, dir, _) = with_ciphertext();
    std::os::unix::fs::symlink("/dev/null", dir.join("link")).expect("symlink");
    let fifo = Command::new("mkfifo").arg(dir.join("fifo")).status();
    assert!(fifo.is_ok_and(|s| s.success()), "mkfifo");
    fs::create_dir(dir.join("directory")).expect("mkdir");
    let mut specials = vec!["link", "fifo", "directory"];
    // A device node needs root to make; as root the test makes the very
    // node of the report (/dev/null's numbers) under another name.
    if is_root() {
        let made = Command::new("mknod")
            .arg(dir.join("device"))
            .args(["c", "1", "3"])
            .status();
        if made.is_ok_and(|s| s.success()) {
            specials.push("device");
        } else {
            skip("the device node: mknod failed");
        }
    } else {
        skip("the device node: making one needs root");
    }
    for name in specials {
        let before = fs::symlink_metadata(dir.join(name)).expect("meta");
        for force in [true, false] {
            let mut args = split("decrypt --key k.key -o");
            args.push(name);
            args.push("m.aekit");
            if force {
                args.push("--force");
            }
            let out = aekit(&dir, &args, &[]);
            let err = stderr(&out);
            assert_eq!(out.status.code(), Some(1), "{name}: {err}");
            assert!(err.contains("not a regular file"), "{name}: {err}");
            assert_eq!(err.lines().count(), 1, "{err}");
            let after = fs::symlink_metadata(dir.join(name)).expect("meta");
            assert_eq!(after.file_type(), before.file_type(), "{name} replaced");
            assert!(leftovers(&dir).is_empty());
        }
        if name == "device" {
            let after = fs::symlink_metadata(dir.join(name)).expect("meta");
            assert!(after.file_type().is_char_device());
        }
    }
    assert_eq!(
        fs::read_link(dir.join("link")).expect("link"),
        Path::new("/dev/null")
    );
    // A regular file is still replaced with --force.
    fs::write(dir.join("plain"), b"old").expect("write");
    ok(&dir, &split("decrypt --key k.key --force -o plain m.aekit"));
    assert_eq!(
        fs::read(dir.join("plain")).expect("read"),
        fs::read(dir.join("m")).expect("read")
    );
}

#[test]
fn keygen_write_errors_fail_and_leave_no_key() {
    let (_tmp, dir) = setup();
    if Path::new("/dev/full").exists() {
        let full = fs::File::create("/dev/full").expect("/dev/full");
        let out = Command::new(env!("CARGO_BIN_EXE_aekit"))
            .arg("keygen")
            .stdout(full)
            .output()
            .expect("run");
        assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
        assert!(stderr(&out).contains("standard output"));
    } else {
        skip("keygen to /dev/full: there is none");
    }
    // A file-size limit of 0 stands in for a full file system: the file
    // can be created, not written.
    let out = shell(&dir, "ulimit -f 0; exec \"$AEKIT\" keygen -o new.key");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(!dir.join("new.key").exists(), "an empty key file was left");
    assert!(leftovers(&dir).is_empty());
    ok(&dir, &split("keygen -o new.key"));
    assert_eq!(fs::read(dir.join("new.key")).expect("key").len(), 16);

    let out = shell(&dir, "ulimit -f 0; exec \"$AEKIT\" keygen > stdout.key");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
}

#[test]
fn write_errors_on_files_and_stdout_are_failures() {
    let (_tmp, dir, _) = with_ciphertext();
    for command in [
        "decrypt --key k.key -o out m.aekit",
        "encrypt --key k.key -o out m",
    ] {
        let out = shell(&dir, &format!("ulimit -f 64; exec \"$AEKIT\" {command}"));
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{command}: {err}");
        assert!(err.contains("writing out"), "{err}");
        assert!(!dir.join("out").exists());
        assert!(leftovers(&dir).is_empty(), "{command}");
    }
    if Path::new("/dev/full").exists() {
        for command in [
            "decrypt --key k.key m.aekit",
            "encrypt --key k.key m",
            "info",
            "selftest",
        ] {
            let full = fs::File::create("/dev/full").expect("/dev/full");
            let out = Command::new(env!("CARGO_BIN_EXE_aekit"))
                .args(split(command))
                .current_dir(&dir)
                .stdout(full)
                .output()
                .expect("run");
            let err = stderr(&out);
            assert_eq!(out.status.code(), Some(1), "{command} > /dev/full: {err}");
            assert!(!err.contains("panicked"), "{err}");
            assert_eq!(err.lines().count(), 1, "{err}");
        }
    } else {
        skip("writing standard output to /dev/full: there is none");
    }
}

/// A reader that goes away (`aekit selftest | head -1`): status 141, as a
/// shell reports SIGPIPE, and nothing on stderr.
#[test]
fn a_closed_pipe_ends_quietly_with_141() {
    let (_tmp, dir, _) = with_ciphertext();
    for command in ["selftest", "info", "decrypt --key k.key m.aekit"] {
        // The read end is closed before the command starts, so its first
        // write meets a pipe with no reader whatever the scheduling.
        let (reader, writer) = std::io::pipe().expect("pipe");
        drop(reader);
        let out = Command::new(env!("CARGO_BIN_EXE_aekit"))
            .args(split(command))
            .current_dir(&dir)
            .stdout(writer)
            .stderr(Stdio::piped())
            .output()
            .expect("run");
        assert_eq!(out.status.code(), Some(141), "{command}: {}", stderr(&out));
        assert!(out.stderr.is_empty(), "{command}: {}", stderr(&out));
    }
    let out = shell(&dir, "\"$AEKIT\" selftest | head -1; echo ${PIPESTATUS[0]}");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(text.lines().last(), Some("141"), "{text}");
    assert!(out.stderr.is_empty(), "{}", stderr(&out));
}

#[test]
fn decrypt_to_a_pipe_streams_and_buffer_holds_back() {
    let (_tmp, dir, message) = with_ciphertext();
    let mut bad = fs::read(dir.join("m.aekit")).expect("read");
    bad[HEADER + 3 * SEALED + 5] ^= 1;
    fs::write(dir.join("bad.aekit"), &bad).expect("write");
    let spool_dir = dir.join("spool");
    fs::create_dir(&spool_dir).expect("mkdir");
    let run = |args: &str| {
        Command::new(env!("CARGO_BIN_EXE_aekit"))
            .args(split(args))
            .current_dir(&dir)
            .env("TMPDIR", &spool_dir)
            .output()
            .expect("run")
    };
    // Streaming: the three chunks before the bad one were released.
    let streamed = run("decrypt --key k.key bad.aekit");
    assert_eq!(streamed.status.code(), Some(6));
    assert!(streamed.stdout == message[..3 * CHUNK]);
    // Buffered: nothing at all, and no spool file left.
    for args in [
        "decrypt --key k.key --buffer bad.aekit",
        "decrypt --key k.key --buffer --range 0.. bad.aekit",
    ] {
        let held = run(args);
        assert_eq!(held.status.code(), Some(6), "{args}: {}", stderr(&held));
        assert!(held.stdout.is_empty(), "{args} released plaintext");
        assert_eq!(fs::read_dir(&spool_dir).expect("dir").count(), 0);
    }
    let whole = run("decrypt --key k.key --buffer m.aekit");
    assert!(whole.status.success());
    assert!(whole.stdout == message);
    let range = run("decrypt --key k.key --buffer --range 100..200 m.aekit");
    assert!(range.stdout == message[100..200]);
    assert_eq!(fs::read_dir(&spool_dir).expect("dir").count(), 0);

    // The help says what happens on each path.
    let help = String::from_utf8(ok(&dir, &["decrypt", "--help"])).expect("utf-8");
    assert!(!help.contains("nothing is written unless it all verifies"));
    assert!(
        help.contains("--buffer") && help.contains("incomplete"),
        "{help}"
    );
}

/// Every catchable signal whose default would end the process removes the
/// unfinished output file and exits with 128 + its number; SIGPIPE is
/// ignored (the command goes on and fails or succeeds on its own).
#[cfg(unix)]
#[test]
fn terminating_signals_leave_no_plaintext_file() {
    let (_tmp, dir, _) = with_ciphertext();
    let sealed = fs::read(dir.join("m.aekit")).expect("read");
    let signals = [
        "INT", "TERM", "HUP", "QUIT", "USR1", "USR2", "ALRM", "VTALRM", "PROF", "XCPU", "RTMIN",
        "PIPE",
    ];
    for signal in signals {
        let mut child = Command::new(env!("CARGO_BIN_EXE_aekit"))
            .args(split("decrypt --key k.key -o out"))
            .current_dir(&dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run");
        let mut stdin = child.stdin.take().expect("stdin");
        // Three of the five MiB: plaintext is written, the end is awaited.
        stdin.write_all(&sealed[..3 << 20]).expect("feed");
        let start = Instant::now();
        while leftovers(&dir).is_empty() && start.elapsed() < Duration::from_secs(20) {
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(!leftovers(&dir).is_empty(), "no temporary file appeared");
        let killed = Command::new("bash")
            .args(["-c", &format!("kill -s {signal} {}", child.id())])
            .status();
        assert!(killed.is_ok_and(|s| s.success()), "kill -s {signal}");
        // The input stays open for the others: the signal alone ends them.
        let open = if signal == "PIPE" {
            std::thread::sleep(Duration::from_millis(100));
            drop(stdin);
            None
        } else {
            Some(stdin)
        };
        let out = child.wait_with_output().expect("wait");
        drop(open);
        let err = stderr(&out);
        if signal == "PIPE" {
            assert_eq!(out.status.code(), Some(5), "truncated input: {err}");
        } else {
            let number = Command::new("bash")
                .args(["-c", &format!("kill -l {signal}")])
                .output()
                .expect("kill -l");
            let number: i32 = String::from_utf8_lossy(&number.stdout)
                .trim()
                .parse()
                .expect("a signal number");
            assert_eq!(out.status.code(), Some(128 + number), "SIG{signal}: {err}");
            assert!(err.contains("removed"), "SIG{signal}: {err}");
        }
        assert!(!dir.join("out").exists(), "SIG{signal}");
        assert!(leftovers(&dir).is_empty(), "SIG{signal} left plaintext");
    }
}

#[test]
fn key_files_that_are_not_keys_are_refused() {
    let (_tmp, dir, _) = with_ciphertext();
    let texts: [(&str, &[u8], &str); 5] = [
        ("hex16.key", b"00112233445566778899aabbccddeeff", "hex"),
        ("hex8.key", b"0011223344556677", "hex"),
        ("hexnl.key", b"00112233445566778899AABBCCDDEEFF\n", "hex"),
        ("pass16.key", b"correct horse ba", "passphrase"),
        (
            "pass32.key",
            b"correct horse battery staple 123",
            "passphrase",
        ),
    ];
    for (name, bytes, what) in texts {
        write_key(&dir.join(name), bytes);
        for command in [
            "encrypt --key KEY -o out m",
            "decrypt --key KEY -o out m.aekit",
        ] {
            let args = command.replace("KEY", name);
            let err = fails(&dir, &split(&args), 3, "out");
            assert!(err.contains(what), "{args}: {err}");
            assert!(err.contains("aekit keygen"), "{args}: {err}");
        }
    }
    // A key open to other users works, with a warning naming the fix.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let key = fs::read(dir.join("k.key")).expect("key");
        fs::write(dir.join("open.key"), &key).expect("write");
        fs::set_permissions(dir.join("open.key"), fs::Permissions::from_mode(0o644))
            .expect("chmod");
        let out = aekit(&dir, &split("decrypt --key open.key -o o1 m.aekit"), &[]);
        assert!(out.status.success());
        let err = stderr(&out);
        assert!(
            err.contains("warning") && err.contains("chmod 600"),
            "{err}"
        );
        let private = aekit(&dir, &split("decrypt --key k.key -o o2 m.aekit"), &[]);
        assert!(private.status.success() && private.stderr.is_empty());
    }
}

#[test]
fn threads_are_capped_and_refused_threads_are_done_without() {
    let (_tmp, dir, message) = with_ciphertext();
    for n in ["257", "65535", "0"] {
        let out = aekit(
            &dir,
            &split(&format!("decrypt --key k.key --threads {n} m.aekit")),
            &[],
        );
        assert_eq!(out.status.code(), Some(2), "--threads {n}");
        assert!(stderr(&out).contains("1..=256"), "{}", stderr(&out));
    }
    // Few threads allowed: the work is done by those that started. The
    // process limit does not bind root, so as root the command runs as
    // `nobody` (the files made readable for it).
    let limited = "ulimit -u 6; exec \"$AEKIT\" decrypt --key k.key --threads 200 m.aekit";
    let out = if is_root() {
        // `nobody` needs to reach the binary (the build directory may be
        // private) and read the files.
        let binary = dir.join("aekit");
        fs::hard_link(env!("CARGO_BIN_EXE_aekit"), &binary)
            .or_else(|_| fs::copy(env!("CARGO_BIN_EXE_aekit"), &binary).map(|_| ()))
            .expect("binary");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            for (path, mode) in [
                (dir.clone(), 0o755),
                (binary.clone(), 0o755),
                (dir.join("k.key"), 0o644),
                (dir.join("m.aekit"), 0o644),
            ] {
                fs::set_permissions(&path, fs::Permissions::from_mode(mode)).expect("chmod");
            }
        }
        let script = format!(
            "AEKIT=./aekit exec setpriv --reuid=65534 --regid=65534 --clear-groups -- \
             bash -c '{limited}'"
        );
        shell(&dir, &script)
    } else {
        shell(&dir, limited)
    };
    let err = stderr(&out);
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(out.stdout == message);
}

/// Data appended after the end: while the final chunk and the data stay
/// shorter than a full chunk, the final chunk fails as the final one
/// (status 5); from there on it is read as a full chunk and fails as a
/// modified one would (status 6) — the format cannot tell them apart — and
/// the help says so.
#[test]
fn appended_data_exits_as_the_help_says() {
    let (_tmp, dir, _) = with_ciphertext();
    let good = fs::read(dir.join("m.aekit")).expect("read");
    let final_chunk = (good.len() - HEADER) % SEALED;
    let full = SEALED - final_chunk;
    for (appended, code) in [(14, 5), (full - 1, 5), (full, 6), (SEALED * 3, 6)] {
        let mut bytes = good.clone();
        bytes.extend(data(appended, appended as u64));
        fs::write(dir.join("long.aekit"), &bytes).expect("write");
        fails(
            &dir,
            &split("decrypt --key k.key -o out long.aekit"),
            code,
            "out",
        );
    }
    let help = String::from_utf8(ok(&dir, &["--help"])).expect("utf-8");
    let six = help.split("\n  6").nth(1).expect("status 6 in --help");
    assert!(six.contains("appended"), "{help}");
}
