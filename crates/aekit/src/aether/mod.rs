//! AETHER: an AEGIS-like authenticated encryption scheme built for
//! hardware (256-bit key, 128-bit nonce, 128-bit tag, nine 128-bit words of
//! state), computed by any of several implementations.
//!
//! The scheme is the one of Sakamoto, Banik, Caforio, Ishikawa, Isobe and
//! Rahman, *Design of an Ultra-High Throughput and Low-Energy Authenticated
//! Encryption Scheme*, with every choice the paper leaves open (byte order,
//! padding, the garbled constant Z1, the lost round-update figure) pinned by
//! the project's `docs/AETHER.md`. No official test vectors exist; aekit's own
//! known answers live in `vectors/aether-kat.json`.
//!
//! # Known weakness: the associated-data/message boundary can be shifted
//!
//! As published, AETHER absorbs no lengths and separates the associated
//! data from the message by nothing. So for any `Y` and `Z`, encrypting
//! `M = pad(Y) ‖ Z` under associated data `AD` feeds the state the very same
//! blocks as `M' = Z` under `AD' = pad(AD) ‖ Y`: the tail of the first
//! ciphertext with the first tag is a valid encryption of `Z` under `AD'`,
//! **a forgery**. (`pad` appends `0x80` and zeros up to a multiple of 48
//! bytes.) aekit implements the scheme as published and keeps a test that
//! performs this forgery. Uses that **fix the associated data** for a key —
//! empty associated data, as in chunked file encryption, or one constant
//! header — are not affected; do not use AETHER where an attacker may choose
//! how a byte string is split between associated data and message.
//!
//! # Implementations
//!
//! | token       | file           | constant-time | how                                          |
//! |-------------|----------------|---------------|----------------------------------------------|
//! | `reference` | `reference.rs` | no            | nibble arrays, S-box table: the oracle        |
//! | `portable`  | `portable.rs`  | yes           | 128-bit integers, S-box as a Boolean circuit  |
//! | `avx2`      | `avx2.rs`      | yes           | one nibble per byte, `vpshufb` S-box          |
//! | `avx512`    | `avx512.rs`    | yes           | the same with `vpermb`, `vprold`, `vpternlogd`|
//! | `neon`      | `neon.rs`      | yes           | one nibble per byte, `TBL` S-box (AArch64)   |
//!
//! The mode (initialization, padding, the short last block, finalization,
//! tag check) is written here over the small `Engine` trait, and once more
//! in `batch.rs` over the bitsliced engines, which run many messages in
//! lanes (a batch of a key of any strategy may run there, where the CPU
//! has AVX2 or AVX-512); the strategy is chosen once, when the key is set
//! up, and each call dispatches on it once.
//!
//! ```
//! # fn main() -> Result<(), aekit::Error> {
//! let key = [7u8; 32];
//! let nonce = [1u8; 16]; // never repeat a nonce under one key
//! let aether = aekit::aether::Aether::new(&key)?;
//! let mut buf = *b"attack at dawn";
//! let tag = aether.encrypt_in_place_detached(&nonce, b"", &mut buf)?;
//! aether.decrypt_in_place_detached(&nonce, b"", &mut buf, &tag)?;
//! assert_eq!(&buf, b"attack at dawn");
//! # Ok(()) }
//! ```

/// AETHER's cryptanalysis (S-box properties, branch numbers, trails):
/// measurement code, not part of the encryption API, compiled only with
/// the crate feature `measurement`.
#[cfg(feature = "measurement")]
pub mod analysis;
#[allow(unsafe_code)] // AVX2 intrinsics; every unsafe block carries a SAFETY line.
mod avx2;
#[allow(unsafe_code)] // AVX-512 intrinsics; every unsafe block carries a SAFETY line.
mod avx512;
mod batch;
mod bitsliced;
#[allow(unsafe_code)]
// calls into AVX2-enabled functions; every unsafe block carries a SAFETY line.
mod bitsliced_avx2;
#[allow(unsafe_code)]
mod bitsliced_avx512;
mod engine;
#[allow(unsafe_code)] // NEON loads and stores; every unsafe block carries a SAFETY line.
mod neon;
mod portable;
mod reference;
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[allow(unsafe_code)] // `opaque`'s empty `asm!`, with its SAFETY line.
mod vector;

