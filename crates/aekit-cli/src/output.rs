//! Where results go: stdout, a file that appears only when complete, or
//! stdout fed from a private spool once everything has verified.
//!
//! A file output is written to a temporary name in the target's directory
//! (`.NAME.RANDOM.aekit-tmp`, created exclusively, mode 0600 for plaintext)
//! and moved into place only by [`Output::commit`]. Everything else removes
//! it: [`Output::discard`], dropping the output (an early return, a panic),
//! and every catchable signal whose default action would end the process
//! ([`remove_pending_files_on_signal`]). Only SIGKILL, SIGSTOP followed by
//! a reboot, or a power cut can leave one; it is hidden, private, and holds
//! only chunks that had verified.
//!
//! A signal and the commit decide once between them, under one lock
//! ([`State`]): creating the temporary file, putting it in place, and a
//! signal's decision each hold it throughout. A signal that takes it first
//! removes the temporary file and ends the process (128 + its number, "the
//! unfinished output file was removed"): nothing is put in place. A commit
//! that takes it first puts the file in place and marks it committed; a
//! signal from then on stops nothing, and the command ends as it would
//! have (status 0, with a note that the signal came after the output was
//! complete, [`signal_after_commit`]). A failed commit leaves the file
//! pending, and a signal then still removes it.
//!
//! An existing target is replaced only with `--force`, and only if it is a
//! regular file: a device node, a FIFO, a socket, a directory or a symbolic
//! link is refused (renaming over `/dev/null` would turn it into a file of
//! plaintext; renaming over a link would replace the link, not what it
//! names). Without `--force` the final step is `link` then `unlink`, which
//! cannot replace a file that appeared meanwhile; with it, `rename`, which
//! replaces atomically, after checking the target once more. The data is
//! synced before either.
//!
//! Standard output streams: decrypted chunks go out as they verify, so a
//! later failure leaves the reader with a verified but incomplete prefix.
//! `--buffer` spools to a private temporary file instead (in `TMPDIR`,
//! mode 0600, unlinked as soon as it is created on Unix, so no signal can
//! leave it behind) and copies it out only after the final chunk verified.

use std::fs::{self, File, OpenOptions};
use std::io::{self, IsTerminal, Seek, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::failure::{Exit, Failure, is_dash};

/// What the signal handler and the output share. Every change to it, and
/// each decision a signal takes on it, holds the lock: whatever a signal
/// finds is what happened, and nothing changes until it has acted.
struct State {
    /// Temporary files not yet committed.
    pending: Vec<PathBuf>,
    /// The file put in place, once one was: a signal no longer stops the
    /// command.
    committed: Option<PathBuf>,
    /// The first signal that arrived once `committed` was set.
    late: Option<String>,
}

static STATE: Mutex<State> = Mutex::new(State {
    pending: Vec::new(),
    committed: None,
    late: None,
});

/// Plaintext is going straight to standard output (what an interruption
/// leaves there is incomplete).
static STREAMING_PLAINTEXT: AtomicBool = AtomicBool::new(false);

fn state() -> std::sync::MutexGuard<'static, State> {
    STATE
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Deletes every pending file in `state`; whether there was one.
fn remove(state: &mut State) -> bool {
    let any = !state.pending.is_empty();
    for path in state.pending.drain(..) {
        let _ = fs::remove_file(path);
    }
    any
}

/// Deletes every pending file.
pub fn remove_pending_files() {
    remove(&mut state());
}

/// A terminating signal, named `signal`: before the output file was put in
/// place, deletes the pending files, says what the interruption left in
/// one line on stderr and exits with `status`, holding the lock to the end
/// so that no commit can start meanwhile. Once it was put in place, only
/// records the signal for [`signal_after_commit`] and returns: the command
/// has done its work and ends as it would have.
fn on_signal(signal: String, status: i32) {
    let mut state = state();
    if state.committed.is_some() {
        state.late.get_or_insert(signal);
        return;
    }
    let what = if remove(&mut state) {
        "; the unfinished output file was removed"
    } else if STREAMING_PLAINTEXT.load(Ordering::SeqCst) {
        "; what was written to standard output is incomplete"
    } else {
        ""
    };
    let _ = writeln!(io::stderr(), "aekit: interrupted by {signal}{what}");
    std::process::exit(status);
}

/// The signal that arrived after the output file was put in place, with
/// the file, if one did: it stopped nothing.
pub fn signal_after_commit() -> Option<(String, PathBuf)> {
    let state = state();
    state.late.clone().zip(state.committed.clone())
}

/// The signals whose default action ends the process and that a process
/// can catch (signal(7)); SIGKILL and SIGSTOP cannot be, SIGSEGV, SIGILL,
/// SIGFPE and SIGBUS come from the faulting instruction itself, and
/// SIGPIPE is ignored by every Rust program (a write to a closed pipe
/// fails instead, and is reported).
#[cfg(unix)]
fn terminating_signals() -> Vec<libc::c_int> {
    use signal_hook::consts::signal::*;
    #[allow(unused_mut)] // Linux adds to it.
    let mut signals = vec![
        SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF, SIGXCPU,
        SIGIO, SIGTRAP, SIGABRT, SIGSYS,
    ];
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        signals.extend([libc::SIGPWR, libc::SIGSTKFLT]);
        signals.extend(libc::SIGRTMIN()..=libc::SIGRTMAX());
    }
    signals
}

