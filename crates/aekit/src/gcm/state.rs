//! The GCM computation itself (spec §2.3), written once for every
//! (AES, GHASH) pair and for both the one-shot and the on-line API.
//!
//! A [`State`] holds everything one message needs between calls: the next
//! counter, E(K, Y_0), the running GHASH value, the lengths, a partial block
//! waiting for GHASH and the unused end of a keystream block. That is what
//! lets data arrive in pieces of any size, split anywhere inside a block.

use core::mem::MaybeUninit;

use zeroize::{Zeroize, ZeroizeOnDrop};

use super::kernel::{Direction, Kernel, Text, copy_into};
use crate::Error;
use crate::aes::{Block, BlockCipher};
use crate::ctr::incr32;
use crate::ghash::GhashKey;

/// Largest plaintext GCM allows: 2^39 − 256 bits = 2^36 − 32 bytes.
pub const MAX_MESSAGE_LEN: u64 = (1 << 36) - 32;
/// Largest associated data (and IV) GCM allows: 2^64 − 1 bits, rounded
/// down to whole bytes.
pub const MAX_AAD_LEN: u64 = (1 << 61) - 1;
/// Every tag length aekit takes, in bytes: the GCM spec's whole-byte
/// lengths from 64 to 128 bits (§2.1), and the 32 bits NIST SP 800-38D
/// (§5.2.1.2) adds. Which of them a key accepts for a given IV is its
/// [`TagRules`](super::TagRules).
pub const TAG_LENGTHS: [usize; 10] = [4, 8, 9, 10, 11, 12, 13, 14, 15, 16];

/// One message in progress. Only the secret fields are zeroized on drop:
/// E(K, Y_0), the GHASH value and the keystream. The counter, the lengths
/// and the pending block (associated data or ciphertext) are public, and
/// clearing them would cost a volatile store per byte on every message.
///
/// `Clone` serves [`AadPrefix`](super::AadPrefix): a state that has seen
/// associated data only, before any IV, copied once per message. Both
/// copies are zeroized on drop.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub(crate) struct State {
    /// The counter block for the next keystream block.
    #[zeroize(skip)]
    counter: Block,
    /// E(K, Y_0), XORed onto GHASH to form the tag; a `u128` so that
    /// clearing it is one store.
    tag_mask: u128,
    /// The running GHASH value X_i.
    y: Block,
    #[zeroize(skip)]
    aad_len: u64,
    #[zeroize(skip)]
    text_len: u64,
    /// Bytes waiting to complete a 16-byte GHASH block.
    #[zeroize(skip)]
    pending: Block,
    #[zeroize(skip)]
    pending_len: usize,
    /// The last keystream block and how much of it is used (16: all).
    keystream: Block,
    #[zeroize(skip)]
    keystream_used: usize,
    /// Message data has begun: no more associated data.
    #[zeroize(skip)]
    in_text: bool,
    /// The counter is IV ‖ count, a 96-bit IV's, and public: the kernel
    /// may branch on it (`public` of [`Kernel::crypt_blocks`]). A longer IV's
    /// J0 is GHASH(IV) under H, a function of the key.
    #[zeroize(skip)]
    public_counter: bool,
}

/// Rejects an IV GCM cannot take: one comparison, an empty IV's length
/// less one wrapping past every bound.
#[inline(always)]
pub(crate) fn check_iv(iv: &[u8]) -> Result<(), Error> {
    if (iv.len() as u64).wrapping_sub(1) < MAX_AAD_LEN {
        Ok(())
    } else if iv.is_empty() {
        Err(Error::EmptyIv)
    } else {
        Err(Error::IvTooLong)
    }
}

/// Y_0 (spec §2.3): IV ‖ 0^31 ‖ 1 for a 96-bit IV, otherwise
/// GHASH(H, {}, IV), the IV zero-padded, then 0^64 ‖ len(IV) in bits. The
/// IV must have passed [`check_iv`].
pub(crate) fn pre_counter<G: GhashKey>(ghash: &G, iv: &[u8]) -> Block {
    // Each branch builds its own J_0: the 96-bit one then never has its
    // address taken, so it is assembled in registers and stored whole,
    // not byte by byte (a load that spans several recent smaller stores
    // waits for them to reach the cache: tens of cycles per message).
    if iv.len() == 12 {
        // IV ‖ 0^31 ‖ 1, assembled as an integer.
        let hi = u64::from_be_bytes(iv[..8].try_into().unwrap_or_default());
        let mid = u32::from_be_bytes(iv[8..].try_into().unwrap_or_default());
        (u128::from(hi) << 64 | u128::from(mid) << 32 | 1).to_be_bytes()
    } else {
        let mut j0 = [0u8; 16];
        ghash.update_padded(&mut j0, iv);
        let mut lengths = [0u8; 16];
        lengths[8..].copy_from_slice(&(iv.len() as u64 * 8).to_be_bytes());
        ghash.update_blocks(&mut j0, &lengths);
        j0
    }
}

