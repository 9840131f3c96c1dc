//! `aekit-bench gpu`: the GPU keystream producer measured, and the
//! ESP seed's Fig. 3 (*GCM on the GPU for IPsec*: 1, 10 and 100 MB in
//! 1024-byte packets) re-made with a GPU feeding the pipeline.
//!
//! In one run:
//!
//! 1. the kernel alone (`aes_ctr.cu`), AES-128-CTR over 1 GiB of counter
//!    blocks in device memory, Gbit/s by CUDA events, for both round
//!    functions and 1, 2, 4, 8 blocks per thread;
//! 2. device-to-host copy bandwidth into page-locked memory;
//! 3. keystream delivered into page-locked host buffers through the GPU
//!    service (kernel and copies on two streams), GB/s and as a share of
//!    the copy bandwidth, for three piece sizes;
//! 4. the ESP packet thread: 1, 10 and 100 MB of random data in 1024-byte
//!    packets, encapsulated then decapsulated, with inline keystream
//!    (RFC 4106), a CPU producer per SA, or one GPU service shared by all
//!    SAs (both with the seed's continuous counter), in the three worlds of
//!    `fig3.rs` (default, table, fixslice), with 1, 4 and 16 SAs taking
//!    the packets in turn. Reported: the median throughput of the packet
//!    thread with the spread (min–max) over the repeats, the ratio to
//!    inline, the packet thread's own CPU time, and the fallbacks.
//!
//! Wall-clock throughput, not cycles: a GPU's work is not on the CPU's
//! time-stamp counter. The packet loop, the SA configurations and the
//! summary of the repeats are `fig3.rs`'s, shared with the CPU-producer
//! table of `aekit-bench seeds`.

use std::time::Instant;

use aekit::esp::{Config, Sa};
use aekit::keystream::{
    CudaProducer, GpuKernel, GpuOptions, GpuService, KeystreamProducer, device_info, measure_d2h,
    measure_kernel,
};
use aekit_harness as harness;

use crate::fig3::{self, Mode};

fn e(err: aekit::keystream::Error) -> String {
    err.to_string()
}

/// Runs the suite; without a usable GPU, says why and fails.
pub fn run(quick: bool) -> Result<(), String> {
    let info = device_info(0).map_err(e)?;
    println!("# aekit-bench gpu{}\n", if quick { " --quick" } else { "" });
    println!(
        "GPU: {} (compute capability {}.{}, {} SMs), CUDA driver {}.{}",
        info.name,
        info.compute_capability.0,
        info.compute_capability.1,
        info.multiprocessors,
        info.driver_version / 1000,
        info.driver_version % 1000 / 10
    );
    println!("CPU: {}\n", harness::cpu_model());

    // 1. The kernel alone.
    let (blocks, reps) = if quick { (1 << 24, 3) } else { (1 << 26, 5) };
    println!(
        "## Kernel: AES-128-CTR, {} MiB of keystream in device memory, best of {reps}\n",
        blocks >> 16
    );
    println!("| round function | blocks per thread | Gbit/s |");
    println!("|---|---|---|");
    let mut best = (GpuKernel::TTable, 4, 0.0f64);
    for variant in GpuKernel::ALL {
        for bpt in [1, 2, 4, 8] {
            let gbit = measure_kernel(0, variant, 256, bpt, blocks, reps).map_err(e)?;
            println!("| {} | {bpt} | {gbit:.0} |", variant.name());
            if gbit > best.2 {
                best = (variant, bpt, gbit);
            }
        }
    }
    println!(
        "\nFastest: {} with {} blocks per thread, {:.0} Gbit/s ({:.2} Tbit/s).\n",
        best.0.name(),
        best.1,
        best.2,
        best.2 / 1000.0
    );

    // 2. The copy.
    let copy_bytes = 256 << 20;
    let d2h = measure_d2h(0, copy_bytes, reps).map_err(e)?;
    println!("## Device-to-host copy into page-locked memory\n");
    println!(
        "{} MiB per copy, best of {reps}: {d2h:.2} GB/s ({:.0} Gbit/s)\n",
        copy_bytes >> 20,
        d2h * 8.0
    );

    // 3. Delivered keystream through the service.
    println!("## Keystream delivered into page-locked host buffers (GPU service, two streams)\n");
    println!("| piece (blocks) | fill (MiB) | GB/s | share of the copy bandwidth |");
    println!("|---|---|---|---|");
    let fill_blocks = if quick { 1 << 21 } else { 1 << 22 };
    for piece in [1 << 14, 1 << 16, 1 << 18] {
        let service = GpuService::new(GpuOptions {
            variant: best.0,
            blocks_per_thread: best.1,
            piece_blocks: piece,
            ..GpuOptions::default()
        })
        .map_err(e)?;
        let mut producer = CudaProducer::on(&service, &[0x2b; 16]).map_err(e)?;
        let mut storage = producer.allocate(fill_blocks).map_err(e)?;
        let space = aekit::keystream::CounterSpace::Continuous { salt: [1; 4] };
        let mut fastest = f64::INFINITY;
        for rep in 0..=reps as u64 {
            let t0 = Instant::now();
            producer
                .fill(&space, rep * fill_blocks as u64, storage.blocks_mut())
                .map_err(e)?;
            fastest = fastest.min(t0.elapsed().as_secs_f64());
        }
        let gbs = (fill_blocks * 16) as f64 / fastest / 1e9;
        println!(
            "| {piece} | {} | {gbs:.2} | {:.0}% |",
            fill_blocks >> 16,
            100.0 * gbs / d2h
        );
    }
    println!();

    // 4. The ESP packet thread.
    esp(quick, best.0, best.1)
}

