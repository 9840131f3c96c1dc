//! On-line AES-GCM: associated data and message arrive in pieces of any
//! size, lengths unknown in advance (spec §2: GCM is on-line). Each call
//! dispatches on the implementation once and continues the shared
//! [`State`]; the output equals the one-shot API's for every split.
//!
//! Fixed parts of the associated data can be processed in advance (spec
//! §6): GHASH reads A before anything the IV determines, so the state after
//! a fixed prefix of A is the same for every message. [`AadPrefix`] is that
//! state, `Clone`, not yet bound to an IV; each message starts from it under
//! its own IV. The encryptor and decryptor themselves are not `Clone`:
//! their state holds the IV's counter, and two messages continued from one
//! clone would share keystream.

use core::mem::MaybeUninit;

use super::aes_gcm::{AesGcm, Tag};
use super::kernel::{Direction, Kernel, KernelOp};
use super::state::{State, check_iv, verify_or_wipe};
use crate::Error;
use crate::aes::Block;

/// An on-line encryption in progress; see [`AesGcm::encryptor`].
pub struct Encryptor<'k>(pub(super) Online<'k>);

impl<'k> Encryptor<'k> {
    pub(super) fn new(gcm: &'k AesGcm, iv: &[u8]) -> Result<Encryptor<'k>, Error> {
        Online::new(gcm, iv).map(Encryptor)
    }

    /// Feeds associated data. All of it must come before the first
    /// [`update`](Self::update) with a non-empty message piece.
    pub fn update_aad(&mut self, aad: &[u8]) -> Result<(), Error> {
        self.0.step(Step::Aad(aad)).map(drop)
    }

    /// Encrypts the next piece of the message in place.
    pub fn update(&mut self, buf: &mut [u8]) -> Result<(), Error> {
        self.0.step(Step::Crypt(buf, Direction::Encrypt)).map(drop)
    }

    /// Ends the message and returns its tag, `tag_len` bytes long (checked
    /// against the key's [`TagRules`](super::TagRules) for this IV, and
    /// its bound length, [`AesGcm::with_tag_length`]). A length they
    /// refuse fails here, once every piece is encrypted, and the message
    /// can then get no tag: a caller whose tag length varies checks it
    /// first ([`TagRules::check`](super::TagRules::check)).
    pub fn finish(mut self, tag_len: usize) -> Result<Tag, Error> {
        self.0.check_tag(tag_len)?;
        Ok(Tag::truncate(self.0.step(Step::Finish)?, tag_len))
    }
}

/// An on-line decryption in progress; see [`AesGcm::decryptor`].
///
/// **Plaintext comes out of [`update`](Self::update) before it is
/// authenticated.** Treat it as untrusted, and discard it, until
/// [`finish`](Self::finish) returns `Ok`.
pub struct Decryptor<'k>(pub(super) Online<'k>);

impl<'k> Decryptor<'k> {
    pub(super) fn new(gcm: &'k AesGcm, iv: &[u8]) -> Result<Decryptor<'k>, Error> {
        Online::new(gcm, iv).map(Decryptor)
    }

    /// Feeds associated data, all of it before the first message piece.
    pub fn update_aad(&mut self, aad: &[u8]) -> Result<(), Error> {
        self.0.step(Step::Aad(aad)).map(drop)
    }

    /// Decrypts the next piece of ciphertext in place. The plaintext is
    /// **not yet authenticated**.
    pub fn update(&mut self, buf: &mut [u8]) -> Result<(), Error> {
        self.0.step(Step::Crypt(buf, Direction::Decrypt)).map(drop)
    }

    /// Ends the message and checks its tag in constant time.
    pub fn finish(mut self, tag: &[u8]) -> Result<(), Error> {
        self.0.check_tag(tag.len())?;
        let mut computed = self.0.step(Step::Finish)?;
        // The plaintext is the caller's already: nothing here to wipe.
        verify_or_wipe(&mut computed, tag, &mut [])
    }
}

/// Associated data hashed before the IV is known: a fixed prefix of A
/// (a protocol header that never changes, say) processed once and reused
/// for every message; see [`AesGcm::aad_prefix`].
///
/// It is `Clone`: clone it, add the per-message associated data, and start
/// an encryptor or decryptor under the message's own IV. The result is
/// byte for byte that of the one-shot API with the whole associated data.
/// It holds the GHASH value of the prefix (a function of H, kept as
/// secret), zeroized on drop in every copy.
#[derive(Clone)]
pub struct AadPrefix<'k> {
    gcm: &'k AesGcm,
    state: State,
}