/// Y_0 of an IV that arrives in pieces: GHASH over the IV's whole blocks
/// so far, and the bytes after them (spec §2.3: for an IV that is not 96
/// bits, Y_0 = GHASH(H, {}, IV)). A fixed prefix of the IV hashed once is
/// this, cloned for each message (spec §6, Table 2: fixed parts of the IV
/// processed in advance); see [`IvPrefix`](super::IvPrefix).
///
/// The running value is a function of H and is wiped on drop; the pending
/// bytes and the length are the IV's, which is public.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub(crate) struct IvHash {
    /// GHASH over the whole blocks absorbed, as one integer so that
    /// wiping it is one store.
    y: u128,
    /// The IV's bytes after its last whole block.
    #[zeroize(skip)]
    pending: Block,
    #[zeroize(skip)]
    pending_len: usize,
    /// The IV's length so far, in bytes.
    #[zeroize(skip)]
    len: u64,
}

impl IvHash {
    /// No IV byte yet.
    pub(crate) fn new() -> IvHash {
        IvHash {
            y: 0,
            pending: [0; 16],
            pending_len: 0,
            len: 0,
        }
    }

    /// The IV's length so far, in bytes.
    pub(crate) fn len(&self) -> u64 {
        self.len
    }

    /// The IV's length with `more` bytes appended: [`Error::IvTooLong`]
    /// past GCM's limit.
    pub(crate) fn len_with(&self, more: usize) -> Result<u64, Error> {
        self.len
            .checked_add(more as u64)
            .filter(|&n| n <= MAX_AAD_LEN)
            .ok_or(Error::IvTooLong)
    }

    /// Appends `bytes` to the IV: [`Error::IvTooLong`] past GCM's limit,
    /// leaving the hash as it was.
    pub(crate) fn absorb<G: GhashKey>(&mut self, ghash: &G, mut bytes: &[u8]) -> Result<(), Error> {
        self.len = self.len_with(bytes.len())?;
        let mut y = self.y.to_ne_bytes();
        if self.pending_len > 0 {
            let take = (16 - self.pending_len).min(bytes.len());
            self.pending[self.pending_len..][..take].copy_from_slice(&bytes[..take]);
            self.pending_len += take;
            bytes = &bytes[take..];
            if self.pending_len < 16 {
                return Ok(());
            }
            ghash.update_blocks(&mut y, &self.pending);
            self.pending_len = 0;
        }
        let whole = bytes.len() / 16 * 16;
        ghash.update_blocks(&mut y, &bytes[..whole]);
        self.pending_len = bytes.len() - whole;
        self.pending[..self.pending_len].copy_from_slice(&bytes[whole..]);
        self.y = u128::from_ne_bytes(y);
        Ok(())
    }

    /// Y_0 of the IV absorbed, which must not be empty: the 96-bit form
    /// when it is 12 bytes (then all of it is pending), GHASH otherwise.
    pub(crate) fn pre_counter<G: GhashKey>(&self, ghash: &G) -> Block {
        debug_assert!(self.len > 0, "an IV of at least one byte");
        if self.len == 12 {
            return pre_counter(ghash, &self.pending[..12]);
        }
        let mut j0 = self.y.to_ne_bytes();
        ghash.update_padded(&mut j0, &self.pending[..self.pending_len]);
        let mut lengths = [0u8; 16];
        lengths[8..].copy_from_slice(&(self.len * 8).to_be_bytes());
        ghash.update_blocks(&mut j0, &lengths);
        j0
    }
}