use zeroize::{Zeroize, ZeroizeOnDrop};

use crate::Error;
use crate::error::split_tag;
use crate::secret::{self, wipe};

pub use batch::AetherMessage;
#[allow(deprecated)]
pub use batch::BatchMessage;
pub use engine::BLOCK_LEN;
use engine::{Engine, State, Word};

/// Key length in bytes (`K0 ‖ K1`).
pub const KEY_LEN: usize = 32;
/// Nonce length in bytes.
pub const NONCE_LEN: usize = 16;
/// Tag length in bytes.
pub const TAG_LEN: usize = 16;
/// Z0, Z1, Z2, made of SHA-512's first four round constants, K[0] to
/// K[3], as the spec pins them: Z0 = K[0] ‖ K[1], Z1 = K[2] ‖ K[3], Z2 = K[1] ‖ K[0].
const Z0: Word = hex16(0x428a2f98d728ae22, 0x7137449123ef65cd);
const Z1: Word = hex16(0xb5c0fbcfec4d3b2f, 0xe9b5dba58189dbbc);
const Z2: Word = hex16(0x7137449123ef65cd, 0x428a2f98d728ae22);

const fn hex16(hi: u64, lo: u64) -> Word {
    (((hi as u128) << 64) | lo as u128).to_be_bytes()
}

fn xor_into(a: &mut Word, b: &Word) {
    a.iter_mut().zip(b).for_each(|(x, y)| *x ^= y);
}

fn xor(a: &Word, b: &Word) -> Word {
    core::array::from_fn(|i| a[i] ^ b[i])
}

/// The two key halves, wiped on drop.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
struct Key {
    k0: Word,
    k1: Word,
}

/// Spec step 1: load, 20 updates with (Z0, Z1, Z2), key feed-forward.
fn init<E: Engine>(e: E, key: &Key, nonce: &Word) -> State {
    let (k0, k1) = (&key.k0, &key.k1);
    let mut s = [
        Z1,
        *k0,
        xor(nonce, k0),
        [0; 16],
        Z0,
        [0; 16],
        *nonce,
        *k1,
        Z2,
    ];
    e.absorb_repeated(&mut s, &[Z0, Z1, Z2], 20);
    for (i, k) in [k0, k0, k0, k0, k1, k0, k1, k1, k1].into_iter().enumerate() {
        xor_into(&mut s[i], k);
    }
    s
}

/// Spec step 2 (and the absorption half of step 3): every block of pad(x).
fn absorb_padded<E: Engine>(e: E, s: &mut State, x: &[u8]) {
    let full = x.len() / BLOCK_LEN * BLOCK_LEN;
    if full > 0 {
        e.absorb(s, &x[..full]);
    }
    let mut last = pad_last(&x[full..]);
    e.absorb(s, &last);
    wipe(&mut last);
}

/// The last block of pad(x): the `r < 48` leftover bytes, 0x80, zeros.
fn pad_last(rest: &[u8]) -> [u8; BLOCK_LEN] {
    let mut last = [0u8; BLOCK_LEN];
    last[..rest.len()].copy_from_slice(rest);
    last[rest.len()] = 0x80;
    last
}

/// Spec step 4: feed-forward, 20 updates with (K0, Z0, K1), feed-forward,
/// XOR of all nine words.
fn finalize<E: Engine>(e: E, key: &Key, s: &mut State) -> Word {
    let (k0, k1) = (&key.k0, &key.k1);
    for (i, k) in [k0, k0, k1, k1, k0, k0, k1, k0, k1].into_iter().enumerate() {
        xor_into(&mut s[i], k);
    }
    let mut fin = [*k0, Z0, *k1];
    e.absorb_repeated(s, &fin, 20);
    fin.zeroize();
    for (i, k) in [k1, k0, k0, k0, k1, k0, k0, k1, k1].into_iter().enumerate() {
        xor_into(&mut s[i], k);
    }
    let mut t = [0u8; 16];
    for w in s.iter() {
        xor_into(&mut t, w);
    }
    wipe(s.as_flattened_mut());
    t
}

