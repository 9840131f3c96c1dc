//! One message on many cores: counter mode and GHASH of a single large
//! message split across the threads of a persistent [`Pool`].
//!
//! # Why it splits
//!
//! Counter mode is embarrassingly parallel: block i of the message is
//! P_i ⊕ E(K, incr32^i(J_0)), so a slice that starts at block b needs only
//! its own counter, J_0 + 1 + b with the low 32 bits wrapping as `incr32`
//! wraps them (spec §2.3, the function `incr`). GHASH is a polynomial in H:
//! for blocks X_1 … X_m,
//!
//! ```text
//! GHASH(Y; X_1 … X_m) = Y·H^m ⊕ X_1·H^m ⊕ X_2·H^(m−1) ⊕ … ⊕ X_m·H,
//! ```
//!
//! so for a message cut into A ‖ B, GHASH(A ‖ B) = GHASH(A)·H^{blocks(B)} ⊕
//! GHASH(B), each GHASH from zero. Every slice is therefore hashed from zero
//! on its own thread, by the same kernel the one-thread path uses
//! ([`Kernel::crypt_blocks`], fused or a pair, monomorphized once per call),
//! and then shifted into place by the number of whole blocks that follow it:
//!
//! ```text
//! Y = ⊕_i GHASH_i · H^{after_i},   after_i = whole blocks after slice i.
//! ```
//!
//! The associated data needs no shift of its own: slice 0 starts from
//! GHASH(A) instead of zero, which is exactly what the one-thread path does.
//! Everything but the whole blocks (Y_0 and E(K, Y_0), the associated
//! data, the partial last block, the lengths block and the tag) is the
//! one-thread path's own `State`, on the calling thread
//! (`State::crypt_with` hands the whole blocks to the split), so
//! ciphertext and tag are byte for byte the one-thread path's.
//!
//! # The powers of H
//!
//! H^e is computed by square-and-multiply (at most 2·⌈log2 e⌉ products: 32
//! for a shift of under 1 MiB) with the portable constant-time multiply of
//! `karatsuba`: straight-line in H, its only branches on the bits of e,
//! which is a public block count. A power per slice would put that cost
//! on every slice. Only one is computed: the first slice
//! takes the remainder of the division and every later slice has `per`
//! blocks, so with P = H^per the sum is Horner's rule
//!
//! ```text
//! Y = (…((GHASH_0·P ⊕ GHASH_1)·P ⊕ GHASH_2)·P ⊕ …)·P ⊕ GHASH_{n−1}.
//! ```
//!
//! P is raised by the calling thread after it has spawned the slices, and
//! the n − 1 products are made once all are done. (With the short slice
//! last, its own power H^L would be a second power on the critical path.)
//! H itself is read from the kernel's GHASH key without
//! knowing its layout: one block X = 1 (the field's unit, bit X_0) hashed
//! from Y = 0 gives (0 ⊕ 1)·H = H. H, its powers and the partial hashes are
//! zeroized when done.
//!
//! # Threads
//!
//! The pool is created once ([`Pool::new`]) and lent to every call:
//! creating threads per call would cost as much as encrypting tens of KiB,
//! and allocate. Scoped tasks (`rayon`'s `scope`)
//! let the workers borrow the key and disjoint slices of the caller's
//! buffer, so no unsafe code is needed and none is used.
//!
//! The message is cut into [`SLICES_PER_THREAD`] slices per thread (none
//! shorter than half the threshold below), rounded up to [`SLICE_ALIGN`]
//! blocks (the widest kernel batch, so each slice runs its kernel's wide
//! loop to the end). Every participant (the calling thread, which starts
//! at once, and `threads − 1` pool workers, started by `in_place_scope`'s
//! spawns) owns a contiguous share of the slices and takes them front to
//! back; when its share is done it takes what is left of the others', back
//! to front ([`take_order`]). So the caller never waits for a worker to
//! start before work begins, a worker whose core is busy elsewhere delays
//! nothing but its own start (the others take the slices it would have
//! taken), and, the shares being the same from one call to the next, a
//! buffer that is split again and again stays in the caches of the cores
//! that work on it. With one shared queue instead, which core took which
//! slice changed from call to call, and each call pulled part of its
//! buffer from the other core's cache.
//!
//! A worker that finds no more work polls for the next split for a while
//! ([`Pool::with_linger`], by default [`DEFAULT_LINGER`]) before it
//! sleeps: on the virtual machines measured, waking a sleeping thread took
//! as long as a 1 MiB message takes on one core, and rayon's own workers
//! poll only briefly. The calling thread, likewise, polls for the workers
//! at the end instead of sleeping in the scope's wait. Figures:
//! `docs/kernels/parallel.md`.
//!
//! Messages shorter than the pool's threshold ([`Pool::threshold`], by
//! default [`DEFAULT_THRESHOLD`]) run on the calling thread through the
//! one-thread API, short paths and all: below it, waking a second core
//! costs more than it saves.
//!
//! # Rejected
//!
//! - Threads spawned per call (`std::thread::scope`): simplest, but thread
//!   creation costs as much as encrypting tens of KiB, so 1 MiB would
//!   barely gain.
//! - Shifting by hashing zero blocks with the kernel's own GHASH (Y·H^e as
//!   e zero blocks): no new arithmetic, but O(e) instead of O(log e).
//! - One queue of slices taken in order by whoever comes (the second
//!   version): balanced, but the slices a core took changed from call to
//!   call (above).
//! - One slice per thread (the first version): the work per byte is
//!   uniform, but on a machine whose other cores are busy the worker that
//!   wakes late holds up the whole message; with four per thread the
//!   others take its share, for a few more powers of H.
//! - The scope's body handed to a worker (`scope` from outside the pool),
//!   the calling thread idle: two wake-ups before the second slice starts
//!   and one more to return, which at 1 MiB cost a third of the gain.
//! - `in_place_scope` with the caller taking only the first slice: a
//!   thread outside the pool cannot run the slices nobody stole, so it
//!   would wait for a late worker; the shared queue lets it take them.
//! - Running the split inside the chunked encryptor or the ESP pipeline:
//!   they already keep every core busy with independent messages; a nested
//!   split would only add synchronisation. This is an opt-in of its own.

