//! The measuring harness of aekit's benchmarks: run a set of cases
//! interleaved (case A, case B, …, then again), keep each case's best
//! batch, and print markdown tables; and [`CountingAlloc`], a global
//! allocator that counts the bytes asked of it.
//!
//! A crate of its own, with no dependencies, so that what measures aekit
//! outside `aekit-bench` — the command's short `aekit bench`, aekit's
//! measuring examples — times the same way without depending on the
//! benchmarks' peers (or, for aekit's examples, on a crate that depends on
//! aekit).
//!
//! Why interleaved best-of-N: frequency scaling, a neighbour's build or an
//! interrupt slows whatever runs at that moment; cycling through the cases
//! spreads such noise over all of them, and the minimum over rounds is the
//! estimate least disturbed by it. A warm-up batch first brings caches,
//! branch predictors and the clock up, and sizes the batches so each takes
//! about [`BATCH`] of wall time.
//!
//! Why the buffer moves: a load whose address equals an in-flight store's
//! in bits 0–11 (4 KiB apart) waits for that store, and an accident of
//! where the allocator put a buffer, against the stack or a key, can slow
//! every call of one case and none of another. Each
//! round of [`measure`] places its buffer at the next of `PLACEMENTS`
//! (from a 64-byte boundary); a case writes its output there (the buffer
//! can be longer than the message, as the `api` suite's is) and reads a
//! separate input from a 64-byte boundary ([`Aligned`]). The best over
//! rounds is then the best over placements too.
//!
//! Cycles are the time-stamp counter's (`rdtsc`): a constant-rate clock on
//! current x86-64, not the core clock when turbo or power saving changes it.
//! The tables say "TSC cycles" for that reason.

#![deny(unsafe_code)] // allowed on five items: `rdtsc`, the fenced `rdtsc`, the core clock's chain, the core width's additions and the allocator

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// Target wall time of one timed batch.
pub const BATCH: Duration = Duration::from_millis(8);

/// An operation on a buffer of the size measured.
pub type Op<'a> = Box<dyn FnMut(&mut [u8]) + 'a>;

/// One thing to time: a name and its operation, or the reason it cannot
/// run here.
pub struct Case<'a> {
    /// Row label.
    pub name: String,
    /// The operation, or why it is unavailable.
    pub run: Result<Op<'a>, String>,
}

/// The best batch of one case at one size.
#[derive(Clone, Copy, Debug)]
pub struct Sample {
    /// Bytes processed per operation.
    pub size: usize,
    /// Nanoseconds per operation.
    pub ns_per_op: f64,
    /// TSC cycles per operation.
    pub tsc_per_op: f64,
}

impl Sample {
    /// Decimal gigabytes per second.
    pub fn gb_per_s(&self) -> f64 {
        self.size as f64 / self.ns_per_op
    }

    /// TSC cycles per byte.
    pub fn tsc_per_byte(&self) -> f64 {
        self.tsc_per_op / self.size as f64
    }
}

/// Reads the time-stamp counter (0 off x86-64).
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)] // `rdtsc`
pub fn tsc() -> u64 {
    // SAFETY: `rdtsc` exists on every x86-64 CPU and only reads a counter.
    unsafe { core::arch::x86_64::_rdtsc() }
}

/// Reads the time-stamp counter (0 off x86-64).
#[cfg(not(target_arch = "x86_64"))]
pub fn tsc() -> u64 {
    0
}

/// Reads the time-stamp counter between two `LFENCE`s: every instruction
/// before it has completed when it reads, and none after it starts until
/// it has read, so a short timed call is measured alone, not overlapped
/// with the stores and loads of the code around it (0 off x86-64).
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)] // `lfence`, `rdtsc`
pub fn tsc_fenced() -> u64 {
    use core::arch::x86_64::{_mm_lfence, _rdtsc};
    // SAFETY: `lfence` (SSE2) and `rdtsc` exist on every x86-64 CPU; they
    // order instructions and read a counter.
    unsafe {
        _mm_lfence();
        let t = _rdtsc();
        _mm_lfence();
        t
    }
}

/// Reads the time-stamp counter between two `LFENCE`s (0 off x86-64).
#[cfg(not(target_arch = "x86_64"))]
pub fn tsc_fenced() -> u64 {
    0
}

/// Offsets, in bytes, from a 64-byte boundary at which successive rounds
/// of [`measure`] place their buffers: 17 cache lines apart, so that four
/// of them cover a page (module header).
const PLACEMENTS: [usize; 4] = [0, 1088, 2176, 3264];

/// Room a buffer needs beyond its length to be [`placed`] at any of
/// [`PLACEMENTS`].
const PLACEMENT_ROOM: usize = PLACEMENTS[PLACEMENTS.len() - 1] + 63;

