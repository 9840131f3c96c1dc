//! Many AES-GCM messages in one call: each with its own IV, associated data,
//! buffer and tag, each with its own result.
//!
//! The shape is chosen for the first users: an ESP burst (each packet's IV,
//! its ESP header as associated data, its payload in place, its ICV beside
//! it) and the chunked encryptor (each chunk's nonce, no associated data,
//! the chunk in place, its tag after it). Both already hold a buffer and a
//! tag slot per message, so a batch is a slice of [`BatchMessage`] borrowing
//! them: no copy in, no copy out, and the tag length of each message is the
//! length of its tag slot (4 to 16 bytes, as [`TAG_LENGTHS`] allows).
//!
//! Every message is independent: a bad tag length, an empty IV or a forged
//! message fails alone with the error the one-message API gives, a forged
//! message's buffer is wiped, and every other message of the batch is
//! processed as if it had been called on its own. The results are the
//! one-message API's, message for message; the tests check exactly that.
//!
//! On a `vaes-avx512` key, messages with a 96-bit IV, 3 to 128 blocks and
//! at most one block of associated data go four at a time through the
//! multi-buffer path (`multi_avx512.rs`): four messages of one shape, one
//! per 128-bit lane. A run of consecutive messages of one shape goes to
//! the kernel in whole groups, up to [`RUN`] messages a call; in a batch
//! of eight or more, others wait in their shape's bucket until it holds
//! [`GATHER`] (sixteen) and go to the kernel as one run, and what is left
//! at the end goes in whole groups, the rest one by one. (Buckets of
//! four, one group a kernel call, ran interleaved IMIX batches of 64 to
//! 1024 messages at 1.07–1.21× the one-message calls on an Emerald Rapids
//! Xeon, the same messages sorted by length at 1.6–1.9×; buckets of
//! sixteen, a run of four pipelined groups a call, 1.09–1.50×.) Measured
//! on an Intel Xeon with AVX-512 (Sapphire Rapids class, 2 vCPUs),
//! `aekit bench --suite batch`, GB/s over the batch against one-message
//! calls of the same messages: 64 B at 16 to
//! 1024 messages 2.05–2.34×, 576 B 1.60–1.68×, 1500 B 1.21–1.25×; on an
//! Emerald Rapids Xeon, since the long path hashes message by message,
//! 576 B 1.82–1.92×, 1500 B 1.27–1.38× at 64 to 1024 messages (see
//! `docs/BENCHMARKS.md`). On the way (a scratch program, 1024 messages of
//! 64 bytes, TSC cycles per message, best of many batches): one group per
//! kernel call 30.5; a run per call, software-pipelined, round 0 in the
//! count constants, masks and lengths product made once for equal
//! lengths 28.5; the run checks as three comparisons a message against
//! the first 25.8; one-message calls take 54–56. A message's tag is read
//! from a buffer the kernel filled: written straight into the tag slots
//! by masked stores, or by lane extracts, the batch was slower (26.4 →
//! 27.3 and 26.8). Returning tags by value cost three store-forwarding
//! stalls on the way (see `Kernel::crypt_groups`, [`deliver`] and
//! `multi_avx512`'s lengths).
//!
//! On a `vaes-avx2` key (AVX2 without AVX-512: AMD Zen 3, Intel client
//! cores), the same messages go the same way through its multi-buffer
//! path (`multi_avx2.rs`, two messages per 256-bit register, block i of
//! both in register i): forced on the same Xeon, 64 B batches 1.97–1.98×
//! the one-message calls at 256 and more (1.7–1.8× at 16 and 64), 576 B
//! 1.5×, 1500 B 1.22–1.28× (they were 0.86–0.93×, the batch's bookkeeping
//! on top of the same calls, before that kernel).
//!
//! The kernel finds its run itself (`kernel::taken`: IVs, shapes and tag
//! slots, in one pass that serves both the batch and the kernel's safety)
//! and returns how many messages it took; the tags come back through one
//! buffer for the whole batch (one per kernel call was a 1 KiB `memset`
//! each time, also where no group formed).
//!
//! Small batches. A batch of one to eight messages pays what the
//! one-message calls do plus the batch's bookkeeping; three costs of it
//! were found with `perf record` (an Emerald Rapids Xeon, `vaes-avx512`,
//! IMIX batches) and removed: the `Vec` of results (allocated and freed
//! per call: [`AesGcm::encrypt_batch_into`] writes into the caller's
//! slice), the kernel's 1 KiB tag buffer zeroed per batch also where no
//! group formed (now at the first group, and a run is tried only where
//! the next message has the same shape), and the tag of a message run on
//! its own moved out of its `Result` in pieces and read back whole (see
//! `one`). TSC cycles a message, best of 300 blocks of 200 batches,
//! before → after (`Vec` → `_into`), one-message calls in brackets: 1
//! message 96–193 → 64–116 (61–96), 4 messages 115–128 → 98–109
//! (84–94), 8 139–163 → 132–144 (107–128), 16 105–116 → 92–105
//! (103–115), 64 86–90 → 80–83 (108–120).
//!
//! Every other kernel runs each message on the key's own kernel (for
//! short messages the fused kernels' whole-message paths). What the batch
//! saves there is the dispatch: the key's
//! implementation is matched once per batch, and each message goes
//! straight to the concrete kernel. Looping over `encrypt_in_place_detached`
//! instead (the match, the call layers and their results through memory
//! once per message) made a batch slower than the same one-message calls
//! made by the caller: on Zen 1 (AMD EPYC, family 23 model 1, `ni-clmul`;
//! 64 messages of 64 bytes, TSC cycles per message, best of 3000, building
//! the batch included) 158–166 against 126–130; one op per batch, 134–136
//! against 131–133. Of what is left, about 8 cycles a message is the
//! caller building its `Vec` of [`BatchMessage`]: over a batch built once
//! the call costs what the one-message calls do.
//!
//! # Rejected (measured)
//!
//! A multi-buffer kernel over `ni-clmul`'s keys for short messages (12-byte
//! IV, at most seven blocks): the counter blocks of up to 64 lanes' worth
//! of messages packed into shared eight-lane AES batches (no empty lanes
//! but the group's last), each message hashed with Karatsuba products and
//! one reduction as soon as its lanes were encrypted, so that its
//! PCLMULQDQ overlapped the next batch's AESENC. It equalled the
//! one-message calls byte for byte, and on Zen 1 (AMD EPYC, family 23
//! model 1; TSC cycles per message over 1024 messages, best of 300, the
//! two run alternately in one process) it won only where the one-message
//! path wastes most lanes: 16 B 87 → 75, but 64 B 105 → 110 and 64 B
//! with 8 bytes of AAD 125 → 132. Neither path is bound by the AES or
//! PCLMULQDQ units there (a 64-byte message needs about 25 core cycles of
//! AESENC throughput and 34 of PCLMULQDQ, and takes about 160): both run
//! at about three instructions per cycle, and the packing, group and
//! lane bookkeeping cost as many instructions as the empty lanes saved.
//! A kernel that wins has to cut instructions per message (straight-line
//! code per message shape), not lanes.
//!
//! [`TAG_LENGTHS`]: super::TAG_LENGTHS

