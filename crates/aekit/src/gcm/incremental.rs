//! GMAC as an incremental MAC (GCM spec §1 and §6): a tag over a large,
//! changing data set — a file, a set of database pages — kept up to date
//! at a cost proportional to each change, not to the data.
//!
//! # Why GHASH allows it
//!
//! GMAC authenticates A alone (an empty message). With A cut into blocks
//! A_0 … A_{m−1} (the last zero-padded), GHASH before its lengths block is
//! a polynomial in H (spec §2.3, equation (2), unrolled):
//!
//! ```text
//! X = A_0·H^m ⊕ A_1·H^(m−1) ⊕ … ⊕ A_{m−1}·H,
//! S = (X ⊕ len(A) ‖ 0^64) · H,          T = S ⊕ E(K, Y_0).
//! ```
//!
//! Changing block i by Δ (old ⊕ new) changes X by Δ·H^(m−i). For a run of
//! changed blocks a..=b, Horner's rule over the Δs (GHASH itself, from
//! zero) gives Σ Δ_i·H^(b−i+1), and one multiplication by H^(m−1−b) puts
//! it in place. Growing A by k blocks of zeros multiplies X by H^k; the
//! new bytes are then a change of those zeros. Shrinking is the reverse:
//! the removed bytes are changed to zeros, then X is multiplied by H^(−k).
//! So every edit costs its own blocks plus at most one power of H.
//!
//! # The powers of H
//!
//! H^k is assembled from cached powers H^(2^j) and H^(−2^j), j < 64: one
//! multiplication per set bit of k (at most 27 for data under 1 GiB). H^(−1)
//! = H^(2^128 − 2) is computed once, as the product of H^(2^j) for
//! j = 1..127. The products use `ghash::karatsuba`'s constant-time multiply;
//! the only branches are on the bits of k, a public block count. The cache
//! is 2 KiB, zeroized on drop. A key whose H is zero (probability 2^−128)
//! has no inverse and is refused.
//!
//! # Never the same IV twice
//!
//! The tag of each state is masked with E(K, Y_0) under a fresh 96-bit IV:
//! reusing one would give the attacker S ⊕ S' — a known polynomial in H
//! with the changed data as coefficients — and so H. Each instance draws a
//! random 64-bit prefix from the operating system when it is created and
//! counts tags in the last 32 bits: IV = prefix ‖ be32(n). Within an
//! instance the counter makes IVs distinct; it refuses a 2^32-th tag
//! ([`Error::IvsExhausted`]). Across instances under one key, two prefixes
//! collide with probability about q²/2^65 for q instances (2^−25 for a
//! million): create at most 2^20 instances per key. Restarting on the same
//! data and key is safe — a new instance draws a new prefix.
//!
//! # What is secret
//!
//! X (and so S) is as secret as H: with it and one tag an attacker has
//! E(K, Y_0). It is never exposed, never `Clone`d, and zeroized on drop.
//! The data itself is not held: each edit passes the bytes it replaces,
//! which the caller has at hand (it is about to overwrite them). Passing
//! the wrong old bytes gives a state for data that does not exist; its
//! tags then fail to verify against the real data, nothing worse.
//!
//! Rejected: holding the data (a second copy of a data set that may not
//! fit in memory), and middle insertions and deletions (they shift every
//! later block, a cost proportional to the data after them; a tree of
//! GHASH values per page would make them logarithmic at the price of a
//! per-page tree the caller would have to store).

use zeroize::{Zeroize, ZeroizeOnDrop};

use super::aes_gcm::{AesGcm, Tag};
use super::kernel::{Kernel, KernelOp};
use super::parallel::hash_key;
use super::state::{MAX_AAD_LEN, pre_counter, verify_or_wipe};
use crate::Error;
use crate::aes::{self, Block, BlockCipher};
use crate::ghash::{self, GhashKey, field, karatsuba};

/// Length of the IVs the incremental MAC issues: 96 bits.
pub const IV_LEN: usize = 12;

/// Tags an instance issues before it refuses: the 32-bit counter's range.
const MAX_TAGS: u64 = 1 << 32;

/// Blocks of Δ hashed per pass through a stack buffer.
const BATCH_BLOCKS: usize = 64;

