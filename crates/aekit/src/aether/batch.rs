//! Many AETHER messages in one call: each with its own nonce, associated
//! data, buffer and tag, each with its own result.
//!
//! The shape is the one of AES-GCM's batch (`gcm/batch.rs`): a slice of
//! [`BatchMessage`] borrowing each message's nonce, associated data, buffer
//! (encrypted or decrypted in place) and tag slot, and one result per
//! message. A forged message fails alone and its buffer is wiped; every
//! other message is processed exactly as the one-message API would.
//!
//! How, for a key on the `portable` engine: messages are grouped by their
//! number of padded associated-data and message blocks (all the states of
//! a group step together), and each group of enough messages runs on the
//! bitsliced engine (`bitsliced.rs`, one message per bit lane: 256
//! messages per group with AVX2, 128 in the SSE2/scalar form). Messages
//! whose group is too small to fill the lanes run on the one-message
//! engine, where the bitsliced engine would spend the same time on empty
//! lanes. Keys on the `avx2` and `avx512` engines run every message on
//! their own engine, and a key built on the `reference` strategy stays on
//! the reference: it is the oracle.
//!
//! # Which engine
//!
//! Measured on Zen 1 (AMD EPYC, family 23 model 1, whose AVX2 splits every
//! 256-bit operation in two), 1500-byte messages of one shape, GB/s, best
//! of 6–8 batches (a scratch loop):
//!
//! | messages | `avx2` one by one | bitsliced, 256 lanes (AVX2) | `portable` one by one | `portable` key's batch |
//! |---:|---:|---:|---:|---:|
//! | 64 | 0.44 | – | 0.044 | 0.10 (128 lanes) |
//! | 128 | 0.42–0.44 | 0.14 (half the lanes) | 0.043 | 0.20 (128 lanes) |
//! | 256 | 0.44 | 0.30 | 0.039–0.043 | 0.28–0.29 (256 lanes) |
//! | 1024 | 0.43 | 0.27 | 0.038–0.043 | 0.28–0.29 (256 lanes) |
//!
//! The bitsliced engine is 5–7× the `portable` engine, and 0.3–0.7× the
//! `avx2` one (whose `vpshufb` S-box does a nibble per byte lane; the
//! bitsliced F costs about 1850 logic operations and as many plane loads
//! and stores per group, and its transposes a quarter of the time), so
//! only `portable` keys use it; `avx2` and `avx512` keys (the AVX-512
//! engine is faster still) batch message by message. Before this choice
//! an `avx2` key's batch of 128 such messages ran at a third of the
//! one-message calls.
//!
//! The mode on a group is `AETHER.md`'s, lane by lane: the per-message
//! differences (nonce, data, the short last block) enter through the
//! transposes; the last block of a decryption is rebuilt as "recovered
//! bytes, 0x80, zeros" with per-lane masks built from the (public) lengths.

use subtle::ConstantTimeEq;
use zeroize::Zeroize;

use super::bitsliced::{self, Lanes, Planes, Rows, Slicer};
use super::bitsliced_avx2::Avx2;
use super::{Aether, BLOCK_LEN, Imp, Key, NONCE_LEN, TAG_LEN, Z0, Z1, Z2};
use crate::Error;

/// One message of a batch: borrowed nonce, associated data, buffer
/// (encrypted or decrypted in place) and tag slot.
#[derive(Debug)]
pub struct BatchMessage<'a> {
    /// The 16-byte nonce; never repeat one under a key.
    pub nonce: &'a [u8; NONCE_LEN],
    /// The associated data (see [`Aether`]'s warning: fix it per key).
    pub ad: &'a [u8],
    /// The plaintext (encryption) or ciphertext (decryption), replaced in place.
    pub buf: &'a mut [u8],
    /// Encryption writes the tag here; decryption reads the received tag.
    pub tag: &'a mut [u8; TAG_LEN],
}

