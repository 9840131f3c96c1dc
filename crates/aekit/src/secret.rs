//! Handling secrets at the end of their use: wiping message-sized buffers
//! at `memset` speed, and the one way aekit checks a tag — in constant
//! time, releasing the plaintext only when it matches.
//!
//! `zeroize` clears a `[u8]` (and a `Vec<u8>`, and a `Zeroizing<Vec<u8>>`
//! when it drops) with one volatile store per byte: that is what keeps the
//! compiler from deleting stores to memory nobody reads again. Right for
//! keys and blocks; for a buffer of plaintext it is a second pass, byte by
//! byte, over everything the decryption just wrote. [`wipe`] stores the
//! zeros with `fill` (the compiler's `memset`, vector-wide) and then hands
//! the buffer to [`zeroize::optimization_barrier`], which the compiler must
//! assume reads it, so the stores cannot be removed either.
//!
//! `verify_or_wipe` is the tag check of every AEAD here that decrypts in
//! place: the computed tag is compared with the received one (no branch
//! on the bytes), wiped either way, and on a mismatch the decrypted buffer
//! is wiped before the error returns, so unverified plaintext never
//! reaches the caller.

use core::ops::{Deref, DerefMut};

use subtle::ConstantTimeEq;

use crate::Error;

/// Overwrites `buf` with zeros; the stores are kept even when `buf` is
/// about to be freed.
pub fn wipe(buf: &mut [u8]) {
    buf.fill(0);
    zeroize::optimization_barrier(buf);
}

/// Whether `received` equals `computed`: the same length and the same
/// bytes, compared in constant time in the bytes (the lengths are public).
/// For values other than tags (a key commitment); tags go through
/// [`verify_or_wipe`].
pub(crate) fn tags_match(computed: &[u8], received: &[u8]) -> bool {
    computed.ct_eq(received).into()
}

/// The end of every decryption here: checks the received tag against the
/// first `len` bytes of the computed one, wipes the computed one either
/// way, and on a mismatch wipes `buf`, the decrypted message, and returns
/// [`Error::AuthenticationFailed`], so unverified plaintext never reaches
/// the caller.
///
/// `computed` is the scheme's full tag in a 16-byte block (GCM-64's
/// 8-byte tag in its first half); `len` is the tag length the scheme
/// takes for this call (GCM's truncated tags: the received length, checked
/// against the key's rules first). A received tag of another length
/// compares unequal. The comparison is one masked difference of two
/// `u64` halves behind one optimization barrier, no branch on the bytes
/// ([`block_matches`]). Inlined into every decryption, with the mismatch's
/// wiping out of line ([`refuse`]): the check is the end of the chain a
/// decryption's latency is, and a call of its own (or `subtle`'s
/// comparison, whose barrier is a function called through the GOT) would
/// lengthen it.
#[inline(always)]
pub(crate) fn verify_or_wipe(
    computed: &mut [u8; 16],
    len: usize,
    received: &[u8],
    buf: &mut [u8],
) -> Result<(), Error> {
    let ok = received.len() == len && block_matches(computed, received);
    wipe(computed);
    if ok { Ok(()) } else { refuse(buf) }
}

/// A tag that did not match: wipes `buf`, the decrypted message.
#[cold]
#[inline(never)]
fn refuse(buf: &mut [u8]) -> Result<(), Error> {
    wipe(buf);
    Err(Error::AuthenticationFailed)
}

/// Whether `received` (at most 16 bytes) equals as many leading bytes of
/// `computed`, in constant time in the bytes: the difference as two masked
/// `u64` halves ORed into one word, which passes an optimization barrier
/// ([`opaque`]) before the one comparison with zero, so the compiler
/// cannot test the halves one by one and branch between them. A 16-byte
/// tag, the usual one, is copied at a fixed length (a copy of a length
/// known only at run time is a call to `memcpy`) and needs no mask; a
/// shorter one is padded out of line ([`padded`]).
/// Halves, not one `u128`: the computed tag usually arrives in two general
/// registers, and a `u128` comparison stores it from them in two 8-byte
/// halves and loads it back as one 16-byte vector, a load the store buffer
/// does not forward.
#[inline(always)]
fn block_matches(computed: &[u8; 16], received: &[u8]) -> bool {
    let (r, mask) = match <&[u8; 16]>::try_from(received) {
        Ok(whole) => (*whole, u128::MAX),
        Err(_) if received.len() < 16 => padded(received),
        Err(_) => return false,
    };
    let half = |b: &[u8; 16], i: usize| {
        let mut h = [0u8; 8];
        h.copy_from_slice(&b[8 * i..8 * i + 8]);
        u64::from_le_bytes(h)
    };
    let diff = |i: usize| (half(computed, i) ^ half(&r, i)) & (mask >> (64 * i)) as u64;
    opaque(diff(0) | diff(1)) == 0
}

