//! The one error type of aekit.

use core::fmt;

/// Everything that can go wrong in aekit, each case precise enough to act on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Error {
    /// The key is not a length the cipher takes (the length given): 16, 24
    /// or 32 bytes for AES, 32 for AETHER, 24 for TDEA.
    InvalidKeyLength(usize),
    /// The IV (nonce) is empty; GCM needs at least one byte.
    EmptyIv,
    /// The nonce is not the length the algorithm takes (the length given).
    InvalidNonceLength(usize),
    /// The IV is longer than GCM allows (2^61 − 1 bytes) or than the API takes.
    IvTooLong,
    /// The tag length is not one GCM allows (4 or 8 to 16 bytes; 8 for GCM
    /// over a 64-bit block cipher).
    InvalidTagLength(usize),
    /// The tag length is one SP 800-38D allows but shorter than the 64 bits
    /// the GCM spec requires (§2.1); `AesGcm::with_relaxed_tag_rules`
    /// accepts it.
    TagShorterThan64Bits(usize),
    /// The IV is not 96 bits, and the GCM spec then requires a 128-bit tag
    /// (§2.1); `AesGcm::with_relaxed_tag_rules` accepts shorter ones.
    TagMustBe128Bits {
        /// The IV's length in bytes.
        iv_len: usize,
        /// The tag length asked for, in bytes.
        tag_len: usize,
    },
    /// The key is bound to one tag length (`AesGcm::with_tag_length`, as
    /// the GCM spec requires, §2.1) and the call gave another: a tag
    /// truncated in transit, or a caller's mistake. A one-shot call
    /// computed nothing; an on-line one's `finish` fails after its pieces
    /// went through.
    TagLengthMismatch {
        /// The length the key is bound to, in bytes.
        bound: usize,
        /// The length the call gave, in bytes.
        given: usize,
    },
    /// The plaintext or ciphertext exceeds GCM's limit of 2^36 − 32 bytes.
    MessageTooLong,
    /// The associated data exceeds GCM's limit of 2^61 − 1 bytes.
    AadTooLong,
    /// Associated data was given after message data in a streaming operation.
    AadAfterMessage,
    /// The strategy asked for needs CPU instructions this machine lacks.
    StrategyUnavailable(&'static str),
    /// The combination asked for does not exist (for example FACE counter
    /// mode on an AES strategy it does not apply to).
    Unsupported(&'static str),
    /// The tag did not verify: the message, the associated data, the IV, the tag or the key is wrong.
    AuthenticationFailed,
    /// The supplied keystream is shorter than 16 bytes (E(K, Y_0)) plus the
    /// message.
    KeystreamTooShort,
    /// The call would take a GCM-64 key past its data limit (in 64-bit
    /// cipher blocks, see `gcm64`): nothing was computed; use a fresh key.
    KeyDataLimit {
        /// The key's limit, in 64-bit blocks.
        limit_blocks: u64,
    },
    /// An incremental MAC has issued a tag under every IV of its counter
    /// (2^32): start a new instance, which draws a new IV prefix.
    IvsExhausted,
    /// The operating system's random number generator failed.
    RandomUnavailable,
    /// A [`RandomNonceSealer`](crate::gcm::RandomNonceSealer) has sealed
    /// 2^32 messages under its key with random 96-bit nonces, the most
    /// NIST SP 800-38D §8.3 allows: replace the key.
    RandomNonceLimitReached,
    /// A [`CounterNonces`](crate::gcm::CounterNonces) sequence has issued
    /// its last nonce; its counter would wrap and repeat one: replace the
    /// key.
    NonceSequenceExhausted,
    /// An out-of-place call's output is not as long as its input.
    OutputLength {
        /// The input's length in bytes.
        input: usize,
        /// The output's length in bytes.
        output: usize,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::InvalidKeyLength(n) => {
                write!(
                    f,
                    "invalid key length {n} bytes (AES takes 16, 24 or 32; AETHER 32; TDEA 24)"
                )
            }
            Error::EmptyIv => f.write_str("empty IV (GCM needs at least one byte)"),
            Error::InvalidNonceLength(n) => write!(f, "invalid nonce length {n} bytes"),
            Error::IvTooLong => f.write_str("IV too long (GCM allows at most 2^61 - 1 bytes)"),
            Error::InvalidTagLength(n) => write!(
                f,
                "invalid tag length {n} bytes (GCM allows 4 or 8 to 16; GCM-64 8)"
            ),
            Error::TagShorterThan64Bits(n) => write!(
                f,
                "tag of {n} bytes is shorter than the 64 bits the GCM spec requires \
                 (AesGcm::with_relaxed_tag_rules allows it)"
            ),
            Error::TagMustBe128Bits { iv_len, tag_len } => write!(
                f,
                "a {tag_len}-byte tag with a {iv_len}-byte IV: the GCM spec requires 16-byte \
                 tags unless the IV is 12 bytes (AesGcm::with_relaxed_tag_rules allows it)"
            ),
            Error::TagLengthMismatch { bound, given } => write!(
                f,
                "a {given}-byte tag for a key bound to {bound}-byte tags (the GCM spec fixes \
                 one tag length per key)"
            ),
            Error::MessageTooLong => {
                f.write_str("message too long (GCM allows at most 2^36 - 32 bytes)")
            }
            Error::AadTooLong => {
                f.write_str("associated data too long (GCM allows at most 2^61 - 1 bytes)")
            }
            Error::AadAfterMessage => {
                f.write_str("associated data must all be given before the message")
            }
            Error::Unsupported(what) => write!(f, "{what} is not supported"),
            Error::StrategyUnavailable(name) => {
                write!(
                    f,
                    "strategy {name} needs CPU instructions this machine lacks"
                )
            }
            Error::AuthenticationFailed => f.write_str("authentication failed"),
            Error::KeystreamTooShort => {
                f.write_str("keystream shorter than 16 bytes plus the message")
            }
            Error::KeyDataLimit { limit_blocks } => write!(
                f,
                "key data limit of {limit_blocks} 64-bit blocks reached (the birthday bound \
                 of a 64-bit block cipher): use a fresh key"
            ),
            Error::IvsExhausted => f.write_str(
                "incremental MAC has used all 2^32 IVs of its counter: start a new instance",
            ),
            Error::RandomUnavailable => {
                f.write_str("the operating system's random number generator failed")
            }
            Error::RandomNonceLimitReached => f.write_str(
                "this key has sealed 2^32 messages with random nonces, the most \
                 SP 800-38D allows: re-key (use a new key)",
            ),
            Error::NonceSequenceExhausted => f.write_str(
                "the counter nonce sequence is used up (its counter would wrap): \
                 re-key (use a new key)",
            ),
            Error::OutputLength { input, output } => write!(
                f,
                "an output of {output} bytes for an input of {input} bytes (they must be equal)"
            ),
        }
    }
}

impl std::error::Error for Error {}

/// Ciphertext ‖ tag cut into its two parts, the tag its last `tag_len`
/// bytes; [`Error::AuthenticationFailed`] when it is shorter than a tag
/// (it cannot be anything a key sealed).
pub(crate) fn split_tag(sealed: &[u8], tag_len: usize) -> Result<(&[u8], &[u8]), Error> {
    let split = sealed
        .len()
        .checked_sub(tag_len)
        .ok_or(Error::AuthenticationFailed)?;
    Ok(sealed.split_at(split))
}

/// A batch's result slots (AES-GCM's and AETHER's `_into` calls), checked
/// against its number of messages and set to `Ok`: the batch paths write
/// failures only.
///
/// # Panics
///
/// If `results` is not exactly `messages` long.
pub(crate) fn reset_results(results: &mut [Result<(), Error>], messages: usize) {
    assert_eq!(
        messages,
        results.len(),
        "one result slot per message of the batch"
    );
    results.fill(Ok(()));
}
