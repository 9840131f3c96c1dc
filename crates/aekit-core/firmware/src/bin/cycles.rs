//! The workloads of the seed's three cycle tables, each between two
//! marker calls (`mark_begin`, `mark_end`) that delimit it in QEMU's
//! instruction trace for `cycles/m4model.py`, over messages of 1, 4, 20
//! and 40 KiB (the sizes in `SIZES`: the seed's "KB" read as KiB), in the
//! order `cycles/run.sh` labels them:
//!
//! 1. GCTR: counter mode alone (`ctr::Mode::apply`) over the message from
//!    the first counter block GCM uses with a 12-byte IV (IV ‖ 2), for
//!    AES-128 and AES-256 and each of `Plain`, `Rd1`, `Rd1Plus`,
//!    `Rd2Plus`; the key schedule is outside the region, FACE's tables
//!    (built per message by `apply`) inside it (`gctr`);
//! 2. GHASH: `GhashKey::update_padded` over the message's blocks with
//!    `Karatsuba` and `Shoup4`; the table of `Shoup4` is built per key
//!    (`AesGcm::new`), not per message, so its setup is outside the region
//!    as it is outside GCM's (`ghash`);
//! 3. GCM: sealing with 12-byte IVs and no associated data, for AES-128
//!    and AES-256, in every (GHASH, counter mode) pair (`gcm`);
//!
//! then the primitives alone (key setup, two blocks of AES, one GHASH
//! block).

#![no_std]
#![no_main]

use core::hint::black_box;

use aekit_core::AesGcm;
use aekit_core::aes::Block;
use aekit_core::aes::Fixslice;
use aekit_core::ctr::Mode;
use aekit_core::ctr::Plain;
use aekit_core::ctr::face::{Rd1, Rd1Plus, Rd2Plus};
use aekit_core::ghash::{GhashKey, Karatsuba, Shoup4};
use aekit_core_firmware::semihosting;
use zeroize::Zeroize;

/// Message sizes of the tables, in bytes.
const SIZES: [usize; 4] = [1024, 4096, 20480, 40960];

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

/// Counter mode `C` alone over every size, from IV ‖ 2.
fn gctr<C: Mode>(aes: &Fixslice, buf: &mut [u8], id: &mut u32) {
    for n in SIZES {
        let mut counter: Block = black_box([0x5a; 16]);
        counter[12..].copy_from_slice(&2u32.to_be_bytes());
        mark_begin(*id);
        C::apply(aes, &mut counter, &mut buf[..n]);
        mark_end(*id);
        black_box((counter, buf[n - 1]));
        *id += 1;
    }
}

/// GHASH `G` alone over every size, its key built outside the regions.
fn ghash<G: GhashKey>(buf: &[u8], id: &mut u32) {
    let key = G::new(&black_box([9u8; 16]));
    for n in SIZES {
        let mut y = black_box([0u8; 16]);
        mark_begin(*id);
        key.update_padded(&mut y, &buf[..n]);
        mark_end(*id);
        black_box(y);
        *id += 1;
    }
}

/// Seals every size with one configuration and key length.
fn gcm<G: GhashKey + Zeroize, C: Mode>(key: &[u8], buf: &mut [u8], id: &mut u32) {
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
    let keys = [&[0x11u8; 16][..], &[0x22u8; 32][..]];
    for key in keys {
        let aes = Fixslice::new(black_box(key)).unwrap();
        gctr::<Plain>(&aes, buf, &mut id);
        gctr::<Rd1>(&aes, buf, &mut id);
        gctr::<Rd1Plus>(&aes, buf, &mut id);
        gctr::<Rd2Plus>(&aes, buf, &mut id);
    }
    ghash::<Karatsuba>(buf, &mut id);
    ghash::<Shoup4>(buf, &mut id);
    for key in keys {
        let key = black_box(key);
        gcm::<Karatsuba, Plain>(key, buf, &mut id);
        gcm::<Karatsuba, Rd1>(key, buf, &mut id);
        gcm::<Karatsuba, Rd1Plus>(key, buf, &mut id);
        gcm::<Karatsuba, Rd2Plus>(key, buf, &mut id);
        gcm::<Shoup4, Plain>(key, buf, &mut id);
        gcm::<Shoup4, Rd1>(key, buf, &mut id);
        gcm::<Shoup4, Rd1Plus>(key, buf, &mut id);
        gcm::<Shoup4, Rd2Plus>(key, buf, &mut id);
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
