//! Producers of counter-mode keystream, and the pipeline that hands it to a
//! packet thread.
//!
//! AES-GCM's keystream E(K, Y_i) depends on the key and the counter blocks
//! only, never on the data (spec §2.3). When the counters of future
//! packets are known, the keystream can be computed ahead of time by
//! another processor — a spare CPU core here, a GPU in the seed's design
//! (*GCM on the GPU for IPsec*: "the CPU can provide double buffers … a
//! history at the beginning of each buffer") — and the packet thread is
//! left with XOR and GHASH.
//!
//! The pieces, one per file:
//!
//! - this file: [`CounterSpace`], which numbers the counter blocks of a
//!   security association 0, 1, 2, … (a *linear index*), the
//!   [`KeystreamProducer`] trait (fill a buffer with E(K, counter) for a
//!   range of indices) and [`CpuProducer`], AES in any aekit strategy;
//! - `error.rs`: [`Error`], what producing keystream can fail with (a GPU
//!   missing, failing or starved, a producer's panic, a counter range
//!   past the end), apart from AES-GCM's [`crate::Error`];
//! - `buffer.rs`: one buffer of keystream with room for its history, the
//!   unit that moves between the pipeline and the producer;
//! - `thread.rs`: where the producer runs ([`Schedule`]): on its own
//!   thread, fed buffers through a channel and handing them back filled,
//!   or on the caller's;
//! - `pipeline.rs`: [`Pipeline`], the double buffers with their history,
//!   and the accounting of every packet that had to compute its keystream
//!   inline.
//! - `cuda/`: the GPU producer (feature `cuda`): an AES-CTR kernel in CUDA
//!   C compiled at run time, and a GPU service that serves the fill
//!   requests of many security associations in batched launches.
//!
//! ## Counter spaces
//!
//! RFC 4106 builds each packet's counters as salt ‖ IV ‖ 32-bit block
//! counter, starting at 1 (Y_0, the tag mask) and 2 (the first payload
//! block). With the IV equal to the sequence number, the counters of future
//! packets are known, but not their lengths: the producer has to reserve
//! room for the largest packet per sequence number, and whatever a shorter
//! packet leaves unused is wasted ([`CounterSpace::PerPacket`]). The seed's
//! modified nonce instead runs one counter through the whole association:
//! each packet takes the next ⌈len/16⌉ + 1 blocks and carries its first
//! counter as its IV ([`CounterSpace::Continuous`]); nothing is wasted, but
//! the format is not RFC 4106 (see `crate::esp`).
//!
//! Rejected: a producer that returns keystream per packet (it would have to
//! know packet lengths, which only the packet thread learns), and a shared
//! ring buffer written by the producer while the consumer reads (it needs
//! `unsafe` or locks per packet; whole buffers moved through a channel
//! need neither).

mod buffer;
mod cuda;
mod error;
mod pipeline;
mod thread;

#[cfg(feature = "cuda")]
#[allow(deprecated)] // `Variant`, kept one release under its old name
pub use cuda::{
    CudaProducer, DeviceInfo, GpuKernel, GpuOptions, GpuService, ServiceStats, Variant, device_info,
};
#[cfg(all(feature = "cuda", feature = "measurement"))]
pub use cuda::{measure_d2h, measure_kernel};
pub use error::Error;
pub use pipeline::{Pipeline, PipelineStats};
pub use thread::Schedule;

use core::num::NonZeroU32;

use crate::aes::{self, Block, Cipher};

/// How a security association's counter blocks are numbered: the linear
/// index `i` of [`KeystreamProducer::fill`] stands for the counter block
/// [`counter(i)`](CounterSpace::counter).
///
/// ```
/// use core::num::NonZeroU32;
/// use aekit::keystream::CounterSpace;
/// let blocks_per_packet = NonZeroU32::new(96).expect("not zero");
/// let space = CounterSpace::PerPacket { salt: [1, 2, 3, 4], blocks_per_packet };
/// // Packet 2's Y_0: salt ‖ be64(2) ‖ 00000001.
/// assert_eq!(space.counter(192)[4..], [0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 1]);
/// ```
///
/// A per-packet space of zero blocks, which would divide by zero, cannot
/// be built:
///
/// ```compile_fail
/// let space = aekit::keystream::CounterSpace::PerPacket { salt: [0; 4], blocks_per_packet: 0 };
/// ```
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum CounterSpace {
    /// RFC 4106: packet `s` owns indices `s·b .. (s+1)·b`, and index
    /// `s·b + j` is the counter block salt ‖ be64(s) ‖ be32(j + 1).
    PerPacket {
        /// The 4-byte salt of the keying material (RFC 4106 §4).
        salt: [u8; 4],
        /// Counter blocks reserved per packet: one for Y_0 plus the
        /// blocks of the largest payload allowed. At least one, and at
        /// most 2^32 − 1, the most RFC 4106's 32-bit block counter
        /// (starting at 1) can number: the type makes a space that would
        /// divide by zero or repeat a counter impossible to build.
        blocks_per_packet: NonZeroU32,
    },
    /// The seed's continuous counter: index `i` is the block
    /// salt ‖ be96(i). Not RFC 4106.
    Continuous {
        /// The 4-byte salt.
        salt: [u8; 4],
    },
}