impl<'k> AadPrefix<'k> {
    pub(super) fn new(gcm: &'k AesGcm, aad: &[u8]) -> Result<AadPrefix<'k>, Error> {
        let mut prefix = AadPrefix {
            gcm,
            // No IV yet: Y_0, E(K, Y_0) and the counter come with
            // `encryptor` or `decryptor`.
            state: State::with_tag_mask(&[0; 16]),
        };
        prefix.update_aad(aad)?;
        Ok(prefix)
    }

    /// Hashes more associated data onto the prefix.
    pub fn update_aad(&mut self, aad: &[u8]) -> Result<(), Error> {
        self.gcm
            .run(Continue {
                state: &mut self.state,
                step: Step::Aad(aad),
            })
            .map(drop)
    }

    /// Starts encrypting a message under `iv` from a copy of this prefix;
    /// the prefix stays as it is, for the next message. Further associated
    /// data may follow on the encryptor. The IV must never repeat under the
    /// key, prefix or not.
    pub fn encryptor(&self, iv: &[u8]) -> Result<Encryptor<'k>, Error> {
        Online::from_prefix(self, iv).map(Encryptor)
    }

    /// Starts decrypting a message under `iv` from a copy of this prefix.
    /// As with [`AesGcm::decryptor`], plaintext comes out before the tag
    /// is checked.
    pub fn decryptor(&self, iv: &[u8]) -> Result<Decryptor<'k>, Error> {
        Online::from_prefix(self, iv).map(Decryptor)
    }
}

/// A key and one message's state, shared by both directions.
pub(super) struct Online<'k> {
    gcm: &'k AesGcm,
    state: State,
    /// The IV's length, for the tag rules at `finish`.
    iv_len: usize,
}

