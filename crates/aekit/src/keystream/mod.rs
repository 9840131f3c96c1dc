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
//! - `thread.rs`: a producer running on its own thread, fed buffers
//!   through a channel and handing them back filled;
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

mod cuda;
mod pipeline;
mod thread;

#[cfg(feature = "cuda")]
pub use cuda::{
    CudaProducer, DeviceInfo, GpuOptions, GpuService, ServiceStats, Variant, device_info,
    measure_d2h, measure_kernel,
};
pub use pipeline::{Pipeline, PipelineStats, Schedule};

use crate::Error;
use crate::aes::{self, Block, Cipher};

/// How a security association's counter blocks are numbered: the linear
/// index `i` of [`KeystreamProducer::fill`] stands for the counter block
/// [`counter(i)`](CounterSpace::counter).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum CounterSpace {
    /// RFC 4106: packet `s` owns indices `s·b .. (s+1)·b`, and index
    /// `s·b + j` is the counter block salt ‖ be64(s) ‖ be32(j + 1).
    PerPacket {
        /// The 4-byte salt of the keying material (RFC 4106 §4).
        salt: [u8; 4],
        /// Counter blocks reserved per packet: one for Y_0 plus the
        /// blocks of the largest payload allowed.
        blocks_per_packet: u64,
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
                block[..4].copy_from_slice(&salt);
                block[4..12].copy_from_slice(&(index / blocks_per_packet).to_be_bytes());
                let j = (index % blocks_per_packet) as u32 + 1;
                block[12..].copy_from_slice(&j.to_be_bytes());
            }
            CounterSpace::Continuous { salt } => {
                block[..4].copy_from_slice(&salt);
                block[8..].copy_from_slice(&index.to_be_bytes());
            }
        }
        block
    }

    /// Writes the counter blocks of indices `first, first + 1, …` into
    /// `out`.
    pub fn write_counters(&self, first: u64, out: &mut [Block]) {
        for (block, index) in out.iter_mut().zip(first..) {
            *block = self.counter(index);
        }
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
    /// AES under `key` in `strategy`.
    pub fn new(strategy: aes::Strategy, key: &[u8]) -> Result<CpuProducer, Error> {
        Ok(CpuProducer {
            cipher: Cipher::new(strategy, key)?,
        })
    }
}

impl KeystreamProducer for CpuProducer {
    fn name(&self) -> String {
        format!("cpu/{}", self.cipher.strategy().name())
    }

    fn fill(&mut self, space: &CounterSpace, first: u64, out: &mut [Block]) -> Result<(), Error> {
        for (chunk, start) in out.chunks_mut(STEP).zip((first..).step_by(STEP)) {
            space.write_counters(start, chunk);
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
            blocks_per_packet: 3,
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
