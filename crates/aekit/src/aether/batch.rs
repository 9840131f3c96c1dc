//! Many AETHER messages in one call: each with its own nonce, associated
//! data, buffer and tag, each with its own result.
//!
//! The shape is the one of AES-GCM's batch (`gcm/batch.rs`): a slice of
//! [`AetherMessage`] borrowing each message's nonce, associated data, buffer
//! (encrypted or decrypted in place) and tag slot, and one result per
//! message. A forged message fails alone and its buffer is wiped; every
//! other message is processed exactly as the one-message API would.
//!
//! How: messages are grouped by their number of padded associated-data
//! and message blocks (all the states of a group step together), and each
//! run of one shape is cut into pieces, each run on whichever engine costs
//! least per message: the key's one-message engine, or a bitsliced engine
//! (`bitsliced.rs`, one message per bit lane) of 512 lanes (AVX-512,
//! `bitsliced_avx512.rs`), 256 (AVX-512 on 256-bit registers, or AVX2) or
//! 128 (SSE2/scalar). A bitsliced group costs the same however few lanes
//! it fills, so a piece too small for its lanes stays on the one-message
//! engine. Keys on the `avx512` engine and on the `portable` one choose;
//! `avx2` keys run every message on their own engine (the AVX2 bitsliced
//! engine is slower than it, and an `avx2` key is how the AVX2 class is
//! measured on a bigger CPU), so do `neon` keys (no bitsliced engine is
//! written for NEON), and a key built on the `reference` strategy
//! stays on the reference: it is the oracle.
//!
//! # Which engine
//!
//! Each engine's cost is a fixed part (the 40 rounds of initialization
//! and finalization, which every lane shares) and a part per block (with
//! the transposes of the data in and out): [`Cost`], in nanoseconds for a
//! shape of `k` blocks, fitted to runs of the batch benchmark
//! (`aekit-bench batch`) on an Intel Xeon with AVX-512 (Sapphire Rapids
//! class). Each piece of a run goes to the engine with the lowest cost per message. What that
//! gives: short messages go to a bitsliced group once a run has enough of
//! them to fill its lanes, and on an `avx512` key long ones (33 blocks,
//! 1500 bytes, and more) never do (on a `portable` key, whose one message
//! costs far more, a run of a few dozen long ones of one shape does): the
//! bitsliced F is cheaper than the one-message engine's (whose `vpshufb`
//! S-box is bound by the shuffle ports), but the
//! transposes in and out cost about as much as the rounds of a block, so
//! the longer the message the less a group gains. Other CPUs would draw
//! these lines elsewhere; the costs are that machine's.
//!
//! The mode on a group is `AETHER.md`'s, lane by lane: the per-message
//! differences (nonce, data, the short last block) enter through the
//! transposes; the last block of a decryption is rebuilt as "recovered
//! bytes, 0x80, zeros" with per-lane masks built from the (public) lengths.

use zeroize::Zeroize;

use super::bitsliced::{self, Aligned, Lanes, Planes, Slicer};
use super::bitsliced_avx2::Avx2;
use super::bitsliced_avx512::Avx512;
use super::{Aether, BLOCK_LEN, Imp, Key, NONCE_LEN, TAG_LEN, Z0, Z1, Z2};
use crate::Error;
use crate::secret;

/// One message of a batch: borrowed nonce, associated data, buffer
/// (encrypted or decrypted in place) and tag slot.
#[derive(Debug)]
pub struct AetherMessage<'a> {
    /// The 16-byte nonce; never repeat one under a key.
    pub nonce: &'a [u8; NONCE_LEN],
    /// The associated data (see [`Aether`]'s warning: fix it per key).
    pub ad: &'a [u8],
    /// The plaintext (encryption) or ciphertext (decryption), replaced in place.
    pub buf: &'a mut [u8],
    /// Encryption writes the tag here; decryption reads the received tag.
    pub tag: &'a mut [u8; TAG_LEN],
}

