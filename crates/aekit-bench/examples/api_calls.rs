//! One way of calling aekit's AES-GCM, repeated: for counting the
//! instructions each form executes (`valgrind --tool=callgrind`, whose
//! counts noise does not move) and for timing the forms against one
//! another in one process.
//!
//! ```text
//! cargo run --release -p aekit-bench --example api_calls -- FORMS LEN CALLS [ROUNDS]
//! ```
//!
//! `FORMS` is a comma-separated list of `rust` (`encrypt_in_place_detached`),
//! `rust-oop` (`encrypt_detached_into`), `rust-dec`
//! (`decrypt_detached_into`), `c` (`aekit_aes_gcm_encrypt` in place),
//! `c-oop` (out of place) and `c-dec` (`aekit_aes_gcm_decrypt` out of
//! place); `LEN` the message's bytes (at most 4080), with 16 bytes of AAD
//! and a 12-byte IV; each form runs `CALLS` times a round, the forms in
//! turn, for `ROUNDS` rounds (default 1), and the best round's ns per call
//! is printed. The instructions of one call are the difference between
//! two counts with different `CALLS`, divided by the difference.

use core::ffi::c_int;
use std::hint::black_box;
use std::time::Instant;

use aekit::AesGcm;

// Linked for the symbols below.
use aekit_ffi as _;

/// The handle's type, opaque as `aekit.h` declares it.
#[repr(C)]
struct Gcm {
    _opaque: [u8; 0],
}

#[allow(unsafe_code)] // the C ABI, as `aekit.h` declares it
unsafe extern "C" {
    fn aekit_aes_gcm_new(key: *const u8, key_len: usize, out: *mut *mut Gcm) -> c_int;
    fn aekit_aes_gcm_encrypt(
        gcm: *const Gcm,
        nonce: *const u8,
        nonce_len: usize,
        aad: *const u8,
        aad_len: usize,
        plaintext: *const u8,
        plaintext_len: usize,
        out: *mut u8,
        out_cap: usize,
        out_len: *mut usize,
    ) -> c_int;
    fn aekit_aes_gcm_decrypt(
        gcm: *const Gcm,
        nonce: *const u8,
        nonce_len: usize,
        aad: *const u8,
        aad_len: usize,
        ciphertext: *const u8,
        ciphertext_len: usize,
        out: *mut u8,
        out_cap: usize,
        out_len: *mut usize,
    ) -> c_int;
}

#[allow(unsafe_code)] // calls the C ABI with pointers into live buffers
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 3 {
        eprintln!("usage: api_calls FORMS LEN CALLS [ROUNDS]");
        std::process::exit(2);
    }
    let forms: Vec<&str> = args[0].split(',').collect();
    let len: usize = args[1].parse().expect("LEN");
    let calls: usize = args[2].parse().expect("CALLS");
    let rounds: usize = args.get(3).map_or(1, |r| r.parse().expect("ROUNDS"));
    const ROOM: usize = 4096;
    assert!(len + 16 <= ROOM, "LEN at most {}", ROOM - 16);

    let (key, iv, aad) = ([7u8; 16], [1u8; 12], [2u8; 16]);
    let gcm = AesGcm::new(&key).expect("key");
    let mut handle = core::ptr::null_mut();
    // SAFETY: the key is readable for its length; `handle` is writable.
    let made = unsafe { aekit_aes_gcm_new(key.as_ptr(), 16, &mut handle) };
    assert_eq!(made, 0, "aekit_aes_gcm_new");
    let handle = handle.cast_const();
    let mut buf = vec![3u8; ROOM];
    let mut out = vec![0u8; ROOM];
    let mut sealed = vec![0u8; ROOM];
    let tag = gcm
        .encrypt_detached_into(&iv, &aad, &buf[..len], &mut sealed[..len], 16)
        .expect("seal");
    sealed[len..len + 16].copy_from_slice(tag.as_ref());

    let mut best = vec![f64::INFINITY; forms.len()];
    for _ in 0..rounds {
        for (form, best) in forms.iter().zip(&mut best) {
            let start = Instant::now();
            for _ in 0..calls {
                let mut written = 0usize;
                let status = match *form {
                    "rust" => gcm
                        .encrypt_in_place_detached(black_box(&iv), &aad, &mut buf[..len], 16)
                        .map(black_box)
                        .is_err() as c_int,
                    "rust-oop" => gcm
                        .encrypt_detached_into(
                            black_box(&iv),
                            &aad,
                            &buf[..len],
                            &mut out[..len],
                            16,
                        )
                        .map(black_box)
                        .is_err() as c_int,
                    "rust-dec" => gcm
                        .decrypt_detached_into(
                            black_box(&iv),
                            &aad,
                            &sealed[..len],
                            &mut out[..len],
                            &sealed[len..len + 16],
                        )
                        .is_err() as c_int,
                    // SAFETY: every pointer is readable (or, the output,
                    // writable) for the length passed with it; the handle
                    // is live; the text is the output itself or disjoint.
                    "c" => unsafe {
                        aekit_aes_gcm_encrypt(
                            black_box(handle),
                            iv.as_ptr(),
                            12,
                            aad.as_ptr(),
                            16,
                            buf.as_ptr(),
                            len,
                            buf.as_mut_ptr(),
                            ROOM,
                            &mut written,
                        )
                    },
                    // SAFETY: every pointer is readable (or, the output,
                    // writable) for the length passed with it; the handle
                    // is live; the text is the output itself or disjoint.
                    "c-oop" => unsafe {
                        aekit_aes_gcm_encrypt(
                            black_box(handle),
                            iv.as_ptr(),
                            12,
                            aad.as_ptr(),
                            16,
                            buf.as_ptr(),
                            len,
                            out.as_mut_ptr(),
                            ROOM,
                            &mut written,
                        )
                    },
                    // SAFETY: every pointer is readable (or, the output,
                    // writable) for the length passed with it; the handle
                    // is live; the text is the output itself or disjoint.
                    "c-dec" => unsafe {
                        aekit_aes_gcm_decrypt(
                            black_box(handle),
                            iv.as_ptr(),
                            12,
                            aad.as_ptr(),
                            16,
                            sealed.as_ptr(),
                            len + 16,
                            out.as_mut_ptr(),
                            ROOM,
                            &mut written,
                        )
                    },
                    other => {
                        eprintln!("unknown form {other}");
                        std::process::exit(2);
                    }
                };
                assert_eq!(status, 0, "{form} failed");
                black_box(written);
            }
            *best = best.min(start.elapsed().as_nanos() as f64 / calls as f64);
        }
    }
    for (form, best) in forms.iter().zip(&best) {
        println!("{form} {len} B: {best:.2} ns/call");
    }
}
