//! The out-of-place calls: a message (or, on line, a piece of one) read
//! from one buffer and written to another, which may be uninitialized memory (a new object's storage, a
//! vector's spare capacity), so that a binding returning a new object
//! neither zeroes nor copies it first.
//!
//! The output is seen as `[MaybeUninit<u8>]` from the public call down to
//! the kernels: the whole-message paths of the three fused kernels and
//! their loops over whole blocks (`Kernel::crypt_blocks` out of place, which a
//! pool's slices take) write it through raw pointers
//! in their one pass, and every other path copies the input into it
//! ([`copy_into`]) and then runs in place. Only
//! once every byte has been written is it seen as `[u8]` again. An
//! initialized `&mut [u8]` passed to the plain calls is seen the same way;
//! nothing here ever writes an uninitialized byte into it.
//!
//! The public calls and the thin ones under them are inlined, and so is
//! [`AesGcm::out_of_place`] up to the kernel's whole-message path: the
//! caller's code calls the kernel. Out of line, each would take its last
//! arguments (two slices' lengths and pointers, pushed one word at a time
//! by the caller) from the stack and copy them on as 16-byte pairs; a
//! load wider than the stores it reads is not forwarded from them, and
//! every call would wait for those stores to reach the cache.

use core::mem::MaybeUninit;

use super::aes_gcm::{AesGcm, OneShot, Tag, check_lengths};
use super::kernel::{
    Direction, Kernel, KernelOp, OUT_OF_PLACE_PASS, Text, as_uninit, assume_init, copy_into,
};
use super::parallel::Pool;
use super::state::{State, verify_or_wipe};
use super::stream::Online;
use super::stream::{Decryptor, Encryptor};
use crate::Error;
use crate::aes::Block;
use crate::error::split_tag;

impl AesGcm {
    /// Encrypts `plaintext` into `out` (of the same length) and returns
    /// the tag: the same result as copying it into `out` and calling
    /// [`encrypt_in_place_detached`](Self::encrypt_in_place_detached), in
    /// one pass over memory. With a 12-byte IV the fused kernels read
    /// `plaintext` and write `out` in their pass, about as fast as in
    /// place; otherwise long messages are copied and encrypted
    /// [`OUT_OF_PLACE_PASS`] bytes at a time, so the kernel reads each
    /// piece back from L1 instead of reading the whole message twice.
    #[inline]
    pub fn encrypt_detached_into(
        &self,
        iv: &[u8],
        aad: &[u8],
        plaintext: &[u8],
        out: &mut [u8],
        tag_len: usize,
    ) -> Result<Tag, Error> {
        self.seal_into(self.pool(), iv, aad, plaintext, out, tag_len)
    }

    /// Verifies `tag` and decrypts `ciphertext` into `out` (of the same
    /// length), in one pass over memory as
    /// [`encrypt_detached_into`](Self::encrypt_detached_into) does. If the
    /// tag does not verify, `out` is zeroed and
    /// [`Error::AuthenticationFailed`] returned (a call refused for its
    /// arguments writes nothing); the tag is compared in constant time.
    #[inline]
    pub fn decrypt_detached_into(
        &self,
        iv: &[u8],
        aad: &[u8],
        ciphertext: &[u8],
        out: &mut [u8],
        tag: &[u8],
    ) -> Result<(), Error> {
        self.open_into(self.pool(), iv, aad, ciphertext, out, tag)
    }

