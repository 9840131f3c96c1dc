//! What a failed command means: its exit status ([`Exit`], one per kind
//! of failure, listed by `aekit --help`) and its one line on stderr
//! ([`Failure`]). A command that fails returns a `Failure`; `main` prints
//! its line and exits with its status.

use std::io;
use std::path::Path;

use aekit::chunked;

/// The exit statuses, one per kind of failure, as `aekit --help` lists them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    /// An I/O error or a refusal (missing file, output exists).
    Failure = 1,
    /// The key file is not a key: not 16 or 32 bytes, not the size `--aead`
    /// takes, or text (hex digits, a passphrase) instead of raw bytes.
    KeySize = 3,
    /// The key commitment does not match.
    WrongKey = 4,
    /// The ciphertext ends early, continues after its end, or its final
    /// chunk does not authenticate.
    Truncated = 5,
    /// A chunk before the final one does not authenticate.
    Modified = 6,
    /// A known-answer test failed.
    SelftestFailed = 7,
    /// Standard output was closed before everything was written (a broken
    /// pipe, as in `aekit selftest | head -1`): the status a shell shows for
    /// a command that SIGPIPE ended, with no message.
    BrokenPipe = 141,
}

pub const EXIT_CODES: &str = "\
Exit status:
  0  success
  1  I/O error or refusal (missing input, output exists without --force, ...)
  2  usage error
  3  not a key: the key file is not 16 or 32 bytes, not the --aead's size, or is text
     (hex digits, a passphrase) instead of the raw bytes `aekit keygen` writes
  4  wrong key or wrong context (the key commitment does not match; no chunk was decrypted)
  5  truncated: the file ends early, has data after its end, or its final chunk was changed
  6  modified: a chunk before the final one does not authenticate (changed or reordered);
     also data appended after the end once it makes the final chunk as long as a full
     one (16 400 bytes with its tag): the format cannot tell the two apart
  7  a self-test failed
141  standard output was closed early (a broken pipe); nothing is printed
128+N  stopped by signal N (SIGINT, SIGTERM, SIGHUP, SIGQUIT, ...); any unfinished
     output file was removed. A signal that arrives once the output file is in place
     stops nothing: the command ends with 0 and a note that the file is complete";

/// A failure: what to print, and the exit status.
#[derive(Debug)]
pub struct Failure {
    /// The exit status.
    pub exit: Exit,
    /// The one line for stderr (empty for a broken pipe).
    pub message: String,
}

impl Failure {
    pub fn new(exit: Exit, message: impl Into<String>) -> Failure {
        Failure {
            exit,
            message: message.into(),
        }
    }

    /// An I/O error about `path`, read or written as `what`.
    pub fn io(what: &str, path: &Path, e: io::Error) -> Failure {
        Failure::new(Exit::Failure, format!("{what} {}: {e}", path.display()))
    }

    /// A write to standard output failed: quietly [`Exit::BrokenPipe`] if
    /// the reader went away, else an I/O failure.
    pub fn stdout(e: io::Error) -> Failure {
        if e.kind() == io::ErrorKind::BrokenPipe {
            Failure::new(Exit::BrokenPipe, "")
        } else {
            Failure::io("writing", Path::new("standard output"), e)
        }
    }
}

impl From<chunked::Error> for Failure {
    fn from(e: chunked::Error) -> Failure {
        use chunked::Error as E;
        let exit = match &e {
            E::KeyLength { .. } | E::NonceLength(_) => Exit::KeySize,
            E::Commitment => Exit::WrongKey,
            E::Truncated | E::Authentication { last: true, .. } => Exit::Truncated,
            E::Authentication { last: false, .. } => Exit::Modified,
            // Only standard output can be a closed pipe.
            E::Io(e) if e.kind() == io::ErrorKind::BrokenPipe => Exit::BrokenPipe,
            _ => Exit::Failure,
        };
        Failure::new(exit, e.to_string())
    }
}

/// Whether `path` is `-`: standard input or output.
pub fn is_dash(path: &Path) -> bool {
    path.as_os_str() == "-"
}
