//! The key type, [`AesGcm`]: its constructors, the checks every call
//! makes (lengths and the tag rules, [`TagRules`]), the one-shot calls, and
//! the one match per call on the implementation the key holds
//! (`AesGcm::run`), after which the code is monomorphized for the choice.
//! The other calls add their own `impl AesGcm` beside this file (`stream`,
//! `iv_prefix`, `out_of_place`, `batch`, `precomputed`, `deprecated`);
//! [`Gmac`] is the key with an empty message.

use std::sync::Arc;

use zeroize::Zeroize;

use super::class::{Class, Fused};
use super::kernel::{Direction, FacePair, FusedKernel, Kernel, KernelOp, Pair, Text};
use super::kernels;
use super::parallel::{Pool, Split};
use super::state::{MAX_AAD_LEN, MAX_MESSAGE_LEN, State, TAG_LENGTHS, check_iv, verify_or_wipe};
use crate::Error;
use crate::aes::{self, Block, BlockCipher, Cipher, KeySchedule};
use crate::ctr::face::{self, FaceCipher};
use crate::ghash::{self, GhashKey};

/// An authentication tag of 4 to 16 bytes.
#[derive(Clone, Copy)]
pub struct Tag {
    bytes: Block,
    len: usize,
}

/// The tag's bytes alone: the rest of the block it was cut from is not
/// the caller's to see.
impl core::fmt::Debug for Tag {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_tuple("Tag").field(&self.as_bytes()).finish()
    }
}

impl Tag {
    /// The tag's bytes.
    #[inline]
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.len]
    }

    /// Writes the tag into `slot`, which must be exactly as long (as
    /// `slot.copy_from_slice(tag.as_bytes())`, which panics otherwise). A
    /// 16-byte tag is one store: a copy whose length is known only at run
    /// time is a call to `memcpy`, which costs a short message a sixth of
    /// its time.
    #[inline(always)]
    pub fn copy_to(&self, slot: &mut [u8]) {
        copy_tag(&self.bytes, self.len, slot);
    }

    pub(super) fn truncate(bytes: Block, len: usize) -> Tag {
        Tag { bytes, len }
    }
}

impl AsRef<[u8]> for Tag {
    fn as_ref(&self) -> &[u8] {
        self.as_bytes()
    }
}

/// Writes the first `len` bytes of `bytes` into `slot`, which must be
/// exactly as long (as `slot.copy_from_slice(&bytes[..len])`, which panics
/// otherwise): a 16-byte tag is one store, where a copy whose length is
/// known only at run time is a call to `memcpy`.
#[inline(always)]
pub(super) fn copy_tag(bytes: &Block, len: usize, slot: &mut [u8]) {
    /// Out of line: inlined, LLVM sees that both arms copy the same
    /// bytes and merges them back into one `memcpy` of the run-time
    /// length.
    #[inline(never)]
    fn copy_shorter(slot: &mut [u8], tag: &[u8]) {
        slot.copy_from_slice(tag);
    }

    match <&mut Block>::try_from(&mut *slot) {
        Ok(full) if len == 16 => *full = *bytes,
        _ => copy_shorter(slot, &bytes[..len]),
    }
}

/// Which tag lengths a key accepts, by the length of the IV.
///
/// The GCM spec (§2.1) lets a tag be any length from 64 to 128 bits (aekit
/// takes whole bytes, as §2.1 permits), and requires 128-bit tags whenever
/// the IV is not 96 bits (the IV is then hashed into Y_0). That is the
/// default of every constructor, checked call by call: the spec puts the
/// second rule on the key (one that ever takes another IV length takes
/// 128-bit tags for every message), which binding the key to 16-byte tags
/// ([`AesGcm::with_tag_length`]) enforces. NIST SP 800-38D also allows 32-bit tags
/// and short tags with any IV; interoperability and test suites
/// (Wycheproof) need them, behind [`AesGcm::with_relaxed_tag_rules`], a
/// name that says what it gives up.
///
/// | IV        | [`TagRules::Spec`] (default) | [`TagRules::Relaxed`] |
/// |-----------|------------------------------|------------------------|
/// | 12 bytes  | 8–16 bytes                   | 4, 8–16 bytes          |
/// | any other | 16 bytes                     | 4, 8–16 bytes          |
///
/// The spec also requires that one key keep one tag length: bind it with
/// [`AesGcm::with_tag_length`], after which a call with any other length,
/// a tag truncated in transit among them, is refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TagRules {
    /// The GCM spec's rules (§2.1): 64 to 128 bits, and 128 bits with any
    /// IV that is not 96 bits.
    Spec,
    /// Every length of [`TAG_LENGTHS`] with any IV: the spec's 64 to 128
    /// bits and SP 800-38D's 32.
    Relaxed,
}