impl CounterSpace {
    /// The counter block at linear index `index`.
    pub fn counter(&self, index: u64) -> Block {
        let mut block = [0u8; 16];
        match *self {
            CounterSpace::PerPacket {
                salt,
                blocks_per_packet,
            } => {
                let per = u64::from(blocks_per_packet.get());
                block[..4].copy_from_slice(&salt);
                block[4..12].copy_from_slice(&(index / per).to_be_bytes());
                // index % per < 2^32 − 1, so the block counter j + 1 fits.
                let j = (index % per) as u32 + 1;
                block[12..].copy_from_slice(&j.to_be_bytes());
            }
            CounterSpace::Continuous { salt } => {
                block[..4].copy_from_slice(&salt);
                block[8..].copy_from_slice(&index.to_be_bytes());
            }
        }
        block
    }

    /// The end of the range of `count` indices from `first`, or
    /// [`Error::CounterOverflow`] if it would run past index 2^64 − 1
    /// (where the linear index would wrap and counters repeat).
    pub fn range_end(first: u64, count: usize) -> Result<u64, Error> {
        u64::try_from(count)
            .ok()
            .and_then(|count| first.checked_add(count))
            .ok_or(Error::CounterOverflow)
    }

    /// Writes the counter blocks of indices `first, first + 1, …` into
    /// `out`; [`Error::CounterOverflow`] (and nothing written) if the
    /// range runs past the last index.
    pub fn write_counters(&self, first: u64, out: &mut [Block]) -> Result<(), Error> {
        CounterSpace::range_end(first, out.len())?;
        for (k, block) in out.iter_mut().enumerate() {
            // In range: checked just above.
            *block = self.counter(first + k as u64);
        }
        Ok(())
    }
}

/// Something that computes keystream: E(K, counter) for ranges of counter
/// blocks. A CPU core ([`CpuProducer`]), a GPU (`CudaProducer`, feature
/// `cuda`), or the user's own: a [`Pipeline`], an [`Sa`](crate::esp::Sa)
/// (through [`Sa::with_producers`](crate::esp::Sa::with_producers)) and
/// [`AesGcm::encrypt_with_keystream`](crate::AesGcm::encrypt_with_keystream)
/// take any of them.
///
/// A producer must be keyed with the SA's key: the pipeline cannot check
/// the keystream it is given, and wrong keystream fails every tag.
pub trait KeystreamProducer: Send {
    /// What computes the keystream, for reports (e.g. `cpu/ni`).
    fn name(&self) -> String;

    /// Fills `out[k]` with E(K, space.counter(first + k)) for every `k`.
    ///
    /// An error (a GPU gone, a driver failure) leaves `out` unspecified;
    /// the pipeline counts it, serves the range inline, and asks again for
    /// the next range.
    fn fill(&mut self, space: &CounterSpace, first: u64, out: &mut [Block]) -> Result<(), Error>;

    /// Storage for `blocks` blocks of keystream, called by the pipeline for
    /// each of its buffers before the producer starts. The default is
    /// ordinary heap memory; a GPU producer returns page-locked memory, so
    /// that its device-to-host copies land straight in the pipeline's
    /// buffers. An error here makes the pipeline use heap memory.
    fn allocate(&mut self, blocks: usize) -> Result<Box<dyn BlockStorage>, Error> {
        Ok(Box::new(vec![[0u8; 16]; blocks]))
    }
}

/// Memory for a pipeline buffer's blocks, owned by the buffer and allocated
/// by its producer ([`KeystreamProducer::allocate`]). The pipeline zeroizes
/// it before dropping it.
pub trait BlockStorage: Send {
    /// The blocks.
    fn blocks(&self) -> &[Block];
    /// The blocks, to write.
    fn blocks_mut(&mut self) -> &mut [Block];
}

impl BlockStorage for Vec<Block> {
    fn blocks(&self) -> &[Block] {
        self
    }
    fn blocks_mut(&mut self) -> &mut [Block] {
        self
    }
}

/// Keystream computed by AES on a CPU core, in any aekit strategy.
pub struct CpuProducer {
    cipher: Cipher,
}

/// Blocks whose counters are written, then encrypted, per step: small
/// enough to stay in L1 between the two.
const STEP: usize = 256;