impl<'k> Online<'k> {
    fn new(gcm: &'k AesGcm, iv: &[u8]) -> Result<Online<'k>, Error> {
        check_iv(iv)?;
        Ok(Online {
            gcm,
            state: gcm.run(Start { iv }),
            iv_len: iv.len(),
        })
    }

    /// A message whose state the caller began (under an IV whose Y_0 it
    /// computed, `iv_len` bytes long).
    pub(super) fn with_state(gcm: &'k AesGcm, state: State, iv_len: usize) -> Online<'k> {
        Online { gcm, state, iv_len }
    }

    /// A message under `iv` that starts from a copy of `prefix`.
    fn from_prefix(prefix: &AadPrefix<'k>, iv: &[u8]) -> Result<Online<'k>, Error> {
        check_iv(iv)?;
        let mut state = prefix.state.clone();
        prefix.gcm.run(Bind {
            state: &mut state,
            iv,
        });
        Ok(Online {
            gcm: prefix.gcm,
            state,
            iv_len: iv.len(),
        })
    }

    /// The key's tag rules for this message's IV.
    fn check_tag(&self, tag_len: usize) -> Result<(), Error> {
        self.gcm.check_tag(tag_len, self.iv_len)
    }

    /// The next piece of the message from `input` into `out` (as long;
    /// every byte written unless it fails: `gcm/out_of_place.rs` has the
    /// public calls).
    pub(super) fn crypt_into(
        &mut self,
        input: &[u8],
        out: &mut [MaybeUninit<u8>],
        direction: Direction,
    ) -> Result<(), Error> {
        self.step(Step::CryptInto(input, out, direction)).map(drop)
    }

    /// Runs one step on this key's implementation (one dispatch).
    fn step(&mut self, step: Step<'_>) -> Result<Block, Error> {
        self.gcm.run(Continue {
            state: &mut self.state,
            step,
        })
    }
}

/// Begins a message: derives Y_0 from the IV.
struct Start<'a> {
    iv: &'a [u8],
}

impl KernelOp for Start<'_> {
    type Output = State;
    fn run<K: Kernel>(self, kernel: &K) -> State {
        State::start(kernel, self.iv)
    }
}

/// Binds a state that has seen associated data only to its IV.
struct Bind<'s, 'a> {
    state: &'s mut State,
    iv: &'a [u8],
}

impl KernelOp for Bind<'_, '_> {
    type Output = ();
    fn run<K: Kernel>(self, kernel: &K) {
        self.state.set_iv(kernel, self.iv);
    }
}

/// One step of a message in progress.
enum Step<'a> {
    Aad(&'a [u8]),
    Crypt(&'a mut [u8], Direction),
    CryptInto(&'a [u8], &'a mut [MaybeUninit<u8>], Direction),
    Finish,
}

struct Continue<'s, 'a> {
    state: &'s mut State,
    step: Step<'a>,
}

impl KernelOp for Continue<'_, '_> {
    /// The full tag after `Finish`, zeros after the other steps.
    type Output = Result<Block, Error>;
    fn run<K: Kernel>(self, kernel: &K) -> Self::Output {
        match self.step {
            Step::Aad(aad) => self.state.aad(kernel, aad).map(|()| [0; 16]),
            Step::Crypt(buf, direction) => {
                self.state.crypt(kernel, buf, direction).map(|()| [0; 16])
            }
            Step::CryptInto(input, out, direction) => self
                .state
                .crypt_into(kernel, input, out, direction)
                .map(|()| [0; 16]),
            Step::Finish => Ok(self.state.finish(kernel)),
        }
    }
}

impl AesGcm {
    /// Starts an on-line encryption, for messages whose length is not known
    /// in advance: feed associated data, then the message, in pieces of any
    /// size. The result equals the one-shot API's for every split.
    pub fn encryptor(&self, iv: &[u8]) -> Result<Encryptor<'_>, Error> {
        Encryptor::new(self, iv)
    }

    /// Starts an on-line decryption. **It releases plaintext before the tag
    /// is checked**: nothing it returns may be acted on until
    /// [`Decryptor::finish`] succeeds. Prefer the one-shot API when the
    /// message fits in memory.
    pub fn decryptor(&self, iv: &[u8]) -> Result<Decryptor<'_>, Error> {
        Decryptor::new(self, iv)
    }

    /// Hashes a fixed prefix of the associated data once, for many
    /// messages (spec §6, Table 2: fixed parts of A processed in advance). Clone the
    /// [`AadPrefix`] or start messages from it directly; each gets its own
    /// IV.
    ///
    /// ```
    /// # fn main() -> Result<(), aekit::Error> {
    /// let gcm = aekit::AesGcm::new(&[3u8; 16])?;
    /// let header = gcm.aad_prefix(b"protocol v2, fixed header")?; // hashed once
    /// for n in 0u32..3 {
    ///     let mut iv = [0u8; 12];
    ///     iv[8..].copy_from_slice(&n.to_be_bytes());
    ///     let mut prefix = header.clone();
    ///     prefix.update_aad(&n.to_be_bytes())?; // per-message associated data
    ///     let mut enc = prefix.encryptor(&iv)?;
    ///     let mut msg = *b"payload";
    ///     enc.update(&mut msg)?;
    ///     let tag = enc.finish(16)?;
    ///     let aad = [&b"protocol v2, fixed header"[..], &n.to_be_bytes()].concat();
    ///     let mut again = *b"payload";
    ///     let same = gcm.encrypt_in_place_detached(&iv, &aad, &mut again, 16)?;
    ///     assert_eq!((msg, tag.as_ref()), (again, same.as_ref()));
    /// }
    /// # Ok(()) }
    /// ```
    pub fn aad_prefix(&self, aad: &[u8]) -> Result<AadPrefix<'_>, Error> {
        AadPrefix::new(self, aad)
    }
}
