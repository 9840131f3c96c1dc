//! The configuration whose code size the issue bounds — AES-128-GCM with
//! FACE `rd1+` counter mode and the constant-time Karatsuba GHASH — and
//! nothing else: key setup, one sealing and one opening of a 4 KiB
//! message, in place. `llvm-size -A` of this binary against
//! `size_baseline` (the same runtime, no cryptography) is the core's
//! `.text`; the stack painted below the stack pointer before the work and
//! scanned after it is the core's stack use, printed over semihosting.

#![no_std]
#![no_main]

use core::arch::asm;
use core::hint::black_box;

use aekit_core::AesGcm;
use aekit_core::ctr::face::Rd1Plus;
use aekit_core::ghash::Karatsuba;
use aekit_core_firmware::semihosting;

/// Bytes below the stack pointer painted and scanned.
const PAINT: usize = 32 * 1024;
const PATTERN: u32 = 0xaaaa_5555;

static mut BUF: [u8; 4096] = [0; 4096];

/// Key setup, sealing and opening; true when the message comes back.
#[inline(never)]
fn work(buf: &mut [u8]) -> bool {
    let key = black_box([0x42u8; 16]);
    let iv = black_box([0x24u8; 12]);
    let aad = black_box([0x11u8; 20]);
    let Ok(gcm) = AesGcm::<Karatsuba, Rd1Plus>::new(&key) else {
        return false;
    };
    for (i, b) in buf.iter_mut().enumerate() {
        *b = i as u8;
    }
    let Ok(tag) = gcm.encrypt_in_place_detached(&iv, &aad, buf, 16) else {
        return false;
    };
    let opened = gcm.decrypt_in_place_detached(&iv, &aad, buf, tag.as_bytes());
    opened.is_ok() && buf.iter().enumerate().all(|(i, &b)| b == i as u8)
}

/// `n` in decimal into `out`, NUL-terminated; the digits' slice.
fn decimal(mut n: usize, out: &mut [u8; 12]) -> &[u8] {
    let mut i = out.len() - 1;
    out[i] = 0;
    loop {
        i -= 1;
        out[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    &out[i..]
}

#[unsafe(no_mangle)]
fn firmware_main() -> ! {
    let sp: usize;
    // SAFETY: reads the stack pointer into a register; no memory access.
    unsafe { asm!("mov {}, sp", out(reg) sp, options(nomem, nostack)) };
    let bottom = sp - PAINT;
    // Leave 64 bytes under the stack pointer for this frame's own calls.
    for addr in (bottom..sp - 64).step_by(4) {
        // SAFETY: RAM below the stack pointer that nothing uses (no
        // interrupts are enabled); `bottom` is far above the end of .bss.
        unsafe { (addr as *mut u32).write_volatile(PATTERN) };
    }
    // SAFETY: the only reference to BUF; `firmware_main` runs once.
    let buf = unsafe { &mut *core::ptr::addr_of_mut!(BUF) };
    let ok = work(buf);
    let mut lowest = sp - 64;
    for addr in (bottom..sp - 64).step_by(4) {
        // SAFETY: as above; reading back what was painted or overwritten.
        if unsafe { (addr as *const u32).read_volatile() } != PATTERN {
            lowest = addr;
            break;
        }
    }
    let mut digits = [0u8; 12];
    semihosting::write0(b"stack bytes used by key setup + seal + open: \0");
    semihosting::write0(decimal(sp - lowest, &mut digits));
    semihosting::write0(b"\n\0");
    semihosting::exit(ok)
}
