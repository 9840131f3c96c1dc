//! The runtime alone (vector table, reset, semihosting exit), to subtract
//! from `size_probe`'s sizes.

#![no_std]
#![no_main]

use aekit_core_firmware::semihosting;

#[unsafe(no_mangle)]
fn firmware_main() -> ! {
    semihosting::exit(true)
}
