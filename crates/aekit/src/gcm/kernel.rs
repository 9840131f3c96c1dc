//! The kernel contract: what the GCM mode asks of an implementation (an
//! AES, a GHASH, and a way to run counter mode and GHASH over whole
//! blocks), and every type that contract names: [`Direction`], [`Text`],
//! [`BatchMessage`], [`KernelOp`] (a computation run on the concrete
//! kernel), [`FusedKernel`], and the views of output memory that may not
//! be initialized yet ([`copy_into`], [`in_output`], [`assume_init`],
//! [`as_uninit`]). Everything else in `gcm` builds on
//! this file; it builds on nothing in `gcm`.
//!
//! A plain (AES strategy, GHASH strategy) pair runs the two in passes: a
//! few KiB of counter mode, then GHASH over the same bytes while they are
//! still in L1. Fused kernels override [`Kernel::crypt_blocks`] to do both
//! in one pass, interleaving the AES rounds of some blocks with the
//! carry-less products of others so that both execution units stay busy.
//! FACE kernels ([`FacePair`]) override it to run counter mode by a FACE
//! variant (`ctr::face`), one engine for the whole call so that its tables
//! are built once per message.

#[cfg(target_arch = "x86_64")]
use core::borrow::Borrow;
use core::borrow::BorrowMut;
use core::mem::MaybeUninit;

use crate::aes::{Block, BlockCipher, KeySchedule};
use crate::ctr::face::{Engine, Face, FaceCipher, FaceOp, Variant};
use crate::ghash::GhashKey;

/// Whether message data is being encrypted or decrypted: GHASH always reads
/// the ciphertext, before decryption or after encryption.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Direction {
    Encrypt,
    Decrypt,
}

/// Bytes an out-of-place call copies and then encrypts or decrypts at a
/// time: half of the smallest L1 data cache aekit runs on (32 KiB), so the
/// piece is still there when the kernel reads it back.
pub const OUT_OF_PLACE_PASS: usize = 16 * 1024;

/// Bytes encrypted, then hashed, per pass of the two-pass default: small
/// enough that GHASH reads the ciphertext back from L1.
const PASS: usize = 4096;

/// An implementation of GCM's inner loop.
pub(crate) trait Kernel {
    /// The block cipher, for E(K, Y_0) and partial blocks.
    type Aes: BlockCipher;
    /// The hash, for the IV, the associated data and the lengths.
    type Ghash: GhashKey;

    fn aes(&self) -> &Self::Aes;
    fn ghash(&self) -> &Self::Ghash;

    /// Encrypts or decrypts `text` (whole blocks), in place or from its
    /// input into its output (the same length, possibly uninitialized;
    /// every byte is written), in counter mode from `counter`, leaving it
    /// at the first unused value, and folds the ciphertext into the GHASH
    /// value `y`. `public`: the counter is a 96-bit IV's, IV ‖ count,
    /// which a kernel may branch on to pick a faster way to make its
    /// counter blocks; otherwise it may be J0 = GHASH(IV) under H, a
    /// function of the key, and the kernel never branches on it.
    ///
    /// The default runs counter mode, then GHASH, over a few KiB at a
    /// time, in place ([`in_place_pieces`]: out of place, each piece
    /// copied into the output first); a fused kernel reads one buffer and
    /// writes the other in one pass.
    fn crypt_blocks(
        &self,
        counter: &mut Block,
        y: &mut Block,
        text: Text<'_>,
        direction: Direction,
        _public: bool,
    ) {
        in_place_pieces(text, |data| {
            two_pass(self.ghash(), y, data, direction, |pass| {
                self.aes().ctr32(counter, pass);
            });
        });
    }

    /// A whole message with a 96-bit IV in one pass, for kernels that
    /// have such a path: encrypts or decrypts `text`, in place or from
    /// its input into its output (as long as the input), and returns the
    /// full tag having written every byte of the output; or returns
    /// `None` having touched nothing, and the caller takes the general
    /// path (out of place, it copies first). The lengths have been
    /// checked. The default has none.
    fn crypt_whole(
        &self,
        _iv: &[u8; 12],
        _aad: &[u8],
        _text: Text<'_>,
        _direction: Direction,
    ) -> Option<Block> {
        None
    }

    /// A whole message whose keystream is supplied (E(K, Y_0), then at
    /// least `data.len()` bytes of E(K, Y_1), …: `precomputed.rs`), for
    /// kernels with a consumer path of their own: XORs `data` in place,
    /// hashes it, and returns the full tag; or `None`, having touched
    /// nothing, and the caller takes the general path. The lengths have
    /// been checked. The default has none.
    fn crypt_supplied(
        &self,
        _keystream: &[u8],
        _aad: &[u8],
        _data: &mut [u8],
        _direction: Direction,
    ) -> Option<Block> {
        None
    }