/// ENC(K, N, AD, M): encrypts `buf` in place, returns the tag.
fn seal<E: Engine>(e: E, key: &Key, nonce: &Word, ad: &[u8], buf: &mut [u8]) -> Word {
    let mut s = init(e, key, nonce);
    absorb_padded(e, &mut s, ad);
    let full = buf.len() / BLOCK_LEN * BLOCK_LEN;
    let (whole, rest) = buf.split_at_mut(full);
    if full > 0 {
        e.encrypt(&mut s, whole);
    }
    // The last block of pad(M): encrypt it whole, keep the first r bytes.
    let mut last = pad_last(rest);
    e.encrypt(&mut s, &mut last);
    rest.copy_from_slice(&last[..rest.len()]);
    wipe(&mut last);
    finalize(e, key, &mut s)
}

/// DEC(K, N, AD, C) up to the tag: decrypts `buf` in place and returns the
/// tag the ciphertext should carry. The caller compares and wipes.
fn open<E: Engine>(e: E, key: &Key, nonce: &Word, ad: &[u8], buf: &mut [u8]) -> Word {
    let mut s = init(e, key, nonce);
    absorb_padded(e, &mut s, ad);
    let full = buf.len() / BLOCK_LEN * BLOCK_LEN;
    let (whole, rest) = buf.split_at_mut(full);
    if full > 0 {
        e.decrypt(&mut s, whole);
    }
    // Short (or empty) last block: recover r plaintext bytes, rebuild the
    // padded plaintext block, absorb it.
    let mut ks = e.keystream(&s);
    rest.iter_mut().zip(&ks).for_each(|(b, k)| *b ^= k);
    let mut last = pad_last(rest);
    e.absorb(&mut s, &last);
    wipe(&mut last);
    wipe(&mut ks);
    finalize(e, key, &mut s)
}

/// The AETHER implementations of aekit, as data.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Strategy {
    /// Nibble arrays and an S-box table: the oracle, not constant-time.
    Reference,
    /// 128-bit integer arithmetic, S-box as a Boolean circuit: constant-time, any CPU.
    Portable,
    /// One nibble per byte in 256-bit registers, `vpshufb` S-box (x86-64 AVX2).
    Avx2,
    /// The same with AVX-512 VBMI (`vpermb`), `vprold` and `vpternlogd`.
    Avx512,
    /// One nibble per byte in pairs of 128-bit registers, `TBL` S-box (AArch64 NEON).
    Neon,
}

impl Strategy {
    /// Every strategy, available on this CPU or not.
    pub const ALL: [Strategy; 5] = [
        Strategy::Reference,
        Strategy::Portable,
        Strategy::Avx2,
        Strategy::Avx512,
        Strategy::Neon,
    ];

    /// The strategy's token, used in names everywhere (CLI, benches, tests).
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Reference => "reference",
            Strategy::Portable => "portable",
            Strategy::Avx2 => "avx2",
            Strategy::Avx512 => "avx512",
            Strategy::Neon => "neon",
        }
    }

    /// Looks a strategy up by its token.
    pub fn from_name(name: &str) -> Option<Strategy> {
        Strategy::ALL.into_iter().find(|s| s.name() == name)
    }

    /// Whether this CPU can run the strategy.
    pub fn is_available(self) -> bool {
        match self {
            Strategy::Reference | Strategy::Portable => true,
            Strategy::Avx2 => avx2::Avx2::detect().is_some(),
            Strategy::Avx512 => avx512::Avx512::detect().is_some(),
            Strategy::Neon => neon::Neon::detect().is_some(),
        }
    }

    /// Whether no branch and no memory index depends on the key or the data.
    pub fn is_constant_time(self) -> bool {
        !matches!(self, Strategy::Reference)
    }

    /// The fastest constant-time strategy this CPU runs. The order of
    /// preference is here and nowhere else.
    pub fn best() -> Strategy {
        [Strategy::Avx512, Strategy::Avx2, Strategy::Neon]
            .into_iter()
            .find(|s| s.is_available())
            .unwrap_or(Strategy::Portable)
    }
}