/// A copy of some bytes from a 64-byte boundary: a case's input, which
/// stays where it is while the output moves between rounds.
pub struct Aligned {
    storage: Vec<u8>,
    at: usize,
    len: usize,
}

impl Aligned {
    /// `bytes`, copied to a 64-byte boundary.
    pub fn new(bytes: &[u8]) -> Aligned {
        let mut storage = vec![0u8; bytes.len() + 63];
        let at = storage.as_ptr().align_offset(64);
        storage[at..at + bytes.len()].copy_from_slice(bytes);
        Aligned {
            storage,
            at,
            len: bytes.len(),
        }
    }
}

impl std::ops::Deref for Aligned {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.storage[self.at..self.at + self.len]
    }
}

/// How many rounds [`measure`] has started, over all its calls: the
/// placements go on turning from one call to the next.
static ROUNDS: AtomicUsize = AtomicUsize::new(0);

/// `size` bytes of `storage` (allocated [`PLACEMENT_ROOM`] bytes longer)
/// at round `round`'s placement.
fn placed(storage: &mut [u8], size: usize, round: usize) -> &mut [u8] {
    let at = storage.as_ptr().align_offset(64) + PLACEMENTS[round % PLACEMENTS.len()];
    &mut storage[at..at + size]
}

/// Times `iters` operations; returns (nanoseconds, TSC cycles) in total.
fn batch(run: &mut dyn FnMut(&mut [u8]), buf: &mut [u8], iters: u64) -> (f64, f64) {
    let t0 = Instant::now();
    let c0 = tsc();
    for _ in 0..iters {
        run(black_box(&mut *buf));
    }
    let c1 = tsc();
    let dt = t0.elapsed();
    black_box(&buf);
    (dt.as_nanos() as f64, c1.wrapping_sub(c0) as f64)
}

/// Measures every available case on `size`-byte buffers, `rounds` times,
/// interleaved; returns each case's best, `None` for the unavailable.
pub fn measure(cases: &mut [Case<'_>], size: usize, rounds: usize) -> Vec<Option<Sample>> {
    let mut storage = vec![0x5au8; size + PLACEMENT_ROOM];
    let buf = placed(&mut storage, size, 0);
    // Warm up (doubling the batch until it takes a quarter of BATCH) and
    // size the batches from the last warm-up.
    let iters: Vec<u64> = cases
        .iter_mut()
        .map(|c| match &mut c.run {
            Ok(run) => {
                let target = BATCH.as_nanos() as f64;
                let mut n = 1u64;
                loop {
                    let (ns, _) = batch(run.as_mut(), buf, n);
                    if ns >= target / 4.0 || n >= 1 << 24 {
                        break ((n as f64 * target / ns.max(1.0)) as u64).max(1);
                    }
                    n *= 2;
                }
            }
            Err(_) => 0,
        })
        .collect();
    let mut best: Vec<Option<Sample>> = vec![None; cases.len()];
    for _ in 0..rounds {
        let buf = placed(&mut storage, size, ROUNDS.fetch_add(1, Ordering::Relaxed));
        for (i, c) in cases.iter_mut().enumerate() {
            let Ok(run) = &mut c.run else { continue };
            let (ns, tsc) = batch(run.as_mut(), buf, iters[i]);
            let s = Sample {
                size,
                ns_per_op: ns / iters[i] as f64,
                tsc_per_op: tsc / iters[i] as f64,
            };
            if best[i].is_none_or(|b| s.ns_per_op < b.ns_per_op) {
                best[i] = Some(s);
            }
        }
    }
    best
}

/// Random-looking bytes from SplitMix64: reproducible, and the content
/// does not matter to the speed of what is measured.
pub fn random_bytes(len: usize, seed: u64) -> Vec<u8> {
    let mut state = seed;
    let mut out = Vec::with_capacity(len + 8);
    while out.len() < len {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        out.extend_from_slice(&(z ^ (z >> 31)).to_le_bytes());
    }
    out.truncate(len);
    out
}

/// Formats a byte count as the tables write it (64 B, 16 KiB, 1 MiB).
pub fn size_label(n: usize) -> String {
    match n {
        n if n >= 1 << 20 && n.is_multiple_of(1 << 20) => format!("{} MiB", n >> 20),
        n if n >= 1 << 10 && n.is_multiple_of(1 << 10) => format!("{} KiB", n >> 10),
        n => format!("{n} B"),
    }
}

/// Prints one markdown table: a row per case and size.
pub fn print_table(names: &[String], sizes: &[usize], results: &[Vec<Option<Sample>>]) {
    println!("| implementation | size | GB/s | ns/op | TSC cycles/B |");
    println!("|---|---:|---:|---:|---:|");
    for (i, name) in names.iter().enumerate() {
        for (j, &size) in sizes.iter().enumerate() {
            match results[j][i] {
                Some(s) => println!(
                    "| {name} | {} | {:.2} | {:.0} | {:.2} |",
                    size_label(size),
                    s.gb_per_s(),
                    s.ns_per_op,
                    s.tsc_per_byte()
                ),
                None => println!("| {name} | {} | unavailable | | |", size_label(size)),
            }
        }
    }
}

/// Prints the machine lines that head a table: the CPU, the TSC's rate
/// and, where they can be timed, the core clock against the TSC and the
/// core's width ([`adds_per_cycle`]).
pub fn print_machine() {
    println!("CPU: {}", cpu_model());
    println!("TSC: {:.3} GHz", tsc_ghz(Duration::from_millis(50)));
    if let Some(c) = core_per_tsc() {
        println!(
            "Core clock: {c:.2}× the TSC (a chain of dependent additions, timed before the runs)"
        );
        if let Some(w) = adds_per_cycle(c) {
            println!("Core width before the runs: {}", width_words(w));
        }
    }
}

/// The CPU's model name, from /proc/cpuinfo where there is one.
pub fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".to_string())
}