    /// The most message blocks of a shape the kernel's multi-buffer path
    /// ([`crypt_groups`](Self::crypt_groups)) takes; 0: it has none.
    const LONGEST: usize = 0;

    /// Which messages the batch API gives the multi-buffer path on this
    /// CPU, rather than the one-message path, which runs some lengths
    /// faster: whether one of `len` bytes (of a shape's length, 3 to
    /// [`LONGEST`](Self::LONGEST) blocks) goes to the lanes. Made once a
    /// batch, so that what the kernel asks of the CPU is not asked again
    /// per message. The default: every one.
    fn lanes_pay() -> impl Fn(usize) -> bool {
        |_| true
    }

    /// Groups of four whole messages at once, for kernels with a
    /// multi-buffer path: takes the messages at the start of `run` that
    /// [`taken`] finds (messages 4g … 4g + 3 are group g; every one has a
    /// 96-bit IV, the first one's shape, [`shape`], at most
    /// [`LONGEST`](Self::LONGEST) blocks, and a tag slot `tag_ok`
    /// accepts; at most as many as `tags` holds), encrypts or decrypts
    /// them in place, writes their full tags into `tags`, in order, and
    /// returns how many it took: 0, having touched nothing, where it has
    /// no such path or the run starts with no such group. The other
    /// checks of the one-message API are met by any message of a shape.
    /// The default has none.
    /// `M` is a message or a reference to one: a run of a batch's
    /// consecutive messages is passed as they lie, a group gathered from
    /// scattered ones as four references. (The tags go through a
    /// reference: returned as an `Option` of four blocks they were read
    /// back unaligned, behind the option's flag byte, from the wider
    /// stores that wrote them.)
    fn crypt_groups<'a, M: BorrowMut<BatchMessage<'a>>>(
        &self,
        _run: &mut [M],
        _direction: Direction,
        _tags: &mut [Block],
        _tag_ok: impl Fn(usize) -> bool,
    ) -> usize {
        0
    }
}

/// A message in place, or from `input` into `out` (possibly
/// uninitialized; every byte is written): what a kernel's loop
/// ([`Kernel::crypt_blocks`]), a whole-message path
/// ([`Kernel::crypt_whole`]) and a split across threads take.
pub(super) enum Text<'a> {
    InPlace(&'a mut [u8]),
    Into {
        input: &'a [u8],
        out: &'a mut [MaybeUninit<u8>],
    },
}

impl Text<'_> {
    /// The length in bytes.
    pub(super) fn len(&self) -> usize {
        match self {
            Text::InPlace(buf) => buf.len(),
            Text::Into { input, .. } => input.len(),
        }
    }

    /// Where the message is read (`src`) and written (`dst`), and its
    /// length: the same address in place; out of place the input and the
    /// output, which do not overlap (a shared and a mutable borrow), `n`
    /// the shorter length. For a kernel's whole-message path, which takes
    /// raw pointers; inlined, as out of line the three come back through
    /// memory and a caller reads two of them with one wider load, which
    /// the stores that wrote them do not forward.
    #[inline(always)]
    pub(super) fn io(self) -> (*const u8, *mut u8, usize) {
        match self {
            Text::InPlace(data) => (data.as_ptr(), data.as_mut_ptr(), data.len()),
            Text::Into { input, out } => {
                debug_assert_eq!(input.len(), out.len());
                (
                    input.as_ptr(),
                    out.as_mut_ptr().cast::<u8>(),
                    input.len().min(out.len()),
                )
            }
        }
    }
}

/// A computation that needs the concrete kernel type. Every kernel is
/// `Sync`, so an op may share it across threads (`parallel.rs`).
pub(crate) trait KernelOp {
    type Output;
    fn run<K: Kernel + Sync>(self, kernel: &K) -> Self::Output;
}

/// A fused kernel: a [`Kernel`] built straight from the key schedule.
pub(crate) trait FusedKernel: Kernel + Sized {
    /// The kernel's token.
    const NAME: &'static str;
    /// Whether this CPU has every instruction the kernel uses.
    fn is_available() -> bool;
    /// Expands the key; `None` when the CPU lacks the instructions.
    fn new(keys: &KeySchedule) -> Option<Self>;
}

