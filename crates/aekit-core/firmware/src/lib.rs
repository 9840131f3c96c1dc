//! The bare-metal runtime the firmware binaries share, without a runtime
//! crate: the vector table (`VECTORS`, `EXCEPTIONS`), a reset handler that
//! enables the FPU (the hard-float target may emit FPU instructions) and
//! calls the binary's `firmware_main`, a panic and fault handler that
//! report and fail, and semihosting by `bkpt 0xab` (ARM DUI 0471,
//! "Semihosting operations"). QEMU's loader places `.data` and zero-fills
//! `.bss` (`link.x`), so nothing is copied. Nothing here formats: a
//! binary that does not format links no `core::fmt`.

#![no_std]

pub mod semihosting;

unsafe extern "Rust" {
    /// The binary's entry point, `#[unsafe(no_mangle)] fn firmware_main() -> !`.
    fn firmware_main() -> !;
}

/// The reset handler: enables the FPU (CP10 and CP11 full access in
/// CPACR) and runs the binary.
#[unsafe(no_mangle)]
pub extern "C" fn reset() -> ! {
    const CPACR: *mut u32 = 0xe000_ed88 as *mut u32;
    // SAFETY: CPACR is a System Control Block register present on every
    // ARMv7-M core; setting bits 20..23 grants access to CP10/CP11 (the
    // FPU) and touches nothing else. On the Cortex-M3, which has no FPU,
    // the bits read as zero and the write is ignored.
    unsafe { CPACR.write_volatile(CPACR.read_volatile() | (0xf << 20)) };
    // SAFETY: every binary of this crate defines `firmware_main` with this
    // signature; it is called once.
    unsafe { firmware_main() }
}

/// Any exception: report and fail.
pub extern "C" fn fault() -> ! {
    semihosting::write0(b"FAIL: processor exception\n\0");
    semihosting::exit(false)
}

#[unsafe(link_section = ".vector_table.reset")]
#[unsafe(no_mangle)]
static VECTORS: extern "C" fn() -> ! = reset;

#[unsafe(link_section = ".vector_table.exceptions")]
#[unsafe(no_mangle)]
static EXCEPTIONS: [extern "C" fn() -> !; 14] = [fault; 14];

#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    semihosting::write0(b"FAIL: panic\n\0");
    semihosting::exit(false)
}
