//! `aekit`: encrypt and decrypt files in the C2SP chunked-encryption format
//! (Cobblestone-128 and -256: AES-GCM over 16 KiB chunks, keys derived with
//! HKDF-SHA-512 and committed to), and look inside the toolkit.
//!
//! ```text
//! aekit keygen -o k.key                       16 random bytes, mode 0600
//! aekit encrypt --key k.key -o f.aekit f      all cores, streaming
//! aekit decrypt --key k.key -o f f.aekit      f appears only if it all verifies
//! aekit decrypt --key k.key f.aekit | tar x   chunks stream out as they verify
//! aekit decrypt --key k.key --buffer f.aekit  stdout only once it all verified
//! aekit decrypt --key k.key --range 100..200 f.aekit   only the chunks needed
//! aekit info | aekit selftest
//! aekit bench                                 this machine's AES-GCM, a few seconds
//! ```
//!
//! `aekit bench` measures aekit alone; the benchmarks beside other
//! libraries, with their peers and plots, are a crate of their own,
//! `aekit-bench`.
//!
//! Every failure is one line on stderr and an exit status of its own
//! ([`Exit`], `failure.rs`); the table is in `aekit --help`. A write error anywhere,
//! standard output included, is a failure, never a success or a panic; a
//! closed pipe on standard output ends the command quietly with 141, as if
//! SIGPIPE had. Files are written to a temporary name beside the target
//! and renamed into place only when the whole operation succeeded, so a
//! failed or interrupted decryption leaves no plaintext file behind
//! (`output.rs`).
#![forbid(unsafe_code)]

mod bench;
mod failure;
mod info;
mod output;
mod selftest;

use std::fs::{self, File};
use std::io::{self, IsTerminal, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::str::FromStr;

use aekit::chunked::{self, Aead, SeekReader};
use clap::{Args, CommandFactory, Parser, Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use zeroize::{Zeroize, Zeroizing};

use failure::{EXIT_CODES, Exit, Failure, is_dash};
use output::{Options, Output};

#[derive(Parser)]
#[command(
    name = "aekit",
    version,
    about = "Fast, verifiable authenticated encryption: files in the C2SP chunked format \
             (Cobblestone, AES-GCM), and the strategies behind it",
    after_help = EXIT_CODES
)]
struct Cli {
    /// No progress bar, no notes.
    #[arg(short, long, global = true)]
    quiet: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Write a new random key (16 bytes, or 32 with --aead aes-256-gcm), mode 0600.
    ///
    /// The key is raw random bytes, not text: aekit refuses key files that
    /// hold hex digits or a passphrase. The file appears only once the whole
    /// key is on disk.
    Keygen {
        /// The key file to create (never overwritten); stdout if omitted.
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// The AEAD the key is for, which sets its size.
        #[arg(long, value_enum, default_value_t = AeadArg::Aes128Gcm)]
        aead: AeadArg,
    },
    /// Encrypt a file (or stdin) in the C2SP chunked format.
    Encrypt(CryptArgs),
    /// Decrypt a file (or stdin); to a file, nothing appears unless it all verifies.
    ///
    /// With -o FILE, FILE appears only if every chunk verified (with
    /// --range, every chunk the range covers: a range of a damaged or
    /// truncated file reads where its own chunks are intact); on any
    /// failure or interruption nothing is left behind. An interruption
    /// (Ctrl-C, or any other signal that would end the process) either
    /// comes before FILE is put in place, and then FILE does not appear,
    /// the unfinished file is removed and the status is 128 + the signal's
    /// number (130 for Ctrl-C); or it comes once FILE is in place and
    /// complete, too late to stop anything, and then the command ends with
    /// 0, keeps FILE and notes the signal on stderr (unless -q).
    ///
    /// To standard output (no -o, or -o -), plaintext streams out: each chunk
    /// is written as soon as it has verified, so a failure later in the file
    /// (a non-zero exit status) leaves a verified but incomplete prefix on
    /// standard output, which a pipe's reader has already consumed. Trust
    /// that output only if aekit exits with 0, or use --buffer.
    Decrypt {
        #[command(flatten)]
        args: CryptArgs,
        /// Write nothing to standard output until the final chunk has
        /// verified: spool the plaintext to a private temporary file (in
        /// TMPDIR, mode 0600, unlinked at once) and copy it out then, as for
        /// `aekit decrypt --buffer ... | tar x`. Needs room in TMPDIR for the
        /// whole plaintext. (Output to a file is held back anyway.)
        #[arg(long)]
        buffer: bool,
        /// Decrypt only the plaintext bytes START..END (either may be
        /// omitted), reading only the chunks that hold them; needs a file.
        #[arg(long, value_name = "START..END")]
        range: Option<ByteRange>,
    },
    /// Show the CPU features found, the strategies and the defaults.
    Info,
    /// Run the built-in known-answer tests on every available strategy.
    Selftest,
    /// Measure this machine's AES-GCM in every implementation class, for a few seconds.
    #[command(after_help = bench::SUITES)]
    Bench(bench::Args),
}