/// One message of a batch: borrowed IV, associated data, buffer (encrypted
/// or decrypted in place) and tag slot.
#[derive(Debug)]
pub struct BatchMessage<'a> {
    /// The IV (any length of at least one byte; 12 is the fast one). It
    /// must never repeat under one key.
    pub iv: &'a [u8],
    /// The associated data, authenticated and not encrypted.
    pub aad: &'a [u8],
    /// The plaintext (encryption) or ciphertext (decryption), replaced in place.
    pub buf: &'a mut [u8],
    /// Encryption writes the tag here, as many bytes as the slot is long;
    /// decryption reads the received tag from it.
    pub tag: &'a mut [u8],
}

/// A message's shape for a multi-buffer path taking up to `longest`
/// blocks: its message blocks (3 to `longest`) and associated-data blocks
/// (0 or 1), or `None`. Four messages of one shape with 96-bit IVs make a
/// group. Below three blocks the one-message short paths are as fast
/// (`docs/kernels/vaes_avx512_multi.md`).
pub(crate) fn shape(aad_len: usize, len: usize, longest: usize) -> Option<(usize, usize)> {
    let shape = (len.div_ceil(16), aad_len.div_ceil(16));
    ((3..=longest).contains(&shape.0) && shape.1 <= 1).then_some(shape)
}

/// The most message blocks of a multi-buffer shape `vaes-avx512` and
/// `vaes-avx2` take (2 KiB): a message's counts, 2 to `LONG` + 1, stay in
/// its counter block's last byte.
#[cfg(target_arch = "x86_64")]
pub(crate) const LONG: usize = 128;

/// Where H^1 is in a key's [`LongPowers`]: H^x is entry `TOP` − x.
#[cfg(target_arch = "x86_64")]
pub(crate) const TOP: usize = LONG + 4;

/// How many entries [`LongPowers`] has.
#[cfg(target_arch = "x86_64")]
pub(crate) const POWERS: usize = TOP + 8;

/// The powers the multi-buffer paths multiply a long message's blocks by
/// (each block its own, summed over the whole message and reduced once),
/// made at key setup by `vaes-avx512` and `vaes-avx2`: H^x at entry
/// [`TOP`] − x for x = 1 … `TOP` (≥ c + 2 for every message of c ≤
/// [`LONG`] blocks: its AAD block takes H^(c + 2)), then eight zero
/// entries (a register of four powers read past H^1). Wiped at memset
/// speed ([`crate::secret::wipe_words`]: the `zeroize` crate's
/// element-wise volatile writes of its 2 KiB were a tenth of a key
/// setup). On a 64-byte boundary, so that no 32-byte load at an even
/// entry (`vaes-avx2`'s loop reads its pairs of powers from the last
/// thirty-two) and no 64-byte load at a multiple of four splits a cache
/// line.
#[cfg(target_arch = "x86_64")]
#[repr(C, align(64))]
pub(crate) struct LongPowers(pub(crate) [u128; POWERS]);

#[cfg(target_arch = "x86_64")]
impl LongPowers {
    /// H^32 … H^1 (entry e holds H^(32 − e)): the last thirty-two powers,
    /// what the fused kernels' main loops multiply by.
    pub(crate) fn powers_32_to_1(&self) -> &[u128; 32] {
        self.0[TOP - 32..TOP].try_into().expect("32 entries")
    }
}

#[cfg(target_arch = "x86_64")]
impl zeroize::Zeroize for LongPowers {
    fn zeroize(&mut self) {
        crate::secret::wipe_words(&mut self.0);
    }
}

/// The messages a kernel's multi-buffer path takes from the start of
/// `run`: the longest run of whole groups of four, at most as many as
/// `tags` holds, in which every message has a 96-bit IV, the first one's
/// shape (of at most `longest` blocks) and a tag slot the key takes
/// (`tag_ok`, asked of the first message and of those whose lengths
/// differ from its own). Returns them, as many tags, and whether they all
/// have the first one's lengths; `None` where there is no such group.
/// One pass over the messages, the only one before the kernel's: three
/// comparisons a message of a run of equal lengths.
#[inline]
#[allow(clippy::type_complexity)]
#[cfg(target_arch = "x86_64")]
pub(crate) fn taken<'r, 'a, M: Borrow<BatchMessage<'a>>>(
    run: &'r mut [M],
    longest: usize,
    tags: &'r mut [Block],
    tag_ok: impl Fn(usize) -> bool,
) -> Option<(&'r mut [M], &'r mut [Block], bool)> {
    let first = run.first()?.borrow();
    let lengths = (first.buf.len(), first.aad.len(), first.tag.len());
    let first_shape = shape(lengths.1, lengths.0, longest);
    if first_shape.is_none() || first.iv.len() != 12 || !tag_ok(lengths.2) {
        return None;
    }
    let mut uniform = true;
    let mut n = 1;
    for m in run[1..run.len().min(tags.len())].iter().map(Borrow::borrow) {
        if m.iv.len() != 12 {
            break;
        }
        if (m.buf.len(), m.aad.len(), m.tag.len()) != lengths {
            if shape(m.aad.len(), m.buf.len(), longest) != first_shape || !tag_ok(m.tag.len()) {
                break;
            }
            // (Also where the message falls past the last whole group:
            // `uniform` false is only slower.)
            uniform = false;
        }
        n += 1;
    }
    let n = n / 4 * 4;
    (n > 0).then(|| (&mut run[..n], &mut tags[..n], uniform))
}