/// TSC ticks per nanosecond, measured over `d`.
pub fn tsc_ghz(d: Duration) -> f64 {
    let t0 = Instant::now();
    let c0 = tsc();
    while t0.elapsed() < d {}
    let c1 = tsc();
    c1.wrapping_sub(c0) as f64 / t0.elapsed().as_nanos() as f64
}

/// Core clock cycles per TSC cycle, measured now: `CHAIN` dependent
/// register additions (`add x, y` into x, one core cycle each on every
/// x86-64 core), timed by the TSC, the fastest of nine runs. What turns
/// the tables' TSC cycles into core cycles, the unit in which an
/// execution port's bound is counted (`docs/BENCHMARKS.md` uses it so),
/// as long as the clock holds (turbo moves it by a few percent between
/// one measurement and the next). The fastest run, as the tables keep the
/// best batch: a run the system interrupts reads a slower clock, and no
/// run can read a faster one than the core's. Instructions of known
/// throughput check it: independent 512-bit `VAESENC` (one AES port) come
/// out at one core cycle each, `VPXORQ` (two ports) at half of one. (An
/// addition of an immediate would not do: Intel's Golden Cove cores fold
/// chains of those at rename, so the chain would read a clock several
/// times too fast.) `None` off x86-64.
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)] // the chain, in `asm!`
pub fn core_per_tsc() -> Option<f64> {
    const CHAIN: u64 = 4_000_000; // eight additions a pass, half a million passes
    Some(fastest_rate(CHAIN, || {
        let (mut x, mut passes) = (1u64, CHAIN / 8);
        // SAFETY: register arithmetic and a counted loop on the operands
        // given; no memory, no stack, nothing else changed.
        unsafe {
            core::arch::asm!(
                "2:",
                "add {x}, {y}", "add {x}, {y}", "add {x}, {y}", "add {x}, {y}",
                "add {x}, {y}", "add {x}, {y}", "add {x}, {y}", "add {x}, {y}",
                "dec {n}",
                "jnz 2b",
                x = inout(reg) x,
                y = in(reg) black_box(3u64),
                n = inout(reg) passes,
                options(nomem, nostack),
            );
        }
        black_box((x, passes));
    }))
}

/// `ops` over the TSC cycles `run` takes, the fastest of nine runs: a
/// run the system interrupts reads slower, and none can read faster
/// than the core.
#[cfg(target_arch = "x86_64")]
fn fastest_rate(ops: u64, run: impl Fn()) -> f64 {
    let mut best: f64 = 0.0;
    for _ in 0..9 {
        let c0 = tsc_fenced();
        run();
        let c1 = tsc_fenced();
        best = best.max(ops as f64 / c1.wrapping_sub(c0).max(1) as f64);
    }
    best
}

/// Core clock cycles per TSC cycle: unknown off x86-64.
#[cfg(not(target_arch = "x86_64"))]
pub fn core_per_tsc() -> Option<f64> {
    None
}