impl State {
    /// Y_0 from the IV (spec §2.3): IV ‖ 0^31 ‖ 1 for 96-bit IVs, otherwise
    /// GHASH(H, {}, IV). The IV must have passed [`check_iv`].
    pub(crate) fn start<K: Kernel>(kernel: &K, iv: &[u8]) -> State {
        let mut state = State::with_tag_mask(&[0; 16]);
        state.set_iv(kernel, iv);
        state
    }

    /// Sets Y_0, E(K, Y_0) and the first counter from the IV. The GHASH
    /// value does not depend on them, so this may come after associated
    /// data (the fixed prefix of [`AadPrefix`](super::AadPrefix)), but
    /// never after message data. The IV must have passed [`check_iv`].
    pub(crate) fn set_iv<K: Kernel>(&mut self, kernel: &K, iv: &[u8]) {
        let j0 = pre_counter(kernel.ghash(), iv);
        self.set_pre_counter(kernel, j0, iv.len() == 12);
    }

    /// [`State::set_iv`] from Y_0 itself, computed by the caller
    /// ([`IvHash`]); `public` says whether it is a 96-bit IV's.
    pub(crate) fn set_pre_counter<K: Kernel>(&mut self, kernel: &K, j0: Block, public: bool) {
        debug_assert!(!self.in_text, "the IV is set before any message data");
        let mut tag_mask = [j0];
        kernel.aes().encrypt_blocks(&mut tag_mask);
        self.tag_mask = u128::from_ne_bytes(tag_mask[0]);
        self.counter = j0;
        incr32(&mut self.counter);
        self.public_counter = public;
        tag_mask.zeroize();
    }

    /// Whether the counter is public (a 96-bit IV's), for callers that
    /// run its whole blocks themselves (`parallel.rs`).
    pub(crate) fn public_counter(&self) -> bool {
        self.public_counter
    }

    /// Feeds associated data; all of it must come before the message.
    pub(crate) fn aad<K: Kernel>(&mut self, kernel: &K, aad: &[u8]) -> Result<(), Error> {
        if aad.is_empty() {
            return Ok(());
        }
        if self.in_text {
            return Err(Error::AadAfterMessage);
        }
        self.aad_len = self
            .aad_len
            .checked_add(aad.len() as u64)
            .filter(|&n| n <= MAX_AAD_LEN)
            .ok_or(Error::AadTooLong)?;
        self.absorb(kernel.ghash(), aad);
        Ok(())
    }

    /// A message with E(K, Y_0) known and the counter not yet set: the
    /// start of [`State::start`], and the whole of it when the keystream is
    /// supplied by the caller (`precomputed.rs`), where the counter is
    /// never used because [`State::crypt_with_keystream`] never calls AES.
    pub(crate) fn with_tag_mask(tag_mask: &Block) -> State {
        State {
            counter: [0; 16],
            tag_mask: u128::from_ne_bytes(*tag_mask),
            y: [0; 16],
            aad_len: 0,
            text_len: 0,
            pending: [0; 16],
            pending_len: 0,
            keystream: [0; 16],
            keystream_used: 16,
            in_text: false,
            public_counter: false,
        }
    }

    /// Encrypts or decrypts `data` in place and hashes the ciphertext: the
    /// bytes that finish a block begun by an earlier piece, then whole
    /// blocks through the kernel, then a partial block kept for later.
    pub(crate) fn crypt<K: Kernel>(
        &mut self,
        kernel: &K,
        data: &mut [u8],
        direction: Direction,
    ) -> Result<(), Error> {
        let public = self.public_counter;
        self.crypt_with(kernel, data, direction, |counter, y, blocks| {
            kernel.crypt_blocks(counter, y, Text::InPlace(blocks), direction, public);
        })
    }

    /// [`State::crypt`] with the whole blocks handed to `whole_blocks`
    /// instead of [`Kernel::crypt_blocks`], under the same contract (the
    /// counter, the GHASH value, the blocks): how `parallel.rs` splits
    /// them across threads while the rest of the mode stays here.
    pub(crate) fn crypt_with<K: Kernel>(
        &mut self,
        kernel: &K,
        data: &mut [u8],
        direction: Direction,
        whole_blocks: impl FnOnce(&mut Block, &mut Block, &mut [u8]),
    ) -> Result<(), Error> {
        if !self.begin_text(kernel.ghash(), data.len())? {
            return Ok(());
        }
        // Keystream and GHASH offsets agree in the message (both are
        // text_len mod 16), so after `head` both are block-aligned.
        let head = (16 - self.keystream_used).min(data.len());
        let (head, rest) = data.split_at_mut(head);
        self.crypt_partial(kernel, head, direction);
        let whole = rest.len() / 16 * 16;
        let (blocks, tail) = rest.split_at_mut(whole);
        whole_blocks(&mut self.counter, &mut self.y, blocks);
        self.crypt_partial(kernel, tail, direction);
        Ok(())
    }