/// GMAC over a data set that changes in place, at a cost proportional to
/// each change; the derivation is in `gcm/incremental.rs`.
///
/// Its tags are ordinary GMAC tags: [`Gmac::verify`](super::Gmac::verify)
/// checks one against the whole data with the IV it was issued under.
///
/// ```
/// use aekit::gcm::IncrementalGmac;
/// use aekit::Gmac;
/// # fn main() -> Result<(), aekit::Error> {
/// let key = [7u8; 16];
/// let mut data = vec![0u8; 1 << 16];
/// let mut mac = IncrementalGmac::new(&key, &data)?;   // one pass over the data
///
/// let new = *b"changed";
/// mac.replace(1000, &data[1000..1007], &new)?;        // cost: the change
/// data[1000..1007].copy_from_slice(&new);
/// mac.append(b"more")?;
/// data.extend_from_slice(b"more");
///
/// let (iv, tag) = mac.tag()?;                          // a fresh IV every time
/// Gmac::new(&key)?.verify(&iv, &data, tag.as_ref())?;  // a plain GMAC tag
/// # Ok(()) }
/// ```
pub struct IncrementalGmac {
    /// The key, in the implementation chosen for it (one dispatch per call).
    gcm: AesGcm,
    powers: Box<Powers>,
    /// X: GHASH of the zero-padded data, before the lengths block.
    x: u128,
    /// The data's length in bytes.
    len: u64,
    iv_prefix: [u8; 8],
    /// Tags issued so far.
    tags: u64,
}

/// H^(2^j) and H^(−2^j) for j < 64, in the layout of [`field`].
#[derive(Zeroize, ZeroizeOnDrop)]
struct Powers {
    up: [u128; 64],
    down: [u128; 64],
}

impl Drop for IncrementalGmac {
    fn drop(&mut self) {
        self.x.zeroize();
    }
}

impl IncrementalGmac {
    /// Starts the MAC over `data` (one full GHASH pass) under an AES key of
    /// 16, 24 or 32 bytes, in the fastest constant-time implementation here
    /// ([`AesGcm::new`]).
    pub fn new(key: &[u8], data: &[u8]) -> Result<IncrementalGmac, Error> {
        IncrementalGmac::with_gcm(AesGcm::new(key)?, data)
    }

    /// As [`new`](Self::new), in the strategies given.
    pub fn with(
        key: &[u8],
        aes_strategy: aes::Strategy,
        ghash_strategy: ghash::Strategy,
        data: &[u8],
    ) -> Result<IncrementalGmac, Error> {
        IncrementalGmac::with_gcm(AesGcm::with(key, aes_strategy, ghash_strategy)?, data)
    }

    /// As [`new`](Self::new), on the implementation `gcm` was built with.
    pub fn with_gcm(gcm: AesGcm, data: &[u8]) -> Result<IncrementalGmac, Error> {
        if data.len() as u64 > MAX_AAD_LEN {
            return Err(Error::AadTooLong);
        }
        let mut h = gcm.run(HashKeyOp);
        let powers = Powers::new(h);
        h.zeroize();
        let powers = powers.ok_or(Error::Unsupported(
            "incremental GMAC under a key whose hash key H is zero",
        ))?;
        let mut iv_prefix = [0u8; 8];
        getrandom::fill(&mut iv_prefix).map_err(|_| Error::RandomUnavailable)?;
        let mut y = [0u8; 16];
        gcm.run(HashPadded {
            y: &mut y,
            bytes: data,
        });
        let x = field::from_block(&y);
        y.zeroize();
        Ok(IncrementalGmac {
            gcm,
            powers,
            x,
            len: data.len() as u64,
            iv_prefix,
            tags: 0,
        })
    }

    /// The data's length in bytes.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the data is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Tags still available from this instance (2^32 in all).
    pub fn tags_remaining(&self) -> u64 {
        MAX_TAGS - self.tags
    }

    /// The bytes at `offset` change from `old` to `new` (of equal length,
    /// within the data; otherwise [`Error::Unsupported`], saying which).
    /// Cost: the blocks they touch and one power of H.
    pub fn replace(&mut self, offset: u64, old: &[u8], new: &[u8]) -> Result<(), Error> {
        if old.len() != new.len() {
            return Err(Error::Unsupported(
                "an incremental replace whose old and new bytes differ in length",
            ));
        }
        let end = offset.checked_add(old.len() as u64);
        if end.is_none_or(|end| end > self.len) {
            return Err(Error::Unsupported(
                "an incremental replace past the end of the data (append first)",
            ));
        }
        self.add_delta(offset, old, Some(new));
        Ok(())
    }

    /// `bytes` are appended to the data. Cost: the bytes and one power of H.
    pub fn append(&mut self, bytes: &[u8]) -> Result<(), Error> {
        let new_len = self
            .len
            .checked_add(bytes.len() as u64)
            .filter(|&n| n <= MAX_AAD_LEN)
            .ok_or(Error::AadTooLong)?;
        // Zeros first: the partial last block's padding is already zero,
        // so only the k new blocks shift X, by H^k; then the zeros change.
        let k = new_len.div_ceil(16) - self.len.div_ceil(16);
        self.x = self.powers.shift(self.x, k as i64);
        let offset = self.len;
        self.len = new_len;
        self.add_delta(offset, bytes, None);
        Ok(())
    }