/// Tag lengths as bit sets (bit n: n bytes allowed), so that checking a
/// length is one shift and one test.
const fn lengths_mask(lengths: &[usize]) -> u32 {
    let mut mask = 0;
    let mut i = 0;
    while i < lengths.len() {
        mask |= 1 << lengths[i];
        i += 1;
    }
    mask
}
const RELAXED_LENGTHS: u32 = lengths_mask(&TAG_LENGTHS);
const SPEC_LENGTHS_96: u32 = lengths_mask(&[8, 9, 10, 11, 12, 13, 14, 15, 16]);
const SPEC_LENGTHS_OTHER: u32 = 1 << 16;

/// Whether the bit set `allowed` has `tag_len`.
#[inline(always)]
fn allows(allowed: u32, tag_len: usize) -> bool {
    tag_len < 32 && (allowed >> tag_len) & 1 == 1
}

impl TagRules {
    /// Whether a tag of `tag_len` bytes may go with an IV of `iv_len`
    /// bytes: `Ok`, or the precise reason ([`Error::InvalidTagLength`],
    /// [`Error::TagShorterThan64Bits`], [`Error::TagMustBe128Bits`]).
    #[inline(always)]
    pub fn check(self, tag_len: usize, iv_len: usize) -> Result<(), Error> {
        if allows(self.lengths(iv_len == 12), tag_len) {
            Ok(())
        } else {
            Err(TagRules::refusal(tag_len, iv_len))
        }
    }

    /// The lengths these rules allow, as a bit set, with a 12-byte IV or
    /// with any other.
    #[inline(always)]
    const fn lengths(self, iv_96: bool) -> u32 {
        match (self, iv_96) {
            (TagRules::Relaxed, _) => RELAXED_LENGTHS,
            (TagRules::Spec, true) => SPEC_LENGTHS_96,
            (TagRules::Spec, false) => SPEC_LENGTHS_OTHER,
        }
    }

    /// Why a length was refused: not a GCM length at all, then the rules.
    #[cold]
    fn refusal(tag_len: usize, iv_len: usize) -> Error {
        if tag_len >= 32 || (RELAXED_LENGTHS >> tag_len) & 1 == 0 {
            Error::InvalidTagLength(tag_len)
        } else if tag_len < 8 {
            Error::TagShorterThan64Bits(tag_len)
        } else {
            Error::TagMustBe128Bits { iv_len, tag_len }
        }
    }
}

/// AES-GCM with a key of 16, 24 or 32 bytes, in the implementation chosen at
/// construction. Key material and tables are zeroized when it is dropped.
///
/// Tags follow the GCM spec's rules ([`TagRules::Spec`]) unless the key is
/// built [`with_relaxed_tag_rules`](AesGcm::with_relaxed_tag_rules), and
/// take one length only once it is bound
/// [`with_tag_length`](AesGcm::with_tag_length).
///
/// | to | call |
/// | --- | --- |
/// | make a key | [`new`](AesGcm::new) (the fastest constant-time implementation here) |
/// | encrypt or decrypt in place, tag apart | [`encrypt_in_place_detached`](AesGcm::encrypt_in_place_detached), [`decrypt_in_place_detached`](AesGcm::decrypt_in_place_detached) |
/// | … from one buffer into another | [`encrypt_detached_into`](AesGcm::encrypt_detached_into) and its `_uninit` form for memory not yet written |
/// | … into a new `Vec`, tag appended | [`encrypt`](AesGcm::encrypt), [`decrypt`](AesGcm::decrypt) |
/// | many messages in one call | [`encrypt_batch`](AesGcm::encrypt_batch), [`decrypt_batch`](AesGcm::decrypt_batch) |
/// | a message in pieces | [`encryptor`](AesGcm::encryptor), [`decryptor`](AesGcm::decryptor) |
/// | settings | [`with_tag_length`](AesGcm::with_tag_length), [`with_relaxed_tag_rules`](AesGcm::with_relaxed_tag_rules), [`with_pool`](AesGcm::with_pool) (long messages on many cores) |
/// | measure one implementation | [`with_class`](AesGcm::with_class), [`fused`](AesGcm::fused), [`with`](AesGcm::with) and [`with_face`](AesGcm::with_face) over [`strategies`](crate::strategies) |
///
/// The [`aead`] crate's traits are implemented by [`Aes128Gcm`](super::Aes128Gcm)
/// and [`Aes256Gcm`](super::Aes256Gcm), fixed-size keys over this type.
pub struct AesGcm {
    inner: Inner,
    tag_rules: TagRules,
    /// The one tag length this key takes, once bound.
    tag_length: Option<usize>,
    /// The tag lengths a call may use, with a 12-byte IV and with any
    /// other: the rules and the bound length in one bit set each, so that
    /// a call checks its length by one shift and one test.
    allowed_tags: [u32; 2],
    /// The threads long messages are split across, once set.
    pool: Option<Arc<Pool>>,
}

