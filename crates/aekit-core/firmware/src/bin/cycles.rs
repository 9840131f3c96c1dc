//! The workloads of the seed's cycle tables, each between two marker
//! calls (`mark_begin`, `mark_end`) that delimit it in QEMU's instruction
//! trace for `cycles/m4model.py`: AES-GCM sealing of 1, 4, 16 and 40 KiB
//! messages (the sizes in `SIZES`) with 12-byte IVs and no associated
//! data, for AES-128 and AES-256, in every (GHASH, counter mode) pair of
//! `suite`, in the order `cycles/run.sh` labels them; then the primitives
//! alone (key setup, two blocks of AES, one GHASH block).

#![no_std]
#![no_main]

use core::hint::black_box;

use aekit_core::AesGcm;
use aekit_core::aes::Fixslice;
use aekit_core::ctr::Mode;
use aekit_core::ctr::Plain;
use aekit_core::ctr::face::{Rd1, Rd1Plus, Rd2Plus};
use aekit_core::ghash::{GhashKey, Karatsuba, Shoup4};
use aekit_core_firmware::semihosting;
use zeroize::Zeroize;

/// Message sizes of the tables, in bytes.
const SIZES: [usize; 4] = [1024, 4096, 16384, 40960];

static mut BUF: [u8; 40960] = [0; 40960];

#[unsafe(no_mangle)]
#[inline(never)]
extern "C" fn mark_begin(id: u32) {
    black_box(id);
}

#[unsafe(no_mangle)]
#[inline(never)]
extern "C" fn mark_end(id: u32) {
    // Not `id`: two identical bodies would be folded into one function.
    black_box(!id);
}

/// Seals every size with one configuration and key length.
fn suite<G: GhashKey + Zeroize, C: Mode>(key: &[u8], buf: &mut [u8], id: &mut u32) {
    let gcm = AesGcm::<G, C>::new(key).unwrap();
    let iv = black_box([0x5au8; 12]);
    for n in SIZES {
        mark_begin(*id);
        let tag = gcm.encrypt_in_place_detached(&iv, &[], &mut buf[..n], 16);
        mark_end(*id);
        black_box(tag.map(|t| t.as_bytes()[0]).unwrap_or(0));
        *id += 1;
    }
}

#[unsafe(no_mangle)]
fn firmware_main() -> ! {
    // SAFETY: the only reference to BUF; `firmware_main` runs once.
    let buf = unsafe { &mut *core::ptr::addr_of_mut!(BUF) };
    let mut id = 0;
    for key in [&[0x11u8; 16][..], &[0x22u8; 32][..]] {
        let key = black_box(key);
        suite::<Karatsuba, Plain>(key, buf, &mut id);
        suite::<Karatsuba, Rd1>(key, buf, &mut id);
        suite::<Karatsuba, Rd1Plus>(key, buf, &mut id);
        suite::<Karatsuba, Rd2Plus>(key, buf, &mut id);
        suite::<Shoup4, Plain>(key, buf, &mut id);
        suite::<Shoup4, Rd1>(key, buf, &mut id);
        suite::<Shoup4, Rd1Plus>(key, buf, &mut id);
        suite::<Shoup4, Rd2Plus>(key, buf, &mut id);
    }
    // The primitives: AES-128 key setup, two blocks, one GHASH block each.
    let key = black_box([0x33u8; 16]);
    mark_begin(id);
    let aes = Fixslice::new(&key).unwrap();
    mark_end(id);
    let mut blocks = black_box([[7u8; 16]; 2]);
    mark_begin(id + 1);
    aes.encrypt_blocks(&mut blocks);
    mark_end(id + 1);
    let h = black_box([9u8; 16]);
    let (karatsuba, shoup4) = (Karatsuba::new(&h), Shoup4::new(&h));
    let mut y = black_box([1u8; 16]);
    mark_begin(id + 2);
    karatsuba.update_padded(&mut y, &blocks[0]);
    mark_end(id + 2);
    mark_begin(id + 3);
    shoup4.update_padded(&mut y, &blocks[1]);
    mark_end(id + 3);
    black_box((y, blocks));
    semihosting::exit(true)
}