#[derive(Args)]
struct CryptArgs {
    /// The key file (16 or 32 bytes, as made by `aekit keygen`).
    #[arg(long, value_name = "FILE")]
    key: PathBuf,
    /// The AEAD; by default the one the key's size implies.
    #[arg(long, value_enum)]
    aead: Option<AeadArg>,
    /// Context bound into the key derivation; decryption needs the same one.
    #[arg(long, default_value = "")]
    context: String,
    /// Output file, written only on success; stdout if omitted or `-`.
    #[arg(short, long, value_name = "OUT")]
    output: Option<PathBuf>,
    /// Replace the output file if it exists (only a regular file, never a
    /// device, FIFO, directory or symbolic link).
    #[arg(long)]
    force: bool,
    /// Worker threads, 1 to 256 (default: every core, at most 256).
    #[arg(long, value_name = "N",
          value_parser = clap::value_parser!(u16).range(1..=MAX_THREADS as i64))]
    threads: Option<u16>,
    /// Input file; stdin if omitted or `-`.
    #[arg(value_name = "IN")]
    input: Option<PathBuf>,
}

#[derive(Clone, Copy, ValueEnum)]
enum AeadArg {
    /// Cobblestone-128 (16-byte keys).
    #[value(name = "aes-128-gcm")]
    Aes128Gcm,
    /// Cobblestone-256 (32-byte keys).
    #[value(name = "aes-256-gcm")]
    Aes256Gcm,
}

impl AeadArg {
    fn aead(self) -> Aead {
        match self {
            AeadArg::Aes128Gcm => Aead::Aes128Gcm,
            AeadArg::Aes256Gcm => Aead::Aes256Gcm,
        }
    }
}

/// `START..END` in plaintext bytes; either end may be left out.
#[derive(Clone, Copy, Debug)]
struct ByteRange {
    start: u64,
    end: Option<u64>,
}

impl FromStr for ByteRange {
    type Err = String;

    fn from_str(s: &str) -> Result<ByteRange, String> {
        let (start, end) = s
            .split_once("..")
            .ok_or_else(|| format!("{s:?} is not START..END"))?;
        let number = |t: &str| {
            t.parse::<u64>()
                .map_err(|_| format!("{t:?} is not a byte offset"))
        };
        let start = if start.is_empty() { 0 } else { number(start)? };
        let end = if end.is_empty() {
            None
        } else {
            Some(number(end)?)
        };
        if end.is_some_and(|end| end < start) {
            return Err(format!("{s:?} ends before it starts"));
        }
        Ok(ByteRange { start, end })
    }
}

/// The most worker threads `--threads` takes (and the default uses): past
/// this, more threads only add memory (2 MiB of buffers each) and start-up
/// time on any machine this runs on.
const MAX_THREADS: u16 = 256;

/// Writes a line to stderr; a stderr that cannot be written to is ignored
/// (there is nowhere left to report it), unlike `eprintln!`, which panics.
fn say(line: std::fmt::Arguments<'_>) {
    let _ = writeln!(io::stderr(), "{line}");
}