/// The implementation a key runs on: the enum matched once per call, on
/// an explicit one-byte tag (a load and a compare). Rejected: the niche
/// in `Pair`'s fields as the tag, which a match decodes with a
/// subtraction and a conditional move.
#[repr(u8)]
enum Inner {
    Pair {
        aes: Cipher,
        ghash: ghash::Key,
    },
    /// A pair whose counter mode is FACE; `aes` is `table` or `fixslice`.
    Face {
        aes: FaceAes,
        ghash: ghash::Key,
        variant: face::Variant,
    },
    VaesAvx512(Box<kernels::VaesAvx512>),
    VaesAvx2(Box<kernels::VaesAvx2>),
    NiClmul(Box<kernels::NiClmul>),
    AesPmull(Box<kernels::AesPmull>),
}

impl AesGcm {
    /// AES-GCM in the fastest constant-time implementation this CPU runs
    /// ([`Class::best`]): the best fused kernel where there is one,
    /// otherwise the pair ([`aes::Strategy::best`], [`ghash::Strategy::best`]).
    /// `AEKIT_KERNEL` caps the choice (see [`Class`]).
    pub fn new(key: &[u8]) -> Result<AesGcm, Error> {
        AesGcm::with_class(key, Class::best()?)
    }

    /// AES-GCM in the class given; [`Error::StrategyUnavailable`] where
    /// this CPU cannot run it.
    pub fn with_class(key: &[u8], class: Class) -> Result<AesGcm, Error> {
        match class {
            Class::Fused(fused) => AesGcm::fused(key, fused),
            Class::Pair => AesGcm::with(key, aes::Strategy::best(), ghash::Strategy::best()),
            Class::Portable => {
                AesGcm::with(key, aes::Strategy::Fixslice, ghash::Strategy::Karatsuba)
            }
        }
    }

    /// AES-GCM on the fused kernel given.
    pub fn fused(key: &[u8], kernel: Fused) -> Result<AesGcm, Error> {
        fn boxed<F: FusedKernel>(keys: &KeySchedule) -> Result<Box<F>, Error> {
            F::new(keys)
                .map(Box::new)
                .ok_or(Error::StrategyUnavailable(F::NAME))
        }
        let keys = KeySchedule::new(key)?;
        let inner = match kernel {
            Fused::VaesAvx512 => Inner::VaesAvx512(boxed(&keys)?),
            Fused::VaesAvx2 => Inner::VaesAvx2(boxed(&keys)?),
            Fused::NiClmul => Inner::NiClmul(boxed(&keys)?),
            Fused::AesPmull => Inner::AesPmull(boxed(&keys)?),
        };
        Ok(AesGcm::from_inner(inner))
    }

    /// AES-GCM in the strategies given, constant-time or not.
    pub fn with(
        key: &[u8],
        aes_strategy: aes::Strategy,
        ghash_strategy: ghash::Strategy,
    ) -> Result<AesGcm, Error> {
        let (aes, ghash) = pair(key, aes_strategy, ghash_strategy)?;
        Ok(AesGcm::from_inner(Inner::Pair { aes, ghash }))
    }

    /// AES-GCM in the strategies given, with counter mode by FACE
    /// `variant` (`ctr::face`). FACE applies to the `table` and `fixslice`
    /// AES strategies; others fail with [`Error::Unsupported`].
    pub fn with_face(
        key: &[u8],
        aes_strategy: aes::Strategy,
        ghash_strategy: ghash::Strategy,
        variant: face::Variant,
    ) -> Result<AesGcm, Error> {
        let (aes, ghash) = pair(key, aes_strategy, ghash_strategy)?;
        let aes = match aes {
            Cipher::Table(a) => FaceAes::Table(a),
            Cipher::Fixslice(a) => FaceAes::Fixslice(a),
            Cipher::Ni(_) | Cipher::Vaes(_) | Cipher::Armv8(_) => {
                return Err(Error::Unsupported("FACE on this AES strategy"));
            }
        };
        Ok(AesGcm::from_inner(Inner::Face {
            aes,
            ghash,
            variant,
        }))
    }

    /// Every constructor ends here: the GCM spec's tag rules by default.
    fn from_inner(inner: Inner) -> AesGcm {
        AesGcm {
            inner,
            tag_rules: TagRules::Spec,
            tag_length: None,
            allowed_tags: [SPEC_LENGTHS_96, SPEC_LENGTHS_OTHER],
            pool: None,
        }
    }

    /// `allowed_tags` again after the rules or the bound changed.
    fn settle_tags(mut self) -> AesGcm {
        let bound = self.tag_length.map_or(u32::MAX, |len| 1 << len);
        self.allowed_tags = [true, false].map(|iv_96| self.tag_rules.lengths(iv_96) & bound);
        self
    }