/// On any catchable terminating signal before the output file was put in
/// place: delete the pending files, say what was left, exit with 128 + the
/// signal's number (as a shell reports a process the signal ended); after
/// it, nothing ([`on_signal`]). SIGXFSZ (the file-size limit) is made
/// harmless instead, so that the write that crossed the limit fails with
/// an error that is reported and cleaned up like any other.
#[cfg(unix)]
pub fn remove_pending_files_on_signal() {
    use std::sync::Arc;
    // Failing to install a handler only loses this cleanup; go on.
    let _ = signal_hook::flag::register(
        signal_hook::consts::SIGXFSZ,
        Arc::new(AtomicBool::new(false)),
    );
    let Ok(mut signals) = signal_hook::iterator::Signals::new(terminating_signals()) else {
        return;
    };
    let _ = std::thread::Builder::new()
        .name("signals".into())
        .spawn(move || {
            for signal in signals.forever() {
                let name = signal_hook::low_level::signal_name(signal)
                    .map_or_else(|| format!("signal {signal}"), str::to_owned);
                on_signal(name, 128 + signal);
            }
        });
}

/// On Ctrl-C (and termination, where the platform has it) before the
/// output file was put in place: delete the pending files and exit with
/// 130; after it, nothing ([`on_signal`]).
#[cfg(not(unix))]
pub fn remove_pending_files_on_signal() {
    let _ = ctrlc::set_handler(|| on_signal("Ctrl-C".to_owned(), 130));
}

/// The destination of a command's output.
pub enum Output {
    Stdout(Box<dyn Write + Send>),
    File(PendingFile),
    Spool(Spool),
}

/// Stdout for bulk data. On Unix a duplicate of file descriptor 1, written
/// directly: `io::Stdout` is line-buffered, and scanning binary data for
/// newlines and re-buffering it costs measurably at gigabytes per second.
/// Unbuffered, every write error surfaces at the write that met it.
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

/// Plaintext held in an anonymous temporary file until it all verified.
pub struct Spool {
    file: File,
    /// The file's name where it could not be unlinked at once (not Unix).
    #[cfg(not(unix))]
    path: PathBuf,
}

/// How an output is opened.
#[derive(Clone, Copy)]
pub struct Options {
    /// Replace an existing regular file.
    pub force: bool,
    /// Plaintext: files are created with mode 0600.
    pub private: bool,
    /// Standard output only once everything verified (`--buffer`).
    pub buffer: bool,
}

impl Output {
    /// Stdout for `None` or `-` (through a spool if `options.buffer`); else
    /// a pending file for `path`, which must not exist unless
    /// `options.force`, and then must be a regular file.
    pub fn open(path: Option<&Path>, options: Options) -> Result<Output, Failure> {
        let Some(target) = path.filter(|p| !is_dash(p)) else {
            if options.buffer {
                return Spool::create().map(Output::Spool);
            }
            if options.private {
                STREAMING_PLAINTEXT.store(true, Ordering::SeqCst);
            }
            return Ok(Output::Stdout(raw_stdout()));
        };
        check_replaceable(target, options.force)?;
        let temp = temp_name(target)?;
        // Created and listed under one lock: a signal finds it listed or
        // finds no file.
        let mut state = state();
        let file = create_new(&temp, options.private)
            .map_err(|e| Failure::io("creating a temporary file for", target, e))?;
        state.pending.push(temp.clone());
        drop(state);
        Ok(Output::File(PendingFile {
            file,
            temp,
            target: target.to_path_buf(),
            force: options.force,
            done: false,
        }))
    }

    /// Whether the output is a terminal (stdout on a terminal).
    pub fn is_terminal(&self) -> bool {
        !matches!(self, Output::File(_)) && io::stdout().is_terminal()
    }

    /// Makes the output final: flushes stdout, copies the spool out, or
    /// moves the file into place.
    pub fn commit(self) -> Result<(), Failure> {
        match self {
            Output::Stdout(mut s) => s.flush().map_err(Failure::stdout),
            Output::Spool(spool) => spool.release(),
            Output::File(mut f) => {
                let result = f.commit();
                f.done = result.is_ok();
                result
            }
        }
    }