use core::fmt;
use core::ops::Range;
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use rayon::{ThreadPool, ThreadPoolBuilder};
use zeroize::Zeroize;

use super::kernel::{Direction, Kernel, KernelOp, Text};
use super::state::State;
use crate::Error;
use crate::aes::Block;
use crate::ghash::{GhashKey, field, karatsuba};

/// Messages shorter than this run on the calling thread unless the pool is
/// told otherwise ([`Pool::with_threshold`]). Handing slices to workers
/// costs about the time one core takes for a few tens of KiB
/// (`docs/kernels/parallel.md`), so two cores gain nothing below about
/// 64 KiB and too little to matter below 128 KiB. Faster kernels (VAES)
/// need proportionally larger messages: raise the threshold for them.
pub const DEFAULT_THRESHOLD: usize = 128 << 10;

/// How long a worker polls for the next split after finishing its part of
/// one, unless the pool is told otherwise ([`Pool::with_linger`]): long
/// enough to span the gap between back-to-back calls on large messages,
/// and the one-thread calls a benchmark interleaves with them.
pub const DEFAULT_LINGER: Duration = Duration::from_micros(200);

/// Slices are whole multiples of this many blocks (512 bytes), the widest
/// batch any kernel processes at once.
const SLICE_ALIGN: usize = 32;

/// Slices per thread: more than one, so that a worker that wakes late (its
/// core busy with another process) still finds work, and the thread that
/// finishes first takes the rest instead of waiting.
const SLICES_PER_THREAD: usize = 4;

/// The field's unit, 1 = α^0: bit X_0, the most significant bit of byte 0.
const ONE: Block = {
    let mut one = [0u8; 16];
    one[0] = 0x80;
    one
};

/// A persistent pool of worker threads that splits one long message
/// across cores, for the keys given it with
/// [`AesGcm::with_pool`](super::AesGcm::with_pool). Create it once and
/// reuse it: its threads live as long as it does. Several keys and several
/// callers may share one pool at the same time.
pub struct Pool {
    pool: ThreadPool,
    threads: usize,
    threshold: usize,
    linger: Duration,
    /// Workers polling for work ([`linger`]) or about to.
    lingering: Arc<AtomicUsize>,
}