    /// This key with NIST SP 800-38D's tag lengths beside the GCM spec's
    /// (see [`TagRules`]): 4-byte tags, and tags shorter than 16 bytes with
    /// IVs that are not 12 bytes. For interoperability and test
    /// suites; a 4-byte tag is forged with probability 2^-32 per attempt,
    /// less with long messages.
    ///
    /// ```
    /// # fn main() -> Result<(), aekit::Error> {
    /// let key = [1u8; 16];
    /// let spec = aekit::AesGcm::new(&key)?;
    /// assert_eq!(
    ///     spec.encrypt(&[0; 12], b"", b"m", 4),
    ///     Err(aekit::Error::TagShorterThan64Bits(4))
    /// );
    /// let relaxed = aekit::AesGcm::new(&key)?.with_relaxed_tag_rules();
    /// let sealed = relaxed.encrypt(&[0; 12], b"", b"m", 4)?;
    /// assert_eq!(sealed.len(), 1 + 4);
    /// # Ok(()) }
    /// ```
    pub fn with_relaxed_tag_rules(mut self) -> AesGcm {
        self.tag_rules = TagRules::Relaxed;
        self.settle_tags()
    }

    /// The tag rules this key applies.
    pub fn tag_rules(&self) -> TagRules {
        self.tag_rules
    }

    /// This key bound to tags of `tag_len` bytes, as the GCM spec requires
    /// (§2.1: "the tag length t must be fixed for any fixed value of the
    /// key"). Every later call with another length fails with
    /// [`Error::TagLengthMismatch`] before anything is computed: a
    /// decryption whose tag was truncated in transit is refused, where an
    /// unbound key would check the shorter tag. The length must pass the
    /// key's [`TagRules`] with a 12-byte IV (calls with other IVs still
    /// apply the rules for theirs).
    ///
    /// ```
    /// # fn main() -> Result<(), aekit::Error> {
    /// let gcm = aekit::AesGcm::new(&[7u8; 16])?.with_tag_length(16)?;
    /// let mut msg = *b"attack at dawn";
    /// let tag = gcm.encrypt_in_place_detached(&[0; 12], b"", &mut msg, 16)?;
    /// // A tag cut to 12 bytes on the way is refused, not checked.
    /// assert_eq!(
    ///     gcm.decrypt_in_place_detached(&[0; 12], b"", &mut msg.clone(), &tag.as_bytes()[..12]),
    ///     Err(aekit::Error::TagLengthMismatch { bound: 16, given: 12 })
    /// );
    /// gcm.decrypt_in_place_detached(&[0; 12], b"", &mut msg, tag.as_bytes())?;
    /// assert_eq!(&msg, b"attack at dawn");
    /// # Ok(()) }
    /// ```
    pub fn with_tag_length(mut self, tag_len: usize) -> Result<AesGcm, Error> {
        self.tag_rules.check(tag_len, 12)?;
        self.tag_length = Some(tag_len);
        Ok(self.settle_tags())
    }

    /// The tag length this key is bound to, if it is
    /// ([`with_tag_length`](Self::with_tag_length)).
    pub fn tag_length(&self) -> Option<usize> {
        self.tag_length
    }

    /// This key with every message of the pool's
    /// [threshold](Pool::threshold) or longer split across the pool's
    /// threads: the same ciphertext and tag, in a fraction of the time on
    /// an otherwise idle machine. It applies to the in-place, out-of-place
    /// and `Vec` calls; shorter messages stay on the calling thread. Where
    /// the cores are busy with other work, a worker that is not scheduled
    /// holds up the message it took a slice of, so leave it unset there.
    ///
    /// ```
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use std::sync::Arc;
    /// let pool = Arc::new(aekit::gcm::Pool::new(0)?); // one thread per core
    /// let gcm = aekit::AesGcm::new(&[7u8; 32])?.with_pool(Arc::clone(&pool));
    /// let mut big = vec![0u8; 1 << 20];
    /// let tag = gcm.encrypt_in_place_detached(&[0; 12], b"", &mut big, 16)?;
    /// gcm.decrypt_in_place_detached(&[0; 12], b"", &mut big, tag.as_bytes())?;
    /// # Ok(()) }
    /// ```
    pub fn with_pool(mut self, pool: impl Into<Arc<Pool>>) -> AesGcm {
        self.pool = Some(pool.into());
        self
    }

    /// The pool this key splits long messages across, if one is set
    /// ([`with_pool`](Self::with_pool)).
    pub fn pool(&self) -> Option<&Pool> {
        self.pool.as_deref()
    }

    /// Checks a tag length against this key's bound length and rules for
    /// an IV of `iv_len` bytes: the one place every entry point asks.
    #[inline(always)]
    pub(super) fn check_tag(&self, tag_len: usize, iv_len: usize) -> Result<(), Error> {
        if allows(self.allowed_tags[(iv_len != 12) as usize], tag_len) {
            Ok(())
        } else {
            Err(self.tag_refusal(tag_len, iv_len))
        }
    }

    /// Why [`check_tag`](Self::check_tag) refused a length: the bound
    /// length first, then the rules.
    #[cold]
    fn tag_refusal(&self, tag_len: usize, iv_len: usize) -> Error {
        match self.tag_length {
            Some(bound) if bound != tag_len => Error::TagLengthMismatch {
                bound,
                given: tag_len,
            },
            _ => TagRules::refusal(tag_len, iv_len),
        }
    }