    /// [`encrypt_detached_into`](Self::encrypt_detached_into) into memory
    /// that need not be initialized: returns the ciphertext (all of `out`,
    /// now written) and the tag. On an error nothing is written.
    ///
    /// ```
    /// # fn main() -> Result<(), aekit::Error> {
    /// let gcm = aekit::AesGcm::new(&[7u8; 16])?;
    /// let message = b"into a vector's spare capacity";
    /// let mut sealed: Vec<u8> = Vec::with_capacity(message.len() + 16);
    /// let spare = &mut sealed.spare_capacity_mut()[..message.len()];
    /// let (ciphertext, tag) =
    ///     gcm.encrypt_detached_into_uninit(&[0; 12], b"", message, spare, 16)?;
    /// assert_eq!(ciphertext.len(), message.len());
    /// # let _ = tag;
    /// # Ok(()) }
    /// ```
    #[inline]
    pub fn encrypt_detached_into_uninit<'o>(
        &self,
        iv: &[u8],
        aad: &[u8],
        plaintext: &[u8],
        out: &'o mut [MaybeUninit<u8>],
        tag_len: usize,
    ) -> Result<(&'o mut [u8], Tag), Error> {
        self.seal_into_uninit(self.pool(), iv, aad, plaintext, out, tag_len)
    }

    /// [`decrypt_detached_into`](Self::decrypt_detached_into) into memory
    /// that need not be initialized: returns the plaintext (all of `out`,
    /// now written). On [`Error::AuthenticationFailed`] `out` has been
    /// zeroed; on other errors nothing is written.
    #[inline]
    pub fn decrypt_detached_into_uninit<'o>(
        &self,
        iv: &[u8],
        aad: &[u8],
        ciphertext: &[u8],
        out: &'o mut [MaybeUninit<u8>],
        tag: &[u8],
    ) -> Result<&'o mut [u8], Error> {
        self.open_into_uninit(self.pool(), iv, aad, ciphertext, out, tag)
    }

    /// [`encrypt_detached_into`](Self::encrypt_detached_into), split
    /// across `pool` where it splits a message this long.
    #[inline(always)]
    pub(super) fn seal_into(
        &self,
        pool: Option<&Pool>,
        iv: &[u8],
        aad: &[u8],
        plaintext: &[u8],
        out: &mut [u8],
        tag_len: usize,
    ) -> Result<Tag, Error> {
        // SAFETY: the view goes only to `out_of_place`, which writes
        // initialized bytes (module header).
        let out = unsafe { as_uninit(out) };
        self.seal_into_uninit(pool, iv, aad, plaintext, out, tag_len)
            .map(|(_, tag)| tag)
    }

    /// [`decrypt_detached_into`](Self::decrypt_detached_into), split
    /// across `pool` where it splits a message this long.
    #[inline(always)]
    pub(super) fn open_into(
        &self,
        pool: Option<&Pool>,
        iv: &[u8],
        aad: &[u8],
        ciphertext: &[u8],
        out: &mut [u8],
        tag: &[u8],
    ) -> Result<(), Error> {
        // SAFETY: as in `seal_into`.
        let out = unsafe { as_uninit(out) };
        self.open_into_uninit(pool, iv, aad, ciphertext, out, tag)
            .map(drop)
    }

    /// [`encrypt_detached_into_uninit`](Self::encrypt_detached_into_uninit),
    /// split across `pool` where it splits a message this long.
    #[inline(always)]
    pub(super) fn seal_into_uninit<'o>(
        &self,
        pool: Option<&Pool>,
        iv: &[u8],
        aad: &[u8],
        plaintext: &[u8],
        out: &'o mut [MaybeUninit<u8>],
        tag_len: usize,
    ) -> Result<(&'o mut [u8], Tag), Error> {
        let direction = Direction::Encrypt;
        let full = self.out_of_place(pool, iv, aad, plaintext, out, tag_len, direction)?;
        // SAFETY: `out_of_place` returned the tag, having written `out`.
        Ok((unsafe { assume_init(out) }, Tag::truncate(full, tag_len)))
    }

    /// [`decrypt_detached_into_uninit`](Self::decrypt_detached_into_uninit),
    /// split across `pool` where it splits a message this long.
    #[inline(always)]
    pub(super) fn open_into_uninit<'o>(
        &self,
        pool: Option<&Pool>,
        iv: &[u8],
        aad: &[u8],
        ciphertext: &[u8],
        out: &'o mut [MaybeUninit<u8>],
        tag: &[u8],
    ) -> Result<&'o mut [u8], Error> {
        let direction = Direction::Decrypt;
        let mut full = self.out_of_place(pool, iv, aad, ciphertext, out, tag.len(), direction);
        let full = full.as_mut().map_err(|e| *e)?;
        // SAFETY: `out_of_place` returned the tag, having written `out`.
        let out = unsafe { assume_init(out) };
        verify_or_wipe(full, tag, out)?;
        Ok(out)
    }

    /// The out-of-place calls' common part: the checks and the
    /// computation (split across `pool` where it splits a message this
    /// long, else on this thread). Returns the full tag, having written
    /// every byte of `out`. (The tag alone, in the layout the kernel ops
    /// return it in, so that it is written once, where the caller reads
    /// it: each copy through memory on its way out lengthens the chain the
    /// next call's work waits behind.)
    ///
    /// Inlined into the caller up to the kernel's whole-message path
    /// ([`one_pass`](Self::one_pass)); every other message goes through
    /// [`out_of_place_general`](Self::out_of_place_general), out of line.
    /// Out of line, the common case would take its last arguments from
    /// the stack, return the tag through memory and, under aekit's C
    /// ABI, sit in a frame of its own beside the call's checks.
    #[allow(clippy::too_many_arguments)] // the calls' own arguments, passed on
    #[inline(always)]
    fn out_of_place(
        &self,
        pool: Option<&Pool>,
        iv: &[u8],
        aad: &[u8],
        input: &[u8],
        out: &mut [MaybeUninit<u8>],
        tag_len: usize,
        direction: Direction,
    ) -> Result<Block, Error> {
        check_output(input, out)?;
        self.check_call(iv, aad, input, tag_len)?;
        let text = Text::Into {
            input,
            out: &mut *out,
        };
        if let Some(tag) = self.one_pass(pool, iv, aad, text, direction) {
            return Ok(tag);
        }
        let op = OutOfPlace {
            iv,
            aad,
            input,
            out,
            direction,
        };
        self.out_of_place_general(pool, op)
    }

    /// [`out_of_place`](Self::out_of_place) for a message its inlined
    /// part does not take (split across `pool`, a key without a
    /// whole-message path, an IV other than 96 bits), its checks passed.
    #[inline(never)]
    fn out_of_place_general(
        &self,
        pool: Option<&Pool>,
        op: OutOfPlace<'_>,
    ) -> Result<Block, Error> {
        // Both ops write every byte of `out` when they return the tag
        // (module header; `Split`'s slices copy their input in before
        // running in place, and its state copies the partial last block).
        match pool.filter(|pool| pool.splits(op.input.len())) {
            Some(pool) => {
                let text = Text::Into {
                    input: op.input,
                    out: op.out,
                };
                self.split(pool, op.iv, op.aad, text, op.direction)
            }
            None => self.run(op),
        }
    }
}

