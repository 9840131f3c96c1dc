//! GCM with the keystream supplied by the caller: the packet path of the
//! keystream pipeline (`crate::keystream`, `crate::esp`).
//!
//! GCM (spec §2.3) splits into a part that needs the data — XOR and GHASH —
//! and a part that does not: the blocks E(K, Y_0), E(K, Y_1), … depend on
//! the key and the counters only, so they can be computed ahead of time,
//! elsewhere (a spare core, a GPU). These two functions take them as bytes:
//!
//! ```text
//! keystream = E(K, Y_0) ‖ E(K, Y_1) ‖ E(K, Y_2) ‖ …     (16 + len bytes at least)
//!             └ tag mask ┘ └ XORed onto the message ┘
//! ```
//!
//! A fused kernel does the rest in one pass of its own
//! (`Kernel::crypt_supplied`: `kernels/vaes_avx512_supplied.rs` for `vaes-avx512`,
//! each 256-byte chunk XORed, stored and hashed while in registers, the
//! last blocks and the lengths block under one reduction;
//! `kernels/ni_clmul_supplied.rs`, the same in 128-byte chunks, for `ni-clmul` and
//! `vaes-avx2`). Every other key runs the one GCM computation of
//! `state.rs` — the same length
//! limits, the same GHASH strategy (`ghash::Key::update_blocks` through
//! the one dispatch), the same length block and tag. Either way the result
//! is byte-identical to [`AesGcm::encrypt_in_place_detached`] for the
//! same counters, and decryption wipes the buffer on a bad tag just as
//! the one-shot API does. The caller owns the counter discipline: the
//! functions cannot check that the keystream belongs to this key or that
//! its counters were never used before. Figures for the consumer kernels:
//! `docs/kernels/vaes_avx512_supplied.md`, `docs/kernels/ni_clmul_supplied.md`.
//!
//! Rejected: a trait object for "where keystream comes from" inside
//! `State` (a dynamic call per pass on the fast path).

use super::aes_gcm::{AesGcm, Tag, check_lengths};
use super::kernel::{Direction, Kernel, KernelOp};
use super::state::{State, verify_or_wipe};
use crate::Error;
use crate::aes::Block;

/// The IV length the tag rules assume for a supplied keystream: the IV
/// went into Y_0 before the keystream was made and is not seen here, so
/// only the rule that needs no IV applies (at least 64 bits by default).
/// A caller that derives Y_0 from an IV that is not 96 bits owns the other
/// rule: 16-byte tags.
const KEYSTREAM_IV_LEN: usize = 12;

impl AesGcm {
    /// Encrypts `buf` in place with the supplied `keystream` (E(K, Y_0)
    /// first, then at least `buf.len()` bytes of E(K, Y_1), …) and returns
    /// a tag of `tag_len` bytes.
    ///
    /// The keystream may come from any
    /// [`KeystreamProducer`](crate::keystream::KeystreamProducer) (a spare
    /// core, a GPU, the caller's own) or a
    /// [`Pipeline`](crate::keystream::Pipeline). The caller owns the counter
    /// discipline: it must be E(K, ·) under this key, over counter blocks
    /// never used before with this key (a repeated counter block reveals
    /// the XOR of two plaintexts and lets GHASH's key be solved for).
    ///
    /// ```
    /// use aekit::keystream::{CounterSpace, CpuProducer, KeystreamProducer};
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let key = [7u8; 16];
    /// let gcm = aekit::AesGcm::new(&key)?;
    /// let mut producer = CpuProducer::new(aekit::strategies::aes::Strategy::best(), &key)?;
    /// // Y_0 = salt ‖ be96(1000); the message's blocks follow it.
    /// let space = CounterSpace::Continuous { salt: [1, 2, 3, 4] };
    /// let mut buf = *b"precomputed keystream";
    /// let mut keystream = vec![[0u8; 16]; 1 + buf.len().div_ceil(16)];
    /// producer.fill(&space, 1000, &mut keystream)?;
    /// let tag = gcm.encrypt_with_keystream(keystream.as_flattened(), b"aad", &mut buf, 16)?;
    /// gcm.decrypt_with_keystream(keystream.as_flattened(), b"aad", &mut buf, tag.as_ref())?;
    /// assert_eq!(&buf, b"precomputed keystream");
    /// # Ok(()) }
    /// ```
    pub fn encrypt_with_keystream(
        &self,
        keystream: &[u8],
        aad: &[u8],
        buf: &mut [u8],
        tag_len: usize,
    ) -> Result<Tag, Error> {
        self.check_tag(tag_len, KEYSTREAM_IV_LEN)?;
        let full = self.run(Supplied {
            keystream,
            aad,
            buf,
            direction: Direction::Encrypt,
        })?;
        Ok(Tag::truncate(full, tag_len))
    }