    /// The checks of a whole-message call, before anything is computed:
    /// the tag length under this key's rules, then the IV, associated data
    /// and message lengths ([`check_lengths`]).
    #[inline(always)]
    pub(super) fn check_call(
        &self,
        iv: &[u8],
        aad: &[u8],
        buf: &[u8],
        tag_len: usize,
    ) -> Result<(), Error> {
        self.check_tag(tag_len, iv.len())?;
        check_lengths(iv, aad, buf)
    }

    /// The FACE variant of this key's counter mode, or `None` for plain.
    pub fn face_variant(&self) -> Option<face::Variant> {
        match &self.inner {
            Inner::Face { variant, .. } => Some(*variant),
            _ => None,
        }
    }

    /// The (AES, GHASH) strategies this key runs on (for a fused kernel,
    /// the strategies whose keys it holds).
    pub fn strategies(&self) -> (aes::Strategy, ghash::Strategy) {
        match &self.inner {
            Inner::Pair { aes, ghash } => (aes.strategy(), ghash.strategy()),
            Inner::Face { aes, ghash, .. } => (aes.strategy(), ghash.strategy()),
            Inner::VaesAvx512(_) => Fused::VaesAvx512.strategies(),
            Inner::VaesAvx2(_) => Fused::VaesAvx2.strategies(),
            Inner::NiClmul(_) => Fused::NiClmul.strategies(),
            Inner::AesPmull(_) => Fused::AesPmull.strategies(),
        }
    }

    /// The fused kernel this key runs on, or `None` for a plain pair.
    pub fn fused_kernel(&self) -> Option<Fused> {
        match &self.inner {
            Inner::Pair { .. } | Inner::Face { .. } => None,
            Inner::VaesAvx512(_) => Some(Fused::VaesAvx512),
            Inner::VaesAvx2(_) => Some(Fused::VaesAvx2),
            Inner::NiClmul(_) => Some(Fused::NiClmul),
            Inner::AesPmull(_) => Some(Fused::AesPmull),
        }
    }

    /// A one-line description: `fused vaes-avx512`, `ni + clmul`, or
    /// `fixslice/rd2+ + karatsuba` for FACE counter mode.
    pub fn implementation(&self) -> String {
        let (a, g) = self.strategies();
        match (self.fused_kernel(), self.face_variant()) {
            (Some(f), _) => format!("fused {}", f.name()),
            (None, Some(v)) => format!("{}/{} + {}", a.name(), v.name(), g.name()),
            (None, None) => format!("{} + {}", a.name(), g.name()),
        }
    }

    /// Encrypts `buf` in place and returns a tag of `tag_len` bytes.
    /// The IV may have any length of at least one byte; 12 bytes is the fast
    /// and recommended one. It must never repeat under one key. The tag
    /// length must pass this key's [`TagRules`] (by default 8 to 16 bytes,
    /// and 16 with an IV that is not 12 bytes) and be the key's bound
    /// length, if it has one ([`with_tag_length`](Self::with_tag_length)).
    #[inline]
    pub fn encrypt_in_place_detached(
        &self,
        iv: &[u8],
        aad: &[u8],
        buf: &mut [u8],
        tag_len: usize,
    ) -> Result<Tag, Error> {
        self.seal_in_place(self.pool(), iv, aad, buf, tag_len)
    }

    /// Verifies `tag` and decrypts `buf` in place. If the tag does not
    /// verify, `buf` is zeroed and [`Error::AuthenticationFailed`]
    /// returned: no unverified plaintext is ever released. (A call refused
    /// for its arguments leaves `buf` as it was.) The tag is compared in constant time.
    pub fn decrypt_in_place_detached(
        &self,
        iv: &[u8],
        aad: &[u8],
        buf: &mut [u8],
        tag: &[u8],
    ) -> Result<(), Error> {
        self.open_in_place(self.pool(), iv, aad, buf, tag)
    }

    /// [`encrypt_in_place_detached`](Self::encrypt_in_place_detached),
    /// split across `pool` where it splits a message this long.
    ///
    /// Inlined into the caller up to the kernel's whole-message path
    /// ([`one_pass`](Self::one_pass)), so that the [`Tag`] is made where it
    /// is used; every other message goes through the out-of-line
    /// [`seal_block`](Self::seal_block). Returned through memory, the tag
    /// would be read back by callers that move it whole with loads
    /// straddling the stores that wrote it (16 + 8 bytes written, 8 + 16
    /// read), which the core does not forward: the load waits for the
    /// stores to reach the cache, and with them the whole previous call's.
    #[inline(always)]
    pub(super) fn seal_in_place(
        &self,
        pool: Option<&Pool>,
        iv: &[u8],
        aad: &[u8],
        buf: &mut [u8],
        tag_len: usize,
    ) -> Result<Tag, Error> {
        self.check_call(iv, aad, buf, tag_len)?;
        let text = Text::InPlace(&mut *buf);
        if let Some(full) = self.one_pass(pool, iv, aad, text, Direction::Encrypt) {
            return Ok(Tag::truncate(full, tag_len));
        }
        let full = self.seal_block(pool, iv, aad, buf, tag_len)?;
        Ok(Tag::truncate(full, tag_len))
    }

