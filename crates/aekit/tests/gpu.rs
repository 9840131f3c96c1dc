//! The GPU producer against the CPU producer. Without `AEKIT_GPU_TESTS=1`
//! only the no-GPU path is checked and the rest pass after a `SKIP` line on
//! stderr that `cargo test` shows; with it they run, and fail where there
//! is no usable GPU. Build with `--features cuda`.
#![cfg(feature = "cuda")]

mod common;

use std::io::Write;
use std::num::NonZeroU32;
use std::time::Instant;

use aekit::aes;
use aekit::keystream::{
    CounterSpace, CpuProducer, CudaProducer, GpuKernel, GpuOptions, GpuService, KeystreamProducer,
    device_info,
};
use common::Rng;

fn gpu_tests_enabled() -> bool {
    std::env::var_os("AEKIT_GPU_TESTS").is_some_and(|v| v == "1")
}

/// Whether `test` is to be skipped: so unless `AEKIT_GPU_TESTS` is set,
/// and then it says why on stderr, written to the stream itself, which the
/// test harness does not capture as it does `println!` and `eprintln!`.
fn skip(test: &str) -> bool {
    if gpu_tests_enabled() {
        return false;
    }
    let gpu = match device_info(0) {
        Ok(info) => format!("GPU: {}", info.name),
        Err(e) => e.to_string(),
    };
    let _ = writeln!(
        std::io::stderr(),
        "SKIP {test}: set AEKIT_GPU_TESTS=1 to run the GPU tests ({gpu})"
    );
    true
}

/// With no usable GPU every entry point returns an error naming what is
/// missing, and nothing panics; with one, the device is described.
#[test]
fn no_gpu_is_an_error_not_a_panic() {
    match device_info(0) {
        Ok(info) => {
            println!("GPU: {info:?}");
            assert!(!info.name.is_empty(), "{info:?}");
        }
        Err(e) => {
            println!("no GPU: {e}");
            assert!(matches!(
                e,
                aekit::keystream::Error::GpuUnavailable(_) | aekit::keystream::Error::GpuFailed(..)
            ));
            assert!(GpuService::new(GpuOptions::default()).is_err());
            assert!(CudaProducer::new(&[0; 16]).is_err());
            assert!(!gpu_tests_enabled(), "AEKIT_GPU_TESTS is set but: {e}");
        }
    }
}

/// The kernel type's former name still names it, deprecated, for one
/// release.
#[test]
#[allow(deprecated)]
fn the_former_kernel_type_name_still_works() {
    let kernel: aekit::keystream::Variant = aekit::keystream::Variant::BytePerm;
    assert_eq!(kernel, GpuKernel::BytePerm);
    assert_eq!(GpuKernel::ALL.map(GpuKernel::name), ["ttable", "byteperm"]);
}

/// GPU keystream equals CPU keystream for 10^8 blocks on the T-table
/// kernel and 10^7 on the byte-permute one: 16 SAs at once on one service
/// (AES-128/192/256, both counter spaces), each from its own thread,
/// random ranges and lengths, counters that carry.
#[test]
fn gpu_equals_cpu_for_1e8_blocks_across_many_sas() {
    if skip("gpu_equals_cpu_for_1e8_blocks_across_many_sas") {
        return;
    }
    for (variant, total) in [
        (GpuKernel::TTable, 100_000_000u64),
        (GpuKernel::BytePerm, 10_000_000),
    ] {
        let service = GpuService::new(GpuOptions {
            variant,
            ..GpuOptions::default()
        })
        .expect("GPU service");
        let t0 = Instant::now();
        let sas = 16u64;
        let threads: Vec<_> = (0..sas)
            .map(|sa| {
                let service = service.clone();
                std::thread::spawn(move || {
                    let mut rng = Rng(1000 + sa);
                    let key = rng.bytes([16, 24, 32][sa as usize % 3]);
                    let salt: [u8; 4] = rng.bytes(4).try_into().unwrap();
                    let space = if sa % 2 == 0 {
                        CounterSpace::Continuous { salt }
                    } else {
                        CounterSpace::PerPacket {
                            salt,
                            blocks_per_packet: NonZeroU32::new(1 + rng.below(200) as u32).unwrap(),
                        }
                    };
                    let mut gpu = CudaProducer::on(&service, &key).unwrap();
                    let mut cpu = CpuProducer::new(aes::Strategy::best(), &key).unwrap();
                    let (mut done, mut round) = (0u64, 0u64);
                    let mut a = vec![[0u8; 16]; 1 << 19];
                    let mut b = vec![[0u8; 16]; 1 << 19];
                    while done < total / sas {
                        let count = 1 + rng.below(1 << 19);
                        let first = match round % 3 {
                            // Across the low 32-bit word of the counter.
                            0 => 0xffff_ffff - rng.below(count) as u64,
                            1 => u64::MAX - count as u64 - rng.below(1000) as u64,
                            _ => rng.below(usize::MAX / 4) as u64,
                        };
                        let first = match space {
                            CounterSpace::PerPacket {
                                blocks_per_packet, ..
                            } => first % (u64::MAX / u64::from(blocks_per_packet.get()) / 2),
                            CounterSpace::Continuous { .. } => first,
                        };
                        gpu.fill(&space, first, &mut a[..count]).unwrap();
                        cpu.fill(&space, first, &mut b[..count]).unwrap();
                        assert!(
                            a[..count] == b[..count],
                            "SA {sa}: first {first:#x}, {count} blocks"
                        );
                        done += count as u64;
                        round += 1;
                    }
                    done
                })
            })
            .collect();
        let blocks: u64 = threads.into_iter().map(|t| t.join().unwrap()).sum();
        let stats = service.stats();
        println!(
            "{}: {blocks} blocks equal across {sas} SAs in {:.1} s; {} launches, {} jobs",
            variant.name(),
            t0.elapsed().as_secs_f64(),
            stats.batches,
            stats.jobs
        );
        assert!(blocks >= total);
        assert_eq!(stats.failed, 0);
        assert!(
            stats.jobs > stats.batches,
            "launches were batched across SAs"
        );
    }
}

/// A request that cannot start in time is refused (starved) and counted,
/// for its producer's slot.
#[test]
fn starved_requests_are_refused_and_counted() {
    if skip("starved_requests_are_refused_and_counted") {
        return;
    }
    let service = GpuService::new(GpuOptions {
        starve_after: std::time::Duration::ZERO,
        ..GpuOptions::default()
    })
    .unwrap();
    let mut gpu = CudaProducer::on(&service, &[1; 16]).unwrap();
    let space = CounterSpace::Continuous { salt: [0; 4] };
    let mut out = vec![[0u8; 16]; 4096];
    let mut starved = 0;
    for first in 0..50 {
        if gpu.fill(&space, first, &mut out) == Err(aekit::keystream::Error::GpuStarved) {
            starved += 1;
        }
    }
    let stats = service.stats();
    println!("starved {starved} of 50; {stats:?}");
    assert!(starved > 0);
    assert_eq!(stats.starved[gpu.slot() as usize], starved);
}