    /// [`State::crypt`] from `input` into `out` (the same length, possibly
    /// uninitialized; every byte is written) in one pass: the whole blocks
    /// through [`Kernel::crypt_blocks`].
    pub(crate) fn crypt_into<K: Kernel>(
        &mut self,
        kernel: &K,
        input: &[u8],
        out: &mut [MaybeUninit<u8>],
        direction: Direction,
    ) -> Result<(), Error> {
        let public = self.public_counter;
        self.crypt_with_into(kernel, input, out, direction, |counter, y, input, out| {
            kernel.crypt_blocks(counter, y, Text::Into { input, out }, direction, public);
        })
    }

    /// [`State::crypt_with`] from `input` into `out` (the same length,
    /// possibly uninitialized; every byte is written): the whole blocks
    /// are handed to `whole_blocks` with their input and output, the
    /// partial blocks around them are copied and run here.
    pub(crate) fn crypt_with_into<K: Kernel>(
        &mut self,
        kernel: &K,
        input: &[u8],
        out: &mut [MaybeUninit<u8>],
        direction: Direction,
        whole_blocks: impl FnOnce(&mut Block, &mut Block, &[u8], &mut [MaybeUninit<u8>]),
    ) -> Result<(), Error> {
        assert_eq!(input.len(), out.len(), "input and output lengths differ");
        if !self.begin_text(kernel.ghash(), input.len())? {
            return Ok(());
        }
        // As in `crypt_with`: after the head both offsets are block-aligned.
        let head = (16 - self.keystream_used).min(input.len());
        let (in_head, input) = input.split_at(head);
        let (out_head, out) = out.split_at_mut(head);
        self.crypt_partial(kernel, copy_into(out_head, in_head), direction);
        let whole = input.len() / 16 * 16;
        let (in_blocks, in_tail) = input.split_at(whole);
        let (out_blocks, out_tail) = out.split_at_mut(whole);
        whole_blocks(&mut self.counter, &mut self.y, in_blocks, out_blocks);
        self.crypt_partial(kernel, copy_into(out_tail, in_tail), direction);
        Ok(())
    }

    /// As [`State::crypt`], but XORs `keystream` (E(K, Y_1), E(K, Y_2), …
    /// laid end to end, at least `data.len()` bytes) instead of running
    /// AES. For a whole message in one call only: a second call would
    /// reuse the keystream from its start.
    pub(crate) fn crypt_with_keystream<G: GhashKey>(
        &mut self,
        ghash: &G,
        data: &mut [u8],
        keystream: &[u8],
        direction: Direction,
    ) -> Result<(), Error> {
        assert!(keystream.len() >= data.len(), "keystream too short");
        if !self.begin_text(ghash, data.len())? {
            return Ok(());
        }
        if direction == Direction::Decrypt {
            self.absorb(ghash, data);
        }
        data.iter_mut().zip(keystream).for_each(|(d, k)| *d ^= k);
        if direction == Direction::Encrypt {
            self.absorb(ghash, data);
        }
        Ok(())
    }

    /// Counts `len` more message bytes, refusing to pass GCM's limit, and
    /// closes the associated data on the first non-empty piece. Returns
    /// whether there is anything to process.
    fn begin_text<G: GhashKey>(&mut self, ghash: &G, len: usize) -> Result<bool, Error> {
        if len == 0 {
            return Ok(false); // an empty piece neither ends the AAD nor counts
        }
        self.text_len = self
            .text_len
            .checked_add(len as u64)
            .filter(|&n| n <= MAX_MESSAGE_LEN)
            .ok_or(Error::MessageTooLong)?;
        if !self.in_text {
            self.flush(ghash); // the AAD's last block, zero-padded
            self.in_text = true;
        }
        Ok(true)
    }