impl Pool {
    /// A pool that splits a message across `threads` threads, the
    /// calling one and `threads − 1` workers created now (a pool of one
    /// thread never splits, and keeps one idle worker); 0 means one per
    /// core this process may use. Fails only when the operating system
    /// refuses to create the threads.
    pub fn new(threads: usize) -> std::io::Result<Pool> {
        let threads = match threads {
            0 => std::thread::available_parallelism().map_or(1, usize::from),
            n => n,
        };
        let pool = ThreadPoolBuilder::new()
            .num_threads(threads.saturating_sub(1).max(1))
            .thread_name(|i| format!("aekit-gcm-{i}"))
            .build()
            .map_err(std::io::Error::other)?;
        Ok(Pool {
            pool,
            threads,
            threshold: DEFAULT_THRESHOLD,
            linger: DEFAULT_LINGER,
            lingering: Arc::new(AtomicUsize::new(0)),
        })
    }

    /// The same pool with messages shorter than `bytes` kept on the calling
    /// thread (0: every message with more than one block is split).
    pub fn with_threshold(mut self, bytes: usize) -> Pool {
        self.threshold = bytes;
        self
    }

    /// The same pool with its workers polling for the next split for
    /// `time` after each one before they sleep (zero: they sleep at once,
    /// as rayon's do). Polling keeps a core busy; sleeping makes the next
    /// split wait for the workers to wake.
    pub fn with_linger(mut self, time: Duration) -> Pool {
        self.linger = time;
        self
    }

    /// How long the workers poll for the next split after one.
    pub fn linger(&self) -> Duration {
        self.linger
    }

    /// The number of threads a message is split across, the caller's
    /// included.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Messages shorter than this many bytes run on the calling thread.
    pub fn threshold(&self) -> usize {
        self.threshold
    }

    /// Whether a message of `len` bytes is split at all.
    pub(super) fn splits(&self, len: usize) -> bool {
        self.threads > 1 && len >= self.threshold && len >= 32
    }

    /// Sets every worker not already lingering to poll for the next split
    /// ([`linger`]), once the current one is done.
    fn keep_awake(&self) {
        if self.linger.is_zero() {
            return;
        }
        let workers = self.threads - 1;
        let mut n = self.lingering.load(Ordering::Relaxed);
        while n < workers {
            match self
                .lingering
                .compare_exchange(n, n + 1, Ordering::Relaxed, Ordering::Relaxed)
            {
                Ok(_) => {
                    let (count, time) = (Arc::clone(&self.lingering), self.linger);
                    self.pool.spawn(move || linger(&count, time));
                    n += 1;
                }
                Err(now) => n = now,
            }
        }
    }
}

thread_local! {
    /// Whether this worker is inside [`linger`] already.
    static LINGERING: Cell<bool> = const { Cell::new(false) };
}

/// A pool job that runs every job the pool is given (rayon's `yield_now`)
/// until none has come for `time`, so that the next split finds this
/// worker awake instead of paying for its wake-up. A worker that is
/// lingering already and picks up a second one returns from it at once.
fn linger(count: &AtomicUsize, time: Duration) {
    if !LINGERING.replace(true) {
        let mut idle_since = Instant::now();
        loop {
            match rayon::yield_now() {
                Some(rayon::Yield::Executed) => idle_since = Instant::now(),
                Some(rayon::Yield::Idle) if idle_since.elapsed() < time => {
                    core::hint::spin_loop();
                }
                _ => break,
            }
        }
        LINGERING.set(false);
    }
    count.fetch_sub(1, Ordering::Relaxed);
}

impl fmt::Debug for Pool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Pool")
            .field("threads", &self.threads)
            .field("threshold", &self.threshold)
            .finish()
    }
}

/// A whole message split across the pool; returns the full 16-byte tag.
/// The lengths have been checked. The mode around the whole blocks (Y_0,
/// the associated data, a partial last block, the lengths and the tag) is
/// the one-thread path's own [`State`].
pub(super) struct Split<'a> {
    pub(super) pool: &'a Pool,
    pub(super) iv: &'a [u8],
    pub(super) aad: &'a [u8],
    pub(super) text: Text<'a>,
    pub(super) direction: Direction,
}