/// The former name of [`AetherMessage`], kept for one release so that it
/// is not confused with `gcm::BatchMessage` (a different struct).
#[deprecated(note = "renamed AetherMessage")]
pub type BatchMessage<'a> = AetherMessage<'a>;

impl Aether {
    /// Encrypts every message of `batch` in place and writes its tag.
    /// Returns one result per message, in order (encryption cannot fail;
    /// the vector is there for symmetry with [`Aether::decrypt_batch`]).
    /// Each message equals what [`Aether::encrypt_in_place_detached`] gives.
    pub fn encrypt_batch(&self, batch: &mut [AetherMessage<'_>]) -> Vec<Result<(), Error>> {
        let mut results = vec![Ok(()); batch.len()];
        self.batch_into(batch, true, &mut results);
        results
    }

    /// Verifies and decrypts every message of `batch` in place. Returns one
    /// result per message, in order: a message whose tag does not verify
    /// gets [`Error::AuthenticationFailed`] and its buffer is zeroed, while
    /// the others decrypt. Tags are compared in constant time.
    pub fn decrypt_batch(&self, batch: &mut [AetherMessage<'_>]) -> Vec<Result<(), Error>> {
        let mut results = vec![Ok(()); batch.len()];
        self.batch_into(batch, false, &mut results);
        results
    }

    /// [`encrypt_batch`](Self::encrypt_batch) with message i's result
    /// written into `results[i]`: nothing allocated for the results (as
    /// `AesGcm::encrypt_batch_into`).
    ///
    /// # Panics
    ///
    /// If `results` is not exactly as long as `batch`.
    pub fn encrypt_batch_into(
        &self,
        batch: &mut [AetherMessage<'_>],
        results: &mut [Result<(), Error>],
    ) {
        self.batch_into(batch, true, results);
    }

    /// [`decrypt_batch`](Self::decrypt_batch) with message i's result
    /// written into `results[i]`.
    ///
    /// # Panics
    ///
    /// If `results` is not exactly as long as `batch`.
    pub fn decrypt_batch_into(
        &self,
        batch: &mut [AetherMessage<'_>],
        results: &mut [Result<(), Error>],
    ) {
        self.batch_into(batch, false, results);
    }

    /// The batch, every message's result written into `results`.
    fn batch_into(
        &self,
        batch: &mut [AetherMessage<'_>],
        encrypt: bool,
        results: &mut [Result<(), Error>],
    ) {
        crate::error::reset_results(results, batch.len());
        let (x512, x256) = (Avx512::detect(), Avx2::detect());
        // The engines a key's batch may use besides its own one-message
        // engine (module header, "Which engine"). An `avx2` key stays on
        // its own engine (the bitsliced AVX2 engine is slower, and an
        // `avx2` key is how the AVX2 class is measured on a bigger CPU);
        // a `neon` key has no bitsliced engine of its class to go to, and
        // the reference stays the oracle.
        let none = Engine::Portable2; // a filler: `n` says how many are real
        let (one, list, n) = match self.imp {
            Imp::Avx512(_) => match x512 {
                Some(t) => (ONE_AVX512, [Engine::Avx512x8(t), Engine::Avx512x4(t)], 2),
                None => (ONE_AVX512, [none, none], 0),
            },
            Imp::Portable(_) => match (x512, x256) {
                (Some(t), _) => (ONE_PORTABLE, [Engine::Avx512x8(t), Engine::Avx512x4(t)], 2),
                (None, Some(t)) => (ONE_PORTABLE, [Engine::Avx2x4(t), Engine::Portable2], 2),
                (None, None) => (ONE_PORTABLE, [Engine::Portable2, none], 1),
            },
            Imp::Avx2(_) | Imp::Neon(_) | Imp::Reference(_) => (ONE_AVX512, [none, none], 0),
        };
        let engines = &list[..n];
        // Whether a group of `n` messages of `k` blocks on some engine
        // costs less than their one-message calls.
        let pays = |k: usize, n: usize| {
            engines
                .iter()
                .any(|e| e.cost().of(k) < one.of(k) * n.min(e.lanes()) as u64)
        };
        // A batch with no shape of enough messages for a group to pay is
        // not grouped at all (sorting it would be work for nothing). At
        // two blocks (the fewest) a group's fixed part weighs
        // most: a batch too small to pay there needs no count. The shapes
        // are few: a list does.
        let grouped = pays(2, batch.len()) && {
            let mut shapes: Vec<((usize, usize), usize)> = Vec::new();
            for m in batch.iter() {
                let shape = shape(m);
                match shapes.iter_mut().find(|(s, _)| *s == shape) {
                    Some((_, n)) => *n += 1,
                    None => shapes.push((shape, 1)),
                }
            }
            shapes.iter().any(|&((a, b), n)| pays(a + b, n))
        };
        if grouped {
            self.groups(one, engines, batch, encrypt, results);
        } else {
            for (m, r) in batch.iter_mut().zip(results) {
                *r = self.one(m, encrypt);
            }
        }
    }

    /// One message on the key's one-message engine.
    fn one(&self, m: &mut AetherMessage<'_>, encrypt: bool) -> Result<(), Error> {
        if encrypt {
            *m.tag = self.encrypt_in_place_detached(m.nonce, m.ad, m.buf)?;
            Ok(())
        } else {
            self.decrypt_in_place_detached(m.nonce, m.ad, m.buf, m.tag)
        }
    }

    /// Groups the messages by block counts and runs each run of one shape
    /// in pieces, each piece on whichever of `engines` or the one-message
    /// engine (cost `one`) costs least per message.
    fn groups(
        &self,
        one: Cost,
        engines: &[Engine],
        batch: &mut [AetherMessage<'_>],
        encrypt: bool,
        results: &mut [Result<(), Error>],
    ) {
        let mut order: Vec<Entry<'_, '_>> = batch
            .iter_mut()
            .enumerate()
            .map(|(index, m)| Entry {
                shape: shape(m),
                index,
                m,
            })
            .collect();
        // The index makes every key distinct: an unstable sort keeps the order.
        order.sort_unstable_by_key(|e| (e.shape, e.index));
        let (mut work8, mut work4, mut work2) = (None, None, None);
        for run in order.chunk_by_mut(|a, b| a.shape == b.shape) {
            let blocks = run[0].shape.0 + run[0].shape.1;
            let mut rest = run;
            while !rest.is_empty() {
                // Each engine's cost per message on the piece it would take
                // (picoseconds, so that the division stays exact enough).
                let piece = |e: &Engine| {
                    let n = rest.len().min(e.lanes());
                    (e.cost().of(blocks) * 1000 / n as u64, n)
                };
                let best = engines
                    .iter()
                    .min_by_key(|e| piece(e).0)
                    .filter(|e| piece(e).0 < one.of(blocks) * 1000);
                let Some(&engine) = best else {
                    for e in rest.iter_mut() {
                        results[e.index] = self.one(e.m, encrypt);
                    }
                    break;
                };
                let (group, tail) = rest.split_at_mut(piece(&engine).1);
                let key = &self.key;
                match engine {
                    Engine::Avx512x8(t) => {
                        let work = work8.get_or_insert_with(Work::<8>::new);
                        crypt_group(t, work, key, group, encrypt, results);
                    }
                    Engine::Avx512x4(t) => {
                        let work = work4.get_or_insert_with(Work::<4>::new);
                        crypt_group(t, work, key, group, encrypt, results);
                    }
                    Engine::Avx2x4(t) => {
                        let work = work4.get_or_insert_with(Work::<4>::new);
                        crypt_group(t, work, key, group, encrypt, results);
                    }
                    Engine::Portable2 => {
                        let work = work2.get_or_insert_with(Work::<2>::new);
                        crypt_group(bitsliced::Portable, work, key, group, encrypt, results);
                    }
                }
                rest = tail;
            }
        }
    }
}

/// What a call costs: nanoseconds, fixed and per 48-byte block (of
/// associated data and message together), fitted to runs on an Intel
/// Xeon with AVX-512 (module header, "Which engine").
#[derive(Clone, Copy, Debug)]
struct Cost {
    fixed: u64,
    per_block: u64,
}

impl Cost {
    fn of(self, blocks: usize) -> u64 {
        self.fixed + self.per_block * blocks as u64
    }
}

/// The one-message `avx512` engine, per message.
const ONE_AVX512: Cost = Cost {
    fixed: 420,
    per_block: 12,
};
/// The one-message `portable` engine, per message.
const ONE_PORTABLE: Cost = Cost {
    fixed: 6_700,
    per_block: 210,
};

/// A bitsliced engine for a group.
#[derive(Clone, Copy, Debug)]
enum Engine {
    /// AVX-512, 512 lanes.
    Avx512x8(Avx512),
    /// AVX-512 on 256-bit registers, 256 lanes.
    Avx512x4(Avx512),
    /// AVX2, 256 lanes.
    Avx2x4(Avx2),
    /// The portable form, 128 lanes.
    Portable2,
}

impl Engine {
    /// Messages a group of this engine holds.
    fn lanes(self) -> usize {
        match self {
            Engine::Avx512x8(_) => 512,
            Engine::Avx512x4(_) | Engine::Avx2x4(_) => 256,
            Engine::Portable2 => 128,
        }
    }

    /// What a group costs, however full (module header, "Which engine").
    fn cost(self) -> Cost {
        match self {
            Engine::Avx512x8(_) => Cost {
                fixed: 118_000,
                per_block: 9_140,
            },
            Engine::Avx512x4(_) => Cost {
                fixed: 74_700,
                per_block: 4_670,
            },
            Engine::Avx2x4(_) => Cost {
                fixed: 130_000,
                per_block: 9_260,
            },
            Engine::Portable2 => Cost {
                fixed: 145_000,
                per_block: 7_580,
            },
        }
    }
}

/// A message's numbers of padded associated-data and message blocks: the
/// messages of a group share them.
fn shape(m: &AetherMessage<'_>) -> (usize, usize) {
    (padded_blocks(m.ad.len()), padded_blocks(m.buf.len()))
}

/// Number of 48-byte blocks in pad(x) for |x| = `len`.
fn padded_blocks(len: usize) -> usize {
    len / BLOCK_LEN + 1
}

/// A message with its place in the batch and its group key.
struct Entry<'b, 'a> {
    shape: (usize, usize),
    index: usize,
    m: &'b mut AetherMessage<'a>,
}

/// The scratch of a group, reused across groups and wiped on drop: the
/// states, the input and output planes, and a block per lane for the
/// lanes whose block is not whole in its message.
struct Work<const N: usize> {
    st: Lanes<N>,
    x: Box<Aligned<[Planes<N>; 3]>>,
    y: Box<Aligned<[Planes<N>; 3]>>,
    spill: Vec<[u8; BLOCK_LEN]>,
}

impl<const N: usize> Work<N> {
    fn new() -> Work<N> {
        Work {
            st: Lanes::new(),
            x: Box::new(Aligned([[[0; N]; 128]; 3])),
            y: Box::new(Aligned([[[0; N]; 128]; 3])),
            spill: vec![[0; BLOCK_LEN]; 64 * N],
        }
    }
}

impl<const N: usize> Drop for Work<N> {
    fn drop(&mut self) {
        self.x.0.zeroize();
        self.y.0.zeroize();
        self.spill.zeroize();
    }
}

/// Block `at..at + 48` of `x` into `out`: the bytes, zeros past the end,
/// and with `pad` the padding byte 0x80 at `x.len()` (pad(x)'s block).
fn block_at(x: &[u8], at: usize, pad: bool, out: &mut [u8; BLOCK_LEN]) {
    out.fill(0);
    if let Some(rest) = x.get(at..) {
        let n = rest.len().min(BLOCK_LEN);
        out[..n].copy_from_slice(&rest[..n]);
        if pad && n < BLOCK_LEN {
            out[n] = 0x80;
        }
    }
}

/// A block of zeros, for the lanes past a group's end.
const ZERO_BLOCK: [u8; BLOCK_LEN] = [0; BLOCK_LEN];

/// Planes of the first `x.len()` words of every lane's block `at..at + 48`
/// of `src(message)` (see [`block_at`] for `pad`); lanes past the group
/// read zeros. Whole blocks are read where they lie; when `at + 48` passes
/// `shortest` (the shortest `src` in the group) some are not, and those
/// are made in `spill` first.
#[allow(clippy::too_many_arguments)]
fn to_planes<const N: usize, S: Slicer<N>>(
    sl: S,
    group: &[Entry<'_, '_>],
    x: &mut [Planes<N>],
    spill: &mut [[u8; BLOCK_LEN]],
    at: usize,
    shortest: usize,
    pad: bool,
    src: impl for<'b> Fn(&'b AetherMessage<'_>) -> &'b [u8],
) {
    if at + BLOCK_LEN > shortest {
        for (e, sp) in group.iter().zip(spill.iter_mut()) {
            let m = src(e.m);
            if m.len() < at + BLOCK_LEN {
                block_at(m, at, pad, sp);
            }
        }
    }
    let spill = &*spill;
    sl.gather(
        |l| match group.get(l) {
            Some(e) => match src(e.m).get(at..at + BLOCK_LEN) {
                Some(b) => b.try_into().expect("a block"),
                None => &spill[l],
            },
            None => &ZERO_BLOCK,
        },
        x,
    );
}

/// Writes the part of `block` (bytes `at..at + 48` of the message) that
/// falls inside `buf`.
fn put(buf: &mut [u8], at: usize, block: &[u8; BLOCK_LEN]) {
    match buf.get_mut(at..at + BLOCK_LEN) {
        // As an array, so that the copy is a few stores and not a call.
        Some(b) => *<&mut [u8; BLOCK_LEN]>::try_from(b).expect("a block") = *block,
        None => put_tail(buf, at, block),
    }
}

/// [`put`] for a message's short last block; apart, so that the compiler
/// does not merge the two copies into one call of variable length.
#[cold]
#[inline(never)]
fn put_tail(buf: &mut [u8], at: usize, block: &[u8; BLOCK_LEN]) {
    if let Some(rest) = buf.get_mut(at..) {
        let n = rest.len().min(BLOCK_LEN);
        rest[..n].copy_from_slice(&block[..n]);
    }
}

/// AETHER on every message of `group` (all of one shape), lane `l` being
/// `group[l]`; lanes past the group's end carry zeros and are ignored.
fn crypt_group<const N: usize, S: Slicer<N>>(
    sl: S,
    work: &mut Work<N>,
    key: &Key,
    group: &mut [Entry<'_, '_>],
    encrypt: bool,
    results: &mut [Result<(), Error>],
) {
    let Work { st, x, y, spill } = work;
    let (ad_blocks, msg_blocks) = group[0].shape;
    let short_ad = group.iter().map(|e| e.m.ad.len()).min().unwrap_or(0);
    let short_buf = group.iter().map(|e| e.m.buf.len()).min().unwrap_or(0);
    // The key's copies here, named, are wiped at the end.
    let mut k0 = bitsliced::broadcast::<N>(&key.k0);
    let mut k1 = bitsliced::broadcast::<N>(&key.k1);
    let z = [Z0, Z1, Z2].map(|w| bitsliced::broadcast::<N>(&w));
    let zero: Planes<N> = [[0; N]; 128];

    // Spec step 1: S = [Z1, K0, N⊕K0, 0, Z0, 0, N, K1, Z2], 20 rounds, feed-forward.
    to_planes(sl, group, &mut x[..1], spill, 0, 0, false, |m| &m.nonce[..]);
    let mut n_k0 = x[0];
    bitsliced::xor_into(&mut n_k0, &k0);
    st.set([&z[1], &k0, &n_k0, &zero, &z[0], &zero, &x[0], &k1, &z[2]]);
    n_k0.zeroize();
    for _ in 0..20 {
        sl.round(st, &z);
    }
    for (i, k) in [&k0, &k0, &k0, &k0, &k1, &k0, &k1, &k1, &k1]
        .into_iter()
        .enumerate()
    {
        bitsliced::xor_into(st.word_mut(i), k);
    }

    // Step 2: every block of pad(AD).
    for b in 0..ad_blocks {
        to_planes(
            sl,
            group,
            &mut x[..],
            spill,
            b * BLOCK_LEN,
            short_ad,
            true,
            |m| m.ad,
        );
        sl.round(st, x);
    }

    // Step 3 (and DEC's): keystream, output, absorb the plaintext block.
    for b in 0..msg_blocks {
        let at = b * BLOCK_LEN;
        to_planes(sl, group, &mut x[..], spill, at, short_buf, encrypt, |m| {
            &*m.buf
        });
        sl.keystream(st, x, y);
        if encrypt {
            sl.round(st, x);
        } else {
            if b + 1 == msg_blocks {
                repad(y, group, b);
            }
            sl.round(st, y);
        }
        sl.scatter(&mut y[..], |l, block| {
            if let Some(e) = group.get_mut(l) {
                put(e.m.buf, at, block);
            }
        });
    }

    // Step 4: feed-forward, 20 rounds with (K0, Z0, K1), feed-forward, XOR.
    for (i, k) in [&k0, &k0, &k1, &k1, &k0, &k0, &k1, &k0, &k1]
        .into_iter()
        .enumerate()
    {
        bitsliced::xor_into(st.word_mut(i), k);
    }
    let mut fin = [k0, z[0], k1];
    for _ in 0..20 {
        sl.round(st, &fin);
    }
    for (i, k) in [&k1, &k0, &k0, &k0, &k1, &k0, &k0, &k1, &k1]
        .into_iter()
        .enumerate()
    {
        bitsliced::xor_into(st.word_mut(i), k);
    }
    x[0] = zero;
    for s in st.s.iter() {
        bitsliced::xor_into(&mut x[0], s);
    }
    let mut tags = vec![[0u8; TAG_LEN]; group.len()];
    sl.scatter(&mut x[..1], |l, block| {
        if let Some(t) = tags.get_mut(l) {
            t.copy_from_slice(&block[..TAG_LEN]);
        }
    });
    for (e, tag) in group.iter_mut().zip(&mut tags) {
        if encrypt {
            e.m.tag.copy_from_slice(tag);
        } else {
            results[e.index] = secret::verify_or_wipe(tag, TAG_LEN, &e.m.tag[..], e.m.buf);
        }
    }
    tags.zeroize();
    k0.zeroize();
    k1.zeroize();
    fin.zeroize();
    st.s.0.zeroize();
}

/// Decryption's last block: in every lane, bytes at and past the lane's
/// `r = len − 48·b` recovered bytes become the padding `0x80, 0, …` (the
/// block absorbed is pad(M)'s, not the keystream's tail).
fn repad<const N: usize>(y: &mut [Planes<N>; 3], group: &[Entry<'_, '_>], b: usize) {
    let mut keep = [[0u64; N]; BLOCK_LEN];
    let mut pad = [[0u64; N]; BLOCK_LEN];
    for (l, e) in group.iter().enumerate() {
        let r = e.m.buf.len() - b * BLOCK_LEN;
        for k in keep.iter_mut().take(r) {
            bitsliced::lane_bit(k, l);
        }
        bitsliced::lane_bit(&mut pad[r], l);
    }
    for k in 0..BLOCK_LEN {
        for t in 0..8 {
            let p = &mut y[k / 16][8 * (k % 16) + t];
            *p = core::array::from_fn(|g| (p[g] & keep[k][g]) | if t == 7 { pad[k][g] } else { 0 });
        }
    }
}
