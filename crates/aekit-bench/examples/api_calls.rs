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
//! (`decrypt_detached_into`), `rust-open` (`decrypt_in_place_detached`,
//! alternating between two ciphertexts), `c` (`aekit_aes_gcm_encrypt` in place),
//! `c-oop` (out of place), `c-dec` (`aekit_aes_gcm_decrypt` out of
//! place) and `esp` (`esp::Sa::encapsulate_in_place` of a `LEN`-byte
//! payload, whose one AES-GCM call takes the payload, padding and
//! trailer with 8 bytes of AAD: compare `rust` with `AAD=8` and the
//! body's length, `LEN` + 2 rounded up to 4); `LEN` the message's
//! bytes, with 16 bytes of AAD (`AAD` bytes where the environment sets
//! it) and a 12-byte IV, an AES-128 key (AES-256 where it sets
//! `KEY256`); each form runs `CALLS` times a round, the forms in turn,
//! for `ROUNDS` rounds (default 1), and the best round's ns per call is
//! printed. The instructions of one call are the difference between
//! two counts with different `CALLS`, divided by the difference.
//!
//! Valgrind's CPU has no AVX-512, so callgrind counts the kernel of the
//! class below. The default kernel's instructions are counted by
//! single-stepping under `gdb` (`examples/count_call.py`): a C call from
//! its entry to its return (`COUNT_AT=aekit_aes_gcm_encrypt`), or, for
//! the Rust calls, which are inlined into this loop, one turn of the loop
//! from one entry into the kernel to the next (`COUNT_LOOP=1`, the
//! kernel's symbol, `COUNT_SKIP=2` past the two calls made before the
//! loop; `CALLS` 2).

use core::ffi::c_int;
use std::hint::black_box;
use std::time::Instant;

use aekit::AesGcm;

#[path = "../src/c_abi.rs"]
mod c_abi;

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
    let room = (len + 16).max(4096);

    let key_len = if std::env::var_os("KEY256").is_some() {
        32
    } else {
        16
    };
    let aad_len: usize = std::env::var("AAD").map_or(16, |a| a.parse().expect("AAD"));
    let (key, iv, aad) = (vec![7u8; key_len], [1u8; 12], vec![2u8; aad_len]);
    let gcm = AesGcm::new(&key).expect("key");
    let handle = c_abi::Handle::new(&key).expect("aekit_aes_gcm_new");
    let mut buf = vec![3u8; room];
    let mut out = vec![0u8; room];
    let mut sealed = vec![0u8; room];
    let tag = gcm
        .encrypt_detached_into(&iv, &aad, &buf[..len], &mut sealed[..len], 16)
        .expect("seal");
    sealed[len..len + 16].copy_from_slice(tag.as_ref());
    // In place, decryption alternates between two ciphertexts: C, and P
    // itself, valid under the tag of sealing C (counter mode is its own
    // inverse under one IV).
    let mut opened = sealed[..len].to_vec();
    let tag_of_p = gcm
        .encrypt_in_place_detached(&iv, &aad, &mut opened.clone(), 16)
        .expect("seal");
    let open_tags = [tag.as_ref().to_vec(), tag_of_p.as_ref().to_vec()];
    let mut turn = 0;
    let mut sa =
        aekit::esp::Sa::new(&key, [1, 2, 3, 4], aekit::esp::Config::default()).expect("SA");
    let head = sa.headroom();
    let mut packet = vec![3u8; head + len + sa.tailroom(len)];

    let mut best = vec![f64::INFINITY; forms.len()];
    for _ in 0..rounds {
        for (form, best) in forms.iter().zip(&mut best) {
            let start = Instant::now();
            for _ in 0..calls {
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
                    "rust-open" => {
                        turn ^= 1;
                        gcm.decrypt_in_place_detached(
                            black_box(&iv),
                            &aad,
                            &mut opened,
                            &open_tags[turn ^ 1],
                        )
                        .is_err() as c_int
                    }
                    "c" => handle.encrypt(&iv, &aad, None, &mut buf[..len + 16]),
                    "c-oop" => handle.encrypt(&iv, &aad, Some(&buf[..len]), &mut out[..len + 16]),
                    "c-dec" => handle.decrypt(&iv, &aad, &sealed[..len + 16], &mut out[..len]),
                    "esp" => sa
                        .encapsulate_in_place(&mut packet, head..head + len, 4)
                        .map(|sealed| black_box(sealed.packet.end))
                        .is_err() as c_int,
                    other => {
                        eprintln!("unknown form {other}");
                        std::process::exit(2);
                    }
                };
                assert_eq!(status, 0, "{form} failed");
            }
            *best = best.min(start.elapsed().as_nanos() as f64 / calls as f64);
        }
    }
    for (form, best) in forms.iter().zip(&best) {
        println!("{form} {len} B: {best:.2} ns/call");
    }
}
