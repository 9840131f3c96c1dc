//! The GPU half of the seed's design (*GCM on the GPU for IPsec*, §2–3):
//! AES counter mode in CUDA, feeding the keystream pipeline.
//!
//! - `aes_ctr.cu`: the kernel, CUDA C that also compiles as C (its header
//!   is the specification: state layout, T-tables in shared memory, the
//!   variants measured);
//! - this file: what the host and the kernel share — the [`Job`] layout
//!   and the round keys as the kernel reads them — compiled on every
//!   machine, because the host tests use it;
//! - `driver.rs` (feature `cuda`): the producer, the GPU service that
//!   batches many SAs' requests into one launch, page-locked buffers;
//! - `host_test.rs`: the kernel's arithmetic, compiled as C by `build.rs`,
//!   against [`CpuProducer`](super::CpuProducer).

#[cfg(feature = "cuda")]
#[allow(unsafe_code)] // raw CUDA calls and page-locked memory; each block has a SAFETY line.
mod driver;
#[cfg(test)]
#[allow(unsafe_code)] // calls into the kernel compiled as C; each block has a SAFETY line.
mod host_test;

#[cfg(feature = "cuda")]
#[allow(deprecated)] // `Variant`, kept one release under its old name
pub use driver::{
    CudaProducer, DeviceInfo, GpuKernel, GpuOptions, GpuService, ServiceStats, Variant, device_info,
};
#[cfg(all(feature = "cuda", feature = "measurement"))]
pub use driver::{measure_d2h, measure_kernel};

use super::{CounterSpace, Error};
use crate::aes::KeySchedule;

/// The kernel's CUDA C source, compiled by NVRTC when a producer starts.
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
pub(crate) const KERNEL_SOURCE: &str = include_str!("aes_ctr.cu");

/// Words of round keys per key slot (15 round keys of 4 words).
pub(crate) const KEY_WORDS: usize = 60;

/// One fill request as the kernel reads it: `struct aek_job` in
/// `aes_ctr.cu`, field for field.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
pub(crate) struct Job {
    /// Linear index of the job's first counter block.
    pub first: u64,
    /// Counter blocks in the job.
    pub count: u64,
    /// Where the job's first block goes in the output, in blocks.
    pub out: u64,
    /// RFC 4106: counter blocks per packet; 0 for the continuous counter.
    pub per_packet: u64,
    /// The salt as a little-endian word.
    pub salt: u32,
    /// Key slot.
    pub key: u32,
    /// 10, 12 or 14.
    pub rounds: u32,
    /// The job's first CUDA block.
    pub grid_first: u32,
    /// The job's CUDA blocks.
    pub grid_count: u32,
    pad: [u32; 3],
}

// The layout shared with CUDA: 64 bytes, 8-byte aligned, as in aes_ctr.cu.
const _: () = assert!(core::mem::size_of::<Job>() == 64);
const _: () = assert!(core::mem::align_of::<Job>() == 8);

#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
impl Job {
    /// A job for `count` blocks from linear index `first` of `space`,
    /// written at `out`, with the key in `slot`; [`Error::CounterOverflow`]
    /// if the range runs past the last index, as for every producer.
    pub fn new(
        space: &CounterSpace,
        rounds: usize,
        slot: u32,
        first: u64,
        count: u64,
        out: u64,
    ) -> Result<Job, Error> {
        let (salt, per_packet) = match *space {
            CounterSpace::PerPacket {
                salt,
                blocks_per_packet,
            } => {
                // The kernel numbers blocks within a packet in 32 bits, as
                // RFC 4106's counter field does; the type keeps the count
                // within 1 ..= 2^32 − 1.
                (salt, u64::from(blocks_per_packet.get()))
            }
            CounterSpace::Continuous { salt } => (salt, 0),
        };
        if first.checked_add(count).is_none() {
            return Err(Error::CounterOverflow);
        }
        Ok(Job {
            first,
            count,
            out,
            per_packet,
            salt: u32::from_le_bytes(salt),
            key: slot,
            rounds: rounds as u32,
            grid_first: 0,
            grid_count: 0,
            pad: [0; 3],
        })
    }
}

/// The round keys as the kernel reads them: the key schedule's bytes as
/// little-endian words, padded to [`KEY_WORDS`]; [`Error::Cipher`] for a
/// key that is not an AES key length.
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
pub(crate) fn key_words(key: &[u8]) -> Result<(Vec<u32>, usize), Error> {
    let schedule = KeySchedule::new(key).map_err(Error::Cipher)?;
    let mut words = vec![0u32; KEY_WORDS];
    for (word, bytes) in words
        .iter_mut()
        .zip(schedule.round_keys().as_flattened().chunks_exact(4))
    {
        *word = u32::from_le_bytes(bytes.try_into().expect("4 bytes"));
    }
    Ok((words, schedule.rounds()))
}