    /// Verifies `tag` and decrypts `buf` in place with the supplied
    /// `keystream`; if the tag does not verify, `buf` is zeroed and
    /// [`Error::AuthenticationFailed`] returned. The keystream is as for
    /// [`encrypt_with_keystream`](Self::encrypt_with_keystream).
    pub fn decrypt_with_keystream(
        &self,
        keystream: &[u8],
        aad: &[u8],
        buf: &mut [u8],
        tag: &[u8],
    ) -> Result<(), Error> {
        self.check_tag(tag.len(), KEYSTREAM_IV_LEN)?;
        let mut full = self.run(Supplied {
            keystream,
            aad,
            buf: &mut *buf,
            direction: Direction::Decrypt,
        })?;
        verify_or_wipe(&mut full, tag, buf)
    }
}

/// A whole message whose keystream is given; returns the full tag.
struct Supplied<'a> {
    keystream: &'a [u8],
    aad: &'a [u8],
    buf: &'a mut [u8],
    direction: Direction,
}

impl KernelOp for Supplied<'_> {
    type Output = Result<Block, Error>;
    fn run<K: Kernel>(self, kernel: &K) -> Self::Output {
        // Any 16 bytes pass as an IV here: the IV only sized Y_0, which the
        // caller has already encrypted.
        check_lengths(&[0], self.aad, self.buf)?;
        if self.keystream.len() < 16 + self.buf.len() {
            return Err(Error::KeystreamTooShort);
        }
        if let Some(tag) = kernel.crypt_supplied(self.keystream, self.aad, self.buf, self.direction)
        {
            return Ok(tag);
        }
        let (tag_mask, stream) = self.keystream.split_at(16);
        let mut state = State::with_tag_mask(tag_mask.try_into().expect("16 bytes"));
        state.aad(kernel, self.aad)?;
        state.crypt_with_keystream(kernel.ghash(), self.buf, stream, self.direction)?;
        Ok(state.finish(kernel))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aes::Strategy;
    use crate::ctr::incr32;

    /// The supplied-keystream path equals the one-shot API for 96-bit IVs,
    /// every length 0..=100, both directions, and wipes on a bad tag.
    #[test]
    fn matches_one_shot() {
        let key = [7u8; 16];
        let gcm = AesGcm::new(&key).unwrap();
        let aes = crate::aes::Cipher::new(Strategy::best(), &key).unwrap();
        let iv = [3u8; 12];
        for len in 0..=100usize {
            let msg: Vec<u8> = (0..len as u8).collect();
            let mut counters = vec![[0u8; 16]; 1 + len.div_ceil(16)];
            let mut y = [0u8; 16];
            y[..12].copy_from_slice(&iv);
            y[15] = 1;
            for c in &mut counters {
                *c = y;
                incr32(&mut y);
            }
            aes.encrypt_blocks(&mut counters);
            let keystream = counters.as_flattened();

            let mut expected = msg.clone();
            let tag = gcm
                .encrypt_in_place_detached(&iv, b"aad", &mut expected, 16)
                .unwrap();
            let mut got = msg.clone();
            let tag2 = gcm
                .encrypt_with_keystream(keystream, b"aad", &mut got, 16)
                .unwrap();
            assert_eq!(got, expected, "{len}");
            assert_eq!(tag.as_bytes(), tag2.as_bytes(), "{len}");

            gcm.decrypt_with_keystream(keystream, b"aad", &mut got, tag.as_bytes())
                .unwrap();
            assert_eq!(got, msg);
            if len > 0 {
                let mut bad = expected.clone();
                let mut wrong = *tag.as_bytes().first_chunk::<16>().unwrap();
                wrong[0] ^= 1;
                let err = gcm.decrypt_with_keystream(keystream, b"aad", &mut bad, &wrong);
                assert_eq!(err, Err(Error::AuthenticationFailed));
                assert!(bad.iter().all(|&b| b == 0));
            }
        }
    }
}
