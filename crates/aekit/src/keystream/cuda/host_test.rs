//! The kernel's AES and counter arithmetic, run on the host: `aes_ctr.cu`
//! compiled as C by `build.rs` (the `__device__` code through a few
//! macros), run thread by thread for every CUDA block of a job, and checked
//! against [`CpuProducer`] for AES-128/192/256, both counter spaces, both
//! round functions, several block shapes, random starting counters, and
//! the places where a counter carries: a packet boundary, the 32-bit word
//! of the continuous counter, 2^64 − 1.

use core::num::NonZeroU32;

use zeroize::Zeroize;

use super::{Job, key_words};
use crate::aes::{self, Block};
use crate::keystream::{CounterSpace, CpuProducer, KeystreamProducer};

#[link(name = "aekit_cu_host", kind = "static")]
unsafe extern "C" {
    fn aek_host_ctr(
        job: *const Job,
        keys: *const u32,
        out: *mut Block,
        nthreads: u32,
        bpt: u32,
        byteperm: i32,
    );
    fn aek_host_perm(x: u32, y: u32, s: u32) -> u32;
}

/// The host build of the kernel over one job of `count` blocks.
fn kernel(
    key: &[u8],
    space: &CounterSpace,
    first: u64,
    count: usize,
    (nthreads, bpt, grid): (u32, u32, u32),
    byteperm: bool,
) -> Vec<Block> {
    let (mut keys, rounds) = key_words(key).unwrap();
    let mut job = Job::new(space, rounds, 0, first, count as u64, 0).unwrap();
    job.grid_count = grid;
    let mut out = vec![[0u8; 16]; count];
    // SAFETY: `job` and `keys` (KEY_WORDS words, slot 0) are valid for
    // reads; the job writes exactly blocks out[0..count], which `out`
    // holds; `Job` has the C layout of `aek_job` (asserted in mod.rs).
    unsafe {
        aek_host_ctr(
            &job,
            keys.as_ptr(),
            out.as_mut_ptr(),
            nthreads,
            bpt,
            i32::from(byteperm),
        );
    }
    keys.zeroize();
    out
}

fn cpu(key: &[u8], space: &CounterSpace, first: u64, count: usize) -> Vec<Block> {
    let mut out = vec![[0u8; 16]; count];
    CpuProducer::new(aes::Strategy::Table, key)
        .unwrap()
        .fill(space, first, &mut out)
        .unwrap();
    out
}

/// SplitMix64, for reproducible random counters and keys.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next() as u8).collect()
    }
}

/// Block shapes (threads, blocks per thread, CUDA blocks): one chunk, a
/// grid-stride loop over many, and a ragged end.
const SHAPES: [(u32, u32, u32); 3] = [(32, 1, 1), (64, 3, 2), (256, 4, 3)];

fn check(key: &[u8], space: CounterSpace, first: u64, count: usize) {
    let want = cpu(key, &space, first, count);
    for byteperm in [false, true] {
        for shape in SHAPES {
            let got = kernel(key, &space, first, count, shape, byteperm);
            for (k, (g, w)) in got.iter().zip(&want).enumerate() {
                assert_eq!(
                    g,
                    w,
                    "key {} bytes, first {first:#x}, block {k}, shape {shape:?}, byteperm {byteperm}",
                    key.len()
                );
            }
        }
    }
}

#[test]
fn byte_perm_emulation_matches_cuda_semantics() {
    // SAFETY: a pure function of its arguments.
    let perm = |x, y, s| unsafe { aek_host_perm(x, y, s) };
    assert_eq!(perm(0x4433_2211, 0x8877_6655, 0x3210), 0x4433_2211);
    assert_eq!(perm(0x4433_2211, 0x8877_6655, 0x7654), 0x8877_6655);
    assert_eq!(perm(0x4433_2211, 0x8877_6655, 0x0123), 0x1122_3344);
    assert_eq!(perm(0x4433_2211, 0x8877_6655, 0x5410), 0x6655_2211);
}

#[test]
fn kernel_matches_cpu_on_random_counters() {
    let mut rng = Rng(12);
    for key_len in [16, 24, 32] {
        for _ in 0..4 {
            let key = rng.bytes(key_len);
            let salt: [u8; 4] = rng.bytes(4).try_into().unwrap();
            let count = 1 + (rng.next() % 3000) as usize;
            // Continuous: anywhere below 2^64 − count.
            let first = rng.next() % (u64::MAX - count as u64);
            check(&key, CounterSpace::Continuous { salt }, first, count);
            // Per packet: packets of 2 to 200 blocks, any sequence number.
            let blocks_per_packet = 2 + rng.next() % 199;
            let first = rng.next() % (u64::MAX / 256);
            let space = CounterSpace::PerPacket {
                salt,
                blocks_per_packet: NonZeroU32::new(blocks_per_packet as u32).unwrap(),
            };
            check(&key, space, first, count);
        }
    }
}

#[test]
fn kernel_matches_cpu_where_counters_carry() {
    let mut rng = Rng(99);
    for key_len in [16, 24, 32] {
        let key = rng.bytes(key_len);
        let salt = [0xde, 0xad, 0xbe, 0xef];
        let continuous = CounterSpace::Continuous { salt };
        // Across the low 32-bit word, and up to the last index.
        check(&key, continuous, 0xffff_ffff - 700, 1500);
        check(&key, continuous, 0x1234_ffff_ffff - 5, 600);
        check(&key, continuous, u64::MAX - 1000, 1000);
        // Per packet: packet boundaries inside one thread's steps (a packet
        // shorter than, equal to and longer than a thread block), and
        // sequence numbers carrying into the high word.
        for blocks_per_packet in [1, 7, 32, 64, 256, 1000] {
            let space = CounterSpace::PerPacket {
                salt,
                blocks_per_packet: NonZeroU32::new(blocks_per_packet as u32).unwrap(),
            };
            check(&key, space, 0, 1200);
            let seq = 0xffff_ffff_u64;
            check(&key, space, seq * blocks_per_packet - 3, 900);
        }
    }
}