impl AesGcm {
    /// Encrypts `plaintext` and returns ciphertext ‖ tag, written into the
    /// new vector in one pass (not copied in first and encrypted there).
    pub fn encrypt(
        &self,
        iv: &[u8],
        aad: &[u8],
        plaintext: &[u8],
        tag_len: usize,
    ) -> Result<Vec<u8>, Error> {
        // Every check before the allocation, which for an over-long
        // message could abort the process instead of failing.
        self.check_call(iv, aad, plaintext, tag_len)?;
        // Room for the tag from the start: appending it to a full vector
        // would reallocate it at twice the size.
        let mut out = Vec::with_capacity(plaintext.len() + tag_len);
        let spare = &mut out.spare_capacity_mut()[..plaintext.len()];
        let (_, tag) = self.encrypt_detached_into_uninit(iv, aad, plaintext, spare, tag_len)?;
        // SAFETY: the call returned `Ok`, having written the first
        // `plaintext.len()` bytes of the capacity.
        unsafe { out.set_len(plaintext.len()) };
        out.extend_from_slice(tag.as_bytes());
        Ok(out)
    }

    /// Verifies and decrypts ciphertext ‖ tag (the tag being its last
    /// `tag_len` bytes) and returns the plaintext, or an error and nothing;
    /// in one pass, as [`encrypt`](Self::encrypt).
    pub fn decrypt(
        &self,
        iv: &[u8],
        aad: &[u8],
        ciphertext_and_tag: &[u8],
        tag_len: usize,
    ) -> Result<Vec<u8>, Error> {
        self.check_tag(tag_len, iv.len())?;
        let (ciphertext, tag) = split_tag(ciphertext_and_tag, tag_len)?;
        // As `encrypt`: every check before the allocation (the tag's was
        // the first).
        check_lengths(iv, aad, ciphertext)?;
        let mut out = Vec::with_capacity(ciphertext.len());
        let spare = &mut out.spare_capacity_mut()[..ciphertext.len()];
        // On failure the call has zeroed what it wrote, and the vector is
        // dropped unread.
        self.decrypt_detached_into_uninit(iv, aad, ciphertext, spare, tag)?;
        // SAFETY: the call returned `Ok`, having written the first
        // `ciphertext.len()` bytes of the capacity.
        unsafe { out.set_len(ciphertext.len()) };
        Ok(out)
    }
}