/// `text`'s bytes run in place by `run`: as they are, or out of place
/// copied into the output [`OUT_OF_PLACE_PASS`] bytes at a time, each
/// piece run while it is still in L1.
fn in_place_pieces(text: Text<'_>, mut run: impl FnMut(&mut [u8])) {
    match text {
        Text::InPlace(data) => run(data),
        Text::Into { input, out } => {
            debug_assert_eq!(input.len(), out.len());
            let passes = input.chunks(OUT_OF_PLACE_PASS);
            for (input, out) in passes.zip(out.chunks_mut(OUT_OF_PLACE_PASS)) {
                run(copy_into(out, input));
            }
        }
    }
}

/// The two-pass loop: counter mode (`ctr`) and GHASH over each [`PASS`]
/// bytes in turn, GHASH reading the ciphertext.
fn two_pass<G: GhashKey>(
    ghash: &G,
    y: &mut Block,
    data: &mut [u8],
    direction: Direction,
    mut ctr: impl FnMut(&mut [u8]),
) {
    for pass in data.chunks_mut(PASS) {
        if direction == Direction::Decrypt {
            ghash.update_blocks(y, pass);
        }
        ctr(pass);
        if direction == Direction::Encrypt {
            ghash.update_blocks(y, pass);
        }
    }
}

/// Any AES strategy with any GHASH strategy, in two passes.
pub(crate) struct Pair<'k, A, G> {
    pub(crate) aes: &'k A,
    pub(crate) ghash: &'k G,
}

impl<A: BlockCipher, G: GhashKey> Kernel for Pair<'_, A, G> {
    type Aes = A;
    type Ghash = G;

    fn aes(&self) -> &A {
        self.aes
    }

    fn ghash(&self) -> &G {
        self.ghash
    }
}

/// An AES strategy FACE applies to, with any GHASH strategy, in two passes
/// whose counter mode is FACE `variant`.
pub(crate) struct FacePair<'k, A, G> {
    pub(crate) aes: &'k A,
    pub(crate) ghash: &'k G,
    pub(crate) variant: Variant,
}

impl<A: FaceCipher, G: GhashKey> Kernel for FacePair<'_, A, G> {
    type Aes = A;
    type Ghash = G;

    fn aes(&self) -> &A {
        self.aes
    }

    fn ghash(&self) -> &G {
        self.ghash
    }

    fn crypt_blocks(
        &self,
        counter: &mut Block,
        y: &mut Block,
        text: Text<'_>,
        direction: Direction,
        _public: bool,
    ) {
        in_place_pieces(text, |data| {
            debug_assert_eq!(data.len() % 16, 0);
            let start = *counter;
            let passes = FacePasses {
                ghash: self.ghash,
                counter: &mut *counter,
                y: &mut *y,
                data,
                direction,
            };
            self.aes.with_face(self.variant, &start, passes);
        });
    }
}

/// The two-pass loop of [`Kernel::crypt_blocks`] over one FACE engine.
struct FacePasses<'a, G> {
    ghash: &'a G,
    counter: &'a mut Block,
    y: &'a mut Block,
    data: &'a mut [u8],
    direction: Direction,
}

impl<G: GhashKey> FaceOp for FacePasses<'_, G> {
    type Output = ();
    fn run<E: Engine>(self, face: &mut Face<'_, E>) {
        let counter = self.counter;
        two_pass(self.ghash, self.y, self.data, self.direction, |pass| {
            face.apply(counter, pass);
        });
    }
}