    /// The checks and the encryption of [`seal_in_place`](Self::seal_in_place)
    /// for a message its inlined part does not take (split across `pool`,
    /// an IV other than 96 bits, a key without a whole-message path),
    /// returning the full tag: one 16-byte value, which a caller reads
    /// back whole.
    #[inline(never)]
    pub(super) fn seal_block(
        &self,
        pool: Option<&Pool>,
        iv: &[u8],
        aad: &[u8],
        buf: &mut [u8],
        tag_len: usize,
    ) -> Result<Block, Error> {
        self.check_call(iv, aad, buf, tag_len)?;
        self.in_place(pool, iv, aad, buf, Direction::Encrypt)
    }

    /// Encrypts `buf` in place under a 96-bit IV and writes the tag into
    /// `slot`, as long as the tag is to be: [`seal_in_place`](Self::seal_in_place)
    /// for a caller inside aekit that holds the tag's place (ESP's ICV),
    /// inlined whole, so that the kernel's tag reaches `slot` by one copy.
    /// Never split across the key's pool: ESP's keys have none.
    #[inline(always)]
    pub(crate) fn seal_to_slot(
        &self,
        iv: &[u8; 12],
        aad: &[u8],
        buf: &mut [u8],
        slot: &mut [u8],
    ) -> Result<(), Error> {
        self.seal_in_place(None, iv, aad, buf, slot.len())?
            .copy_to(slot);
        Ok(())
    }

    /// [`decrypt_in_place_detached`](Self::decrypt_in_place_detached),
    /// split across `pool` where it splits a message this long.
    #[inline(always)]
    pub(crate) fn open_in_place(
        &self,
        pool: Option<&Pool>,
        iv: &[u8],
        aad: &[u8],
        buf: &mut [u8],
        tag: &[u8],
    ) -> Result<(), Error> {
        self.check_call(iv, aad, buf, tag.len())?;
        // The tag checked where the kernel op's result holds it, not
        // moved out of the `Result` first (`verify_or_wipe`).
        match &mut self.in_place(pool, iv, aad, &mut *buf, Direction::Decrypt) {
            Ok(full) => verify_or_wipe(full, tag, buf),
            Err(e) => Err(*e),
        }
    }

    /// Encrypts or decrypts `buf` in place (its lengths checked), split
    /// across `pool` where it splits a message this long, and returns the
    /// full 16-byte tag.
    #[inline(always)]
    fn in_place(
        &self,
        pool: Option<&Pool>,
        iv: &[u8],
        aad: &[u8],
        buf: &mut [u8],
        direction: Direction,
    ) -> Result<Block, Error> {
        if let Some(tag) = self.one_pass(pool, iv, aad, Text::InPlace(&mut *buf), direction) {
            return Ok(tag);
        }
        match pool.filter(|pool| pool.splits(buf.len())) {
            None => self.run(OneShot {
                iv,
                aad,
                buf,
                direction,
            }),
            Some(pool) => self.split(pool, iv, aad, Text::InPlace(buf), direction),
        }
    }

    /// `text` encrypted or decrypted, in place or into its output, by this
    /// key's kernel's short path or else its whole-message path, and the
    /// full tag; `None`, nothing touched, where those paths do not take the
    /// message: `pool` splits it, its IV is not 96 bits, or the key has no
    /// such paths (the strategy pairs and FACE). The one test of every
    /// one-message call before its out-of-line paths.
    #[inline(always)]
    pub(super) fn one_pass(
        &self,
        pool: Option<&Pool>,
        iv: &[u8],
        aad: &[u8],
        mut text: Text<'_>,
        direction: Direction,
    ) -> Option<Block> {
        if pool.is_some_and(|pool| pool.splits(text.len())) {
            return None;
        }
        let iv = <&[u8; 12]>::try_from(iv).ok()?;
        if let Some(short) = self.short(text.len())
            && let Some(tag) = short.crypt_text(iv, aad, &mut text, direction)
        {
            return Some(tag);
        }
        self.whole(iv, aad, text, direction)
    }