fn main() -> ExitCode {
    std::panic::set_hook(Box::new(|info| {
        // `println!` panics when standard output fails (a closed pipe, a
        // full disk). The commands write through `io::Write` and report
        // that as an exit status; this catches whatever still prints with
        // `println!`, with the same outcome.
        let payload = info.payload();
        let text = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied());
        if let Some(e) = text.and_then(|p| p.strip_prefix("failed printing to stdout: ")) {
            output::remove_pending_files();
            if e.starts_with("Broken pipe") {
                std::process::exit(Exit::BrokenPipe as i32);
            }
            say(format_args!("aekit: writing standard output: {e}"));
            std::process::exit(Exit::Failure as i32);
        }
        say(format_args!(
            "aekit: internal error (please report): {info}"
        ));
    }));
    let cli = Cli::parse();
    let quiet = cli.quiet;
    // A mistyped AEKIT_KERNEL is a usage error, for every command, before
    // anything is read or written.
    if let Err(e) = aekit::gcm::Class::forced() {
        say(format_args!("aekit: AEKIT_KERNEL: {e}"));
        return ExitCode::from(2);
    }
    output::remove_pending_files_on_signal();
    let result = match cli.command {
        Command::Keygen { output, aead } => keygen(output.as_deref(), aead.aead()),
        Command::Encrypt(args) => encrypt(&args, cli.quiet),
        Command::Decrypt {
            args,
            range,
            buffer,
        } => match range {
            Some(range) => decrypt_range(&args, range, buffer),
            None => decrypt(&args, buffer, cli.quiet),
        },
        Command::Info => info::run(&mut io::stdout().lock()).map_err(Failure::stdout),
        Command::Selftest => selftest::run(&mut io::stdout().lock()),
        Command::Bench(args) => match bench::refusal(&args) {
            Some(why) => Cli::command()
                .error(clap::error::ErrorKind::UnknownArgument, why)
                .exit(),
            None => bench::run(&mut io::stdout().lock()).map_err(Failure::stdout),
        },
    };
    match result {
        Ok(()) => {
            if let Some((signal, file)) = output::signal_after_commit()
                && !quiet
            {
                say(format_args!(
                    "aekit: note: {signal} arrived after {} was complete; it is kept",
                    file.display()
                ));
            }
            ExitCode::SUCCESS
        }
        Err(failure) => {
            if failure.exit != Exit::BrokenPipe {
                say(format_args!("aekit: {}", failure.message));
            }
            ExitCode::from(failure.exit as u8)
        }
    }
}

fn keygen(path: Option<&Path>, aead: Aead) -> Result<(), Failure> {
    let mut key = vec![0u8; aead.key_len()];
    // A key that happens to read as text would be refused by `read_key`
    // (one 16-byte key in about 7 million is all printable): draw again.
    // This removes a negligible fraction of the key space.
    loop {
        getrandom::fill(&mut key)
            .map_err(|e| Failure::new(Exit::Failure, format!("random number generator: {e}")))?;
        if key_text(&key).is_none() {
            break;
        }
    }
    let path = path.filter(|p| !is_dash(p));
    if let Some(path) = path
        && fs::symlink_metadata(path).is_ok()
    {
        return Err(Failure::new(
            Exit::Failure,
            format!("{} exists; a key file is never overwritten", path.display()),
        ));
    }
    // A file is written under a temporary name and linked into place whole,
    // so a full disk leaves no empty key file to block the retry.
    let private = Options {
        force: false,
        private: true,
        buffer: false,
    };
    let mut out = Output::open(path, private)?;
    if path.is_none() && out.is_terminal() {
        return Err(Failure::new(
            Exit::Failure,
            "refusing to print a binary key to a terminal; use -o FILE",
        ));
    }
    let written = out.write_all(&key);
    key.zeroize();
    match (written, path) {
        (Ok(()), _) => out.commit(),
        (Err(e), None) => Err(Failure::stdout(e)),
        (Err(e), Some(_)) => Err(Failure::new(Exit::Failure, e.to_string())),
    }
}

/// What a key file holds if it is text rather than raw bytes — hex digits
/// or printable characters (a passphrase), optionally ending in a newline —
/// in words for the error.
fn key_text(bytes: &[u8]) -> Option<&'static str> {
    let text = bytes.trim_ascii_end();
    let printable = |b: &u8| b.is_ascii_graphic() || *b == b' ';
    if text.is_empty() || !text.iter().all(printable) {
        return None;
    }
    if text.iter().all(u8::is_ascii_hexdigit) {
        Some("hex digits")
    } else {
        Some("printable text (a passphrase?)")
    }
}

/// Warns when the key file can be read or changed by other users (Unix).
fn warn_if_shared(path: &Path, file: &File) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let Ok(meta) = file.metadata() else { return };
        let mode = meta.permissions().mode() & 0o777;
        if meta.is_file() && mode & 0o077 != 0 {
            say(format_args!(
                "aekit: warning: key file {} is open to other users (mode {mode:04o}); \
                 `chmod 600 {}` makes it private",
                path.display(),
                path.display()
            ));
        }
    }
    #[cfg(not(unix))]
    let _ = (path, file);
}

/// The most bytes read from a key file: far more than any key, so that a
/// file of the wrong kind is reported with its size.
const KEY_READ_LIMIT: u64 = 1024;