    /// Less than a block, byte by byte through the buffered keystream and
    /// the pending GHASH block.
    fn crypt_partial<K: Kernel>(&mut self, kernel: &K, bytes: &mut [u8], direction: Direction) {
        if bytes.is_empty() {
            return;
        }
        if direction == Direction::Decrypt {
            self.absorb(kernel.ghash(), bytes);
        }
        self.apply_keystream(kernel.aes(), bytes);
        if direction == Direction::Encrypt {
            self.absorb(kernel.ghash(), bytes);
        }
    }

    /// The full 16-byte tag: GHASH over the padded data and len(A) ‖ len(C),
    /// XOR E(K, Y_0).
    pub(crate) fn finish<K: Kernel>(&mut self, kernel: &K) -> Block {
        // The zero-padded pending block (if any) and the lengths block in
        // one call, so that an aggregating GHASH reduces once for both.
        let mut last = [0u8; 32];
        let pending = usize::from(self.pending_len > 0);
        last[..self.pending_len].copy_from_slice(&self.pending[..self.pending_len]);
        let lengths = &mut last[16 * pending..16 * pending + 16];
        lengths[..8].copy_from_slice(&(self.aad_len * 8).to_be_bytes());
        lengths[8..].copy_from_slice(&(self.text_len * 8).to_be_bytes());
        kernel
            .ghash()
            .update_blocks(&mut self.y, &last[..16 * pending + 16]);
        self.pending_len = 0;
        (u128::from_ne_bytes(self.y) ^ self.tag_mask).to_ne_bytes()
    }

    /// Hashes `bytes` as a continuation of the data so far, keeping a
    /// partial last block for later.
    fn absorb<G: GhashKey>(&mut self, ghash: &G, mut bytes: &[u8]) {
        if self.pending_len > 0 {
            let take = bytes.len().min(16 - self.pending_len);
            self.pending[self.pending_len..self.pending_len + take].copy_from_slice(&bytes[..take]);
            self.pending_len += take;
            bytes = &bytes[take..];
            if self.pending_len < 16 {
                return;
            }
            ghash.update_blocks(&mut self.y, &self.pending);
            self.pending_len = 0;
        }
        let full = bytes.len() / 16 * 16;
        ghash.update_blocks(&mut self.y, &bytes[..full]);
        let rest = &bytes[full..];
        self.pending[..rest.len()].copy_from_slice(rest);
        self.pending_len = rest.len();
    }

    /// Hashes a pending partial block, zero-padded (the 0^v and 0^u of the
    /// spec's GHASH definition).
    fn flush<G: GhashKey>(&mut self, ghash: &G) {
        if self.pending_len > 0 {
            self.pending[self.pending_len..].fill(0);
            ghash.update_blocks(&mut self.y, &self.pending);
            self.pending_len = 0;
        }
    }

    /// XORs the next keystream bytes onto `data` (less than a block): first
    /// what is left of the last keystream block, then a new one.
    fn apply_keystream<A: BlockCipher>(&mut self, aes: &A, data: &mut [u8]) {
        debug_assert!(data.len() < 16);
        for byte in data {
            if self.keystream_used == 16 {
                let mut keystream = [self.counter];
                aes.encrypt_blocks(&mut keystream);
                self.keystream = keystream[0];
                keystream.zeroize();
                incr32(&mut self.counter);
                self.keystream_used = 0;
            }
            *byte ^= self.keystream[self.keystream_used];
            self.keystream_used += 1;
        }
    }
}