    /// The data is cut to `new_len` bytes; `removed` are the bytes cut
    /// (`len() − new_len` of them, from offset `new_len`; otherwise
    /// [`Error::Unsupported`]). Cost: the removed bytes and one power of H.
    pub fn truncate(&mut self, new_len: u64, removed: &[u8]) -> Result<(), Error> {
        if new_len.checked_add(removed.len() as u64) != Some(self.len) {
            return Err(Error::Unsupported(
                "an incremental truncate whose removed bytes do not end the data",
            ));
        }
        // The removed bytes become zeros (padding), then the zero blocks
        // past the new end drop out: X · H^(−k).
        self.add_delta(new_len, removed, None);
        let k = self.len.div_ceil(16) - new_len.div_ceil(16);
        self.x = self.powers.shift(self.x, -(k as i64));
        self.len = new_len;
        Ok(())
    }

    /// A GMAC tag (16 bytes) for the data as it now stands, under a fresh
    /// IV, returned with it. [`Error::IvsExhausted`] after 2^32 tags.
    pub fn tag(&mut self) -> Result<([u8; IV_LEN], Tag), Error> {
        if self.tags == MAX_TAGS {
            return Err(Error::IvsExhausted);
        }
        let mut iv = [0u8; IV_LEN];
        iv[..8].copy_from_slice(&self.iv_prefix);
        iv[8..].copy_from_slice(&(self.tags as u32).to_be_bytes());
        self.tags += 1;
        Ok((iv, Tag::truncate(self.full_tag(&iv), 16)))
    }

    /// Checks `tag` (16 bytes) against the data as it now stands under
    /// `iv`, in constant time, without a pass over the data. A tag of
    /// another length is refused with [`Error::TagLengthMismatch`]: these
    /// tags are always 16 bytes.
    pub fn verify(&self, iv: &[u8; IV_LEN], tag: &[u8]) -> Result<(), Error> {
        if tag.len() != 16 {
            return Err(Error::TagLengthMismatch {
                bound: 16,
                given: tag.len(),
            });
        }
        verify_or_wipe(&mut self.full_tag(iv), tag, &mut [])
    }

    /// S ⊕ E(K, IV ‖ 0^31 1), S = (X ⊕ len(A) ‖ 0^64) · H.
    fn full_tag(&self, iv: &[u8; IV_LEN]) -> Block {
        self.gcm.run(FullTag {
            x: self.x,
            len: self.len,
            iv,
        })
    }

    /// X ⊕= Σ Δ_i·H^(m−i) for the blocks covering `offset..offset + a.len()`
    /// (within the data), Δ = a ⊕ b, or a alone where `b` is `None` (a
    /// change from or to zeros).
    fn add_delta(&mut self, offset: u64, a: &[u8], b: Option<&[u8]>) {
        if a.is_empty() {
            return;
        }
        let last = (offset + a.len() as u64 - 1) / 16;
        let mut acc = self.gcm.run(DeltaHorner { offset, a, b });
        let m = self.len.div_ceil(16);
        self.x ^= self.powers.shift(acc, (m - 1 - last) as i64);
        acc.zeroize();
    }
}

/// H, read through the kernel's GHASH key.
struct HashKeyOp;

impl KernelOp for HashKeyOp {
    type Output = u128;
    fn run<K: Kernel + Sync>(self, kernel: &K) -> u128 {
        hash_key(kernel.ghash())
    }
}

/// GHASH of `bytes`, zero-padded, folded into `y`.
struct HashPadded<'a> {
    y: &'a mut Block,
    bytes: &'a [u8],
}

impl KernelOp for HashPadded<'_> {
    type Output = ();
    fn run<K: Kernel + Sync>(self, kernel: &K) {
        kernel.ghash().update_padded(self.y, self.bytes);
    }
}

/// S = (X ⊕ len(A) ‖ 0^64) · H, then S ⊕ E(K, IV ‖ 0^31 1).
struct FullTag<'a> {
    x: u128,
    len: u64,
    iv: &'a [u8; IV_LEN],
}

