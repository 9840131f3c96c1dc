//! SIGINT against `aekit decrypt -o FILE` at every moment of its run, from
//! before the output is opened to after it has been put in place: whatever
//! the moment, the exit status, the message and the file system agree.
//! Either the interruption wins (status 130, no FILE, no temporary file,
//! a message that claims no output) or the commit does (status 0, FILE
//! complete, and at most a note that the signal came too late to stop it).
#![cfg(unix)]

use std::fs;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

mod common;

use common::*;

/// The plaintext: long enough that one single-threaded decryption takes a
/// while, so that the signals land at many different points of it.
const SIZE: usize = 32 << 20;

/// The runs under signal: half spread over the whole run and past its end,
/// half around its end, where the commit is.
const RUNS: usize = 60;

/// The time the runs under signal may take together; the test stops
/// early (after at least [`MIN_RUNS`]) rather than run past it.
const BUDGET: Duration = Duration::from_secs(60);
const MIN_RUNS: usize = 20;

const ARGS: &str = "decrypt --key k.key --threads 1 -o r.out m.aekit";

/// Sends SIGINT to `pid`.
fn interrupt(pid: u32) {
    let pid = libc::pid_t::try_from(pid).expect("a pid");
    // SAFETY: kill(2) takes plain integers and touches no memory; `pid` is
    // a child not yet waited for, so it names that child (or its zombie).
    let sent = unsafe { libc::kill(pid, libc::SIGINT) };
    assert_eq!(sent, 0, "kill -INT {pid}");
}

/// How a run ended.
#[derive(Debug, PartialEq)]
enum End {
    /// Exited with this status.
    Status(i32),
    /// Ended by SIGINT's default action: it came before aekit had set up
    /// its handling, before anything was opened.
    Killed,
    /// Ended by another signal.
    Other(i32),
}

/// One run of [`ARGS`] with SIGINT sent after `delay`: how it ended, and
/// its stderr.
fn interrupted_run(dir: &Path, delay: Duration) -> (End, String) {
    let child = Command::new(env!("CARGO_BIN_EXE_aekit"))
        .args(split(ARGS))
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run aekit");
    std::thread::sleep(delay);
    interrupt(child.id());
    let out = child.wait_with_output().expect("wait");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let end = match (out.status.code(), out.status.signal()) {
        (Some(code), _) => End::Status(code),
        (None, Some(libc::SIGINT)) => End::Killed,
        (None, signal) => End::Other(signal.unwrap_or(-1)),
    };
    (end, stderr)
}

#[test]
fn sigint_and_the_commit_agree_on_the_output_file() {
    let (_tmp, dir) = setup();
    let message = data(SIZE, 8);
    fs::write(dir.join("m"), &message).expect("write");
    ok(&dir, &split("encrypt --key k.key -o m.aekit m"));
    fs::remove_file(dir.join("m")).expect("remove");
    // A whole run, undisturbed: the fastest of three.
    let mut whole = Duration::MAX;
    for _ in 0..3 {
        let start = Instant::now();
        ok(&dir, &split(ARGS));
        whole = whole.min(start.elapsed());
        fs::remove_file(dir.join("r.out")).expect("remove");
    }
    let started = Instant::now();
    let (mut removed, mut completed, mut late, mut runs) = (0, 0, 0, 0);
    for i in 0..RUNS {
        if runs >= MIN_RUNS && started.elapsed() > BUDGET {
            break;
        }
        // Even runs: 0 to 1.3 times the whole run; odd ones: 0.8 to 1.2.
        let at = i as f64 / RUNS as f64;
        let fraction = if i % 2 == 0 { 1.3 * at } else { 0.8 + 0.4 * at };
        let delay = whole.mul_f64(fraction);
        let (end, stderr) = interrupted_run(&dir, delay);
        runs += 1;
        let what = format!("SIGINT after {delay:?} (a whole run: {whole:?}): {end:?}, {stderr:?}");
        let target = dir.join("r.out");
        match end {
            End::Killed => {
                assert!(!target.exists(), "{what}");
                assert!(stderr.is_empty(), "{what}");
            }
            End::Status(130) => {
                assert!(!target.exists(), "status 130 but r.out is there; {what}");
                assert!(stderr.starts_with("aekit: interrupted by SIGINT"), "{what}");
                assert_eq!(stderr.lines().count(), 1, "one line; {what}");
                assert!(
                    !stderr.contains("written") && !stderr.contains("kept"),
                    "{what}"
                );
                if stderr.contains("removed") {
                    removed += 1;
                }
            }
            End::Status(0) => {
                let written = fs::read(&target).expect("status 0 but no r.out");
                assert!(
                    written == message,
                    "r.out differs from the plaintext; {what}"
                );
                // Silent, or a note that the signal came too late.
                let note = "aekit: note: SIGINT arrived after r.out was complete; it is kept\n";
                assert!(
                    stderr.is_empty() || stderr == note,
                    "status 0 with another message; {what}"
                );
                if !stderr.is_empty() {
                    late += 1;
                }
                fs::remove_file(&target).expect("remove");
                completed += 1;
            }
            _ => panic!("neither interrupted nor complete; {what}"),
        }
        let left = leftovers(&dir);
        assert!(left.is_empty(), "temporary files left: {left:?}; {what}");
    }
    // Both outcomes were seen: the signals did land before and after the
    // commit.
    assert!(
        removed > 0,
        "no run was interrupted with its output removed"
    );
    assert!(completed > 0, "no run completed");
    println!("{runs} runs: {removed} interrupted, {completed} completed ({late} after SIGINT)");
}
