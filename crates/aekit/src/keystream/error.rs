//! The errors of the keystream producers and the pipeline, apart from
//! AES-GCM's own ([`crate::Error`]): a GPU missing, failing or starved, a
//! producer that panicked, a counter range past the end of its space.

use core::fmt;

/// Everything that can go wrong producing keystream: [`KeystreamProducer`]
/// fills and allocations, [`CounterSpace`] ranges, the GPU service and its
/// producers.
///
/// A [`Pipeline`] never passes one of these to a packet: it computes the
/// keystream inline instead and keeps the producer's most recent error
/// ([`Pipeline::last_error`]).
///
/// [`KeystreamProducer`]: super::KeystreamProducer
/// [`CounterSpace`]: super::CounterSpace
/// [`Pipeline`]: super::Pipeline
/// [`Pipeline::last_error`]: super::Pipeline::last_error
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Error {
    /// No usable GPU: what is missing (the CUDA driver library, a CUDA
    /// device, the NVRTC library).
    GpuUnavailable(&'static str),
    /// A GPU operation failed: which one, and CUDA's error code (0 where
    /// there is none, such as a service that has stopped).
    GpuFailed(&'static str, i32),
    /// A fill request waited in the GPU service's queue past its deadline
    /// and was refused unserved (the pipeline computes the range inline).
    GpuStarved,
    /// A keystream producer panicked; the pipeline stopped using it and
    /// computes every packet's keystream inline.
    ProducerPanicked,
    /// The operating system refused the thread a pipeline on the `Thread`
    /// schedule runs its producer on; the pipeline computes every packet's
    /// keystream inline.
    ProducerThreadRefused,
    /// A range of counter blocks runs past the last linear index of its
    /// counter space (2^64 − 1), where counters would wrap and repeat.
    CounterOverflow,
    /// The GPU service cannot do what was asked (which is named): options
    /// out of range, or more SAs than it has key slots.
    Unsupported(&'static str),
    /// The AES cipher under a producer could not be set up: the key is
    /// not 16, 24 or 32 bytes ([`crate::Error::InvalidKeyLength`]), or the
    /// strategy asked for needs CPU instructions this machine lacks
    /// ([`crate::Error::StrategyUnavailable`]). The cipher's error is the
    /// [`source`](std::error::Error::source).
    Cipher(crate::Error),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::GpuUnavailable(what) => write!(f, "no usable GPU: {what}"),
            Error::GpuFailed(what, code) => {
                write!(f, "GPU operation failed: {what} (CUDA error {code})")
            }
            Error::GpuStarved => f.write_str("GPU fill request starved in the service queue"),
            Error::ProducerPanicked => f.write_str("the keystream producer panicked"),
            Error::ProducerThreadRefused => {
                f.write_str("no thread could be started for the keystream producer")
            }
            Error::CounterOverflow => {
                f.write_str("counter range runs past the end of the counter space (2^64 blocks)")
            }
            Error::Unsupported(what) => write!(f, "{what} is not supported"),
            Error::Cipher(_) => {
                f.write_str("the keystream producer's AES cipher could not be set up")
            }
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Cipher(e) => Some(e),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::error::Error as _;

    #[test]
    fn the_cipher_error_is_the_source_not_repeated_in_the_message() {
        let e = Error::Cipher(crate::Error::InvalidKeyLength(15));
        assert_eq!(
            e.source().map(ToString::to_string),
            Some(crate::Error::InvalidKeyLength(15).to_string())
        );
        assert!(!e.to_string().contains("15"));
        assert!(Error::GpuStarved.source().is_none());
    }

    #[test]
    fn messages_are_those_of_the_cases_moved_from_aekit_error() {
        assert_eq!(
            Error::GpuUnavailable("a CUDA device (none found)").to_string(),
            "no usable GPU: a CUDA device (none found)"
        );
        assert_eq!(
            Error::GpuFailed("launching the kernel", 700).to_string(),
            "GPU operation failed: launching the kernel (CUDA error 700)"
        );
        assert_eq!(
            Error::GpuStarved.to_string(),
            "GPU fill request starved in the service queue"
        );
        assert_eq!(
            Error::ProducerPanicked.to_string(),
            "the keystream producer panicked"
        );
        assert_eq!(
            Error::CounterOverflow.to_string(),
            "counter range runs past the end of the counter space (2^64 blocks)"
        );
    }
}