impl KernelOp for Split<'_> {
    type Output = Result<Block, Error>;
    fn run<K: Kernel + Sync>(self, kernel: &K) -> Self::Output {
        let (pool, direction) = (self.pool, self.direction);
        let mut state = State::start(kernel, self.iv);
        state.aad(kernel, self.aad)?;
        let public = state.public_counter();
        match self.text {
            Text::InPlace(buf) => {
                state.crypt_with(kernel, buf, direction, |counter, y, blocks| {
                    let text = Text::InPlace(blocks);
                    crypt_blocks_par(kernel, pool, counter, y, text, direction, public);
                })?
            }
            Text::Into { input, out } => {
                state.crypt_with_into(kernel, input, out, direction, |counter, y, input, out| {
                    let text = Text::Into { input, out };
                    crypt_blocks_par(kernel, pool, counter, y, text, direction, public);
                })?
            }
        }
        Ok(state.finish(kernel))
    }
}

/// What a [`Split`] does with its [`Text`].
impl<'a> Text<'a> {
    /// The first `at` bytes and the rest.
    fn split_at(self, at: usize) -> (Text<'a>, Text<'a>) {
        match self {
            Text::InPlace(buf) => {
                let (a, b) = buf.split_at_mut(at);
                (Text::InPlace(a), Text::InPlace(b))
            }
            Text::Into { input, out } => {
                let (ia, ib) = input.split_at(at);
                let (oa, ob) = out.split_at_mut(at);
                (
                    Text::Into { input: ia, out: oa },
                    Text::Into { input: ib, out: ob },
                )
            }
        }
    }

    /// Consecutive pieces of `size` bytes (the last shorter), as
    /// `chunks_mut` gives them: nothing allocated.
    fn chunks(self, size: usize) -> impl Iterator<Item = Text<'a>> {
        let mut rest = Some(self);
        core::iter::from_fn(move || {
            let text = rest.take().filter(|t| t.len() > 0)?;
            if text.len() <= size {
                return Some(text);
            }
            let (piece, tail) = text.split_at(size);
            rest = Some(tail);
            Some(piece)
        })
    }
}

/// Adds `n` to the low 32 bits of a counter block, wrapping within them:
/// `n` applications of `incr32`.
fn add_to_counter(counter: &mut Block, n: usize) {
    let low = u32::from_be_bytes([counter[12], counter[13], counter[14], counter[15]]);
    // Only n mod 2^32 matters: the counter wraps within 32 bits.
    let low = low.wrapping_add(n as u32);
    counter[12..].copy_from_slice(&low.to_be_bytes());
}

/// Blocks per slice for `blocks` whole blocks over `threads` threads:
/// [`SLICES_PER_THREAD`] equal shares per thread, but none shorter than
/// `min_bytes`, rounded up to [`SLICE_ALIGN`] blocks; only the first slice
/// is shorter.
fn slice_blocks(blocks: usize, threads: usize, min_bytes: usize) -> usize {
    let min_blocks = (min_bytes / 16).max(1);
    let slices = (threads.max(1) * SLICES_PER_THREAD).min(blocks / min_blocks);
    blocks.div_ceil(slices.max(1)).next_multiple_of(SLICE_ALIGN)
}