/// The engine a key runs on; a SIMD variant holds the proof that its CPU
/// features were detected.
#[derive(Clone, Copy)]
enum Imp {
    Reference(reference::Reference),
    Portable(portable::Portable),
    Avx2(avx2::Avx2),
    Avx512(avx512::Avx512),
    Neon(neon::Neon),
}

/// A computation that needs the concrete engine type.
trait EngineOp {
    type Output;
    fn run<E: Engine>(self, e: E) -> Self::Output;
}

impl Imp {
    /// The one place the strategy is matched: once per call.
    fn dispatch<O: EngineOp>(self, op: O) -> O::Output {
        match self {
            Imp::Reference(e) => op.run(e),
            Imp::Portable(e) => op.run(e),
            Imp::Avx2(e) => op.run(e),
            Imp::Avx512(e) => op.run(e),
            Imp::Neon(e) => op.run(e),
        }
    }
}

/// AETHER with a 32-byte key, in the implementation chosen at construction.
/// The key is zeroized when it is dropped.
///
/// **Read the module documentation's warning**: as published, AETHER lets
/// an attacker move bytes between the associated data and the message
/// without changing the tag. Fix the associated data per key (for example,
/// always empty) and the shift is impossible.
pub struct Aether {
    key: Key,
    imp: Imp,
}

impl Aether {
    /// AETHER in the fastest constant-time implementation this CPU runs
    /// ([`Strategy::best`]).
    pub fn new(key: &[u8]) -> Result<Aether, Error> {
        Aether::with(key, Strategy::best())
    }

    /// AETHER in the implementation given, constant-time or not.
    /// Fails with [`Error::InvalidKeyLength`] unless the key is 32 bytes, and
    /// with [`Error::StrategyUnavailable`] if this CPU cannot run `strategy`.
    pub fn with(key: &[u8], strategy: Strategy) -> Result<Aether, Error> {
        if key.len() != KEY_LEN {
            return Err(Error::InvalidKeyLength(key.len()));
        }
        let unavailable = Error::StrategyUnavailable(strategy.name());
        let imp = match strategy {
            Strategy::Reference => Imp::Reference(reference::Reference),
            Strategy::Portable => Imp::Portable(portable::Portable),
            Strategy::Avx2 => Imp::Avx2(avx2::Avx2::detect().ok_or(unavailable)?),
            Strategy::Avx512 => Imp::Avx512(avx512::Avx512::detect().ok_or(unavailable)?),
            Strategy::Neon => Imp::Neon(neon::Neon::detect().ok_or(unavailable)?),
        };
        let mut k0 = [0u8; 16];
        let mut k1 = [0u8; 16];
        k0.copy_from_slice(&key[..16]);
        k1.copy_from_slice(&key[16..]);
        Ok(Aether {
            key: Key { k0, k1 },
            imp,
        })
    }

    /// The implementation this key runs on.
    pub fn strategy(&self) -> Strategy {
        match self.imp {
            Imp::Reference(_) => Strategy::Reference,
            Imp::Portable(_) => Strategy::Portable,
            Imp::Avx2(_) => Strategy::Avx2,
            Imp::Avx512(_) => Strategy::Avx512,
            Imp::Neon(_) => Strategy::Neon,
        }
    }

    /// Encrypts `buf` in place and returns the 16-byte tag. The nonce is 16
    /// bytes and must never repeat under one key. See the type's warning
    /// about associated data.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidNonceLength`] for a nonce of another length; `buf`
    /// is then untouched.
    pub fn encrypt_in_place_detached(
        &self,
        nonce: &[u8],
        ad: &[u8],
        buf: &mut [u8],
    ) -> Result<[u8; TAG_LEN], Error> {
        let nonce = check_nonce(nonce)?;
        Ok(self.imp.dispatch(Seal {
            key: &self.key,
            nonce: &nonce,
            ad,
            buf,
        }))
    }

