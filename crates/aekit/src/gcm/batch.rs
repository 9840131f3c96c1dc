//! Many AES-GCM messages in one call: each with its own IV, associated data,
//! buffer and tag, each with its own result.
//!
//! The shape is chosen for the first users: an ESP burst (each packet's IV,
//! its ESP header as associated data, its payload in place, its ICV beside
//! it) and the chunked encryptor (each chunk's nonce, no associated data,
//! the chunk in place, its tag after it). Both already hold a buffer and a
//! tag slot per message, so a batch is a slice of [`BatchMessage`] borrowing
//! them: no copy in, no copy out, and the tag length of each message is the
//! length of its tag slot (one of [`TAG_LENGTHS`] that the key's
//! [`TagRules`](super::TagRules) allow with the message's IV).
//!
//! Every message is independent: a bad tag length, an empty IV or a forged
//! message fails alone with the error the one-message API gives, a forged
//! message's buffer is wiped, and every other message of the batch is
//! processed as if it had been called on its own. The results are the
//! one-message API's, message for message; the tests check exactly that.
//!
//! # Multi-buffer kernels
//!
//! On a `vaes-avx512` or `vaes-avx2` key, messages with a 96-bit IV, 3 to
//! 128 blocks and at most one block of associated data go four at a time
//! through the kernel's multi-buffer path (`Kernel::crypt_groups`:
//! `kernels/vaes_avx512_multi.rs`, one message per 128-bit lane, and
//! `kernels/vaes_avx2_multi.rs`, two per 256-bit register), but those the
//! kernel's one-message path runs faster on this CPU (`Kernel::lanes_pay`:
//! on AMD Zen 3 and Zen 4, `vaes-avx2`'s past 80 blocks and at exactly
//! three, four or five 256-byte batches, `vaes-avx512`'s past 72). A run of
//! consecutive messages of one shape goes to the kernel in whole groups,
//! up to [`RUN`] messages a call (the kernel pipelines the groups of a
//! run); in a batch of eight or more, other messages of such a shape wait
//! in their shape's bucket until it holds [`GATHER`] and go to the kernel
//! as one run, and what is left at the end goes in whole groups, the rest
//! one by one. The kernel finds its run itself (`kernel::taken`: IVs,
//! shapes and tag slots, in one pass that serves both the batch and the
//! kernel's safety) and returns how many messages it took; the tags come
//! back through one buffer for the whole batch, zeroed at the first group.
//!
//! Every other message, and every message of a key without such a path,
//! runs on its own through the one-message API's path (`one`: its checks,
//! its short and whole-message paths), so it costs what its own call
//! does plus the batch's bookkeeping.
//!
//! That bookkeeping is kept small: results written into the caller's
//! slice ([`AesGcm::encrypt_batch_into`]), no group machinery below four
//! messages, no gathering below eight, each message's shape worked out
//! once, and its bucket found with one load ([`Buckets`]).
//! Figures: `docs/kernels/vaes_avx512_multi.md`,
//! `docs/kernels/vaes_avx2_multi.md`.
//!
//! # Rejected
//!
//! - Buckets of four (one group a kernel call): the kernel's start paid per
//!   group; sixteen (a run of four pipelined groups) is faster.
//! - Tags written by the kernel straight into the tag slots (masked
//!   stores, or lane extracts): slower than one buffer read back.
//! - Tags returned by value: store-forwarding stalls (see
//!   `Kernel::crypt_groups`, [`deliver`]).
//! - A multi-buffer path over `ni-clmul`'s keys: see `kernels/ni_clmul.rs`.
//! - A bucket found by comparing the shapes of all eight, each message's
//!   shape worked out twice: on IMIX batches that bookkeeping cost more
//!   than the multi-buffer path saved (`docs/BENCHMARKS.md`).
//!
//! [`TAG_LENGTHS`]: super::TAG_LENGTHS

use core::borrow::BorrowMut;

use super::aes_gcm::{AesGcm, copy_tag};
use super::kernel::{BatchMessage, Direction, Kernel, KernelOp, shape};
use super::state::verify_or_wipe;
use crate::Error;
use crate::aes::Block;