impl Encryptor<'_> {
    /// Encrypts the next piece of the message from `input` into `out` (of
    /// the same length, else [`Error::OutputLength`]) in one pass, as
    /// [`AesGcm::encrypt_detached_into`] does a whole message; pieces in
    /// place ([`update`](Encryptor::update)) and into another buffer mix
    /// freely.
    pub fn update_into(&mut self, input: &[u8], out: &mut [u8]) -> Result<(), Error> {
        piece_into(&mut self.0, input, out, Direction::Encrypt)
    }

    /// [`update_into`](Self::update_into) into memory that need not be
    /// initialized: returns the ciphertext (all of `out`, now written).
    pub fn update_into_uninit<'o>(
        &mut self,
        input: &[u8],
        out: &'o mut [MaybeUninit<u8>],
    ) -> Result<&'o mut [u8], Error> {
        piece_into_uninit(&mut self.0, input, out, Direction::Encrypt)
    }
}

impl Decryptor<'_> {
    /// Decrypts the next piece of ciphertext from `input` into `out`, as
    /// [`Encryptor::update_into`] encrypts. The plaintext is **not yet
    /// authenticated** (see [`Decryptor`]).
    pub fn update_into(&mut self, input: &[u8], out: &mut [u8]) -> Result<(), Error> {
        piece_into(&mut self.0, input, out, Direction::Decrypt)
    }

    /// [`update_into`](Self::update_into) into memory that need not be
    /// initialized: returns the plaintext (all of `out`, now written).
    pub fn update_into_uninit<'o>(
        &mut self,
        input: &[u8],
        out: &'o mut [MaybeUninit<u8>],
    ) -> Result<&'o mut [u8], Error> {
        piece_into_uninit(&mut self.0, input, out, Direction::Decrypt)
    }
}

/// The on-line `update_into` of both directions.
fn piece_into(
    online: &mut Online<'_>,
    input: &[u8],
    out: &mut [u8],
    direction: Direction,
) -> Result<(), Error> {
    // SAFETY: the view goes only to `piece_into_uninit`, which writes
    // initialized bytes (module header).
    piece_into_uninit(online, input, unsafe { as_uninit(out) }, direction).map(drop)
}

/// The on-line `update_into_uninit` of both directions.
fn piece_into_uninit<'o>(
    online: &mut Online<'_>,
    input: &[u8],
    out: &'o mut [MaybeUninit<u8>],
    direction: Direction,
) -> Result<&'o mut [u8], Error> {
    check_output(input, out)?;
    online.crypt_into(input, out, direction)?;
    // SAFETY: `crypt_into` returned `Ok`, having written every byte.
    Ok(unsafe { assume_init(out) })
}

/// The output of an out-of-place call must be as long as its input.
fn check_output<T>(input: &[u8], out: &[T]) -> Result<(), Error> {
    if input.len() == out.len() {
        Ok(())
    } else {
        Err(Error::OutputLength {
            input: input.len(),
            output: out.len(),
        })
    }
}

/// A whole message from `input` into `out`; returns the full tag, having
/// written every byte of `out`. A kernel's whole-message path writes
/// `out` as it reads `input`; otherwise messages of one pass are copied
/// and run by [`OneShot`] (and its whole-message paths), longer ones pass
/// by pass through one `State`.
struct OutOfPlace<'a> {
    iv: &'a [u8],
    aad: &'a [u8],
    input: &'a [u8],
    out: &'a mut [MaybeUninit<u8>],
    direction: Direction,
}

impl KernelOp for OutOfPlace<'_> {
    type Output = Result<Block, Error>;
    fn run<K: Kernel + Sync>(self, kernel: &K) -> Self::Output {
        if let Ok(iv) = <&[u8; 12]>::try_from(self.iv) {
            let text = Text::Into {
                input: self.input,
                out: &mut *self.out,
            };
            if let Some(tag) = kernel.crypt_whole(iv, self.aad, text, self.direction) {
                return Ok(tag);
            }
        }
        self.copying(kernel)
    }
}

impl OutOfPlace<'_> {
    /// The paths that copy the input into `out` first: out of line, so
    /// that a whole-message path taken does not set up their frame.
    #[inline(never)]
    fn copying<K: Kernel + Sync>(self, kernel: &K) -> Result<Block, Error> {
        let out = self.out;
        if self.input.len() <= OUT_OF_PLACE_PASS {
            return OneShot {
                iv: self.iv,
                aad: self.aad,
                buf: copy_into(out, self.input),
                direction: self.direction,
            }
            .run(kernel);
        }
        let mut state = State::start(kernel, self.iv);
        state.aad(kernel, self.aad)?;
        let passes = self.input.chunks(OUT_OF_PLACE_PASS);
        for (input, out) in passes.zip(out.chunks_mut(OUT_OF_PLACE_PASS)) {
            state.crypt(kernel, copy_into(out, input), self.direction)?;
        }
        Ok(state.finish(kernel))
    }
}