    /// Verifies `tag` and decrypts `buf` in place. If the tag does not
    /// verify (a tag of other than 16 bytes never does), `buf` is zeroed
    /// and [`Error::AuthenticationFailed`] returned: no unverified
    /// plaintext is ever released. The tag is compared in constant time.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidNonceLength`] for a nonce of another length (`buf`
    /// untouched); [`Error::AuthenticationFailed`] as above.
    pub fn decrypt_in_place_detached(
        &self,
        nonce: &[u8],
        ad: &[u8],
        buf: &mut [u8],
        tag: &[u8],
    ) -> Result<(), Error> {
        let nonce = check_nonce(nonce)?;
        let mut expected = self.imp.dispatch(Open {
            key: &self.key,
            nonce: &nonce,
            ad,
            buf: &mut *buf,
        });
        // A tag of the wrong length compares unequal, in constant time in
        // the tag's contents.
        secret::verify_or_wipe(&mut expected, TAG_LEN, tag, buf)
    }

    /// Encrypts `plaintext` and returns ciphertext ‖ tag; the errors of
    /// [`encrypt_in_place_detached`](Self::encrypt_in_place_detached).
    pub fn encrypt(&self, nonce: &[u8], ad: &[u8], plaintext: &[u8]) -> Result<Vec<u8>, Error> {
        // Checked before the plaintext is copied: a refused call leaves no
        // copy behind.
        check_nonce(nonce)?;
        let mut out = Vec::with_capacity(plaintext.len() + TAG_LEN);
        out.extend_from_slice(plaintext);
        let tag = self.encrypt_in_place_detached(nonce, ad, &mut out)?;
        out.extend_from_slice(&tag);
        Ok(out)
    }

    /// Verifies and decrypts ciphertext ‖ tag and returns the plaintext, or
    /// an error and nothing: [`Error::InvalidNonceLength`], or
    /// [`Error::AuthenticationFailed`] (also for input shorter than a tag).
    pub fn decrypt(
        &self,
        nonce: &[u8],
        ad: &[u8],
        ciphertext_and_tag: &[u8],
    ) -> Result<Vec<u8>, Error> {
        check_nonce(nonce)?;
        let (ciphertext, tag) = split_tag(ciphertext_and_tag, TAG_LEN)?;
        let mut out = ciphertext.to_vec();
        self.decrypt_in_place_detached(nonce, ad, &mut out, tag)?;
        Ok(out)
    }
}

fn check_nonce(nonce: &[u8]) -> Result<Word, Error> {
    nonce
        .try_into()
        .map_err(|_| Error::InvalidNonceLength(nonce.len()))
}

struct Seal<'a> {
    key: &'a Key,
    nonce: &'a Word,
    ad: &'a [u8],
    buf: &'a mut [u8],
}

impl EngineOp for Seal<'_> {
    type Output = Word;
    fn run<E: Engine>(self, e: E) -> Word {
        seal(e, self.key, self.nonce, self.ad, self.buf)
    }
}

struct Open<'a> {
    key: &'a Key,
    nonce: &'a Word,
    ad: &'a [u8],
    buf: &'a mut [u8],
}

impl EngineOp for Open<'_> {
    type Output = Word;
    fn run<E: Engine>(self, e: E) -> Word {
        open(e, self.key, self.nonce, self.ad, self.buf)
    }
}

/// The inner function F on one word, in the implementation given: exposed
/// so the known answers for F can be checked on every implementation.
/// Returns `None` when this CPU cannot run `strategy`.
pub fn inner_f(strategy: Strategy, word: &[u8; 16]) -> Option<[u8; 16]> {
    // F(x) is the first keystream word of the state with S0 = x and
    // S1 = S4 = 0: F(S0 ⊕ S1) ⊕ S4.
    struct OneF<'a>(&'a Word);
    impl EngineOp for OneF<'_> {
        type Output = Word;
        fn run<E: Engine>(self, e: E) -> Word {
            let mut s: State = [[0; 16]; 9];
            s[0] = *self.0;
            let ks = e.keystream(&s);
            let mut w = [0u8; 16];
            w.copy_from_slice(&ks[..16]);
            w
        }
    }
    let imp = match strategy {
        Strategy::Reference => Imp::Reference(reference::Reference),
        Strategy::Portable => Imp::Portable(portable::Portable),
        Strategy::Avx2 => Imp::Avx2(avx2::Avx2::detect()?),
        Strategy::Avx512 => Imp::Avx512(avx512::Avx512::detect()?),
        Strategy::Neon => Imp::Neon(neon::Neon::detect()?),
    };
    Some(imp.dispatch(OneF(word)))
}
