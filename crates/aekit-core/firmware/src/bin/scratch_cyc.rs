//! scratch
#![no_std]
#![no_main]
use core::hint::black_box;
use aekit_core::aes::{Block, Fixslice};
use aekit_core::ctr::{Mode, Plain};
use aekit_core::ctr::face::{Rd1, Rd1Plus, Rd2Plus};
use aekit_core_firmware::semihosting;
static mut BUF: [u8; 40960] = [0; 40960];
#[unsafe(no_mangle)]
#[inline(never)]
extern "C" fn mark_begin(id: u32) { black_box(id); }
#[unsafe(no_mangle)]
#[inline(never)]
extern "C" fn mark_end(id: u32) { black_box(!id); }
fn gctr<C: Mode>(aes: &Fixslice, buf: &mut [u8], id: &mut u32) {
    for n in [4096usize, 40960] {
        let mut counter: Block = black_box([0x5a; 16]);
        counter[12..].copy_from_slice(&2u32.to_be_bytes());
        mark_begin(*id);
        C::apply(aes, &mut counter, &mut buf[..n]);
        mark_end(*id);
        black_box((counter, buf[n - 1]));
        *id += 1;
    }
}
#[unsafe(no_mangle)]
fn firmware_main() -> ! {
    let buf = unsafe { &mut *core::ptr::addr_of_mut!(BUF) };
    let mut id = 0;
    let aes = Fixslice::new(black_box(&[0x11u8; 16])).unwrap();
    gctr::<Plain>(&aes, buf, &mut id);
    gctr::<Rd1>(&aes, buf, &mut id);
    gctr::<Rd1Plus>(&aes, buf, &mut id);
    gctr::<Rd2Plus>(&aes, buf, &mut id);
    semihosting::exit(true)
}