impl KernelOp for FullTag<'_> {
    type Output = Block;
    fn run<K: Kernel + Sync>(self, kernel: &K) -> Block {
        let mut s = field::to_block(self.x);
        let mut lengths = [0u8; 16];
        lengths[..8].copy_from_slice(&(self.len * 8).to_be_bytes());
        kernel.ghash().update_blocks(&mut s, &lengths);
        let mut mask = [pre_counter(kernel.ghash(), self.iv)];
        kernel.aes().encrypt_blocks(&mut mask);
        let tag = (u128::from_ne_bytes(s) ^ u128::from_ne_bytes(mask[0])).to_ne_bytes();
        s.zeroize();
        mask.zeroize();
        tag
    }
}

/// Horner's rule over the Δ blocks of an edit at `offset`, from zero:
/// Σ Δ_i·H^(last−i+1), BATCH_BLOCKS blocks at a time through a stack
/// buffer; Δ = a ⊕ b, or a where `b` is `None`.
struct DeltaHorner<'a> {
    offset: u64,
    a: &'a [u8],
    b: Option<&'a [u8]>,
}

impl KernelOp for DeltaHorner<'_> {
    type Output = u128;
    fn run<K: Kernel + Sync>(self, kernel: &K) -> u128 {
        let (a, b) = (self.a, self.b);
        let mut acc = [0u8; 16];
        let mut batch = [0u8; 16 * BATCH_BLOCKS];
        let mut lead = (self.offset % 16) as usize; // offset inside the first block
        let mut at = 0; // bytes of `a` consumed
        while at < a.len() {
            let take = (batch.len() - lead).min(a.len() - at);
            let used = (lead + take).div_ceil(16) * 16;
            let room = &mut batch[..used];
            room.fill(0);
            let dst = &mut room[lead..lead + take];
            dst.copy_from_slice(&a[at..at + take]);
            if let Some(b) = b {
                dst.iter_mut()
                    .zip(&b[at..at + take])
                    .for_each(|(d, b)| *d ^= b);
            }
            kernel.ghash().update_blocks(&mut acc, room);
            at += take;
            lead = 0;
        }
        batch.zeroize();
        let out = field::from_block(&acc);
        acc.zeroize();
        out
    }
}

impl Powers {
    /// The cache for H; `None` when H is zero (no inverse).
    fn new(h: u128) -> Option<Box<Powers>> {
        if h == 0 {
            return None;
        }
        let mut p = Box::new(Powers {
            up: [0; 64],
            down: [0; 64],
        });
        // H^(−1) = H^(2^128 − 2) = Π_{j=1}^{127} H^(2^j).
        let one = 1u128 << 127;
        let (mut square, mut inverse) = (h, one);
        for _ in 1..128 {
            square = karatsuba::mul(square, square);
            inverse = karatsuba::mul(inverse, square);
        }
        square.zeroize();
        let (mut up, mut down) = (h, inverse);
        for j in 0..64 {
            p.up[j] = up;
            p.down[j] = down;
            up = karatsuba::mul(up, up);
            down = karatsuba::mul(down, down);
        }
        up.zeroize();
        down.zeroize();
        inverse.zeroize();
        Some(p)
    }

    /// x · H^k for any k with |k| < 2^63, one product per set bit of |k|.
    fn shift(&self, mut x: u128, k: i64) -> u128 {
        let table = if k >= 0 { &self.up } else { &self.down };
        let mut e = k.unsigned_abs();
        while e != 0 {
            let j = e.trailing_zeros() as usize;
            x = karatsuba::mul(x, table[j]);
            e &= e - 1;
        }
        x
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn powers_invert_and_compose() {
        let h = 0x66e9_4bd4_ef8a_2c3b_884c_fa59_ca34_2b2e;
        let p = Powers::new(h).unwrap();
        let one = 1u128 << 127;
        assert_eq!(field::mul(h, p.down[0]), one, "H · H^−1 = 1");
        assert_eq!(p.shift(one, 5), (0..5).fold(one, |x, _| field::mul(x, h)));
        for k in [1i64, 2, 3, 17, 1000, 123_456_789] {
            let x = 0x0123_4567_89ab_cdef_0011_2233_4455_6677;
            assert_eq!(p.shift(p.shift(x, k), -k), x, "k = {k}");
        }
        assert!(Powers::new(0).is_none());
    }

    #[test]
    fn the_2_pow_32_nd_tag_is_refused() {
        let mut mac = IncrementalGmac::new(&[1; 16], b"data").unwrap();
        mac.tags = MAX_TAGS - 1;
        let (iv, _) = mac.tag().unwrap();
        assert_eq!(iv[8..], [0xff; 4]);
        assert_eq!(mac.tags_remaining(), 0);
        assert_eq!(mac.tag().err(), Some(Error::IvsExhausted));
    }
}