impl CpuProducer {
    /// AES under `key` in `strategy`; [`Error::Cipher`] if the key is not
    /// an AES key length or the strategy cannot run here.
    pub fn new(strategy: aes::Strategy, key: &[u8]) -> Result<CpuProducer, Error> {
        Ok(CpuProducer {
            cipher: Cipher::new(strategy, key).map_err(Error::Cipher)?,
        })
    }
}

impl KeystreamProducer for CpuProducer {
    fn name(&self) -> String {
        format!("cpu/{}", self.cipher.strategy().name())
    }

    fn fill(&mut self, space: &CounterSpace, first: u64, out: &mut [Block]) -> Result<(), Error> {
        // The whole range first: a forged packet's counter near 2^64 must
        // be an error, not an overflow half-way through.
        CounterSpace::range_end(first, out.len())?;
        for (k, chunk) in out.chunks_mut(STEP).enumerate() {
            space.write_counters(first + (k * STEP) as u64, chunk)?;
            self.cipher.encrypt_blocks(chunk);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn per_packet_counters_follow_rfc4106_layout() {
        let space = CounterSpace::PerPacket {
            salt: [1, 2, 3, 4],
            blocks_per_packet: NonZeroU32::new(3).unwrap(),
        };
        // Packet 7, block 0: Y_0 = salt ‖ be64(7) ‖ 00000001.
        let y0 = space.counter(21);
        assert_eq!(y0[..4], [1, 2, 3, 4]);
        assert_eq!(y0[4..12], 7u64.to_be_bytes());
        assert_eq!(y0[12..], [0, 0, 0, 1]);
        assert_eq!(space.counter(23)[12..], [0, 0, 0, 3]);
        assert_eq!(space.counter(24)[4..12], 8u64.to_be_bytes());
    }

    #[test]
    fn continuous_counters_are_salt_and_96_bit_index() {
        let space = CounterSpace::Continuous { salt: [9; 4] };
        let c = space.counter(0x1_0000_0000);
        assert_eq!(c[..4], [9; 4]);
        assert_eq!(c[4..], [0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0]);
    }

    #[test]
    fn per_packet_counters_at_the_largest_block_count() {
        let space = CounterSpace::PerPacket {
            salt: [1, 2, 3, 4],
            blocks_per_packet: NonZeroU32::MAX,
        };
        // Packet 0's last block carries block counter 2^32 − 1 …
        let last = space.counter(u64::from(u32::MAX) - 1);
        assert_eq!(last[4..], [0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff]);
        // … and the next index is packet 1's Y_0.
        let next = space.counter(u64::from(u32::MAX));
        assert_eq!(next[4..], [0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1]);
        // Every index has a counter, the last one included.
        let end = space.counter(u64::MAX);
        assert_eq!(end[4..12], (u64::MAX / u64::from(u32::MAX)).to_be_bytes());
    }

    #[test]
    fn a_range_past_the_last_index_is_an_error_not_an_overflow() {
        let space = CounterSpace::Continuous { salt: [7; 4] };
        let mut producer = CpuProducer::new(aes::Strategy::Table, &[5u8; 16]).unwrap();
        let mut out = vec![[0u8; 16]; 8];
        // A forged packet's counter near 2^64: refused, nothing written.
        for first in [u64::MAX, u64::MAX - 1, u64::MAX - 7] {
            assert_eq!(
                producer.fill(&space, first, &mut out),
                Err(Error::CounterOverflow),
                "{first:#x}"
            );
            assert_eq!(
                space.write_counters(first, &mut out),
                Err(Error::CounterOverflow)
            );
        }
        assert_eq!(out, vec![[0u8; 16]; 8]);
        // The last range that fits ends just below index 2^64 − 1.
        producer.fill(&space, u64::MAX - 8, &mut out).unwrap();
        let mut want = [space.counter(u64::MAX - 1)];
        Cipher::new(aes::Strategy::Table, &[5u8; 16])
            .unwrap()
            .encrypt_blocks(&mut want);
        assert_eq!(out[7], want[0]);
    }

    #[test]
    fn cpu_producer_fills_across_steps() {
        let key = [5u8; 16];
        let space = CounterSpace::Continuous { salt: [0; 4] };
        let mut producer = CpuProducer::new(aes::Strategy::Table, &key).unwrap();
        let mut out = vec![[0u8; 16]; STEP + 3];
        producer.fill(&space, 10, &mut out).unwrap();
        let cipher = Cipher::new(aes::Strategy::Table, &key).unwrap();
        for (k, got) in out.iter().enumerate() {
            let mut want = [space.counter(10 + k as u64)];
            cipher.encrypt_blocks(&mut want);
            assert_eq!(*got, want[0], "{k}");
        }
    }
}
