//! Where results go: stdout, or a file that appears only when complete.
//!
//! A file output is written to a temporary name in the target's directory
//! (`.NAME.RANDOM.aekit-tmp`, created exclusively, mode 0600 for plaintext)
//! and moved into place only by [`Output::commit`]. Everything else removes
//! it: [`Output::discard`], dropping the output (an early return, a panic),
//! and SIGINT/SIGTERM/SIGHUP, whose handler deletes every pending file
//! before exiting with 130. Only SIGKILL or a power cut can leave one; it is
//! hidden, private, and holds only chunks that had verified.
//!
//! Without `--force` the final step is `link` then `unlink`, which cannot
//! replace a file that appeared meanwhile; with it, `rename`, which
//! replaces atomically. The data is synced before either.

use std::fs::{self, File, OpenOptions};
use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::{Exit, Failure, is_dash};

/// Temporary files not yet committed, for the signal handler.
static PENDING: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn pending() -> std::sync::MutexGuard<'static, Vec<PathBuf>> {
    PENDING
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// On SIGINT, SIGTERM or SIGHUP: delete the pending files, exit with 130.
pub fn remove_pending_files_on_signal() {
    // Failing to install the handler only loses this cleanup; go on.
    let _ = ctrlc::set_handler(|| {
        for path in pending().drain(..) {
            let _ = fs::remove_file(path);
        }
        eprintln!("aekit: interrupted; no output written");
        std::process::exit(130);
    });
}

/// The destination of a command's output.
pub enum Output {
    Stdout(Box<dyn Write + Send>),
    File(PendingFile),
}

/// Stdout for bulk data. On Unix a duplicate of file descriptor 1, written
/// directly: `io::Stdout` is line-buffered, and scanning binary data for
/// newlines and re-buffering it costs measurably at gigabytes per second.
fn raw_stdout() -> Box<dyn Write + Send> {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        if let Ok(fd) = io::stdout().as_fd().try_clone_to_owned() {
            return Box::new(File::from(fd));
        }
    }
    Box::new(io::stdout())
}

/// A file being written under a temporary name.
pub struct PendingFile {
    file: File,
    temp: PathBuf,
    target: PathBuf,
    force: bool,
    done: bool,
}

impl Output {
    /// Stdout for `None` or `-`; else a pending file for `path`, which must
    /// not exist unless `force`. `private` files are created with mode 0600.
    pub fn open(path: Option<&Path>, force: bool, private: bool) -> Result<Output, Failure> {
        let Some(target) = path.filter(|p| !is_dash(p)) else {
            return Ok(Output::Stdout(raw_stdout()));
        };
        if !force && fs::symlink_metadata(target).is_ok() {
            return Err(Failure::new(
                Exit::Failure,
                format!("{} exists; use --force to replace it", target.display()),
            ));
        }
        let temp = temp_name(target)?;
        let file = create_new(&temp, private)
            .map_err(|e| Failure::io("creating a temporary file for", target, e))?;
        pending().push(temp.clone());
        Ok(Output::File(PendingFile {
            file,
            temp,
            target: target.to_path_buf(),
            force,
            done: false,
        }))
    }

    /// Whether the output is a terminal (stdout on a terminal).
    pub fn is_terminal(&self) -> bool {
        matches!(self, Output::Stdout(_)) && io::stdout().is_terminal()
    }

    /// Makes the output final: flushes stdout, or moves the file into place.
    pub fn commit(self) -> Result<(), Failure> {
        match self {
            Output::Stdout(mut s) => s
                .flush()
                .map_err(|e| Failure::io("writing", Path::new("standard output"), e)),
            Output::File(mut f) => {
                let result = f.commit();
                f.done = result.is_ok();
                result
            }
        }
    }

    /// Abandons the output: a pending file is removed.
    pub fn discard(self) {}
}

impl PendingFile {
    fn commit(&mut self) -> Result<(), Failure> {
        let target = &self.target;
        self.file
            .sync_all()
            .map_err(|e| Failure::io("writing", target, e))?;
        if self.force {
            fs::rename(&self.temp, target).map_err(|e| Failure::io("replacing", target, e))?;
        } else {
            match fs::hard_link(&self.temp, target) {
                Ok(()) => {
                    let _ = fs::remove_file(&self.temp);
                }
                // A file system without hard links: check, then rename.
                Err(e)
                    if e.kind() != io::ErrorKind::AlreadyExists
                        && fs::symlink_metadata(target).is_err() =>
                {
                    fs::rename(&self.temp, target).map_err(|e| Failure::io("writing", target, e))?
                }
                Err(_) => {
                    return Err(Failure::new(
                        Exit::Failure,
                        format!("{} appeared meanwhile; not replaced", target.display()),
                    ));
                }
            }
        }
        pending().retain(|p| p != &self.temp);
        Ok(())
    }
}

impl Drop for PendingFile {
    fn drop(&mut self) {
        if !self.done {
            let _ = fs::remove_file(&self.temp);
            pending().retain(|p| p != &self.temp);
        }
    }
}

impl Write for Output {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        match self {
            Output::Stdout(s) => s.write(data),
            Output::File(f) => f.file.write(data).map_err(|e| {
                io::Error::new(e.kind(), format!("writing {}: {e}", f.target.display()))
            }),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Output::Stdout(s) => s.flush(),
            Output::File(f) => f.file.flush(),
        }
    }
}

/// `.NAME.RANDOM.aekit-tmp` beside `target`.
fn temp_name(target: &Path) -> Result<PathBuf, Failure> {
    let name = target.file_name().ok_or_else(|| {
        Failure::new(
            Exit::Failure,
            format!("{} is not a file name", target.display()),
        )
    })?;
    let random = getrandom::u64()
        .map_err(|e| Failure::new(Exit::Failure, format!("random number generator: {e}")))?;
    let mut temp = std::ffi::OsString::from(".");
    temp.push(name);
    temp.push(format!(".{random:016x}.aekit-tmp"));
    Ok(target.with_file_name(temp))
}

/// Creates `path`, which must not exist; mode 0600 if `private` (Unix).
fn create_new(path: &Path, private: bool) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(if private { 0o600 } else { 0o666 });
    }
    #[cfg(not(unix))]
    let _ = private;
    options.open(path)
}

/// Writes a new file that must not exist, mode 0600 (for keys).
pub fn write_new_private_file(path: &Path, data: &[u8]) -> Result<(), Failure> {
    let mut file = create_new(path, true).map_err(|e| match e.kind() {
        io::ErrorKind::AlreadyExists => Failure::new(
            Exit::Failure,
            format!("{} exists; a key file is never overwritten", path.display()),
        ),
        _ => Failure::io("creating", path, e),
    })?;
    file.write_all(data)
        .and_then(|()| file.sync_all())
        .map_err(|e| Failure::io("writing", path, e))
}