/// [`Kernel::crypt_blocks`] across the threads of `pool`: encrypts or
/// decrypts `data` (whole blocks) in counter mode from `counter`, leaving
/// it at the first unused value, and folds the ciphertext into the GHASH
/// value `y`. The result equals the one-thread call's exactly. `public`:
/// the counter is a 96-bit IV's (as [`Kernel::crypt_blocks`] takes it).
fn crypt_blocks_par<K: Kernel + Sync>(
    kernel: &K,
    pool: &Pool,
    counter: &mut Block,
    y: &mut Block,
    data: Text<'_>,
    direction: Direction,
    public: bool,
) {
    debug_assert_eq!(data.len() % 16, 0);
    let blocks = data.len() / 16;
    let per = slice_blocks(blocks, pool.threads, pool.threshold / 2);
    let slices = blocks.div_ceil(per);
    // The first slice takes the remainder, so that one power of H shifts
    // every later one.
    let first = blocks - (slices - 1) * per;
    let start = *counter;
    let mut h = hash_key(kernel.ghash());
    // Slice 0 continues from `y` (the associated data's hash); the others
    // start from zero.
    let mut partial = vec![[0u8; 16]; slices];
    partial[0] = *y;
    let mut p = 0u128;
    {
        let (head, rest) = data.split_at(first * 16);
        let queue: Vec<Mutex<Option<Slice<'_>>>> = core::iter::once(head)
            .chain(rest.chunks(per * 16))
            .zip(partial.iter_mut())
            .enumerate()
            .map(|(i, (data, y))| {
                let first_block = if i == 0 { 0 } else { first + (i - 1) * per };
                Mutex::new(Some(Slice {
                    first_block,
                    data,
                    y,
                }))
            })
            .collect();
        let threads = pool.threads.min(slices);
        let work = |me: usize| {
            for i in take_order(me, threads, slices) {
                let slice = queue[i]
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .take();
                if let Some(slice) = slice {
                    slice.run(kernel, &start, direction, public);
                }
            }
        };
        let finished = AtomicUsize::new(0);
        pool.pool.in_place_scope(|scope| {
            for _ in 1..threads {
                scope.spawn(|_| {
                    // Worker i of the pool is participant i + 1, the same
                    // one from call to call; the caller is participant 0.
                    work(rayon::current_thread_index().map_or(1, |i| i + 1) % threads);
                    finished.fetch_add(1, Ordering::Release);
                });
            }
            if slices > 1 {
                p = pow(h, per as u64);
            }
            work(0);
            // The scope would put this thread to sleep until the workers
            // are done, and waking it costs as much as the wake-ups
            // lingering saves; their last slices are short, so poll.
            let since = Instant::now();
            while finished.load(Ordering::Acquire) + 1 < threads && since.elapsed() < pool.linger {
                core::hint::spin_loop();
            }
        });
    }
    pool.keep_awake();
    // Horner's rule over the slices' hashes (module header).
    let mut acc = 0u128;
    for (i, y) in partial.iter().enumerate() {
        if i > 0 {
            acc = karatsuba::mul(acc, p);
        }
        acc ^= field::from_block(y);
    }
    *y = field::to_block(acc);
    acc.zeroize();
    p.zeroize();
    partial.zeroize();
    h.zeroize();
    add_to_counter(counter, blocks);
}

/// The order in which participant `me` of `threads` takes the `slices`:
/// its own share (a contiguous run, the same for every call of that
/// shape) front to back, then the others' shares back to front, so that
/// an owner and a helper meet inside a share instead of contending for
/// each slice.
fn take_order(me: usize, threads: usize, slices: usize) -> impl Iterator<Item = usize> {
    let share =
        move |t: usize| -> Range<usize> { t * slices / threads..(t + 1) * slices / threads };
    let others = (1..threads).flat_map(move |k| share((me + k) % threads).rev());
    share(me).chain(others)
}

/// One slice of [`crypt_blocks_par`].
struct Slice<'a> {
    /// Index of the slice's first block in the message's whole blocks.
    first_block: usize,
    data: Text<'a>,
    /// In: the hash to continue from (zero but for the first slice). Out:
    /// the slice's hash, not yet shifted into place.
    y: &'a mut Block,
}

impl Slice<'_> {
    /// Out of place, the kernel reads the input and writes `out` in one
    /// pass where it can ([`Kernel::crypt_blocks`]).
    fn run<K: Kernel>(self, kernel: &K, start: &Block, direction: Direction, public: bool) {
        let mut counter = *start;
        add_to_counter(&mut counter, self.first_block);
        kernel.crypt_blocks(&mut counter, self.y, self.data, direction, public);
    }
}

/// H in the layout of [`field`], read through any GHASH key: (0 ⊕ 1)·H.
/// Also how the incremental MAC reads H.
pub(super) fn hash_key<G: GhashKey>(ghash: &G) -> u128 {
    let mut h = [0u8; 16];
    ghash.update_blocks(&mut h, &ONE);
    let out = field::from_block(&h);
    h.zeroize();
    out
}

