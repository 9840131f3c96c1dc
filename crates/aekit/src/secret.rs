//! Wiping message-sized buffers that held secrets, at `memset` speed.
//!
//! `zeroize` clears a `[u8]` (and a `Vec<u8>`, and a `Zeroizing<Vec<u8>>`
//! when it drops) with one volatile store per byte: that is what keeps the
//! compiler from deleting stores to memory nobody reads again, and it costs
//! a cycle a byte. Right for keys and blocks; for a buffer of plaintext it
//! is a second pass as slow as the decryption that filled it (16 KiB: about
//! 16 000 cycles). [`wipe`] stores the zeros with `fill` (the compiler's
//! `memset`, vector-wide) and then hands the buffer to
//! [`zeroize::optimization_barrier`], which the compiler must assume reads
//! it, so the stores cannot be removed either.

use core::ops::{Deref, DerefMut};

/// Overwrites `buf` with zeros; the stores are kept even when `buf` is
/// about to be freed.
pub fn wipe(buf: &mut [u8]) {
    buf.fill(0);
    zeroize::optimization_barrier(buf);
}

/// [`wipe`] for 128-bit words (a key's tables of powers of H).
#[cfg(target_arch = "x86_64")]
pub(crate) fn wipe_words(buf: &mut [u128]) {
    buf.fill(0);
    zeroize::optimization_barrier(buf);
}

/// A heap buffer of bytes that is [`wipe`]d when dropped: a scratch
/// buffer for plaintext. Its length is fixed when it is made, so it never
/// reallocates and leaves no unwiped copy behind.
pub struct SecretBuf(Vec<u8>);

impl SecretBuf {
    /// `len` zero bytes.
    pub fn zeroed(len: usize) -> SecretBuf {
        SecretBuf(vec![0; len])
    }
}

impl Deref for SecretBuf {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.0
    }
}

impl DerefMut for SecretBuf {
    fn deref_mut(&mut self) -> &mut [u8] {
        &mut self.0
    }
}

impl Drop for SecretBuf {
    fn drop(&mut self) {
        wipe(&mut self.0);
    }
}

impl core::fmt::Debug for SecretBuf {
    /// The length only: the bytes are secret.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "SecretBuf({} bytes)", self.0.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wipe_zeroes_every_byte() {
        for len in [0, 1, 15, 16, 17, 4095, 65_537] {
            let mut buf: Vec<u8> = (0..len).map(|i| (i % 251) as u8 | 1).collect();
            wipe(&mut buf);
            assert!(buf.iter().all(|&b| b == 0), "{len} bytes");
        }
    }

    #[test]
    fn a_secret_buf_starts_zeroed_and_holds_its_length() {
        let mut buf = SecretBuf::zeroed(100);
        assert_eq!(buf.len(), 100);
        assert!(buf.iter().all(|&b| b == 0));
        buf[99] = 7;
        assert_eq!(buf[99], 7);
        assert_eq!(format!("{buf:?}"), "SecretBuf(100 bytes)");
    }
}