/// Independent register additions the core retires a core cycle, measured
/// now (`core_per_tsc`: the core's clock against the TSC): sixteen
/// additions a pass into eight registers, two a pass into each, so only
/// the integer ALUs bound it, the fastest of nine runs. Whether the run
/// had the core to itself: about its ALU count (4 on AMD Zen, 5 on
/// Intel's Golden Cove, less the loop's own `dec`) when it did, fewer
/// when another hardware thread (on a virtual machine, perhaps another
/// machine's) kept the same core busy, which stretches every instruction
/// a call adds to its kernel (`docs/BENCHMARKS.md`, "Method"). `None` off
/// x86-64.
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)] // the additions, in `asm!`
pub fn adds_per_cycle(core_per_tsc: f64) -> Option<f64> {
    const ADDS: u64 = 4_000_000; // sixteen additions a pass, a quarter million passes
    let per_tsc = fastest_rate(ADDS, || {
        let mut r = [0u64; 8];
        let mut passes = ADDS / 16;
        // SAFETY: register arithmetic and a counted loop on the operands
        // given; no memory, no stack, nothing else changed.
        unsafe {
            core::arch::asm!(
                "2:",
                "add {a}, {y}", "add {b}, {y}", "add {c}, {y}", "add {d}, {y}",
                "add {e}, {y}", "add {f}, {y}", "add {g}, {y}", "add {h}, {y}",
                "add {a}, {y}", "add {b}, {y}", "add {c}, {y}", "add {d}, {y}",
                "add {e}, {y}", "add {f}, {y}", "add {g}, {y}", "add {h}, {y}",
                "dec {n}",
                "jnz 2b",
                a = inout(reg) r[0],
                b = inout(reg) r[1],
                c = inout(reg) r[2],
                d = inout(reg) r[3],
                e = inout(reg) r[4],
                f = inout(reg) r[5],
                g = inout(reg) r[6],
                h = inout(reg) r[7],
                y = in(reg) black_box(3u64),
                n = inout(reg) passes,
                options(nomem, nostack),
            );
        }
        black_box((r, passes));
    });
    Some(per_tsc / core_per_tsc)
}

/// [`adds_per_cycle`]'s reading in words, with what it tells: the one
/// wording of the suites' headers and `aekit bench`'s.
pub fn width_words(adds: f64) -> String {
    format!(
        "{adds:.1} independent additions a cycle (about 4 on AMD Zen and 5 on Intel Golden \
         Cove with the core to itself; fewer where another hardware thread shares it, which \
         slows short messages most)"
    )
}

/// Independent additions a core cycle: unknown off x86-64.
#[cfg(not(target_arch = "x86_64"))]
pub fn adds_per_cycle(_core_per_tsc: f64) -> Option<f64> {
    None
}

/// Bytes requested from [`CountingAlloc`] since the program started.
static ALLOCATED: AtomicU64 = AtomicU64::new(0);

/// The system allocator, counting the bytes each allocation asks for (a
/// reallocation counts its new size, as a fresh allocation would). Install
/// it with `#[global_allocator]` in a binary; [`allocated_bytes`] then
/// reads the running total, so the difference around an operation is the
/// heap it allocated — the nearest thing Rust has to a Lisp `cons` count.
pub struct CountingAlloc;

// SAFETY: every method forwards to `System` with the caller's arguments
// unchanged, so `System`'s guarantees are the allocator's; the counter is
// a relaxed atomic add, which allocates nothing and cannot fail.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATED.fetch_add(layout.size() as u64, Ordering::Relaxed);
        // SAFETY: forwarded unchanged (see the impl).
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        ALLOCATED.fetch_add(layout.size() as u64, Ordering::Relaxed);
        // SAFETY: forwarded unchanged (see the impl).
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded unchanged (see the impl).
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATED.fetch_add(new_size as u64, Ordering::Relaxed);
        // SAFETY: forwarded unchanged (see the impl).
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

/// Bytes allocated through [`CountingAlloc`] so far (0 when it is not the
/// global allocator).
pub fn allocated_bytes() -> u64 {
    ALLOCATED.load(Ordering::Relaxed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounds_move_the_buffer_through_every_placement() {
        let size = 100;
        let mut storage = vec![0u8; size + PLACEMENT_ROOM];
        let base = storage.as_ptr() as usize;
        let mut seen = Vec::new();
        for round in 0..PLACEMENTS.len() {
            let buf = placed(&mut storage, size, round);
            assert_eq!(buf.len(), size);
            assert_eq!(buf.as_ptr() as usize % 64, 0);
            seen.push(buf.as_ptr() as usize - base);
        }
        let start = base.next_multiple_of(64) - base;
        seen.sort_unstable();
        let mut expected: Vec<usize> = PLACEMENTS.iter().map(|p| start + p).collect();
        expected.sort_unstable();
        assert_eq!(seen, expected);
    }

    #[test]
    fn aligned_copies_start_on_a_cache_line() {
        let bytes: Vec<u8> = (0..100).collect();
        let copy = Aligned::new(&bytes);
        assert_eq!(&copy[..], &bytes[..]);
        assert_eq!(copy.as_ptr() as usize % 64, 0);
    }
}