/// The one tag check of `gcm`: compares the computed tag `full` with the
/// received `tag` in constant time, clears `full`, and on
/// a mismatch wipes `buf` (the decrypted message; empty where nothing was
/// decrypted, or where it was released already, as on line), so no
/// unverified plaintext leaves. The contract of
/// [`crate::secret::verify_or_wipe`] for GCM's truncated tags: the
/// received tag (its length checked against the key's rules) against as
/// many leading bytes of the full computed one; a tag shorter than GCM's
/// shortest, 4 bytes, compares unequal whatever the caller checked.
/// `full` by reference, to be
/// read where the kernel op's result holds it: each move on its way here
/// is a store and a load on the chain the call ends with.
#[inline(always)]
pub(crate) fn verify_or_wipe(full: &mut Block, tag: &[u8], buf: &mut [u8]) -> Result<(), Error> {
    crate::secret::verify_or_wipe(full, tag.len().max(4), tag, buf)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gcm::kernel::Pair;

    /// A key whose "AES" is the identity and whose "GHASH" is XOR: enough to
    /// drive the length bookkeeping, which is all these tests look at.
    struct Identity;

    impl BlockCipher for Identity {
        const NAME: &'static str = "identity";
        const CONSTANT_TIME: bool = true;
        const STORAGE_BYTES: usize = 0;
        fn new(_: &crate::aes::KeySchedule) -> Option<Self> {
            Some(Identity)
        }
        fn encrypt_blocks(&self, _: &mut [Block]) {}
    }

    impl GhashKey for Identity {
        const NAME: &'static str = "xor";
        const CONSTANT_TIME: bool = true;
        const STORAGE_BYTES: usize = 0;
        fn new(_: &Block) -> Option<Self> {
            Some(Identity)
        }
        fn update_blocks(&self, y: &mut Block, blocks: &[u8]) {
            for block in blocks.chunks(16) {
                y.iter_mut().zip(block).for_each(|(y, x)| *y ^= x);
            }
        }
    }

    const KERNEL: Pair<'static, Identity, Identity> = Pair {
        aes: &Identity,
        ghash: &Identity,
    };

    /// A tag of fewer than 4 bytes never verifies (an empty one matched
    /// the empty prefix of any computed tag), and the message is wiped.
    #[test]
    fn a_tag_shorter_than_four_bytes_never_verifies() {
        for len in 0..4 {
            let mut full = [0u8; 16];
            let mut buf = [9u8; 5];
            let result = verify_or_wipe(&mut full, &[0u8; 3][..len], &mut buf);
            assert_eq!(result, Err(Error::AuthenticationFailed), "{len} bytes");
            assert_eq!(buf, [0; 5]);
        }
        let mut full = [0u8; 16];
        assert_eq!(verify_or_wipe(&mut full, &[0u8; 4], &mut []), Ok(()));
    }

    #[test]
    fn message_limit_is_2_pow_36_minus_32_and_a_rejected_piece_changes_nothing() {
        // An IV of ones: the identity cipher's keystream (the counter
        // blocks themselves) then changes every byte it would touch.
        let mut state = State::start(&KERNEL, &[0xff; 12]);
        state.text_len = MAX_MESSAGE_LEN - 10;
        let mut piece = [7u8; 11];
        let err = state.crypt(&KERNEL, &mut piece, Direction::Encrypt);
        assert_eq!(err, Err(Error::MessageTooLong));
        assert_eq!(piece, [7; 11]);
        assert_eq!(state.text_len, MAX_MESSAGE_LEN - 10);
        let fits = state.crypt(&KERNEL, &mut piece[..10], Direction::Encrypt);
        assert_eq!(fits, Ok(()));
        assert_eq!(state.text_len, MAX_MESSAGE_LEN);
        let err = state.crypt(&KERNEL, &mut [0u8; 1], Direction::Decrypt);
        assert_eq!(err, Err(Error::MessageTooLong));
    }

    #[test]
    fn aad_limit_is_2_pow_61_minus_1_bytes() {
        let mut state = State::start(&KERNEL, &[0; 12]);
        state.aad_len = MAX_AAD_LEN - 2;
        assert_eq!(state.aad(&KERNEL, &[1, 2, 3]), Err(Error::AadTooLong));
        assert_eq!(state.aad_len, MAX_AAD_LEN - 2);
        assert_eq!(state.aad(&KERNEL, &[1, 2]), Ok(()));
        assert_eq!(state.aad(&KERNEL, &[1]), Err(Error::AadTooLong));
    }

    #[test]
    fn lengths_block_uses_bits() {
        // With identity AES and XOR GHASH the tag is the XOR of the padded
        // blocks, the lengths block and E(K, Y_0) = Y_0.
        let mut state = State::start(&KERNEL, &[0; 12]);
        state.aad(&KERNEL, &[0xff]).unwrap();
        let tag = state.finish(&KERNEL);
        let mut expected = [0u8; 16];
        expected[0] = 0xff;
        expected[7] = 8; // len(A) = 8 bits
        expected[15] = 1; // Y_0 = 0^96 ‖ 0^31 ‖ 1
        assert_eq!(tag, expected);
    }

    #[test]
    fn iv_checks() {
        assert_eq!(check_iv(&[]), Err(Error::EmptyIv));
        assert_eq!(check_iv(&[0]), Ok(()));
    }
}