fn esp(quick: bool, variant: GpuKernel, bpt: u32) -> Result<(), String> {
    let sizes: &[usize] = if quick { &[1, 10] } else { &[1, 10, 100] };
    let service = GpuService::new(GpuOptions {
        variant,
        blocks_per_thread: bpt,
        ..GpuOptions::default()
    })
    .map_err(e)?;
    println!("## ESP packet thread: 1024-byte packets, encapsulate then decapsulate\n");
    println!(
        "Inline: RFC 4106, each packet computes its keystream. cpu-producer: a keystream thread per SA and direction. gpu-producer: one GPU service shared by every SA ({}, {bpt} blocks per thread). Both producers use the seed's continuous counter, buffers of 256 packets of up to 1500 bytes with 64 of history. MB/s = 10^6 payload bytes per second of the packet thread (median of the repeats; spread min–max); thread CPU s = the packet thread's own CPU time (median run).\n",
        variant.name()
    );
    println!(
        "| world | SAs | size | mode | direction | MB/s | spread | vs inline | thread CPU s | fallbacks | producer errors |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    let key = [0x5au8; 16];
    for (world, aes, ghash) in fig3::worlds() {
        for sas in [1usize, 4, 16] {
            for &mb in sizes {
                let data = harness::random_bytes(mb * fig3::MB, 42);
                let reps = match mb {
                    1 => 5,
                    10 => 3,
                    _ => 2,
                };
                let reps = if quick { reps.min(3) } else { reps };
                let mut inline_rate = [0.0f64; 2];
                for mode in [Mode::Inline, Mode::Cpu, Mode::Gpu] {
                    let config = fig3::config(mode, aes, ghash);
                    let make = |i: usize| -> Result<Sa, String> {
                        let spi = 0x100 + i as u32;
                        let config = Config { spi, ..config };
                        let salt = [1, 2, 3, i as u8];
                        match mode {
                            Mode::Gpu => {
                                let gpu = || -> Result<Box<dyn KeystreamProducer>, String> {
                                    Ok(Box::new(CudaProducer::on(&service, &key).map_err(e)?))
                                };
                                Sa::with_producers(&key, salt, config, gpu()?, gpu()?)
                                    .map_err(|err| err.to_string())
                            }
                            _ => Sa::new(&key, salt, config).map_err(|err| err.to_string()),
                        }
                    };
                    let mut runs = Vec::new();
                    for _ in 0..reps {
                        runs.push(fig3::round_trip(&make, sas, &data)?);
                    }
                    for (direction, name) in fig3::DIRECTIONS.iter().enumerate() {
                        let s = fig3::spread(&runs, direction);
                        let mb_per_s = |wall: f64| data.len() as f64 / wall / 1e6;
                        let rate = mb_per_s(s.median.wall);
                        if mode == Mode::Inline {
                            inline_rate[direction] = rate;
                        }
                        println!(
                            "| {world} ({}+{}) | {sas} | {mb} MB | {} | {name} | {rate:.0} | {:.0}–{:.0} | {:.2}× | {:.3} | {} | {} |",
                            aes.name(),
                            ghash.name(),
                            mode.name(),
                            mb_per_s(s.slowest),
                            mb_per_s(s.fastest),
                            rate / inline_rate[direction],
                            s.median.thread,
                            s.median.stats.fallbacks(),
                            s.median.stats.producer_errors,
                        );
                    }
                }
            }
        }
    }
    let stats = service.stats();
    let starved: u64 = stats.starved.iter().sum();
    println!(
        "\nGPU service over the ESP runs: {} launches, {:.2} jobs per launch, {starved} requests starved, {} failed.",
        stats.batches,
        stats.jobs as f64 / stats.batches.max(1) as f64,
        stats.failed
    );
    Ok(())
}