impl Aether {
    /// Encrypts every message of `batch` in place and writes its tag.
    /// Returns one result per message, in order (encryption cannot fail;
    /// the vector is there for symmetry with [`Aether::decrypt_batch`]).
    /// Each message equals what [`Aether::encrypt_in_place_detached`] gives.
    pub fn encrypt_batch(&self, batch: &mut [BatchMessage<'_>]) -> Vec<Result<(), Error>> {
        self.batch(batch, true)
    }

    /// Verifies and decrypts every message of `batch` in place. Returns one
    /// result per message, in order: a message whose tag does not verify
    /// gets [`Error::AuthenticationFailed`] and its buffer is zeroed, while
    /// the others decrypt. Tags are compared in constant time.
    pub fn decrypt_batch(&self, batch: &mut [BatchMessage<'_>]) -> Vec<Result<(), Error>> {
        self.batch(batch, false)
    }

    fn batch(&self, batch: &mut [BatchMessage<'_>], encrypt: bool) -> Vec<Result<(), Error>> {
        let mut results = vec![Ok(()); batch.len()];
        match self.imp {
            // The `portable` engine is the one the bitsliced engine beats
            // (module header, "Which engine").
            Imp::Portable(_) => self.groups(Avx2::detect(), batch, encrypt, &mut results),
            Imp::Avx2(_) | Imp::Avx512(_) | Imp::Reference(_) => {
                for (m, r) in batch.iter_mut().zip(&mut results) {
                    *r = self.one(m, encrypt);
                }
            }
        }
        results
    }

    /// One message on the key's one-message engine.
    fn one(&self, m: &mut BatchMessage<'_>, encrypt: bool) -> Result<(), Error> {
        if encrypt {
            *m.tag = self.encrypt_in_place_detached(m.nonce, m.ad, m.buf)?;
            Ok(())
        } else {
            self.decrypt_in_place_detached(m.nonce, m.ad, m.buf, m.tag)
        }
    }

    /// Groups the messages by block counts and runs each group on the
    /// bitsliced engine, 256 lanes wide where `wide` proves AVX2 and 128
    /// otherwise, or message by message where a group is too small.
    fn groups(
        &self,
        wide: Option<Avx2>,
        batch: &mut [BatchMessage<'_>],
        encrypt: bool,
        results: &mut [Result<(), Error>],
    ) {
        let mut order: Vec<Entry<'_, '_>> = batch
            .iter_mut()
            .enumerate()
            .map(|(index, m)| Entry {
                shape: (padded_blocks(m.ad.len()), padded_blocks(m.buf.len())),
                index,
                m,
            })
            .collect();
        order.sort_by_key(|e| (e.shape, e.index));
        let (mut work4, mut work2) = (None::<Work<4>>, None::<Work<2>>);
        let chunk = if wide.is_some() { 256 } else { 128 };
        for run in order.chunk_by_mut(|a, b| a.shape == b.shape) {
            for group in run.chunks_mut(chunk) {
                match (wide, group.len()) {
                    (Some(t), n) if n > 128 => {
                        let work = work4.get_or_insert_with(Work::new);
                        crypt_group(t, work, &self.key, group, encrypt, results);
                    }
                    (_, n) if n >= MIN_GROUP => {
                        let work = work2.get_or_insert_with(Work::new);
                        let sl = bitsliced::Portable;
                        crypt_group(sl, work, &self.key, group, encrypt, results);
                    }
                    _ => {
                        for e in group.iter_mut() {
                            results[e.index] = self.one(e.m, encrypt);
                        }
                    }
                }
            }
        }
    }
}

/// The fewest messages a group runs on the bitsliced engine with: below
/// that the one-message `portable` engine is faster. A 128-lane group
/// costs about as much as 27 one-message calls and a 256-lane group (AVX2)
/// as 37, whatever their fill (Zen 1, 1500-byte messages); more than 128
/// messages take a 256-lane group, 32 to 128 a 128-lane one.
const MIN_GROUP: usize = 32;

/// Number of 48-byte blocks in pad(x) for |x| = `len`.
fn padded_blocks(len: usize) -> usize {
    len / BLOCK_LEN + 1
}

/// A message with its place in the batch and its group key.
struct Entry<'b, 'a> {
    shape: (usize, usize),
    index: usize,
    m: &'b mut BatchMessage<'a>,
}

/// The scratch of a group, reused across groups and wiped on drop: the
/// states, the input and output planes, the transpose rows, and each
/// lane's bytes.
struct Work<const N: usize> {
    st: Lanes<N>,
    x: Box<[Planes<N>; 3]>,
    y: Box<[Planes<N>; 3]>,
    rows: Box<Rows<N>>,
    bytes: Vec<[u8; BLOCK_LEN]>,
}

impl<const N: usize> Work<N> {
    fn new() -> Work<N> {
        Work {
            st: Lanes::new(),
            x: Box::new([[[0; N]; 128]; 3]),
            y: Box::new([[[0; N]; 128]; 3]),
            rows: Box::new([[0; N]; 64]),
            bytes: vec![[0; BLOCK_LEN]; 64 * N],
        }
    }
}

impl<const N: usize> Drop for Work<N> {
    fn drop(&mut self) {
        self.x.zeroize();
        self.y.zeroize();
        self.rows.zeroize();
        self.bytes.zeroize();
    }
}

/// Transposes the first `words` 16-byte words of every lane's bytes into planes.
fn to_planes<const N: usize, S: Slicer<N>>(
    sl: S,
    rows: &mut Rows<N>,
    bytes: &[[u8; BLOCK_LEN]],
    out: &mut [Planes<N>],
) {
    for (w, planes) in out.iter_mut().enumerate() {
        for h in 0..2 {
            let at = 16 * w + 8 * h;
            for (m, row) in rows.iter_mut().enumerate() {
                *row = core::array::from_fn(|g| {
                    let b = &bytes[64 * g + m][at..at + 8];
                    u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]])
                });
            }
            sl.transpose(rows);
            planes[64 * h..64 * h + 64].copy_from_slice(&rows[..]);
        }
    }
}

/// The inverse of [`to_planes`]: planes back to every lane's bytes.
fn from_planes<const N: usize, S: Slicer<N>>(
    sl: S,
    rows: &mut Rows<N>,
    planes: &[Planes<N>],
    bytes: &mut [[u8; BLOCK_LEN]],
) {
    for (w, p) in planes.iter().enumerate() {
        for h in 0..2 {
            rows.copy_from_slice(&p[64 * h..64 * h + 64]);
            sl.transpose(rows);
            let at = 16 * w + 8 * h;
            for (m, row) in rows.iter().enumerate() {
                for (g, v) in row.iter().enumerate() {
                    bytes[64 * g + m][at..at + 8].copy_from_slice(&v.to_le_bytes());
                }
            }
        }
    }
}

/// Block `b` of `x` into `out`: for `pad` the block of pad(x) (bytes, 0x80,
/// zeros), otherwise the bytes followed by zeros.
fn block_of(x: &[u8], b: usize, pad: bool, out: &mut [u8; BLOCK_LEN]) {
    out.fill(0);
    let start = (b * BLOCK_LEN).min(x.len());
    let end = (start + BLOCK_LEN).min(x.len());
    out[..end - start].copy_from_slice(&x[start..end]);
    if pad && end - start < BLOCK_LEN && b * BLOCK_LEN <= x.len() {
        out[end - start] = 0x80;
    }
}

/// Each lane's bytes from its message by `f`; lanes past the group, zeros.
fn fill(
    bytes: &mut [[u8; BLOCK_LEN]],
    group: &[Entry<'_, '_>],
    f: impl Fn(&BatchMessage<'_>, &mut [u8; BLOCK_LEN]),
) {
    for (l, lane) in bytes.iter_mut().enumerate() {
        match group.get(l) {
            Some(e) => f(e.m, lane),
            None => lane.fill(0),
        }
    }
}

/// One lane's bit in a lane value.
fn lane_bit<const N: usize>(v: &mut [u64; N], lane: usize) {
    v[lane / 64] |= 1 << (lane % 64);
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
    let Work {
        st,
        x,
        y,
        rows,
        bytes,
    } = work;
    let (ad_blocks, msg_blocks) = group[0].shape;
    let k0 = bitsliced::broadcast::<N>(&key.k0);
    let k1 = bitsliced::broadcast::<N>(&key.k1);
    let z = [Z0, Z1, Z2].map(|w| bitsliced::broadcast::<N>(&w));
    let zero: Planes<N> = [[0; N]; 128];

    // Spec step 1: S = [Z1, K0, N⊕K0, 0, Z0, 0, N, K1, Z2], 20 rounds, feed-forward.
    fill(bytes, group, |m, lane| {
        lane.fill(0);
        lane[..NONCE_LEN].copy_from_slice(m.nonce);
    });
    to_planes(sl, rows, bytes, &mut x[..1]);
    let mut n_k0 = x[0];
    bitsliced::xor_into(&mut n_k0, &k0);
    *st.s = [z[1], k0, n_k0, zero, z[0], zero, x[0], k1, z[2]];
    n_k0.zeroize();
    for _ in 0..20 {
        sl.round(st, &z);
    }
    for (s, k) in
        st.s.iter_mut()
            .zip([&k0, &k0, &k0, &k0, &k1, &k0, &k1, &k1, &k1])
    {
        bitsliced::xor_into(s, k);
    }

    // Step 2: every block of pad(AD).
    for b in 0..ad_blocks {
        fill(bytes, group, |m, lane| block_of(m.ad, b, true, lane));
        to_planes(sl, rows, bytes, &mut x[..]);
        sl.round(st, x);
    }

    // Step 3 (and DEC's): keystream, output, absorb the plaintext block.
    for b in 0..msg_blocks {
        let last = b + 1 == msg_blocks;
        fill(bytes, group, |m, lane| block_of(m.buf, b, encrypt, lane));
        to_planes(sl, rows, bytes, &mut x[..]);
        **y = **x;
        sl.keystream_xor(st, y);
        if encrypt {
            sl.round(st, x);
        } else {
            if last {
                repad(y, group, b);
            }
            sl.round(st, y);
        }
        from_planes(sl, rows, &y[..], bytes);
        for (e, lane) in group.iter_mut().zip(bytes.iter()) {
            let start = b * BLOCK_LEN;
            let end = (start + BLOCK_LEN).min(e.m.buf.len());
            if start < end {
                e.m.buf[start..end].copy_from_slice(&lane[..end - start]);
            }
        }
    }

    // Step 4: feed-forward, 20 rounds with (K0, Z0, K1), feed-forward, XOR.
    for (s, k) in
        st.s.iter_mut()
            .zip([&k0, &k0, &k1, &k1, &k0, &k0, &k1, &k0, &k1])
    {
        bitsliced::xor_into(s, k);
    }
    let fin = [k0, z[0], k1];
    for _ in 0..20 {
        sl.round(st, &fin);
    }
    for (s, k) in
        st.s.iter_mut()
            .zip([&k1, &k0, &k0, &k0, &k1, &k0, &k0, &k1, &k1])
    {
        bitsliced::xor_into(s, k);
    }
    x[0] = zero;
    for s in st.s.iter() {
        bitsliced::xor_into(&mut x[0], s);
    }
    from_planes(sl, rows, &x[..1], bytes);
    for (e, lane) in group.iter_mut().zip(bytes.iter()) {
        let tag = &lane[..TAG_LEN];
        if encrypt {
            e.m.tag.copy_from_slice(tag);
        } else if bool::from(tag.ct_eq(&e.m.tag[..])) {
            results[e.index] = Ok(());
        } else {
            e.m.buf.zeroize();
            results[e.index] = Err(Error::AuthenticationFailed);
        }
    }
    let mut k = [k0, k1];
    k.zeroize();
    st.s.zeroize();
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
            lane_bit(k, l);
        }
        lane_bit(&mut pad[r], l);
    }
    for k in 0..BLOCK_LEN {
        for t in 0..8 {
            let p = &mut y[k / 16][8 * (k % 16) + t];
            *p = core::array::from_fn(|g| (p[g] & keep[k][g]) | if t == 7 { pad[k][g] } else { 0 });
        }
    }
}