    /// Abandons the output: a pending file or a spool is removed.
    pub fn discard(self) {}
}

/// Refuses a target that exists and is not a regular file, and one that
/// exists at all without `force`.
fn check_replaceable(target: &Path, force: bool) -> Result<(), Failure> {
    let Ok(meta) = fs::symlink_metadata(target) else {
        return Ok(());
    };
    if let Some(kind) = not_regular(&meta.file_type()) {
        return Err(Failure::new(
            Exit::Failure,
            format!(
                "{} is {kind}, not a regular file; aekit writes only regular files \
                 (to write into it, redirect standard output)",
                target.display()
            ),
        ));
    }
    if !force {
        return Err(Failure::new(
            Exit::Failure,
            format!("{} exists; use --force to replace it", target.display()),
        ));
    }
    Ok(())
}

/// What a file that is not a regular file is, in words.
fn not_regular(kind: &fs::FileType) -> Option<&'static str> {
    if kind.is_file() {
        return None;
    }
    if kind.is_symlink() {
        return Some("a symbolic link");
    }
    if kind.is_dir() {
        return Some("a directory");
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_char_device() {
            return Some("a character device");
        }
        if kind.is_block_device() {
            return Some("a block device");
        }
        if kind.is_fifo() {
            return Some("a FIFO");
        }
        if kind.is_socket() {
            return Some("a socket");
        }
    }
    Some("a special file")
}

impl PendingFile {
    /// Puts the file in place. The data is synced first, while a signal can
    /// still remove the file; the rest holds the lock, so that a signal
    /// finds the file either pending or committed.
    fn commit(&mut self) -> Result<(), Failure> {
        let target = &self.target;
        self.file
            .sync_all()
            .map_err(|e| Failure::io("writing", target, e))?;
        let mut state = state();
        if self.force {
            // Checked again: a device node may have been put there since
            // the output was opened.
            check_replaceable(target, true)?;
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
        state.pending.retain(|p| p != &self.temp);
        state.committed = Some(target.clone());
        Ok(())
    }
}

impl Drop for PendingFile {
    fn drop(&mut self) {
        if !self.done {
            let mut state = state();
            let _ = fs::remove_file(&self.temp);
            state.pending.retain(|p| p != &self.temp);
        }
    }
}

impl Spool {
    /// A new private file in the temporary directory, already unlinked
    /// where the platform allows it.
    fn create() -> Result<Spool, Failure> {
        let dir = std::env::temp_dir();
        let path = temp_name(&dir.join("spool"))?;
        // Under the lock: a signal finds the file unlinked or listed, or
        // finds no file.
        #[cfg_attr(unix, allow(unused_mut))]
        let mut state = state();
        let file = create_new(&path, true)
            .map_err(|e| Failure::io("creating a spool file in", &dir, e))?;
        #[cfg(unix)]
        {
            fs::remove_file(&path).map_err(|e| Failure::io("unlinking", &path, e))?;
            drop(state);
            Ok(Spool { file })
        }
        #[cfg(not(unix))]
        {
            state.pending.push(path.clone());
            drop(state);
            Ok(Spool { file, path })
        }
    }

    /// Copies everything spooled to standard output.
    fn release(mut self) -> Result<(), Failure> {
        let spool = Path::new("the spool file");
        self.file
            .rewind()
            .map_err(|e| Failure::io("reading", spool, e))?;
        let mut stdout = raw_stdout();
        let mut buf = vec![0u8; 1 << 20];
        loop {
            let n = io::Read::read(&mut self.file, &mut buf)
                .map_err(|e| Failure::io("reading", spool, e))?;
            if n == 0 {
                break;
            }
            stdout.write_all(&buf[..n]).map_err(Failure::stdout)?;
        }
        stdout.flush().map_err(Failure::stdout)
    }
}

#[cfg(not(unix))]
impl Drop for Spool {
    fn drop(&mut self) {
        let mut state = state();
        let _ = fs::remove_file(&self.path);
        state.pending.retain(|p| p != &self.path);
    }
}

impl Write for Output {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        match self {
            Output::Stdout(s) => s.write(data),
            Output::Spool(s) => s.file.write(data).map_err(|e| {
                io::Error::new(e.kind(), format!("writing the spool file (--buffer): {e}"))
            }),
            Output::File(f) => f.file.write(data).map_err(|e| {
                io::Error::new(e.kind(), format!("writing {}: {e}", f.target.display()))
            }),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Output::Stdout(s) => s.flush(),
            Output::Spool(s) => s.file.flush(),
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

/// Creates `path` for reading and writing; it must not exist. Mode 0600 if
/// `private` (Unix).
fn create_new(path: &Path, private: bool) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.read(true).write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(if private { 0o600 } else { 0o666 });
    }
    #[cfg(not(unix))]
    let _ = private;
    options.open(path)
}