use core::borrow::BorrowMut;

use super::aes_gcm::{AesGcm, OneShot, copy_tag};
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
    /// batch again and again. (On an Emerald Rapids Xeon, a batch of one
    /// 64-byte message took 98–172 TSC cycles through the `Vec`, 64–116
    /// through this call, the one-message call 61–96.)
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
        self.run(Batch {
            gcm: self,
            messages: batch,
            results,
            direction,
        });
    }

    /// Whether this key's kernel runs short messages of a batch in
    /// vector lanes (`vaes-avx512`'s and `vaes-avx2`'s multi-buffer
    /// paths): where a caller gains by gathering messages into batches.
    pub(crate) fn has_multi_buffer(&self) -> bool {
        self.longest_in_lanes() > 0
    }

    /// The most blocks of a message this key's multi-buffer path takes
    /// (its kernel's `Kernel::LONGEST`), 0 without one.
    fn longest_in_lanes(&self) -> usize {
        self.run(Longest)
    }

    /// Whether a batch runs a message with a 12-byte IV and these lengths
    /// in vector lanes on this key (see [`has_multi_buffer`]).
    ///
    /// [`has_multi_buffer`]: Self::has_multi_buffer
    pub(crate) fn takes_in_lanes(&self, aad_len: usize, len: usize) -> bool {
        shape(aad_len, len, self.longest_in_lanes()).is_some()
    }
}