    /// This key's kernel's short whole-message path for a message of
    /// `len` bytes, where it has one ([`kernels::Short`]): the one-message
    /// calls take it before any kernel op is built.
    #[inline(always)]
    pub(super) fn short(&self, len: usize) -> Option<kernels::Short<'_>> {
        match &self.inner {
            Inner::NiClmul(k) => Some(k.short()),
            Inner::VaesAvx2(k) => k.short(len),
            Inner::VaesAvx512(k) => k.short(len),
            _ => None,
        }
    }

    /// Whether this key's one-message path keeps the AES units as busy
    /// as its multi-buffer lanes (`vaes-avx512`, `own_powers`): there a
    /// caller that must frame and gather messages to batch them (ESP's
    /// bursts) gains less from the lanes than the gathering costs.
    pub(crate) fn whole_messages_match_lanes(&self) -> bool {
        matches!(&self.inner, Inner::VaesAvx512(_))
    }

    /// This key's fused kernel's whole-message path for a 96-bit IV, for a
    /// message its short path does not take (all of them for `aes-pmull`,
    /// which has no [`kernels::Short`]), called without building a kernel
    /// op; `None` for the pairs, which go through the op.
    #[inline(always)]
    pub(super) fn whole(
        &self,
        iv: &[u8; 12],
        aad: &[u8],
        text: Text<'_>,
        direction: Direction,
    ) -> Option<Block> {
        match &self.inner {
            Inner::NiClmul(k) => Some(k.whole_text(iv, aad, text, direction)),
            Inner::VaesAvx2(k) => Some(k.whole_text(iv, aad, text, direction)),
            Inner::VaesAvx512(k) => Some(k.whole_text(iv, aad, text, direction)),
            Inner::AesPmull(k) => Some(k.whole_text(iv, aad, text, direction)),
            Inner::Pair { .. } | Inner::Face { .. } => None,
        }
    }

    /// [`Split`] run out of line, so that the one-thread calls stay small.
    #[inline(never)]
    pub(super) fn split(
        &self,
        pool: &Pool,
        iv: &[u8],
        aad: &[u8],
        text: Text<'_>,
        direction: Direction,
    ) -> Result<Block, Error> {
        self.run(Split {
            pool,
            iv,
            aad,
            text,
            direction,
        })
    }

    /// Runs `op` on this key's implementation: the one match per call.
    pub(super) fn run<O: KernelOp>(&self, op: O) -> O::Output {
        match &self.inner {
            Inner::Pair { aes, ghash } => match aes {
                Cipher::Table(a) => with_ghash(Plain(&**a), ghash, op),
                Cipher::Fixslice(a) => with_ghash(Plain(&**a), ghash, op),
                Cipher::Ni(a) => with_ghash(Plain(&**a), ghash, op),
                Cipher::Vaes(a) => with_ghash(Plain(&**a), ghash, op),
                Cipher::Armv8(a) => with_ghash(Plain(&**a), ghash, op),
            },
            Inner::Face {
                aes,
                ghash,
                variant,
            } => match aes {
                FaceAes::Table(a) => with_ghash(WithFace(&**a, *variant), ghash, op),
                FaceAes::Fixslice(a) => with_ghash(WithFace(&**a, *variant), ghash, op),
            },
            Inner::VaesAvx512(k) => op.run(&**k),
            Inner::VaesAvx2(k) => op.run(&**k),
            Inner::NiClmul(k) => op.run(&**k),
            Inner::AesPmull(k) => op.run(&**k),
        }
    }
}

/// The AES key and the GHASH key (H = E(K, 0^128)) of a strategy pair.
fn pair(
    key: &[u8],
    aes_strategy: aes::Strategy,
    ghash_strategy: ghash::Strategy,
) -> Result<(Cipher, ghash::Key), Error> {
    let aes = Cipher::new(aes_strategy, key)?;
    let mut h = [[0u8; 16]];
    aes.encrypt_blocks(&mut h);
    let ghash = ghash::Key::new(ghash_strategy, &h[0]);
    h.zeroize();
    Ok((aes, ghash?))
}

/// Checks the lengths of a one-shot call before anything is computed.
pub(super) fn check_lengths(iv: &[u8], aad: &[u8], buf: &[u8]) -> Result<(), Error> {
    check_iv(iv)?;
    check_data(aad, buf)
}

/// Checks the associated data's and the message's lengths.
pub(super) fn check_data(aad: &[u8], buf: &[u8]) -> Result<(), Error> {
    if aad.len() as u64 > MAX_AAD_LEN {
        return Err(Error::AadTooLong);
    }
    if buf.len() as u64 > MAX_MESSAGE_LEN {
        return Err(Error::MessageTooLong);
    }
    Ok(())
}

/// The AES key of a FACE implementation: a strategy FACE applies to.
enum FaceAes {
    Table(Box<aes::table::Table>),
    Fixslice(Box<aes::fixslice::Fixslice>),
}

impl FaceAes {
    fn strategy(&self) -> aes::Strategy {
        match self {
            FaceAes::Table(_) => aes::Strategy::Table,
            FaceAes::Fixslice(_) => aes::Strategy::Fixslice,
        }
    }
}

/// The AES half of a kernel, waiting for its GHASH half: [`with_ghash`]
/// supplies it and runs the op on the kernel the two make.
trait AesHalf {
    fn run<G: GhashKey, O: KernelOp>(self, ghash: &G, op: O) -> O::Output;
}

/// Plain counter mode: the kernel is a [`Pair`].
struct Plain<'a, A>(&'a A);