/// Ends a fused kernel's pass with the two strategies, after its wide loop
/// has run `batches` batches of `batch` bytes: the rest of `data` still
/// needs counter mode from `counter` and GHASH. Decryption hashed every
/// batch it decrypted; encryption hashes a batch behind (the ciphertext
/// must exist first), so its last batch is hashed here with the tail.
#[cfg_attr(
    not(any(target_arch = "x86_64", target_arch = "aarch64")),
    allow(dead_code)
)] // the fused kernels are x86-64's and aarch64's
pub(crate) fn finish_two_pass<K: Kernel>(
    kernel: &K,
    counter: &mut Block,
    y: &mut Block,
    data: &mut [u8],
    (batches, batch): (usize, usize),
    direction: Direction,
) {
    let crypted = batches * batch;
    match direction {
        Direction::Decrypt => {
            kernel.ghash().update_blocks(y, &data[crypted..]);
            kernel.aes().ctr32(counter, &mut data[crypted..]);
        }
        Direction::Encrypt => {
            kernel.aes().ctr32(counter, &mut data[crypted..]);
            let hashed = crypted.saturating_sub(batch);
            kernel.ghash().update_blocks(y, &data[hashed..]);
        }
    }
}

/// Copies `input` into `out` (of the same length) and returns it, written.
/// Nothing to copy is no call: a kernel's rest after its whole batches is
/// often empty, and `memcpy` of nothing still costs a call.
#[allow(unsafe_code)] // the copy, then the view of the written bytes
pub(crate) fn copy_into<'a>(out: &'a mut [MaybeUninit<u8>], input: &[u8]) -> &'a mut [u8] {
    assert_eq!(
        out.len(),
        input.len(),
        "copy into a buffer of the same length"
    );
    // SAFETY: `input` is readable and `out` writable for `out.len()` bytes;
    // a shared and a mutable borrow do not overlap.
    unsafe {
        if !out.is_empty() {
            core::ptr::copy_nonoverlapping(input.as_ptr(), out.as_mut_ptr().cast(), out.len());
        }
        assume_init(out)
    }
}

/// The `len` bytes at `to`, holding what the `len` bytes at `from` hold:
/// copied there first unless `from` is `to` (in place) or there is
/// nothing to copy ([`copy_into`]). How a kernel's last bytes out of place
/// are finished in place in the output.
///
/// # Safety
/// `from` must be readable and `to` writable for `len` bytes, the same
/// pointer or two ranges that do not overlap; nothing else may access the
/// bytes at `to` while the returned slice lives.
#[cfg_attr(
    not(any(target_arch = "x86_64", target_arch = "aarch64")),
    allow(dead_code)
)] // the kernels are x86-64's and aarch64's
#[allow(unsafe_code)]
pub(crate) unsafe fn in_output<'a>(from: *const u8, to: *mut u8, len: usize) -> &'a mut [u8] {
    // SAFETY: the caller's contract; after the copy (or in place) every
    // byte of the slice is initialized.
    unsafe {
        if !core::ptr::eq(from, to) && len != 0 {
            core::ptr::copy_nonoverlapping(from, to, len);
        }
        core::slice::from_raw_parts_mut(to, len)
    }
}

/// `out`, every byte of which has been written.
///
/// # Safety
/// Every byte of `out` must have been written.
#[allow(unsafe_code)]
pub(crate) unsafe fn assume_init(out: &mut [MaybeUninit<u8>]) -> &mut [u8] {
    // SAFETY: `MaybeUninit<u8>` has the layout of `u8`, and every byte is
    // initialized (the caller's promise).
    unsafe { &mut *(core::ptr::from_mut(out) as *mut [u8]) }
}