/// The kernel's `LONGEST`: asked of the kernel, not restated per key kind.
struct Longest;

impl KernelOp for Longest {
    type Output = usize;

    fn run<K: Kernel + Sync>(self, _: &K) -> usize {
        K::LONGEST
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
}

impl KernelOp for Batch<'_, '_, '_> {
    type Output = ();

    fn run<K: Kernel + Sync>(self, kernel: &K) {
        let (gcm, direction, results) = (self.gcm, self.direction, self.results);
        // A group is four messages: fewer go one by one without the
        // groups' bookkeeping (a batch of one 64-byte message cost 172
        // TSC cycles against the one-message call's 88 on an Emerald
        // Rapids Xeon with it, the tag buffer's 1 KiB zeroed among it).
        if K::LONGEST == 0 || self.messages.len() < 4 {
            for (m, r) in self.messages.iter_mut().zip(results) {
                *r = one(gcm, kernel, m, direction);
            }
            return;
        }
        // Runs of consecutive messages of one multi-buffer shape go
        // straight to the kernel, whole groups of four, up to `RUN` at a
        // time; other messages of such a shape wait in their shape's
        // bucket until it holds `GATHER`, and go to the kernel as one
        // run; the others, and what is left in the buckets at the end
        // beyond whole groups, run one by one. Every message gets its own
        // result, in its place.
        let mut rest = self.messages;
        // Made at the first message that waits (2 KiB to fill: a batch
        // of runs alone, 16 messages of 64 bytes, was 10 % slower with
        // them made up front), and not in a batch of fewer than eight,
        // where the gathering cost a mix of shapes that formed no group
        // (four IMIX messages) 15 %.
        let gather = rest.len() >= 8;
        let mut buckets: Option<Buckets<'_, '_>> = None;
        // The kernel's tags, one buffer for the batch, zeroed at the first
        // group (a buffer per kernel call cost a 1 KiB `memset` each, also
        // for a message that found no group; one made up front was 6 % of
        // a batch of four IMIX messages that formed none).
        let mut tags: Option<[Block; RUN]> = None;
        let go = Gathered {
            gcm,
            kernel,
            direction,
        };
        let mut i = 0;
        while !rest.is_empty() {
            let b = bucket(gcm, K::LONGEST, &rest[0]);
            // A run starts only where four messages are left and the next
            // one has the same shape (checked here: the kernel takes whole
            // groups of four, and its scan is not made for a mix).
            if let Some(b) = b
                && !buckets.as_ref().is_some_and(|w| w.holds(b))
                && rest.len() >= 4
                && bucket(gcm, K::LONGEST, &rest[1]) == Some(b)
            {
                let tags = tags.get_or_insert_with(new_tags);
                let took = groups(gcm, kernel, rest, tags, |k| i + k, results, direction);
                if took > 0 {
                    rest = &mut core::mem::take(&mut rest)[took..];
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
                        Added::NoRoom(m) => results[i] = one(gcm, kernel, m, direction),
                    }
                }
                _ => results[i] = one(gcm, kernel, m, direction),
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
                results[i] = one(gcm, kernel, m, direction);
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
        one_by_one(gcm, kernel, rest, |k| index[took + k], results, direction);
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
    /// The shape of each bucket (see [`bucket`]), where it holds any.
    shape: [usize; BUCKETS],
    /// Each bucket's messages, the first `count` of them.
    held: [[Option<Waiting<'m, 'a>>; GATHER]; BUCKETS],
    count: [usize; BUCKETS],
}

impl Default for Buckets<'_, '_> {
    fn default() -> Self {
        Buckets {
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
    fn holds(&self, b: usize) -> bool {
        self.slot(b).is_some()
    }

    fn slot(&self, b: usize) -> Option<usize> {
        (0..BUCKETS).find(|&s| self.count[s] > 0 && self.shape[s] == b)
    }

    /// Adds message `i`, `m`, of shape `b`.
    fn add(&mut self, b: usize, i: usize, m: &'m mut BatchMessage<'a>) -> Added<'m, 'a> {
        let Some(s) = self
            .slot(b)
            .or_else(|| (0..BUCKETS).find(|&s| self.count[s] == 0))
        else {
            return Added::NoRoom(m);
        };
        self.shape[s] = b;
        self.held[s][self.count[s]] = Some((i, m));
        self.count[s] += 1;
        if self.count[s] < GATHER {
            return Added::Waiting;
        }
        Added::Full(s)
    }

    /// The messages of full bucket `s`, which is empty after.
    fn take(&mut self, s: usize) -> [Waiting<'m, 'a>; GATHER] {
        debug_assert_eq!(self.count[s], GATHER);
        self.count[s] = 0;
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
/// through a buffer of this many blocks on the stack. (32: a batch of 64
/// messages of 64 bytes, two calls, 1.92–1.94× the one-message calls in
/// `aekit bench --suite batch`; 64: 2.02–2.05×.)
const RUN: usize = 64;

/// A zeroed buffer for the kernel's tags.
fn new_tags() -> [Block; RUN] {
    [[0; 16]; RUN]
}

/// The bucket of a message that passes the one-message API's checks and
/// has a multi-buffer shape (a 96-bit IV, [`shape`]), or `None`.
/// Of those checks only the tag length's is left to make: a 96-bit IV is
/// valid, and a shape's lengths (at most 2 KiB of message and 16 bytes of
/// associated data) are far below GCM's limits.
#[inline(always)]
fn bucket(gcm: &AesGcm, longest: usize, m: &BatchMessage<'_>) -> Option<usize> {
    let (c, a) = shape(m.aad.len(), m.buf.len(), longest)?;
    let ok = m.iv.len() == 12 && gcm.check_tag(m.tag.len(), 12).is_ok();
    debug_assert!(!ok || gcm.check_call(m.iv, m.aad, m.buf, m.tag.len()).is_ok());
    ok.then_some(2 * (c - 3) + a)
}

/// Shapes waiting for a group at once.
const BUCKETS: usize = 8;

/// Messages of one shape a bucket gathers before they go to the kernel
/// as one run (the kernel pipelines the groups of a run, and pays its
/// start once per run).
const GATHER: usize = 16;

/// One message on its own, with the one-message API's checks.
fn one<K: Kernel + Sync>(
    gcm: &AesGcm,
    kernel: &K,
    m: &mut BatchMessage<'_>,
    direction: Direction,
) -> Result<(), Error> {
    gcm.check_call(m.iv, m.aad, m.buf, m.tag.len())?;
    let full = OneShot {
        iv: m.iv,
        aad: m.aad,
        buf: &mut *m.buf,
        direction,
    }
    .run(kernel);
    // The tag read where the kernel's result holds it: moved out first,
    // it was stored in 4-, 8- and 4-byte pieces (the block sits at offset
    // 4 of the `Result`) and read back by one 16-byte load, which the
    // store buffer cannot forward (the hottest instruction of a batch of
    // eight IMIX messages).
    match &full {
        Ok(tag) => deliver(tag, m, direction),
        Err(e) => Err(*e),
    }
}

/// What a message's full tag means for it: encrypting, its tag slot
/// gets the tag; decrypting, it is checked, and the buffer wiped if it
/// does not verify.
fn deliver(full: &Block, m: &mut BatchMessage<'_>, direction: Direction) -> Result<(), Error> {
    match direction {
        Direction::Encrypt => {
            // Copied from where the kernel stored it: a tag passed by
            // value came apart into two 8-byte halves, stored and read
            // back as one 16-byte load, which the CPU does not forward
            // (about 15 cycles a message on an Intel Xeon with AVX-512).
            copy_tag(full, m.tag.len(), m.tag);
            Ok(())
        }
        Direction::Decrypt => verify_or_wipe(*full, m.tag, m.buf),
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
    for (k, (m, tag)) in run[..took].iter_mut().zip(&*tags).enumerate() {
        if let Err(e) = deliver(tag, m.borrow_mut(), direction) {
            results[place(k)] = Err(e);
        }
    }
    took
}

/// The messages of a run one by one, should the kernel refuse it.
#[cold]
fn one_by_one<'a, K: Kernel + Sync, M: BorrowMut<BatchMessage<'a>>>(
    gcm: &AesGcm,
    kernel: &K,
    run: &mut [M],
    place: impl Fn(usize) -> usize,
    results: &mut [Result<(), Error>],
    direction: Direction,
) {
    for (k, m) in run.iter_mut().enumerate() {
        results[place(k)] = one(gcm, kernel, m.borrow_mut(), direction);
    }
}