impl<A: BlockCipher> AesHalf for Plain<'_, A> {
    fn run<G: GhashKey, O: KernelOp>(self, ghash: &G, op: O) -> O::Output {
        op.run(&Pair { aes: self.0, ghash })
    }
}

/// FACE counter mode: the kernel is a [`FacePair`].
struct WithFace<'a, A>(&'a A, face::Variant);

impl<A: FaceCipher> AesHalf for WithFace<'_, A> {
    fn run<G: GhashKey, O: KernelOp>(self, ghash: &G, op: O) -> O::Output {
        op.run(&FacePair {
            aes: self.0,
            ghash,
            variant: self.1,
        })
    }
}

/// The second half of the pair match: the GHASH strategy.
fn with_ghash<H: AesHalf, O: KernelOp>(aes: H, ghash: &ghash::Key, op: O) -> O::Output {
    use ghash::Key;
    match ghash {
        Key::BitSerial(g) => aes.run(&**g, op),
        Key::Table1(g) => aes.run(&**g, op),
        Key::Table4(g) => aes.run(&**g, op),
        Key::Table8(g) => aes.run(&**g, op),
        Key::Shoup4(g) => aes.run(&**g, op),
        Key::Shoup8(g) => aes.run(&**g, op),
        Key::Karatsuba(g) => aes.run(&**g, op),
        Key::Clmul(g) => aes.run(&**g, op),
        Key::Vclmul(g) => aes.run(&**g, op),
        Key::Pmull(g) => aes.run(&**g, op),
    }
}

/// A whole message in one call; returns the full 16-byte tag.
pub(super) struct OneShot<'a> {
    pub(super) iv: &'a [u8],
    pub(super) aad: &'a [u8],
    pub(super) buf: &'a mut [u8],
    pub(super) direction: Direction,
}

impl KernelOp for OneShot<'_> {
    type Output = Result<Block, Error>;
    fn run<K: Kernel>(self, kernel: &K) -> Self::Output {
        // A kernel's whole-message path first (see `Kernel::crypt_whole`).
        if let Ok(iv) = <&[u8; 12]>::try_from(self.iv)
            && let Some(tag) =
                kernel.crypt_whole(iv, self.aad, Text::InPlace(&mut *self.buf), self.direction)
        {
            return Ok(tag);
        }
        self.blockwise(kernel)
    }
}

impl OneShot<'_> {
    /// The general path, block by block through a [`State`]: out of line,
    /// so that a whole-message path taken does not set up its frame.
    #[inline(never)]
    fn blockwise<K: Kernel>(self, kernel: &K) -> Result<Block, Error> {
        let mut state = State::start(kernel, self.iv);
        state.aad(kernel, self.aad)?;
        state.crypt(kernel, self.buf, self.direction)?;
        Ok(state.finish(kernel))
    }
}

/// GMAC: GCM with an empty message, authenticating associated data only.
pub struct Gmac {
    gcm: AesGcm,
}

impl Gmac {
    /// GMAC in the fastest constant-time strategies this CPU runs.
    pub fn new(key: &[u8]) -> Result<Gmac, Error> {
        Ok(Gmac {
            gcm: AesGcm::new(key)?,
        })
    }

    /// GMAC in the strategies given.
    pub fn with(
        key: &[u8],
        aes_strategy: aes::Strategy,
        ghash_strategy: ghash::Strategy,
    ) -> Result<Gmac, Error> {
        Ok(Gmac {
            gcm: AesGcm::with(key, aes_strategy, ghash_strategy)?,
        })
    }

    /// The tag of `aad` under `iv`, `tag_len` bytes long (by default 8 to
    /// 16, and 16 with an IV that is not 12 bytes; see [`TagRules`]).
    /// Inlined, as [`AesGcm::encrypt_in_place_detached`] is, so that the
    /// tag is made where it is used.
    #[inline]
    pub fn compute(&self, iv: &[u8], aad: &[u8], tag_len: usize) -> Result<Tag, Error> {
        self.gcm
            .encrypt_in_place_detached(iv, aad, &mut [], tag_len)
    }

    /// Checks `tag` against `aad` under `iv`, in constant time.
    pub fn verify(&self, iv: &[u8], aad: &[u8], tag: &[u8]) -> Result<(), Error> {
        self.gcm.decrypt_in_place_detached(iv, aad, &mut [], tag)
    }

    /// The (AES, GHASH) strategies this key runs on.
    pub fn strategies(&self) -> (aes::Strategy, ghash::Strategy) {
        self.gcm.strategies()
    }

    /// This key with SP 800-38D's tag lengths instead of the GCM spec's;
    /// see [`AesGcm::with_relaxed_tag_rules`].
    pub fn with_relaxed_tag_rules(self) -> Gmac {
        Gmac {
            gcm: self.gcm.with_relaxed_tag_rules(),
        }
    }
}

impl From<AesGcm> for Gmac {
    /// GMAC on the implementation and tag rules `gcm` was built with.
    fn from(gcm: AesGcm) -> Gmac {
        Gmac { gcm }
    }
}