/// A tag shorter than 16 bytes, zero-padded to a block, and the mask of
/// its bytes. Out of line: inlined, its copy and the whole tag's were
/// merged into one call to `memcpy` of the run-time length, which every
/// decryption given its tag as a slice then made.
#[cold]
#[inline(never)]
fn padded(received: &[u8]) -> ([u8; 16], u128) {
    let len = received.len();
    let mut r = [0u8; 16];
    r[..len].copy_from_slice(received);
    (r, u128::MAX.checked_shr(8 * (16 - len) as u32).unwrap_or(0))
}

/// `x`, through a barrier the compiler cannot see through: on x86-64 and
/// AArch64 an empty `asm!` that takes and returns `x` in a register (no
/// instruction; `core::hint::black_box` stores the word and loads it
/// back, a store and a load on the way to the tag's comparison, the
/// last thing a decryption waits for); elsewhere `black_box`.
#[inline(always)]
#[allow(unsafe_code)] // an empty `asm!`, with its SAFETY line
fn opaque(x: u64) -> u64 {
    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    {
        let mut x = x;
        // SAFETY: an empty template: nothing is read, written or run.
        unsafe {
            core::arch::asm!("/* {0} */", inout(reg) x, options(pure, nomem, nostack, preserves_flags));
        }
        x
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        core::hint::black_box(x)
    }
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

    #[test]
    fn tags_match_needs_every_byte_and_the_length() {
        let computed: [u8; 16] = core::array::from_fn(|i| (i * 17 + 3) as u8);
        assert!(tags_match(&computed, &computed));
        assert!(tags_match(&computed[..8], &computed[..8]));
        assert!(!tags_match(&computed, &computed[..15]));
        assert!(!tags_match(&computed[..15], &computed));
        for flip in 0..16 {
            let mut tag = computed;
            tag[flip] ^= 0x01;
            assert!(!tags_match(&computed, &tag), "byte {flip}");
        }
    }

    #[test]
    fn verify_or_wipe_compares_exactly_len_bytes() {
        let computed: [u8; 16] = core::array::from_fn(|i| (i * 17 + 3) as u8);
        let check = |len: usize, received: &[u8]| {
            let mut c = computed;
            let r = verify_or_wipe(&mut c, len, received, &mut []);
            assert_eq!(c, [0; 16], "the computed tag is wiped");
            r.is_ok()
        };
        for len in 0..=16 {
            assert!(check(len, &computed[..len]), "{len}");
            for flip in 0..len {
                let mut tag = computed[..len].to_vec();
                tag[flip] ^= 0x80;
                assert!(!check(len, &tag), "{len}, byte {flip}");
            }
            // Another length than the scheme's is refused, even a prefix.
            if len > 0 {
                assert!(!check(len, &computed[..len - 1]), "{len}, short");
            }
            if len < 16 {
                assert!(!check(len, &computed[..len + 1]), "{len}, long");
            }
        }
        assert!(!check(17, &[0; 17]), "longer than a block");
    }

    #[test]
    fn verify_or_wipe_releases_the_buffer_only_on_a_match() {
        let received = [7u8; 16];
        let mut computed = received;
        let mut buf = vec![0x5a; 40];
        assert_eq!(
            verify_or_wipe(&mut computed, 16, &received, &mut buf),
            Ok(())
        );
        assert_eq!(computed, [0; 16], "the computed tag is wiped");
        assert_eq!(buf, vec![0x5a; 40]);

        let mut computed = received;
        computed[15] ^= 1;
        assert_eq!(
            verify_or_wipe(&mut computed, 16, &received, &mut buf),
            Err(Error::AuthenticationFailed)
        );
        assert_eq!(computed, [0; 16]);
        assert_eq!(buf, vec![0; 40], "the plaintext is wiped");
    }
}