/// An initialized buffer seen as output space.
///
/// # Safety
/// Only initialized bytes may be written through the view (a store of an
/// uninitialized byte would leave `out` holding one).
#[allow(unsafe_code)]
pub(crate) unsafe fn as_uninit(out: &mut [u8]) -> &mut [MaybeUninit<u8>] {
    // SAFETY: `u8` and `MaybeUninit<u8>` have the same layout; the view is
    // only written with initialized bytes (the caller's promise).
    unsafe { &mut *(core::ptr::from_mut(out) as *mut [MaybeUninit<u8>]) }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::aes::KeySchedule;
    use crate::aes::ni::Ni;
    use crate::aes::table::Table;
    use crate::gcm::kernels::{AesPmull, NiClmul, VaesAvx2, VaesAvx512};
    use crate::gcm::state::State;
    use crate::ghash::bitserial::BitSerial;
    use crate::ghash::clmul::Clmul;

    /// A fused kernel's `crypt_blocks` equals the two-pass default over
    /// the strategies whose keys it holds, with the 32-bit count wrapping
    /// inside the wide loop (a short message never reaches it there).
    fn agrees_with_the_pair<F: FusedKernel<Aes = Ni, Ghash = Clmul>>() {
        for key in [[0x42u8; 16].as_slice(), &[0x17; 24], &[0xa5; 32]] {
            let keys = KeySchedule::new(key).unwrap();
            let Some(fused) = F::new(&keys) else {
                crate::skip(format_args!("{}: not available on this CPU", F::NAME));
                return;
            };
            let pair = Pair {
                aes: fused.aes(),
                ghash: fused.ghash(),
            };
            // Counts whose low byte is near a carry (0x1d8 … 0x1f8, every
            // low byte before and after the last one a batch may start
            // at without one) and near the 32-bit wrap.
            let all: &[usize] = &[0, 1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 48, 64, 95, 529];
            let cases = [2u32, 0xffff_fff0, 0xffff_fffd, 0xffff_ffff]
                .map(|low| (low, all))
                .into_iter()
                .chain((0x1d8..0x1f8).map(|low| (low, [16usize, 32, 48].as_slice())));
            for (low, lengths) in cases {
                for &blocks in lengths {
                    for (direction, public) in [
                        (Direction::Encrypt, false),
                        (Direction::Decrypt, false),
                        (Direction::Encrypt, true),
                        (Direction::Decrypt, true),
                    ] {
                        let data: Vec<u8> = (0..blocks * 16).map(|i| (i * 31 + 7) as u8).collect();
                        let mut counter = [0x5c; 16];
                        counter[12..].copy_from_slice(&low.to_be_bytes());
                        let y = [0x3a; 16];
                        let into = blocks_into(&fused, (counter, y), &data, direction, public);
                        // The branch-free counters and the public ones'
                        // fast paths.
                        let (d1, c1, y1) =
                            blocks_in_place(&fused, (counter, y), data.clone(), direction, public);
                        let (d2, c2, y2) =
                            blocks_in_place(&pair, (counter, y), data, direction, false);
                        let id =
                            format!("{} {blocks} blocks from {low:#x} public {public}", F::NAME);
                        assert_eq!(d1, d2, "{id}: data");
                        assert_eq!(c1, c2, "{id}: counter");
                        assert_eq!(y1, y2, "{id}: GHASH");
                        assert!(into == (d2, c2, y2), "{id}: out of place");
                    }
                }
            }
        }
    }

    /// `kernel.crypt_blocks` over `data` in place from (`counter`, `y`):
    /// the data, and the counter and GHASH value it leaves.
    pub(crate) fn blocks_in_place<K: Kernel>(
        kernel: &K,
        (mut counter, mut y): (Block, Block),
        mut data: Vec<u8>,
        direction: Direction,
        public: bool,
    ) -> (Vec<u8>, Block, Block) {
        let text = Text::InPlace(&mut data);
        kernel.crypt_blocks(&mut counter, &mut y, text, direction, public);
        (data, counter, y)
    }

    /// `kernel.crypt_blocks` from `data` into uninitialized memory,
    /// from (`counter`, `y`): the output, and the counter and GHASH value
    /// it leaves.
    #[allow(unsafe_code)]
    pub(crate) fn blocks_into<K: Kernel>(
        kernel: &K,
        (mut counter, mut y): (Block, Block),
        data: &[u8],
        direction: Direction,
        public: bool,
    ) -> (Vec<u8>, Block, Block) {
        let mut out = Vec::<u8>::with_capacity(data.len());
        let spare = &mut out.spare_capacity_mut()[..data.len()];
        let text = Text::Into {
            input: data,
            out: spare,
        };
        kernel.crypt_blocks(&mut counter, &mut y, text, direction, public);
        // SAFETY: `crypt_blocks` writes every byte of its output.
        unsafe { out.set_len(data.len()) };
        (out, counter, y)
    }

    /// `crypt_whole` against the general path (`State` over the same
    /// kernel) for every (AAD length, message length) up to 256 bytes,
    /// both directions, three key sizes; where a kernel declines, the data
    /// must be untouched.
    fn short_path_matches_the_general_path<F: FusedKernel>() {
        let iv = [0xc3u8; 12];
        let aad: Vec<u8> = (0..256).map(|i| (i * 13 + 5) as u8).collect();
        let text: Vec<u8> = (0..256).map(|i| (i * 7 + 1) as u8).collect();
        let mut taken = 0;
        for key_len in [16, 24, 32] {
            let ks = KeySchedule::new(&vec![0x6b; key_len]).unwrap();
            let Some(fused) = F::new(&ks) else {
                crate::skip(format_args!("{}: not available on this CPU", F::NAME));
                return;
            };
            for aad_len in 0..=256usize {
                for len in 0..=256usize {
                    for direction in [Direction::Encrypt, Direction::Decrypt] {
                        let what =
                            format!("{} AES-{} aad {aad_len} len {len}", F::NAME, key_len * 8);
                        let aad = &aad[..aad_len];
                        let mut d1 = text[..len].to_vec();
                        let Some(tag) =
                            fused.crypt_whole(&iv, aad, Text::InPlace(&mut d1), direction)
                        else {
                            assert!(d1 == text[..len], "{what}: data touched");
                            continue;
                        };
                        taken += 1;
                        let mut d2 = text[..len].to_vec();
                        let mut state = State::start(&fused, &iv);
                        state.aad(&fused, aad).unwrap();
                        state.crypt(&fused, &mut d2, direction).unwrap();
                        assert_eq!(tag, state.finish(&fused), "{what}: tag");
                        assert!(d1 == d2, "{what}: data");
                    }
                }
            }
        }
        eprintln!("{}: short path taken {taken} times", F::NAME);
    }

    /// The (table, bitserial) strategies of a key: the plainest pair, the
    /// reference the fused kernels are checked against.
    pub(crate) fn reference_pair(ks: &KeySchedule) -> (Table, BitSerial) {
        let table = Table::new(ks).unwrap();
        let mut h = [[0u8; 16]];
        table.encrypt_blocks(&mut h);
        (table, BitSerial::new(&h[0]).unwrap())
    }

    /// Whole messages of each of `lengths` in buffers at several offsets
    /// from a 64-byte boundary, in place and from each offset into each
    /// other (uninitialized memory), against the general path over a
    /// (table, bitserial) pair: for the kernels whose long messages are
    /// split by the buffer's address.
    #[cfg(target_arch = "x86_64")]
    #[allow(unsafe_code)]
    pub(crate) fn messages_at_offsets<F: Kernel>(
        ks: &KeySchedule,
        fused: &F,
        lengths: &[usize],
        what: &str,
    ) {
        let (table, ghash) = reference_pair(ks);
        let pair = Pair {
            aes: &table,
            ghash: &ghash,
        };
        let (iv, aad) = ([0x21u8; 12], b"header");
        for &n in lengths {
            let text: Vec<u8> = (0..n).map(|i| (i * 3 + 1) as u8).collect();
            for direction in [Direction::Encrypt, Direction::Decrypt] {
                let mut expected = text.clone();
                let mut state = State::start(&pair, &iv);
                state.aad(&pair, aad).unwrap();
                state.crypt(&pair, &mut expected, direction).unwrap();
                let tag = state.finish(&pair);
                let mut src = vec![0u8; n + 128];
                let mut dst = vec![MaybeUninit::<u8>::uninit(); n + 128];
                let (s0, d0) = (src.as_ptr().align_offset(64), dst.as_ptr().align_offset(64));
                for from in [0, 5, 16, 32, 48] {
                    let what =
                        format!("{what} AES-{} {n} bytes at +{from}", ks.rounds() * 32 - 192);
                    let buf = &mut src[s0 + from..s0 + from + n];
                    buf.copy_from_slice(&text);
                    let got = fused.crypt_whole(&iv, aad, Text::InPlace(&mut *buf), direction);
                    assert_eq!(got, Some(tag), "{what}: tag in place");
                    assert!(*buf == expected[..], "{what}: data in place");
                    buf.copy_from_slice(&text);
                    for to in [0, 7, 16, 48] {
                        let out = &mut dst[d0 + to..d0 + to + n];
                        let text = Text::Into {
                            input: buf,
                            out: &mut *out,
                        };
                        let got = fused.crypt_whole(&iv, aad, text, direction);
                        assert_eq!(got, Some(tag), "{what} into +{to}: tag");
                        // SAFETY: `crypt_whole` returned the tag, so it
                        // wrote every byte of `out`.
                        let written: Vec<u8> =
                            out.iter().map(|b| unsafe { b.assume_init() }).collect();
                        assert!(written == expected, "{what} into +{to}: data");
                    }
                }
            }
        }
    }

    /// A fused kernel's whole-message path (`crypt_whole`, in place and,
    /// where it takes the message, out of place) against the
    /// general path (`State` over a (table, bitserial) pair of the same
    /// key) for every message length up to 2100 bytes that is not far
    /// from a 256-byte boundary — so 0 to 8 batches of the wide loops, in
    /// pairs and alone, each followed by every kind of rest — and AAD
    /// lengths around the short paths' limits, both directions. `into`:
    /// whether the kernel has an out-of-place path for long messages,
    /// tried on uninitialized memory (read back with one `unsafe`).
    #[allow(unsafe_code)]
    pub(crate) fn whole_messages_match<F: FusedKernel>(
        ks: &KeySchedule,
        fused: &F,
        what: &str,
        into: bool,
    ) {
        let iv = [0x9au8; 12];
        let aad: Vec<u8> = (0..300).map(|i| (i * 11 + 2) as u8).collect();
        let text: Vec<u8> = (0..8300).map(|i| (i * 5 + 9) as u8).collect();
        let (table, ghash) = reference_pair(ks);
        let pair = Pair {
            aes: &table,
            ghash: &ghash,
        };
        // Past 2100 bytes: lengths that `vaes-avx512` runs in two spans
        // of its stored powers (the second of whole groups or ending in
        // a partial one), then messages whose counts cross a multiple
        // of 256
        // (block 254, count 0x100, lies at byte 4048; count 0x200 at
        // 8144), where the counter blocks' fast paths hand over to the
        // slow ones. Then every count of whole blocks past the last whole
        // chunk, with and without a partial block, below and above the
        // length where `vaes-avx512` aligns its loop (its blocks before
        // the loop, `spare_blocks`).
        let lengths = (0..=2100usize)
            .filter(|n| {
                let r = n % 256;
                r <= 20 || r >= 236 || (124..=132).contains(&r) || n % 37 == 0
            })
            .chain([2200, 2609, 3072, 3073, 3088])
            .chain([3840, 3856, 4047, 4096, 4111, 4352, 8192, 8209, 8300])
            .chain((1..16).flat_map(|q| [512 + 16 * q, 512 + 16 * q + 9, 4096 + 16 * q + 3]));
        let mut taken_into = 0;
        for n in lengths {
            for aad_len in [0, 1, 16, 17, 255, 300] {
                let aad = &aad[..aad_len];
                for direction in [Direction::Encrypt, Direction::Decrypt] {
                    let what = format!("{what} {} rounds aad {aad_len} len {n}", ks.rounds());
                    let mut expected = text[..n].to_vec();
                    let mut state = State::start(&pair, &iv);
                    state.aad(&pair, aad).unwrap();
                    state.crypt(&pair, &mut expected, direction).unwrap();
                    let tag = state.finish(&pair);

                    let mut d = text[..n].to_vec();
                    let t1 = fused.crypt_whole(&iv, aad, Text::InPlace(&mut d), direction);
                    assert_eq!(t1, Some(tag), "{what}: tag in place");
                    assert!(d == expected, "{what}: data in place");

                    // Uninitialized memory, as a binding's new object is.
                    let mut out = Vec::<u8>::with_capacity(n);
                    let spare = &mut out.spare_capacity_mut()[..n];
                    let into = Text::Into {
                        input: &text[..n],
                        out: &mut *spare,
                    };
                    if let Some(t2) = fused.crypt_whole(&iv, aad, into, direction) {
                        taken_into += 1;
                        assert_eq!(t2, tag, "{what}: tag out of place");
                        let written: Vec<u8> = spare
                            .iter()
                            // SAFETY: `crypt_whole` returned its tag,
                            // so it wrote every byte.
                            .map(|b| unsafe { b.assume_init() })
                            .collect();
                        assert!(written == expected, "{what}: data out of place");
                    }
                }
            }
        }
        assert_eq!(taken_into > 0, into, "{what}: messages taken out of place");
    }

    /// `ni-clmul`'s and `vaes-avx2`'s whole-message paths, in place and
    /// out of place; `vaes-avx512`'s test is in its module (both product
    /// forms).
    #[test]
    fn whole_messages_match_the_general_path() {
        for key_len in [16, 24, 32] {
            let ks = KeySchedule::new(&vec![0x3e; key_len]).unwrap();
            match NiClmul::new(&ks) {
                Some(fused) => whole_messages_match(&ks, &fused, NiClmul::NAME, true),
                None => crate::skip(format_args!("{}: not available on this CPU", NiClmul::NAME)),
            }
            match VaesAvx2::new(&ks) {
                Some(fused) => whole_messages_match(&ks, &fused, VaesAvx2::NAME, true),
                None => crate::skip(format_args!(
                    "{}: not available on this CPU",
                    VaesAvx2::NAME
                )),
            }
        }
    }

    #[test]
    fn short_paths_match_the_general_path() {
        short_path_matches_the_general_path::<VaesAvx512>();
        short_path_matches_the_general_path::<VaesAvx2>();
        short_path_matches_the_general_path::<NiClmul>();
        short_path_matches_the_general_path::<AesPmull>();
    }

    #[test]
    fn ni_clmul_agrees_with_the_pair() {
        agrees_with_the_pair::<NiClmul>();
    }

    #[test]
    fn vaes_avx2_agrees_with_the_pair() {
        agrees_with_the_pair::<VaesAvx2>();
    }
}