/// Reads the key file and settles the AEAD: `--aead` if given (the key must
/// fit it), else the one the key's size implies. Refuses text (hex digits,
/// a passphrase) with the command that makes a proper key, and warns when
/// the file is open to other users. The key is wiped when dropped, on every
/// path (read into room for the limit, so no reallocation leaves a copy).
fn read_key(args: &CryptArgs) -> Result<(Zeroizing<Vec<u8>>, Aead), Failure> {
    let mut key = Zeroizing::new(Vec::with_capacity(KEY_READ_LIMIT as usize + 1));
    let file = File::open(&args.key).map_err(|e| Failure::io("reading key", &args.key, e))?;
    warn_if_shared(&args.key, &file);
    file.take(KEY_READ_LIMIT + 1)
        .read_to_end(&mut key)
        .map_err(|e| Failure::io("reading key", &args.key, e))?;
    let name = args.key.display();
    if let Some(what) = key_text(&key) {
        return Err(Failure::new(
            Exit::KeySize,
            format!(
                "{name} holds {what}, not a key: aekit keys are 16 or 32 raw random bytes; \
                 make one with `aekit keygen -o FILE` (or `--aead aes-256-gcm`)"
            ),
        ));
    }
    let size = match key.len() as u64 {
        n if n > KEY_READ_LIMIT => format!("more than {KEY_READ_LIMIT} bytes"),
        n => format!("{n} bytes"),
    };
    let aead = match args.aead {
        Some(arg) => arg.aead(),
        None => Aead::for_key_len(key.len()).ok_or_else(|| {
            Failure::new(
                Exit::KeySize,
                format!(
                    "wrong key size: {name} holds {size}; a key is 16 bytes (aes-128-gcm) \
                     or 32 bytes (aes-256-gcm), as made by `aekit keygen`"
                ),
            )
        })?,
    };
    if key.len() != aead.key_len() {
        let len = key.len();
        return Err(chunked::Error::KeyLength { aead, len }.into());
    }
    Ok((key, aead))
}

/// The input: a file (with its size, for the progress bar) or stdin.
fn open_input(path: Option<&Path>) -> Result<(Input, Option<u64>), Failure> {
    match path.filter(|p| !is_dash(p)) {
        None => Ok((Input::Stdin(io::stdin()), None)),
        Some(path) => {
            let file = File::open(path).map_err(|e| Failure::io("reading", path, e))?;
            let size = file
                .metadata()
                .ok()
                .filter(|m| m.is_file())
                .map(|m| m.len());
            let path = path.to_path_buf();
            Ok((Input::File(NamedReader { file, path }, size), size))
        }
    }
}

/// Where the message comes from.
enum Input {
    Stdin(io::Stdin),
    /// A file; with its size if it is a regular file.
    File(NamedReader, Option<u64>),
}

impl Read for Input {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Input::Stdin(stdin) => stdin.read(buf),
            Input::File(file, _) => file.read(buf),
        }
    }
}

/// A file whose read errors name it.
struct NamedReader {
    file: File,
    path: PathBuf,
}

impl NamedReader {
    fn name_error(&self, e: io::Error) -> io::Error {
        io::Error::new(e.kind(), format!("reading {}: {e}", self.path.display()))
    }
}

impl Read for NamedReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.file.read(buf).map_err(|e| self.name_error(e))
    }
}

/// A regular file read by position from every worker thread at once (no
/// lock around the reads), from the offset its cursor is at.
#[cfg(unix)]
struct FileAt<'a> {
    input: &'a NamedReader,
    bar: Option<ProgressBar>,
}

#[cfg(unix)]
impl chunked::ReadAt for FileAt<'_> {
    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        let n = chunked::ReadAt::read_at(&self.input.file, buf, offset)
            .map_err(|e| self.input.name_error(e))?;
        if let Some(bar) = &self.bar {
            bar.inc(n as u64);
        }
        Ok(n)
    }
}

/// How the body is read: a regular file by position where the platform
/// allows it, anything else as a stream under a lock.
enum Body<'a> {
    #[cfg(unix)]
    At(FileAt<'a>, u64),
    Stream(Box<dyn Read + Send + 'a>),
}

fn body<'a>(input: &'a mut Input, bar: Option<&ProgressBar>) -> Result<Body<'a>, Failure> {
    #[cfg(unix)]
    if let Input::File(file, Some(_)) = input {
        let offset = file
            .file
            .stream_position()
            .map_err(|e| chunked::Error::Io(file.name_error(e)))?;
        let bar = bar.cloned();
        return Ok(Body::At(FileAt { input: file, bar }, offset));
    }
    Ok(Body::Stream(match bar {
        Some(bar) => Box::new(bar.wrap_read(input)),
        None => Box::new(input),
    }))
}

/// Inputs above this size get a progress bar (when stderr is a terminal).
const PROGRESS_THRESHOLD: u64 = 4 << 20;

