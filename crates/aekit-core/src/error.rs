//! The core's error type: the AEAD's failures, with the names aekit uses.

use core::fmt;

/// Everything that can go wrong in the core, each case precise enough to
/// act on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Error {
    /// The key is not 16, 24 or 32 bytes (the length given).
    InvalidKeyLength(usize),
    /// The IV is empty; GCM needs at least one byte.
    EmptyIv,
    /// The IV is longer than GCM allows (2^61 − 1 bytes).
    IvTooLong,
    /// The tag length is not one GCM allows (4 or 8 to 16 bytes).
    InvalidTagLength(usize),
    /// The tag is 32 bits, which SP 800-38D allows and the GCM spec does
    /// not (§2.1); `with_relaxed_tag_rules` accepts it.
    TagShorterThan64Bits(usize),
    /// The IV is not 96 bits, and the GCM spec then requires a 128-bit tag
    /// (§2.1); `with_relaxed_tag_rules` accepts shorter ones.
    TagMustBe128Bits {
        /// The IV's length in bytes.
        iv_len: usize,
        /// The tag length asked for, in bytes.
        tag_len: usize,
    },
    /// The plaintext or ciphertext exceeds GCM's limit of 2^36 − 32 bytes.
    MessageTooLong,
    /// The associated data exceeds GCM's limit of 2^61 − 1 bytes.
    AadTooLong,
    /// The tag did not verify; the buffer has been wiped.
    AuthenticationFailed,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::InvalidKeyLength(n) => write!(f, "invalid AES key length: {n} bytes"),
            Error::EmptyIv => f.write_str("empty IV"),
            Error::IvTooLong => f.write_str("IV too long"),
            Error::InvalidTagLength(n) => write!(f, "invalid GCM tag length: {n} bytes"),
            Error::TagShorterThan64Bits(n) => write!(f, "tag of {n} bytes is under 64 bits"),
            Error::TagMustBe128Bits { iv_len, tag_len } => write!(
                f,
                "a {iv_len}-byte IV needs a 16-byte tag, not {tag_len} bytes"
            ),
            Error::MessageTooLong => f.write_str("message too long for GCM"),
            Error::AadTooLong => f.write_str("associated data too long for GCM"),
            Error::AuthenticationFailed => f.write_str("authentication failed"),
        }
    }
}

impl core::error::Error for Error {}