/// H^e by square-and-multiply, most significant bit of e first. The
/// products are constant-time; the branches depend on e alone, which is
/// public (a block count).
fn pow(h: u128, e: u64) -> u128 {
    let mut acc = field::from_block(&ONE);
    for bit in (0..u64::BITS - e.leading_zeros()).rev() {
        acc = karatsuba::mul(acc, acc);
        if (e >> bit) & 1 == 1 {
            acc = karatsuba::mul(acc, h);
        }
    }
    acc
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aes::BlockCipher;
    use crate::aes::KeySchedule;
    use crate::aes::ni::Ni;
    use crate::gcm::kernel::FusedKernel;
    use crate::gcm::kernel::Pair;
    use crate::gcm::kernel::tests::blocks_in_place;
    use crate::gcm::kernels::{AesPmull, NiClmul, VaesAvx2, VaesAvx512};
    use crate::ghash::bitserial::BitSerial;
    use crate::ghash::clmul::Clmul;

    #[test]
    fn pow_matches_repeated_multiplication() {
        let h = 0x66e9_4bd4_ef8a_2c3b_884c_fa59_ca34_2b2e_u128;
        let mut expected = field::from_block(&ONE);
        for e in 0..300u64 {
            assert_eq!(pow(h, e), expected, "H^{e}");
            expected = field::mul(expected, h);
        }
    }

    #[test]
    fn hash_key_reads_h_from_any_layout() {
        let h = [0x5au8, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 0xf0];
        assert_eq!(
            hash_key(&BitSerial::new(&h).unwrap()),
            field::from_block(&h)
        );
        if let Some(clmul) = Clmul::new(&h) {
            assert_eq!(hash_key(&clmul), field::from_block(&h));
        }
    }

    #[test]
    fn slices_are_aligned_few_per_thread_and_not_too_short() {
        for blocks in [1, 31, 32, 33, 100, 4096, 65537, 1 << 20] {
            for threads in 1..=9 {
                for min_bytes in [0, 512, 32 << 10] {
                    let per = slice_blocks(blocks, threads, min_bytes);
                    let slices = blocks.div_ceil(per);
                    let id = format!("{blocks} blocks, {threads} threads, {min_bytes} B");
                    assert_eq!(per % SLICE_ALIGN, 0, "{id}");
                    assert!(slices <= threads * SLICES_PER_THREAD, "{id}");
                    assert!(slices == 1 || per * 16 >= min_bytes, "{id}");
                }
            }
        }
        // A 1 MiB message on two threads: eight slices of 128 KiB.
        assert_eq!(slice_blocks(1 << 16, 2, 32 << 10), 1 << 13);
    }

    #[test]
    fn each_participant_takes_every_slice_once_its_own_first() {
        for threads in 1..=9 {
            for slices in threads..=40 {
                for me in 0..threads {
                    let order: Vec<usize> = take_order(me, threads, slices).collect();
                    let own = me * slices / threads..(me + 1) * slices / threads;
                    let id = format!("participant {me} of {threads}, {slices} slices");
                    assert_eq!(order[..own.len()], own.clone().collect::<Vec<_>>(), "{id}");
                    let mut sorted = order.clone();
                    sorted.sort_unstable();
                    assert_eq!(sorted, (0..slices).collect::<Vec<_>>(), "{id}");
                }
            }
        }
        // Two threads, eight slices: the worker takes 4..8, then 3, 2, 1, 0.
        assert_eq!(
            take_order(1, 2, 8).collect::<Vec<_>>(),
            [4, 5, 6, 7, 3, 2, 1, 0]
        );
    }

    /// The split equals one `crypt_blocks` call over the whole: data, the
    /// counter left behind and the GHASH value, with the 32-bit count
    /// wrapping before, inside and after the slices, on a pair and (where
    /// the CPU has the instructions) the AES-NI pair with CLMUL.
    #[test]
    fn split_equals_one_call_with_the_counter_wrapping_inside_a_slice() {
        let keys = KeySchedule::new(&[0x24; 16]).unwrap();
        let mut h = [[0u8; 16]];
        let fixslice = crate::aes::fixslice::Fixslice::new(&keys).unwrap();
        fixslice.encrypt_blocks(&mut h);
        let bitserial = BitSerial::new(&h[0]).unwrap();
        check(&Pair {
            aes: &fixslice,
            ghash: &bitserial,
        });
        if let (Some(ni), Some(clmul)) = (Ni::new(&keys), Clmul::new(&h[0])) {
            check(&Pair {
                aes: &ni,
                ghash: &clmul,
            });
        }
        // The fused kernels, whose slices out of place run in one pass.
        match VaesAvx512::new(&keys) {
            Some(fused) => check(&fused),
            None => crate::skip(format_args!(
                "{}: not available on this CPU",
                VaesAvx512::NAME
            )),
        }
        match VaesAvx2::new(&keys) {
            Some(fused) => check(&fused),
            None => crate::skip(format_args!(
                "{}: not available on this CPU",
                VaesAvx2::NAME
            )),
        }
        match NiClmul::new(&keys) {
            Some(fused) => check(&fused),
            None => crate::skip(format_args!("{}: not available on this CPU", NiClmul::NAME)),
        }
        match AesPmull::new(&keys) {
            Some(fused) => check(&fused),
            None => crate::skip(format_args!(
                "{}: not available on this CPU",
                AesPmull::NAME
            )),
        }
    }

    #[allow(unsafe_code)]
    fn check<K: Kernel + Sync>(kernel: &K) {
        for (threads, linger) in [
            (2, DEFAULT_LINGER),
            (2, Duration::ZERO),
            (3, DEFAULT_LINGER),
            (4, Duration::ZERO),
            (8, DEFAULT_LINGER),
        ] {
            let pool = Pool::new(threads)
                .unwrap()
                .with_threshold(0)
                .with_linger(linger);
            for blocks in [1, 2, 32, 33, 95, 200, 257] {
                // Low words whose wrap lands before, in the first slice,
                // at a slice boundary, in a later slice, and nowhere.
                for low in [
                    0xffff_ffffu32,
                    0xffff_fff0,
                    (0u32).wrapping_sub(SLICE_ALIGN as u32),
                    (0u32).wrapping_sub(blocks as u32 - 1),
                    7,
                ] {
                    for direction in [Direction::Encrypt, Direction::Decrypt] {
                        let data: Vec<u8> = (0..blocks * 16).map(|i| (i * 13 + 5) as u8).collect();
                        let mut counter = [0xc3; 16];
                        counter[12..].copy_from_slice(&low.to_be_bytes());
                        let y = [0x1e; 16];
                        let (mut c1, mut y1, mut d1) = (counter, y, data.clone());
                        // The kernel's fast counter paths too (`public`),
                        // against its branch-free one.
                        let public = blocks % 2 == 1;
                        crypt_blocks_par(
                            kernel,
                            &pool,
                            &mut c1,
                            &mut y1,
                            Text::InPlace(&mut d1),
                            direction,
                            public,
                        );
                        // Out of place, into uninitialized memory.
                        let (mut c3, mut y3) = (counter, y);
                        let mut d3 = Vec::<u8>::with_capacity(data.len());
                        let text = Text::Into {
                            input: &data,
                            out: &mut d3.spare_capacity_mut()[..data.len()],
                        };
                        crypt_blocks_par(kernel, &pool, &mut c3, &mut y3, text, direction, public);
                        // SAFETY: `crypt_blocks_par` wrote every byte.
                        unsafe { d3.set_len(data.len()) };
                        let (d2, c2, y2) =
                            blocks_in_place(kernel, (counter, y), data.clone(), direction, false);
                        let id = format!(
                            "{threads} threads lingering {linger:?}, {blocks} blocks from {low:#x}"
                        );
                        assert_eq!(d1, d2, "{id}: data");
                        assert_eq!(c1, c2, "{id}: counter");
                        assert_eq!(y1, y2, "{id}: GHASH");
                        assert!((d3, c3, y3) == (d2, c2, y2), "{id}: out of place");
                    }
                }
            }
        }
    }
}