impl AesGcm {
    /// Encrypts every message of `batch` in place and writes its tag into
    /// its tag slot. Returns one result per message, in order; a message
    /// that fails (bad tag slot length, empty IV, too long) is left
    /// untouched and fails alone.
    pub fn encrypt_batch(&self, batch: &mut [BatchMessage<'_>]) -> Vec<Result<(), Error>> {
        let mut results = vec![Ok(()); batch.len()];
        self.crypt_batch_into(batch, Direction::Encrypt, &mut results);
        results
    }

    /// Verifies and decrypts every message of `batch` in place. Returns one
    /// result per message, in order: a message whose tag does not verify
    /// gets [`Error::AuthenticationFailed`] and its buffer is zeroed, while
    /// the others decrypt. Tags are compared in constant time.
    pub fn decrypt_batch(&self, batch: &mut [BatchMessage<'_>]) -> Vec<Result<(), Error>> {
        let mut results = vec![Ok(()); batch.len()];
        self.crypt_batch_into(batch, Direction::Decrypt, &mut results);
        results
    }

    /// [`encrypt_batch`](Self::encrypt_batch) with message i's result
    /// written into `results[i]`: nothing allocated, for callers that
    /// batch again and again (a small batch costs close to the
    /// one-message calls this way, not through the `Vec`).
    ///
    /// # Panics
    ///
    /// If `results` is not exactly as long as `batch`.
    pub fn encrypt_batch_into(
        &self,
        batch: &mut [BatchMessage<'_>],
        results: &mut [Result<(), Error>],
    ) {
        self.crypt_batch_into(batch, Direction::Encrypt, results);
    }

    /// [`decrypt_batch`](Self::decrypt_batch) with message i's result
    /// written into `results[i]`: nothing allocated.
    ///
    /// # Panics
    ///
    /// If `results` is not exactly as long as `batch`.
    pub fn decrypt_batch_into(
        &self,
        batch: &mut [BatchMessage<'_>],
        results: &mut [Result<(), Error>],
    ) {
        self.crypt_batch_into(batch, Direction::Decrypt, results);
    }

    /// The batch with every message's result written into `results`.
    fn crypt_batch_into(
        &self,
        batch: &mut [BatchMessage<'_>],
        direction: Direction,
        results: &mut [Result<(), Error>],
    ) {
        crate::error::reset_results(results, batch.len());
        // A group is four messages: fewer, or a key without a multi-buffer
        // path, go one by one, without the kernel op and its frame.
        if batch.len() < 4 || !self.has_multi_buffer() {
            for (m, r) in batch.iter_mut().zip(results) {
                one(self, m, direction, r);
            }
            return;
        }
        self.run(Batch {
            gcm: self,
            messages: batch,
            results,
            direction,
            every_shape: false,
        });
    }

    /// Whether this key's kernel runs short messages of a batch in
    /// vector lanes (`vaes-avx512`'s and `vaes-avx2`'s multi-buffer
    /// paths): where a caller gains by gathering messages into batches.
    pub(crate) fn has_multi_buffer(&self) -> bool {
        self.run(HasLanes)
    }

    /// Whether a batch runs a message with a 12-byte IV and these lengths
    /// in vector lanes on this key (see [`has_multi_buffer`]).
    ///
    /// [`has_multi_buffer`]: Self::has_multi_buffer
    pub(crate) fn takes_in_lanes(&self, aad_len: usize, len: usize) -> bool {
        self.run(InLanes { aad_len, len })
    }
}

/// Whether the kernel has a multi-buffer path (`Kernel::LONGEST` above
/// 0): asked of the kernel, not restated per key kind. Apart from
/// [`InLanes`], so that every batch call inlines this small op.
struct HasLanes;

impl KernelOp for HasLanes {
    type Output = bool;

    fn run<K: Kernel + Sync>(self, _: &K) -> bool {
        K::LONGEST > 0
    }
}

/// Whether the kernel's multi-buffer path takes a message of these
/// lengths from a batch on this CPU (a shape, `Kernel::lanes_pay`).
struct InLanes {
    aad_len: usize,
    len: usize,
}

impl KernelOp for InLanes {
    type Output = bool;

    fn run<K: Kernel + Sync>(self, _: &K) -> bool {
        shape(self.aad_len, self.len, K::LONGEST).is_some() && K::lanes_pay()(self.len)
    }
}

/// A whole batch as one kernel op: the key's implementation is matched
/// once per batch, not once per message, and every message runs on the
/// concrete kernel with the one-message API's checks, in its order.
struct Batch<'g, 'm, 'a> {
    /// The key, for its checks (`AesGcm::check_call`).
    gcm: &'g AesGcm,
    messages: &'m mut [BatchMessage<'a>],
    /// One per message.
    results: &'m mut [Result<(), Error>],
    direction: Direction,
    /// Every shape the kernel's multi-buffer path takes
    /// ([`Kernel::LONGEST`]), not only those it gains on with this CPU
    /// ([`Kernel::lanes_pay`]): the tests' way to reach all of
    /// them on any CPU.
    every_shape: bool,
}

impl KernelOp for Batch<'_, '_, '_> {
    type Output = ();

    fn run<K: Kernel + Sync>(self, kernel: &K) {
        let (gcm, direction, results) = (self.gcm, self.direction, self.results);
        // Four messages or more, on a kernel with a multi-buffer path
        // (`crypt_batch_into` runs the others one by one).
        debug_assert!(K::LONGEST > 0 && self.messages.len() >= 4);
        // Runs of consecutive messages of one multi-buffer shape go
        // straight to the kernel, whole groups of four, up to `RUN` at a
        // time; other messages of such a shape wait in their shape's
        // bucket until it holds `GATHER`, and go to the kernel as one
        // run; the others, and what is left in the buckets at the end
        // beyond whole groups, run one by one. Every message gets its own
        // result, in its place.
        let mut rest = self.messages;
        // Made at the first message that waits (2 KiB to fill: a batch
        // of runs alone was slower with them made up front), and not in
        // a batch of fewer than eight, where the gathering cost a mix of
        // shapes that formed no group.
        let gather = rest.len() >= 8;
        let mut buckets: Option<Buckets<'_, '_>> = None;
        // The kernel's tags, one buffer for the batch, zeroed at the first
        // group (a buffer per kernel call cost a 1 KiB `memset` each, also
        // for a message that found no group; one made up front cost a
        // batch that formed none).
        let mut tags: Option<[Block; RUN]> = None;
        let go = Gathered {
            gcm,
            kernel,
            direction,
        };
        let every_shape = self.every_shape;
        let lanes_pay = K::lanes_pay();
        let pays = |len| every_shape || lanes_pay(len);
        let shape_of =
            |m: Option<&BatchMessage<'_>>| m.and_then(|m| bucket(gcm, K::LONGEST, pays, m));
        // Each message's bucket is worked out once: the next one's is
        // carried over to its turn.
        let mut next = shape_of(rest.first());
        let mut i = 0;
        while !rest.is_empty() {
            let b = next;
            next = shape_of(rest.get(1));
            // A run starts only where the next three messages have its
            // shape (checked here: the kernel takes whole groups of four,
            // and its scan is not made for a mix).
            if let Some(b) = b
                && next == Some(b)
                && !buckets.as_ref().is_some_and(|w| w.holds(b))
                && shape_of(rest.get(2)) == Some(b)
                && shape_of(rest.get(3)) == Some(b)
            {
                let tags = tags.get_or_insert_with(new_tags);
                let took = groups(gcm, kernel, rest, tags, |k| i + k, results, direction);
                if took > 0 {
                    rest = &mut core::mem::take(&mut rest)[took..];
                    next = shape_of(rest.first());
                    i += took;
                    continue;
                }
            }
            let Some((m, tail)) = core::mem::take(&mut rest).split_first_mut() else {
                unreachable!("not empty");
            };
            rest = tail;
            match b {
                Some(b) if gather => {
                    let waiting = buckets.get_or_insert_with(Buckets::default);
                    match waiting.add(b, i, m) {
                        Added::Waiting => {}
                        Added::Full(s) => {
                            go.run(waiting.take(s), tags.get_or_insert_with(new_tags), results)
                        }
                        Added::NoRoom(m) => one(gcm, m, direction, &mut results[i]),
                    }
                }
                _ => one(gcm, m, direction, &mut results[i]),
            }
            i += 1;
        }
        // What is left in the buckets: their whole groups of four, then
        // the rest one by one.
        for left in buckets.iter_mut().flat_map(Buckets::left) {
            let mut fours = left.chunks_exact_mut(4);
            for four in &mut fours {
                let four: [Waiting<'_, '_>; 4] =
                    core::array::from_fn(|k| four[k].take().expect("held"));
                go.run(four, tags.get_or_insert_with(new_tags), results);
            }
            for (i, m) in fours.into_remainder().iter_mut().filter_map(Option::take) {
                one(gcm, m, direction, &mut results[i]);
            }
        }
    }
}

/// A message waiting in a bucket: its place in the batch and itself.
type Waiting<'m, 'a> = (usize, &'m mut BatchMessage<'a>);

/// Messages of one shape gathered from across a batch, to the kernel's
/// multi-buffer path as one run (whole groups of four).
struct Gathered<'g, 'k, K> {
    gcm: &'g AesGcm,
    kernel: &'k K,
    direction: Direction,
}

impl<K: Kernel + Sync> Gathered<'_, '_, K> {
    /// The `N` messages of `run` (of one shape), their results into
    /// `results`.
    fn run<const N: usize>(
        &self,
        run: [Waiting<'_, '_>; N],
        tags: &mut [Block; RUN],
        results: &mut [Result<(), Error>],
    ) {
        let (gcm, kernel, direction) = (self.gcm, self.kernel, self.direction);
        let index: [usize; N] = core::array::from_fn(|k| run[k].0);
        let mut run = run.map(|(_, m)| m);
        let took = groups(
            gcm,
            kernel,
            &mut run,
            tags,
            |k| index[k],
            results,
            direction,
        );
        // What the kernel did not take (none: the messages are of one
        // shape, in whole groups).
        let rest = &mut run[took..];
        one_by_one(gcm, rest, |k| index[took + k], results, direction);
    }
}

/// Messages of multi-buffer shapes waiting for a run, by shape: at most
/// [`BUCKETS`] shapes at once (a batch mixing more shapes than that runs
/// the others' messages one by one, as if they had no shape), up to
/// [`GATHER`] messages each. (Each bucket holds its messages' own
/// references, taken one by one off the batch: indices into the batch
/// borrowed back with `get_disjoint_mut` cost its check of every pair,
/// which at sixteen messages a run made interleaved IMIX batches slower
/// than at four.)
struct Buckets<'m, 'a> {
    /// For each shape (see [`bucket`]), 1 + the bucket holding its
    /// messages, or 0: one load finds a message's bucket.
    slot_of: [u8; SHAPES],
    /// The shape of each bucket, where it holds any.
    shape: [usize; BUCKETS],
    /// Each bucket's messages, the first `count` of them.
    held: [[Option<Waiting<'m, 'a>>; GATHER]; BUCKETS],
    count: [usize; BUCKETS],
}

/// How many shapes [`bucket`] numbers: 2 (c − 3) + a for c ≤ [`LONG`]
/// message blocks and a ≤ 1.
///
/// [`LONG`]: super::kernel::LONG
const SHAPES: usize = 256;

impl Default for Buckets<'_, '_> {
    fn default() -> Self {
        Buckets {
            slot_of: [0; SHAPES],
            shape: [0; BUCKETS],
            held: core::array::from_fn(|_| core::array::from_fn(|_| None)),
            count: [0; BUCKETS],
        }
    }
}

/// What adding a message to the buckets did.
enum Added<'m, 'a> {
    Waiting,
    /// Its bucket (this one) is full: its messages make a run
    /// ([`Buckets::take`]).
    Full(usize),
    /// Every bucket holds another shape: the message back.
    NoRoom(&'m mut BatchMessage<'a>),
}

impl<'m, 'a> Buckets<'m, 'a> {
    /// Whether a bucket holds messages of shape `b`.
    #[inline(always)]
    fn holds(&self, b: usize) -> bool {
        self.slot_of[b] != 0
    }

    /// Adds message `i`, `m`, of shape `b`.
    #[inline(always)]
    fn add(&mut self, b: usize, i: usize, m: &'m mut BatchMessage<'a>) -> Added<'m, 'a> {
        let s = match self.slot_of[b] {
            0 => {
                let Some(s) = (0..BUCKETS).find(|&s| self.count[s] == 0) else {
                    return Added::NoRoom(m);
                };
                self.slot_of[b] = s as u8 + 1;
                self.shape[s] = b;
                s
            }
            slot => usize::from(slot) - 1,
        };
        let count = self.count[s];
        self.held[s][count] = Some((i, m));
        self.count[s] = count + 1;
        if count + 1 < GATHER {
            return Added::Waiting;
        }
        Added::Full(s)
    }

    /// The messages of full bucket `s`, which is empty after.
    fn take(&mut self, s: usize) -> [Waiting<'m, 'a>; GATHER] {
        debug_assert_eq!(self.count[s], GATHER);
        self.count[s] = 0;
        self.slot_of[self.shape[s]] = 0;
        core::array::from_fn(|k| self.held[s][k].take().expect("a full bucket"))
    }

    /// The messages left waiting, bucket by bucket.
    fn left(&mut self) -> impl Iterator<Item = &mut [Option<Waiting<'m, 'a>>]> {
        self.held
            .iter_mut()
            .zip(&self.count)
            .map(|(held, &count)| &mut held[..count])
    }
}

/// The most messages of a batch handed to the kernel's multi-buffer path
/// in one call: its groups are software-pipelined within a call (one
/// group's GHASH beside the next one's AES), and their tags come back
/// through a buffer of this many blocks on the stack (64 runs a batch of
/// 64 short messages in one call, faster than 32 in two).
const RUN: usize = 64;

/// A zeroed buffer for the kernel's tags.
fn new_tags() -> [Block; RUN] {
    [[0; 16]; RUN]
}

/// The bucket of a message that passes the one-message API's checks and
/// has a multi-buffer shape (a 96-bit IV, [`shape`]) and a length `pays`
/// accepts, or `None`.
/// Of those checks only the tag length's is left to make: a 96-bit IV is
/// valid, and a shape's lengths (at most 2 KiB of message and 16 bytes of
/// associated data) are far below GCM's limits.
#[inline(always)]
fn bucket(
    gcm: &AesGcm,
    longest: usize,
    pays: impl Fn(usize) -> bool,
    m: &BatchMessage<'_>,
) -> Option<usize> {
    let (c, a) = shape(m.aad.len(), m.buf.len(), longest)?;
    let ok = m.iv.len() == 12 && pays(m.buf.len()) && gcm.check_tag(m.tag.len(), 12).is_ok();
    debug_assert!(!ok || gcm.check_call(m.iv, m.aad, m.buf, m.tag.len()).is_ok());
    ok.then_some(2 * (c - 3) + a)
}

/// Shapes waiting for a group at once.
const BUCKETS: usize = 8;

/// Messages of one shape a bucket gathers before they go to the kernel
/// as one run (the kernel pipelines the groups of a run, and pays its
/// start once per run).
const GATHER: usize = 16;

/// One message on its own: the one-message API's checks and path, so a
/// message a batch does not group costs what its own call does (rather
/// than a kernel op on the batch's kernel, with a frame of its own and
/// the tag's way out of it). Its result goes into `result` only where it
/// fails, the batch's results starting as `Ok`: a whole `Result` moved
/// into its slot was made on the stack by an 8-byte store and copied by
/// a 16-byte load, which the core does not forward from it, so the load
/// waited for the message's ciphertext stores to reach the cache.
#[inline(always)]
fn one(
    gcm: &AesGcm,
    m: &mut BatchMessage<'_>,
    direction: Direction,
    result: &mut Result<(), Error>,
) {
    let outcome = match direction {
        Direction::Encrypt => gcm
            .seal_in_place(None, m.iv, m.aad, m.buf, m.tag.len())
            .map(|tag| tag.copy_to(m.tag)),
        Direction::Decrypt => gcm.open_in_place(None, m.iv, m.aad, m.buf, m.tag),
    };
    if let Err(e) = outcome {
        *result = Err(e);
    }
}

/// What a message's full tag means for it: encrypting, its tag slot
/// gets the tag; decrypting, it is checked, and the buffer wiped if it
/// does not verify.
#[inline(always)]
fn deliver(full: &mut Block, m: &mut BatchMessage<'_>, direction: Direction) -> Result<(), Error> {
    match direction {
        Direction::Encrypt => {
            // Copied from where the kernel stored it: a tag passed by
            // value came apart into two 8-byte halves, stored and read
            // back as one 16-byte load, which the CPU does not forward.
            copy_tag(full, m.tag.len(), m.tag);
            Ok(())
        }
        Direction::Decrypt => verify_or_wipe(full, m.tag, m.buf),
    }
}

/// The whole groups of four messages at the start of `run` that the
/// kernel's multi-buffer path takes (one shape, 96-bit IVs, tag slots the
/// key takes; at most [`RUN`]), message k of `run` at `place(k)` in the
/// batch; their results into `results`. Returns how many it took.
fn groups<'a, K: Kernel + Sync, M: BorrowMut<BatchMessage<'a>>>(
    gcm: &AesGcm,
    kernel: &K,
    run: &mut [M],
    tags: &mut [Block; RUN],
    place: impl Fn(usize) -> usize,
    results: &mut [Result<(), Error>],
    direction: Direction,
) -> usize {
    let tag_ok = |len: usize| gcm.check_tag(len, 12).is_ok();
    let took = kernel.crypt_groups(run, direction, tags, tag_ok);
    // The results start as `Ok`: only failures are written.
    for (k, (m, tag)) in run[..took].iter_mut().zip(&mut *tags).enumerate() {
        if let Err(e) = deliver(tag, m.borrow_mut(), direction) {
            results[place(k)] = Err(e);
        }
    }
    took
}

/// The messages of a run one by one, should the kernel refuse it.
#[cold]
fn one_by_one<'a, M: BorrowMut<BatchMessage<'a>>>(
    gcm: &AesGcm,
    run: &mut [M],
    place: impl Fn(usize) -> usize,
    results: &mut [Result<(), Error>],
    direction: Direction,
) {
    for (k, m) in run.iter_mut().enumerate() {
        one(gcm, m.borrow_mut(), direction, &mut results[place(k)]);
    }
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::{Batch, BatchMessage, Direction};
    use crate::gcm::kernel::LONG;
    use crate::gcm::{AesGcm, Class};

    /// Every block count the multi-buffer paths take (3 to `LONG`), with
    /// and without a block of associated data, on every class of this
    /// CPU that has such a path, whatever shapes it gains on here
    /// (`every_shape`; the public calls may run the longer ones one by
    /// one): a run of four messages of one shape encrypts as their
    /// one-message calls do and decrypts back, and a forged one fails
    /// alone, wiped.
    #[test]
    fn every_shape_in_lanes_equals_one_message_calls() {
        let mut seed = 0x5eed_u32;
        let mut byte = move || {
            seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            (seed >> 16) as u8
        };
        let mut ran = false;
        for class in Class::ALL.into_iter().filter(|c| c.is_available()) {
            for key_len in [16, 32] {
                let key: Vec<u8> = (0..key_len).map(|_| byte()).collect();
                let gcm = AesGcm::with_class(&key, class).unwrap();
                if !gcm.has_multi_buffer() {
                    continue;
                }
                ran = true;
                for blocks in 3..=LONG {
                    for aad_len in [0, 1 + usize::from(byte()) % 16] {
                        let what = format!("{} key {key_len}, {blocks} blocks", class.name());
                        let len = 16 * (blocks - 1) + 1 + usize::from(byte()) % 16;
                        let ivs: Vec<[u8; 12]> =
                            (0..4).map(|_| core::array::from_fn(|_| byte())).collect();
                        let aad: Vec<u8> = (0..aad_len).map(|_| byte()).collect();
                        let plain: Vec<Vec<u8>> =
                            (0..4).map(|_| (0..len).map(|_| byte()).collect()).collect();
                        let mut bufs = plain.clone();
                        let mut tags = [[0u8; 16]; 4];
                        let run = |bufs: &mut [Vec<u8>], tags: &mut [[u8; 16]], direction| {
                            let mut messages: Vec<BatchMessage<'_>> = bufs
                                .iter_mut()
                                .zip(tags.iter_mut())
                                .zip(&ivs)
                                .map(|((buf, tag), iv)| BatchMessage {
                                    iv,
                                    aad: &aad,
                                    buf,
                                    tag,
                                })
                                .collect();
                            let mut results = vec![Ok(()); 4];
                            gcm.run(Batch {
                                gcm: &gcm,
                                messages: &mut messages,
                                results: &mut results,
                                direction,
                                every_shape: true,
                            });
                            results
                        };
                        let results = run(&mut bufs, &mut tags, Direction::Encrypt);
                        assert!(results.iter().all(Result::is_ok), "{what}");
                        for k in 0..4 {
                            let mut want = plain[k].clone();
                            let tag = gcm
                                .encrypt_in_place_detached(&ivs[k], &aad, &mut want, 16)
                                .unwrap();
                            assert_eq!(bufs[k], want, "{what}, message {k}");
                            assert_eq!(&tags[k], tag.as_bytes(), "{what}, message {k}");
                        }
                        let forged = usize::from(byte()) % 4;
                        tags[forged][0] ^= 1;
                        let results = run(&mut bufs, &mut tags, Direction::Decrypt);
                        for k in 0..4 {
                            if k == forged {
                                assert!(results[k].is_err(), "{what}, forged {k}");
                                assert!(bufs[k].iter().all(|&b| b == 0), "{what}, wiped {k}");
                            } else {
                                assert_eq!(results[k], Ok(()), "{what}, message {k}");
                                assert_eq!(bufs[k], plain[k], "{what}, message {k}");
                            }
                        }
                    }
                }
            }
        }
        if !ran {
            crate::skip(format_args!("no class of this CPU has a multi-buffer path"));
        }
    }
}
