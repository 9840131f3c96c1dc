//! AES-128/192/256-GCM as an OpenSSL cipher: the context, the functions of
//! its dispatch table, and its parameters, with OpenSSL's semantics
//! (`providers/implementations/ciphers/ciphercommon_gcm.c` is the
//! reference for what each call must do; this is a separate
//! implementation over aekit).
//!
//! # The context
//!
//! A [`GcmCtx`] holds the key as an `Arc<aekit::AesGcm>` (shared by
//! duplicates), the IV and its state, the message in progress, the tag,
//! and the TLS 1.2 record state. The key is expanded when `init` passes
//! key bytes other than those it holds (compared in constant time): a
//! caller that passes the same key with every message, as `openssl speed`
//! does, pays for the expansion once. The IV's states are OpenSSL's:
//! unset, buffered (given, no message begun under it), in use,
//! finished (a message ended under it: a further update is refused, so an
//! IV is never reused by accident).
//!
//! # Messages: on-line, or one call
//!
//! EVP is on-line: `update` with a NULL output is associated data, then
//! `update`s of message data, then `final` (which makes or checks the
//! tag). The message in progress is an `aekit::Encryptor` or
//! `aekit::Decryptor`, created at the first `update` after the IV (or by
//! `tlsivgen`, under the nonce it hands out) and finished by `final`; it borrows the key, so `self_cell` keeps it
//! beside its `Arc`, in a cell that lives as long as the key and holds
//! each message in turn (no allocation per message). Every split gives
//! the one-shot bytes (aekit's guarantee; the tests check it through EVP). The `cipher` function has
//! OpenSSL's GCM meaning: the same as `update`, with a NULL input meaning
//! `final`.
//!
//! A TLS 1.2 record (`tlsaad` set, then one `cipher` call over
//! explicit nonce ‖ payload ‖ tag, in place) is one whole message: it runs
//! through aekit's one-shot calls, which are its fastest path and which
//! wipe the payload when the tag does not verify. The nonce is the fixed
//! part from `tlsivfixed` and an 8-byte counter: on encryption it starts
//! at a random value and is written in front of the record
//! (`tlsivgen` reads it out for callers that build records themselves);
//! on decryption it is read from the record (or set by `tlsivinv`).
//!
//! # Tags
//!
//! Encryption always computes the 16-byte tag; the `tag` parameter hands
//! out its first 1 to 16 bytes, as OpenSSL does. Decryption checks the
//! tag given with `tag` at `final`, in constant time. aekit's relaxed
//! rules apply (4 or 8 to 16 bytes, any IV): OpenSSL also takes 1–3 and
//! 5–7 bytes, which this provider refuses when they are set.
//!
//! # Limits
//!
//! A context whose message has begun (message data or associated data
//! fed) cannot be duplicated: aekit's on-line state is deliberately not
//! `Clone` (two copies would continue one keystream); `dupctx` then
//! returns NULL, and works before the first `update` and after `final`.
//! Errors are reported by return value only, with no entry on OpenSSL's
//! error queue.
//!
//! # Constant time
//!
//! The cryptography is aekit's, in the constant-time implementation
//! `AesGcm::new` picks; tags are checked by aekit in constant time. The
//! code here branches on lengths, states and parameters, all public; the
//! one secret it compares, the key bytes passed to `init`, is folded into
//! one byte before that byte is tested ([`same_bytes`]).
//!
//! Rejected: buffering each message to run it through the one-shot calls
//! (memory in proportion to the message, and EVP callers expect each
//! `update`'s output at once); a key expansion per `init` (costs small
//! messages most of their time); cloning the on-line state for `dupctx`
//! (aekit keeps it un-`Clone` on purpose).

use core::ffi::{c_int, c_void};
use core::ptr;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use aekit::{AesGcm, Decryptor, Encryptor};
use self_cell::self_cell;
use zeroize::Zeroizing;

use crate::core::{
    Dispatch, GCM_MODE, PARAM_END, PARAM_INTEGER, PARAM_OCTET_STRING, PARAM_UNSIGNED_INTEGER,
    Param, Params, describe,
};

/// The longest IV a context takes, as OpenSSL's GCM (1024 bits).
const IV_MAX: usize = 128;
/// The IV length until one is set: 96 bits.
const IV_DEFAULT: usize = 12;
/// GCM's full tag.
const TAG_LEN: usize = 16;
/// TLS 1.2: the additional data's length, the explicit nonce's, the fixed
/// part's at least.
const TLS_AAD_LEN: usize = 13;
const TLS_EXPLICIT_IV_LEN: usize = 8;
const TLS_FIXED_IV_LEN: usize = 4;

/// The state of a context's IV, as OpenSSL's GCM keeps it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum IvState {
    /// No IV set.
    Unset,
    /// Set, and no message begun under it.
    Buffered,
    /// A message under it is in progress.
    InUse,
    /// A message under it has ended: the next needs a new IV.
    Finished,
}