/// A progress bar on stderr, if the input is worth one.
fn progress_bar(size: Option<u64>, quiet: bool) -> Option<ProgressBar> {
    match size {
        Some(size) if !quiet && size > PROGRESS_THRESHOLD && io::stderr().is_terminal() => Some(
            ProgressBar::new(size).with_style(
                ProgressStyle::with_template(
                    "{bar:40} {binary_bytes}/{binary_total_bytes} {binary_bytes_per_sec} eta {eta}",
                )
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
            ),
        ),
        _ => None,
    }
}

fn threads(args: &CryptArgs) -> usize {
    args.threads.map(usize::from).unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(usize::from(MAX_THREADS))
    })
}

fn encrypt(args: &CryptArgs, quiet: bool) -> Result<(), Failure> {
    let (key, aead) = read_key(args)?;
    let (mut input, size) = open_input(args.input.as_deref())?;
    let options = Options {
        force: args.force,
        private: false,
        buffer: false,
    };
    let mut out = Output::open(args.output.as_deref(), options)?;
    if out.is_terminal() {
        return Err(Failure::new(
            Exit::Failure,
            "refusing to write ciphertext to a terminal; use -o FILE or redirect",
        ));
    }
    let salt = chunked::random_salt()?;
    let (message_key, header) = chunked::seal_header(aead, &key, args.context.as_bytes(), &salt)?;
    let bar = progress_bar(size, quiet);
    out.write_all(&header).map_err(chunked::Error::Io)?;
    let threads = threads(args);
    let result = match body(&mut input, bar.as_ref())? {
        #[cfg(unix)]
        Body::At(file, offset) => {
            chunked::encrypt_parallel_at(&message_key, &file, offset, &mut out, threads)
        }
        Body::Stream(input) => chunked::encrypt_parallel(&message_key, input, &mut out, threads),
    };
    finish(out, bar, result)
}

/// How plaintext is written: mode 0600, held back with `--buffer`.
fn plaintext_options(args: &CryptArgs, buffer: bool) -> Options {
    Options {
        force: args.force,
        private: true,
        buffer,
    }
}

fn decrypt(args: &CryptArgs, buffer: bool, quiet: bool) -> Result<(), Failure> {
    let (key, aead) = read_key(args)?;
    let (mut input, size) = open_input(args.input.as_deref())?;
    // The header is checked before an output file is even created.
    let message_key = chunked::read_header(&mut input, aead, &key, args.context.as_bytes())?;
    let mut out = Output::open(args.output.as_deref(), plaintext_options(args, buffer))?;
    let bar = progress_bar(size, quiet);
    let threads = threads(args);
    let result = match body(&mut input, bar.as_ref())? {
        #[cfg(unix)]
        Body::At(file, offset) => {
            chunked::decrypt_parallel_at(&message_key, &file, offset, &mut out, threads)
        }
        Body::Stream(input) => chunked::decrypt_parallel(&message_key, input, &mut out, threads),
    };
    finish(out, bar, result)
}

/// Commits the output on success, discards it on failure.
fn finish(
    out: Output,
    bar: Option<ProgressBar>,
    result: Result<u64, chunked::Error>,
) -> Result<(), Failure> {
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    match result {
        Ok(_) => out.commit(),
        Err(e) => {
            out.discard();
            Err(e.into())
        }
    }
}

fn decrypt_range(args: &CryptArgs, range: ByteRange, buffer: bool) -> Result<(), Failure> {
    let (key, aead) = read_key(args)?;
    let path = args
        .input
        .as_deref()
        .filter(|p| !is_dash(p))
        .ok_or_else(|| {
            Failure::new(
                Exit::Failure,
                "--range needs a seekable input file, not stdin",
            )
        })?;
    let file = File::open(path).map_err(|e| Failure::io("reading", path, e))?;
    // The header's read and the seek to the end name the file when they
    // fail (a directory, a pipe), as every other input's errors do.
    let mut reader =
        SeekReader::new(file, aead, &key, args.context.as_bytes()).map_err(|e| match e {
            chunked::Error::Io(e) if e.kind() == io::ErrorKind::NotSeekable => Failure::new(
                Exit::Failure,
                format!(
                    "--range needs a seekable input file; {} is not one",
                    path.display()
                ),
            ),
            chunked::Error::Io(e) => Failure::io("reading", path, e),
            e => e.into(),
        })?;
    let mut out = Output::open(args.output.as_deref(), plaintext_options(args, buffer))?;
    let result = (|| -> Result<(), chunked::Error> {
        reader.seek(SeekFrom::Start(range.start))?;
        let limit = range.end.map_or(u64::MAX, |end| end - range.start);
        io::copy(&mut (&mut reader).take(limit), &mut out)?;
        Ok(())
    })();
    finish(out, None, result.map(|()| 0))
}