/// The message in progress.
enum Message<'k> {
    Encrypt(Encryptor<'k>),
    Decrypt(Decryptor<'k>),
}

/// The message in progress, if one is.
type MaybeMessage<'k> = Option<Message<'k>>;

self_cell!(
    /// A key and the message in progress under it, if any. The cell lives
    /// as long as the key; each message is set into it and taken out, so
    /// a message costs no allocation.
    struct KeyCell {
        owner: Arc<AesGcm>,
        #[covariant]
        dependent: MaybeMessage,
    }
);

impl KeyCell {
    /// A key with no message.
    fn idle(key: Arc<AesGcm>) -> KeyCell {
        KeyCell::new(key, |_| None)
    }

    /// Whether a message is in progress.
    fn busy(&self) -> bool {
        self.borrow_dependent().is_some()
    }

    /// Ends any message in progress without finishing it.
    fn drop_message(&mut self) {
        self.with_dependent_mut(|_, m| *m = None);
    }

    /// Runs one step on the message, begun under `iv` first if none is
    /// in progress; false if it fails.
    fn step(
        &mut self,
        encrypt: bool,
        iv: &[u8],
        f: impl FnOnce(&mut Message<'_>) -> Result<(), aekit::Error>,
    ) -> bool {
        self.with_dependent_mut(|gcm, m| {
            if m.is_none() {
                let begun = if encrypt {
                    gcm.encryptor(iv).map(Message::Encrypt)
                } else {
                    gcm.decryptor(iv).map(Message::Decrypt)
                };
                match begun {
                    Ok(message) => *m = Some(message),
                    Err(_) => return false,
                }
            }
            m.as_mut().is_some_and(|m| f(m).is_ok())
        })
    }
}

/// An AES-GCM cipher context (`algctx` to OpenSSL).
pub struct GcmCtx {
    /// The key length this algorithm takes: 16, 24 or 32 bytes.
    key_len: usize,
    encrypt: bool,
    /// The key, and the message in progress under it.
    key: Option<KeyCell>,
    /// The bytes `key` was expanded from, to keep it when `init` passes
    /// the same key again.
    raw_key: Zeroizing<[u8; 32]>,
    iv: [u8; IV_MAX],
    iv_len: usize,
    iv_state: IvState,
    /// Encryption: the tag made by `final`. Decryption: the tag to check.
    tag: [u8; TAG_LEN],
    tag_len: Option<usize>,
    /// TLS 1.2: the record's additional data (its length corrected for
    /// the explicit nonce and the tag), until the `cipher` call that uses
    /// it.
    tls_aad: Option<[u8; TLS_AAD_LEN]>,
    /// What `tlsaadpad` returns: the bytes a record grows by (the tag).
    tls_aad_pad: usize,
    /// Whether `tlsivfixed` set the nonce's fixed part.
    iv_gen: bool,
    /// Records encrypted under this key, refused past 2^64 − 1.
    tls_records: u64,
}

impl GcmCtx {
    fn new(key_len: usize) -> GcmCtx {
        GcmCtx {
            key_len,
            encrypt: true,
            key: None,
            raw_key: Zeroizing::new([0; 32]),
            iv: [0; IV_MAX],
            iv_len: IV_DEFAULT,
            iv_state: IvState::Unset,
            tag: [0; TAG_LEN],
            tag_len: None,
            tls_aad: None,
            tls_aad_pad: 0,
            iv_gen: false,
            tls_records: 0,
        }
    }

    /// A copy, when no message is in progress.
    fn dup(&self) -> Option<GcmCtx> {
        if self.key.as_ref().is_some_and(KeyCell::busy) {
            return None;
        }
        Some(GcmCtx {
            key: self
                .key
                .as_ref()
                .map(|k| KeyCell::idle(Arc::clone(k.borrow_owner()))),
            raw_key: self.raw_key.clone(),
            ..*self
        })
    }

    /// `encrypt_init` / `decrypt_init`.
    fn init(&mut self, encrypt: bool, key: Option<&[u8]>, iv: Option<&[u8]>) -> bool {
        // With neither key nor IV, the message in progress goes on, as in
        // OpenSSL (a call that passes only parameters). Otherwise it is
        // dropped, and its IV with it: begun again under the same IV, the
        // message would reuse the keystream of what it already released.
        let goes_on = key.is_none() && iv.is_none() && encrypt == self.encrypt;
        self.encrypt = encrypt;
        if !goes_on {
            self.drop_message();
            if self.iv_state == IvState::InUse {
                self.iv_state = IvState::Finished;
            }
        }
        if let Some(iv) = iv {
            if iv.is_empty() || iv.len() > IV_MAX {
                return false;
            }
            self.iv_len = iv.len();
            self.iv[..iv.len()].copy_from_slice(iv);
            self.iv_state = IvState::Buffered;
        }
        if let Some(key) = key {
            if key.len() != self.key_len {
                return false;
            }
            // A context re-initialized with its key, as callers that pass
            // the key with every message do, keeps the expansion (the
            // comparison is constant-time: the key is secret).
            let same = self.key.is_some() && same_bytes(&self.raw_key[..key.len()], key);
            if !same {
                self.key = None;
                match AesGcm::new(key) {
                    Ok(gcm) => {
                        self.key = Some(KeyCell::idle(Arc::new(gcm.with_relaxed_tag_rules())))
                    }
                    Err(_) => return false,
                }
                self.raw_key[..key.len()].copy_from_slice(key);
            }
            self.tls_records = 0;
        }
        true
    }

    /// Readies the IV for a message: a random one for an encryption that
    /// was given none (OpenSSL's behavior; the caller reads it with `iv`),
    /// and refuses a finished one.
    fn ready_iv(&mut self) -> bool {
        match self.iv_state {
            IvState::Buffered | IvState::InUse => true,
            IvState::Finished => false,
            IvState::Unset => {
                if !self.encrypt || self.iv_len < IV_DEFAULT {
                    return false;
                }
                if getrandom::fill(&mut self.iv[..self.iv_len]).is_err() {
                    return false;
                }
                self.iv_state = IvState::Buffered;
                true
            }
        }
    }

    /// `update`, and `cipher` with an input: associated data when `out`
    /// is NULL, message data otherwise, or a TLS 1.2 record. Returns the
    /// bytes written.
    ///
    /// # Safety
    /// `input` holds `len` bytes; `out` is NULL or holds `len` bytes
    /// (the caller checked `outsize`), and is `input` or does not overlap
    /// it partially in a way that matters: overlapping buffers are moved
    /// first.
    unsafe fn update(&mut self, out: *mut u8, input: *const u8, len: usize) -> Option<usize> {
        if self.tls_aad.is_some() {
            // SAFETY: forwarded from this function's contract.
            return unsafe { self.tls_record(out, input, len) };
        }
        if self.key.is_none() || !self.ready_iv() {
            return None;
        }
        self.iv_state = IvState::InUse;
        let (encrypt, iv) = (self.encrypt, &self.iv[..self.iv_len]);
        let cell = self.key.as_mut()?;
        if out.is_null() {
            // SAFETY: `input` holds `len` bytes (contract).
            let aad = unsafe { core::slice::from_raw_parts(input, len) };
            let ok = cell.step(encrypt, iv, |m| match m {
                Message::Encrypt(e) => e.update_aad(aad),
                Message::Decrypt(d) => d.update_aad(aad),
            });
            return ok.then_some(0);
        }
        let done = if out.cast_const() == input || overlaps(out, input, len) {
            if out.cast_const() != input {
                // SAFETY: both hold `len` bytes (contract); `copy` allows
                // overlap.
                unsafe { ptr::copy(input, out, len) };
            }
            // SAFETY: `out` holds `len` bytes, now the input.
            let buf = unsafe { core::slice::from_raw_parts_mut(out, len) };
            cell.step(encrypt, iv, |m| match m {
                Message::Encrypt(e) => e.update(buf),
                Message::Decrypt(d) => d.update(buf),
            })
        } else {
            // SAFETY: two distinct buffers of `len` bytes (contract).
            let (src, dst) = unsafe {
                (
                    core::slice::from_raw_parts(input, len),
                    core::slice::from_raw_parts_mut(out, len),
                )
            };
            cell.step(encrypt, iv, |m| match m {
                Message::Encrypt(e) => e.update_into(src, dst),
                Message::Decrypt(d) => d.update_into(src, dst),
            })
        };
        done.then_some(len)
    }

    /// `final`, and `cipher` without an input: ends the message, making
    /// the tag (encryption) or checking it (decryption).
    fn finish(&mut self) -> bool {
        if self.key.is_none() || self.tls_aad.is_some() || !self.ready_iv() {
            return false;
        }
        if !self.encrypt && self.tag_len.is_none() {
            return false;
        }
        self.iv_state = IvState::Finished;
        let (encrypt, iv) = (self.encrypt, &self.iv[..self.iv_len]);
        let Some(cell) = self.key.as_mut() else {
            return false;
        };
        // Begins the message if no update did (an empty one).
        if !cell.step(encrypt, iv, |_| Ok(())) {
            return false;
        }
        let tag_len = self.tag_len.unwrap_or(TAG_LEN);
        let tag = &mut self.tag;
        let ok = cell.with_dependent_mut(|_, m| match m.take() {
            Some(Message::Encrypt(e)) => e.finish(TAG_LEN).map(|t| t.copy_to(tag)).is_ok(),
            Some(Message::Decrypt(d)) => d.finish(&tag[..tag_len]).is_ok(),
            None => false,
        });
        if ok && self.encrypt {
            self.tag_len = Some(TAG_LEN);
        }
        ok
    }

    /// One TLS 1.2 record in place: explicit nonce (8 bytes) ‖ payload ‖
    /// tag (16 bytes), with the additional data `tlsaad` set. Encryption
    /// writes the nonce and the tag; decryption wipes the payload if the
    /// tag does not verify. Returns the record's length (encryption) or
    /// the payload's (decryption).
    ///
    /// # Safety
    /// As [`GcmCtx::update`].
    unsafe fn tls_record(&mut self, out: *mut u8, input: *const u8, len: usize) -> Option<usize> {
        let aad = self.tls_aad.take()?;
        self.iv_state = IvState::Finished;
        let key = Arc::clone(self.key.as_ref()?.borrow_owner());
        if out.cast_const() != input || len < TLS_EXPLICIT_IV_LEN + TAG_LEN {
            return None;
        }
        // SAFETY: `out` is `input`, `len` bytes (contract).
        let record = unsafe { core::slice::from_raw_parts_mut(out, len) };
        let (explicit, rest) = record.split_at_mut(TLS_EXPLICIT_IV_LEN);
        let (payload, tag) = rest.split_at_mut(len - TLS_EXPLICIT_IV_LEN - TAG_LEN);
        if self.encrypt {
            self.tls_records = self.tls_records.checked_add(1)?;
            let iv = self.next_explicit_iv(explicit)?;
            let made = key
                .encrypt_in_place_detached(&iv[..self.iv_len], &aad, payload, TAG_LEN)
                .ok()?;
            made.copy_to(tag);
            Some(len)
        } else {
            if !self.set_explicit_iv(explicit) {
                return None;
            }
            let iv = &self.iv[..self.iv_len];
            // aekit wipes `payload` when the tag does not verify.
            key.decrypt_in_place_detached(iv, &aad, payload, tag).ok()?;
            Some(payload.len())
        }
    }

    /// The nonce for the next record encrypted under `tlsivfixed`: copies
    /// its last `out.len()` bytes (all of it if `out` is longer) into
    /// `out`, and counts its last 8 bytes on for the next record. Returns
    /// the nonce to use.
    fn next_explicit_iv(&mut self, out: &mut [u8]) -> Option<[u8; IV_MAX]> {
        if !self.iv_gen || self.key.is_none() || self.iv_len < TLS_EXPLICIT_IV_LEN {
            return None;
        }
        let iv = self.iv;
        let take = out.len().min(self.iv_len);
        if take == 0 {
            return None;
        }
        out[..take].copy_from_slice(&iv[self.iv_len - take..self.iv_len]);
        let counter = &mut self.iv[self.iv_len - TLS_EXPLICIT_IV_LEN..self.iv_len];
        let next = u64::from_be_bytes(counter.try_into().ok()?).wrapping_add(1);
        counter.copy_from_slice(&next.to_be_bytes());
        self.iv_state = IvState::InUse;
        Some(iv)
    }

    /// Decryption under `tlsivfixed`: the record's explicit nonce
    /// completes the IV.
    fn set_explicit_iv(&mut self, explicit: &[u8]) -> bool {
        if !self.iv_gen || self.key.is_none() || self.encrypt || explicit.len() > self.iv_len {
            return false;
        }
        self.drop_message();
        self.iv[self.iv_len - explicit.len()..self.iv_len].copy_from_slice(explicit);
        self.iv_state = IvState::InUse;
        true
    }

    /// `tlsivgen` outside a record: hands out the explicit nonce and
    /// begins a message under the nonce it completes, as the on-line calls
    /// that follow expect.
    fn generate_iv(&mut self, out: &mut [u8]) -> bool {
        let Some(iv) = self.next_explicit_iv(out) else {
            return false;
        };
        self.drop_message();
        let (encrypt, iv) = (self.encrypt, &iv[..self.iv_len]);
        self.key
            .as_mut()
            .is_some_and(|k| k.step(encrypt, iv, |_| Ok(())))
    }

    /// Abandons the message in progress, if any (a new IV was set).
    fn drop_message(&mut self) {
        if let Some(k) = &mut self.key {
            k.drop_message();
        }
    }

    /// `tlsaad`: keeps the record's additional data with its length
    /// corrected to the payload's.
    fn set_tls_aad(&mut self, aad: &[u8]) -> bool {
        let Ok(mut aad) = <[u8; TLS_AAD_LEN]>::try_from(aad) else {
            return false;
        };
        let mut len = usize::from(u16::from_be_bytes([aad[11], aad[12]]));
        let Some(l) = len.checked_sub(TLS_EXPLICIT_IV_LEN) else {
            return false;
        };
        len = l;
        if !self.encrypt {
            let Some(l) = len.checked_sub(TAG_LEN) else {
                return false;
            };
            len = l;
        }
        aad[11..].copy_from_slice(&(len as u16).to_be_bytes());
        self.tls_aad = Some(aad);
        self.tls_aad_pad = TAG_LEN;
        true
    }

    /// `tlsivfixed`: the fixed part of the TLS 1.2 nonce; on encryption
    /// the rest (the explicit part) starts random.
    fn set_tls_fixed_iv(&mut self, fixed: &[u8]) -> bool {
        if fixed.len() < TLS_FIXED_IV_LEN
            || self.iv_len.saturating_sub(fixed.len()) < TLS_EXPLICIT_IV_LEN
        {
            return false;
        }
        self.iv[..fixed.len()].copy_from_slice(fixed);
        if self.encrypt && getrandom::fill(&mut self.iv[fixed.len()..self.iv_len]).is_err() {
            return false;
        }
        self.drop_message();
        self.iv_gen = true;
        self.iv_state = IvState::Buffered;
        true
    }

    fn get_ctx_params(&mut self, params: &Params) -> bool {
        for p in params.iter() {
            let ok = match p.name() {
                b"ivlen" => p.set_size(self.iv_len),
                b"keylen" => p.set_size(self.key_len),
                b"taglen" => p.set_size(self.tag_len.unwrap_or(TAG_LEN)),
                b"iv" | b"updated-iv" => {
                    self.iv_state != IvState::Unset
                        && (p.data.is_null() || p.data_size >= self.iv_len)
                        && p.set_octets(&self.iv[..self.iv_len])
                }
                b"tlsaadpad" => p.set_size(self.tls_aad_pad),
                b"tag" => {
                    let n = p.data_size;
                    self.encrypt
                        && self.tag_len.is_some()
                        && (1..=TAG_LEN).contains(&n)
                        && p.data_type == PARAM_OCTET_STRING
                        && p.set_octets(&self.tag[..n])
                }
                b"tlsivgen" => {
                    if p.data.is_null() || p.data_type != PARAM_OCTET_STRING {
                        false
                    } else {
                        // SAFETY: an octet string's `data` holds
                        // `data_size` bytes for the provider to write.
                        let out = unsafe {
                            core::slice::from_raw_parts_mut(p.data.cast::<u8>(), p.data_size)
                        };
                        let written = out.len().min(self.iv_len);
                        let ok = self.generate_iv(out);
                        p.return_size = written;
                        ok
                    }
                }
                _ => true,
            };
            if !ok {
                return false;
            }
        }
        true
    }

    fn set_ctx_params(&mut self, params: &Params) -> bool {
        for p in params.iter() {
            let ok = match p.name() {
                b"tag" => match p.octets() {
                    Some(t)
                        if !self.encrypt
                            && !t.is_empty()
                            && aekit::gcm::TagRules::Relaxed.check(t.len(), 12).is_ok() =>
                    {
                        self.tag[..t.len()].copy_from_slice(t);
                        self.tag_len = Some(t.len());
                        true
                    }
                    _ => false,
                },
                b"ivlen" => match p.size() {
                    Some(n) if (1..=IV_MAX).contains(&n) => {
                        if n != self.iv_len {
                            // As OpenSSL: an IV given before is spent, so
                            // that no message runs under a random one
                            // the caller did not ask for.
                            self.drop_message();
                            self.iv_len = n;
                            if self.iv_state != IvState::Unset {
                                self.iv_state = IvState::Finished;
                            }
                        }
                        true
                    }
                    _ => false,
                },
                b"tlsaad" => p.octets().is_some_and(|aad| self.set_tls_aad(aad)),
                b"tlsivfixed" => p.octets().is_some_and(|f| self.set_tls_fixed_iv(f)),
                b"tlsivinv" => {
                    p.data_type == PARAM_OCTET_STRING
                        && p.octets().is_some_and(|e| self.set_explicit_iv(e))
                }
                _ => true,
            };
            if !ok {
                return false;
            }
        }
        true
    }
}

/// Whether `a` and `b` (of one length) are equal, in time that depends on
/// their length only: the differences are folded into one byte, and only
/// that byte is tested.
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    let diff = a.iter().zip(b).fold(0u8, |d, (x, y)| d | (x ^ y));
    core::hint::black_box(diff) == 0 && a.len() == b.len()
}

/// Whether two `len`-byte buffers overlap.
fn overlaps(a: *mut u8, b: *const u8, len: usize) -> bool {
    let (a, b) = (a as usize, b as usize);
    a < b.wrapping_add(len) && b < a.wrapping_add(len)
}

// The functions of the dispatch tables. Each runs its body under
// `catch_unwind`: a panic (a bug) is a failed call, never an unwind into
// C.

/// Runs `body`, with `fail` instead of unwinding if it panics.
#[inline(always)]
fn guard<T>(fail: T, body: impl FnOnce() -> T) -> T {
    catch_unwind(AssertUnwindSafe(body)).unwrap_or(fail)
}

/// A context pointer as the context.
///
/// # Safety
/// `vctx` was returned by `newctx`/`dupctx` here, is not freed, and no
/// other reference to it is live (OpenSSL uses a context from one thread
/// at a time).
unsafe fn ctx<'a>(vctx: *mut c_void) -> Option<&'a mut GcmCtx> {
    // SAFETY: forwarded from this function's contract.
    unsafe { vctx.cast::<GcmCtx>().as_mut() }
}

/// `len` bytes at `p` as a slice, `None` for a NULL `p` with bytes.
///
/// # Safety
/// A non-NULL `p` holds `len` readable bytes for the call.
unsafe fn bytes<'a>(p: *const u8, len: usize) -> Option<&'a [u8]> {
    if len == 0 {
        return Some(&[]);
    }
    // SAFETY: forwarded from this function's contract.
    (!p.is_null()).then(|| unsafe { core::slice::from_raw_parts(p, len) })
}

fn new_ctx(key_len: usize) -> *mut c_void {
    guard(ptr::null_mut(), || {
        Box::into_raw(Box::new(GcmCtx::new(key_len))).cast()
    })
}

unsafe extern "C" fn newctx_128(_provctx: *mut c_void) -> *mut c_void {
    new_ctx(16)
}
unsafe extern "C" fn newctx_192(_provctx: *mut c_void) -> *mut c_void {
    new_ctx(24)
}
unsafe extern "C" fn newctx_256(_provctx: *mut c_void) -> *mut c_void {
    new_ctx(32)
}

unsafe extern "C" fn freectx(vctx: *mut c_void) {
    guard((), || {
        if !vctx.is_null() {
            // SAFETY: OpenSSL frees a context it got from `newctx` or
            // `dupctx` (a `Box<GcmCtx>`) once.
            drop(unsafe { Box::from_raw(vctx.cast::<GcmCtx>()) });
        }
    })
}

unsafe extern "C" fn dupctx(vctx: *mut c_void) -> *mut c_void {
    guard(ptr::null_mut(), || {
        // SAFETY: OpenSSL passes a live context (`ctx`).
        match unsafe { ctx(vctx) }.and_then(|c| c.dup()) {
            Some(copy) => Box::into_raw(Box::new(copy)).cast(),
            None => ptr::null_mut(),
        }
    })
}

/// The body of both init functions.
///
/// # Safety
/// OpenSSL's contract for `OSSL_FUNC_cipher_encrypt_init`: a live
/// context; `key` NULL or `keylen` bytes; `iv` NULL or `ivlen` bytes;
/// `params` NULL or a parameter array.
unsafe fn init(
    encrypt: bool,
    vctx: *mut c_void,
    key: *const u8,
    keylen: usize,
    iv: *const u8,
    ivlen: usize,
    params: *const Param,
) -> c_int {
    guard(0, || {
        // SAFETY: the function's contract.
        let Some(c) = (unsafe { ctx(vctx) }) else {
            return 0;
        };
        // SAFETY: the function's contract.
        let key = (!key.is_null())
            .then(|| unsafe { bytes(key, keylen) })
            .flatten();
        // SAFETY: the function's contract.
        let iv = (!iv.is_null())
            .then(|| unsafe { bytes(iv, ivlen) })
            .flatten();
        // SAFETY: the function's contract.
        let params = unsafe { Params::new(params) };
        c_int::from(c.init(encrypt, key, iv) && c.set_ctx_params(&params))
    })
}

unsafe extern "C" fn encrypt_init(
    vctx: *mut c_void,
    key: *const u8,
    keylen: usize,
    iv: *const u8,
    ivlen: usize,
    params: *const Param,
) -> c_int {
    // SAFETY: OpenSSL's contract is `init`'s.
    unsafe { init(true, vctx, key, keylen, iv, ivlen, params) }
}

unsafe extern "C" fn decrypt_init(
    vctx: *mut c_void,
    key: *const u8,
    keylen: usize,
    iv: *const u8,
    ivlen: usize,
    params: *const Param,
) -> c_int {
    // SAFETY: OpenSSL's contract is `init`'s.
    unsafe { init(false, vctx, key, keylen, iv, ivlen, params) }
}

/// `update`: OpenSSL's contract is a live context, `in` holding `inl`
/// bytes and `out` NULL (associated data) or holding `outsize` bytes.
unsafe extern "C" fn update(
    vctx: *mut c_void,
    out: *mut u8,
    outl: *mut usize,
    outsize: usize,
    input: *const u8,
    inl: usize,
) -> c_int {
    guard(0, || {
        // SAFETY: OpenSSL passes a live context (`ctx`).
        let Some(c) = (unsafe { ctx(vctx) }) else {
            return 0;
        };
        if outl.is_null() || (input.is_null() && inl != 0) {
            return 0;
        }
        let written = if inl == 0 {
            Some(0)
        } else if !out.is_null() && outsize < inl {
            None
        } else {
            // SAFETY: `input` holds `inl` bytes; `out` is NULL or holds
            // `outsize` >= `inl` bytes (checked above).
            unsafe { c.update(out, input, inl) }
        };
        // SAFETY: `outl` is OpenSSL's, non-NULL (checked).
        unsafe { *outl = written.unwrap_or(0) };
        c_int::from(written.is_some())
    })
}

unsafe extern "C" fn final_(
    vctx: *mut c_void,
    _out: *mut u8,
    outl: *mut usize,
    _outsize: usize,
) -> c_int {
    guard(0, || {
        // SAFETY: OpenSSL passes a live context (`ctx`).
        let Some(c) = (unsafe { ctx(vctx) }) else {
            return 0;
        };
        if outl.is_null() {
            return 0;
        }
        // SAFETY: `outl` is OpenSSL's, non-NULL (checked). GCM writes
        // nothing at `final`.
        unsafe { *outl = 0 };
        c_int::from(c.finish())
    })
}

/// `cipher` (for GCM, `EVP_Cipher`): `update` with an input, `final`
/// without; the length reported is `inl`, as OpenSSL's GCM reports.
unsafe extern "C" fn cipher(
    vctx: *mut c_void,
    out: *mut u8,
    outl: *mut usize,
    outsize: usize,
    input: *const u8,
    inl: usize,
) -> c_int {
    guard(0, || {
        // SAFETY: OpenSSL passes a live context (`ctx`).
        let Some(c) = (unsafe { ctx(vctx) }) else {
            return 0;
        };
        if outl.is_null() || outsize < inl {
            return 0;
        }
        let ok = if input.is_null() {
            c.finish()
        } else if inl == 0 {
            true
        } else {
            // SAFETY: `input` holds `inl` bytes; `out` is NULL or holds
            // `outsize` >= `inl` bytes (checked above).
            unsafe { c.update(out, input, inl) }.is_some()
        };
        // SAFETY: `outl` is OpenSSL's, non-NULL (checked).
        unsafe { *outl = if ok { inl } else { 0 } };
        c_int::from(ok)
    })
}

unsafe extern "C" fn get_ctx_params(vctx: *mut c_void, params: *mut Param) -> c_int {
    guard(0, || {
        // SAFETY: OpenSSL passes a live context and a parameter array.
        match (unsafe { ctx(vctx) }, unsafe { Params::new(params) }) {
            (Some(c), params) => c_int::from(c.get_ctx_params(&params)),
            (None, _) => 0,
        }
    })
}

unsafe extern "C" fn set_ctx_params(vctx: *mut c_void, params: *const Param) -> c_int {
    guard(0, || {
        // SAFETY: OpenSSL passes a live context and a parameter array.
        match (unsafe { ctx(vctx) }, unsafe { Params::new(params) }) {
            (Some(c), params) => c_int::from(c.set_ctx_params(&params)),
            (None, _) => 0,
        }
    })
}

/// The algorithm's constant parameters, for a key of `key_len` bytes.
fn get_params(key_len: usize, params: *mut Param) -> c_int {
    guard(0, || {
        // SAFETY: OpenSSL passes a parameter array.
        let params = unsafe { Params::new(params) };
        for p in params.iter() {
            let ok = match p.name() {
                b"mode" => p.set_size(GCM_MODE as usize),
                b"keylen" => p.set_size(key_len),
                b"ivlen" => p.set_size(IV_DEFAULT),
                b"blocksize" => p.set_size(1),
                b"aead" | b"custom-iv" => p.set_size(1),
                b"cts" | b"tls-multi" | b"has-randkey" => p.set_size(0),
                _ => true,
            };
            if !ok {
                return 0;
            }
        }
        1
    })
}

unsafe extern "C" fn get_params_128(params: *mut Param) -> c_int {
    get_params(16, params)
}
unsafe extern "C" fn get_params_192(params: *mut Param) -> c_int {
    get_params(24, params)
}
unsafe extern "C" fn get_params_256(params: *mut Param) -> c_int {
    get_params(32, params)
}

/// A parameter table as a static (its pointers are to C string literals).
#[repr(transparent)]
struct Table<const N: usize>([Param; N]);

const SIZE: usize = core::mem::size_of::<usize>();

static GETTABLE_PARAMS: Table<10> = Table([
    describe(c"mode", PARAM_UNSIGNED_INTEGER, 4),
    describe(c"aead", PARAM_INTEGER, 4),
    describe(c"custom-iv", PARAM_INTEGER, 4),
    describe(c"cts", PARAM_INTEGER, 4),
    describe(c"tls-multi", PARAM_INTEGER, 4),
    describe(c"has-randkey", PARAM_INTEGER, 4),
    describe(c"keylen", PARAM_UNSIGNED_INTEGER, SIZE),
    describe(c"blocksize", PARAM_UNSIGNED_INTEGER, SIZE),
    describe(c"ivlen", PARAM_UNSIGNED_INTEGER, SIZE),
    PARAM_END,
]);

static GETTABLE_CTX_PARAMS: Table<9> = Table([
    describe(c"keylen", PARAM_UNSIGNED_INTEGER, SIZE),
    describe(c"ivlen", PARAM_UNSIGNED_INTEGER, SIZE),
    describe(c"taglen", PARAM_UNSIGNED_INTEGER, SIZE),
    describe(c"iv", PARAM_OCTET_STRING, 0),
    describe(c"updated-iv", PARAM_OCTET_STRING, 0),
    describe(c"tag", PARAM_OCTET_STRING, 0),
    describe(c"tlsaadpad", PARAM_UNSIGNED_INTEGER, SIZE),
    describe(c"tlsivgen", PARAM_OCTET_STRING, 0),
    PARAM_END,
]);

static SETTABLE_CTX_PARAMS: Table<6> = Table([
    describe(c"ivlen", PARAM_UNSIGNED_INTEGER, SIZE),
    describe(c"tag", PARAM_OCTET_STRING, 0),
    describe(c"tlsaad", PARAM_OCTET_STRING, 0),
    describe(c"tlsivfixed", PARAM_OCTET_STRING, 0),
    describe(c"tlsivinv", PARAM_OCTET_STRING, 0),
    PARAM_END,
]);

unsafe extern "C" fn gettable_params(_provctx: *mut c_void) -> *const Param {
    GETTABLE_PARAMS.0.as_ptr()
}
unsafe extern "C" fn gettable_ctx_params(
    _cctx: *mut c_void,
    _provctx: *mut c_void,
) -> *const Param {
    GETTABLE_CTX_PARAMS.0.as_ptr()
}
unsafe extern "C" fn settable_ctx_params(
    _cctx: *mut c_void,
    _provctx: *mut c_void,
) -> *const Param {
    SETTABLE_CTX_PARAMS.0.as_ptr()
}

// The dispatch tables: each function with the signature OpenSSL calls its
// id through, cast to `OSSL_DISPATCH`'s one pointer type (`dispatch!`).

type NewCtx = unsafe extern "C" fn(*mut c_void) -> *mut c_void;
type Init =
    unsafe extern "C" fn(*mut c_void, *const u8, usize, *const u8, usize, *const Param) -> c_int;
type Update =
    unsafe extern "C" fn(*mut c_void, *mut u8, *mut usize, usize, *const u8, usize) -> c_int;
type Final = unsafe extern "C" fn(*mut c_void, *mut u8, *mut usize, usize) -> c_int;
type FreeCtx = unsafe extern "C" fn(*mut c_void);
type GetParams = unsafe extern "C" fn(*mut Param) -> c_int;
type GetCtxParams = unsafe extern "C" fn(*mut c_void, *mut Param) -> c_int;
type SetCtxParams = unsafe extern "C" fn(*mut c_void, *const Param) -> c_int;
type Gettable = unsafe extern "C" fn(*mut c_void) -> *const Param;
type GettableCtx = unsafe extern "C" fn(*mut c_void, *mut c_void) -> *const Param;

/// The dispatch table of AES-GCM with a `newctx` and `get_params` for one
/// key length.
const fn table(newctx: NewCtx, get_params: GetParams) -> [Dispatch; 15] {
    use crate::core::*;
    [
        dispatch!(FUNC_CIPHER_NEWCTX, newctx, NewCtx),
        dispatch!(FUNC_CIPHER_ENCRYPT_INIT, encrypt_init, Init),
        dispatch!(FUNC_CIPHER_DECRYPT_INIT, decrypt_init, Init),
        dispatch!(FUNC_CIPHER_UPDATE, update, Update),
        dispatch!(FUNC_CIPHER_FINAL, final_, Final),
        dispatch!(FUNC_CIPHER_CIPHER, cipher, Update),
        dispatch!(FUNC_CIPHER_FREECTX, freectx, FreeCtx),
        dispatch!(FUNC_CIPHER_DUPCTX, dupctx, NewCtx),
        dispatch!(FUNC_CIPHER_GET_PARAMS, get_params, GetParams),
        dispatch!(FUNC_CIPHER_GET_CTX_PARAMS, get_ctx_params, GetCtxParams),
        dispatch!(FUNC_CIPHER_SET_CTX_PARAMS, set_ctx_params, SetCtxParams),
        dispatch!(FUNC_CIPHER_GETTABLE_PARAMS, gettable_params, Gettable),
        dispatch!(
            FUNC_CIPHER_GETTABLE_CTX_PARAMS,
            gettable_ctx_params,
            GettableCtx
        ),
        dispatch!(
            FUNC_CIPHER_SETTABLE_CTX_PARAMS,
            settable_ctx_params,
            GettableCtx
        ),
        DISPATCH_END,
    ]
}

/// The dispatch table of AES-128-GCM.
pub static AES_128_GCM: [Dispatch; 15] = table(newctx_128, get_params_128);
/// The dispatch table of AES-192-GCM.
pub static AES_192_GCM: [Dispatch; 15] = table(newctx_192, get_params_192);
/// The dispatch table of AES-256-GCM.
pub static AES_256_GCM: [Dispatch; 15] = table(newctx_256, get_params_256);
