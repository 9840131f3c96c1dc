//! `aekit-ctgrind KIND NAME`: runs one aekit strategy on secrets that
//! Valgrind's memcheck is told are *undefined*, so that memcheck reports
//! every branch and every memory address that depends on them — the
//! method of A. Langley's ctgrind. Run under
//! `valgrind --error-exitcode=42`; `tests/ct.rs` does so for every
//! strategy and checks that exactly the strategies claiming to be
//! constant-time come out clean (and that the others are caught, which
//! shows the check can fail).
//!
//! KIND is `aes`, `ghash`, `gcm`, `face` or `aether`; NAME a strategy
//! token (for `gcm`, the pair `AES+GHASH` or a fused kernel's token; for
//! `face`, `AES/VARIANT` such as `fixslice/rd2+`). Outside Valgrind the
//! requests are no-ops.
//!
//! For `face` the key and the data are secret but the counter is not: FACE
//! indexes its tables and chooses its resets by the counter, which is the
//! IV (sent in the clear) and a block count. The run crosses a reset of
//! bytes 12..14 and goes through GCM with FACE counter mode too.

use std::hint::black_box;
use std::process::ExitCode;

use aekit::ctr::face;
use aekit::gcm::Fused;
use aekit::{AesGcm, aes, ghash};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [kind, name] = args.as_slice() else {
        eprintln!("usage: aekit-ctgrind aes|ghash|gcm|face|aether NAME");
        return ExitCode::from(2);
    };
    match run(kind, name) {
        Ok(()) => ExitCode::SUCCESS,
        // Valgrind's virtual CPU lacks some extensions (AVX-512): say so
        // apart from real errors.
        Err(e) if e.contains("needs CPU instructions") => {
            eprintln!("aekit-ctgrind: {e}");
            ExitCode::from(3)
        }
        Err(e) => {
            eprintln!("aekit-ctgrind: {e}");
            ExitCode::from(2)
        }
    }
}

fn run(kind: &str, name: &str) -> Result<(), String> {
    // Secrets: a key, a hash key, a message. Distinct bytes so no strategy
    // meets a degenerate value.
    let mut key: Vec<u8> = (0..32u8).map(|i| i.wrapping_mul(37) ^ 0x5a).collect();
    let mut message: Vec<u8> = (0..339u16).map(|i| (i as u8).wrapping_mul(11)).collect();
    let mut h: [u8; 16] = core::array::from_fn(|i| (i as u8).wrapping_mul(73) ^ 0xc3);
    let public_iv = [0x0bu8; 12];
    memcheck::make_undefined(&mut key);
    memcheck::make_undefined(&mut message);
    memcheck::make_undefined(&mut h);

    match kind {
        "aes" => {
            let s = aes::Strategy::from_name(name).ok_or(format!("no AES strategy {name}"))?;
            for key_len in [16, 24, 32] {
                let cipher = aes::Cipher::new(s, &key[..key_len]).map_err(|e| e.to_string())?;
                let mut blocks = [[0u8; 16]; 5];
                for (i, b) in blocks.iter_mut().enumerate() {
                    b.copy_from_slice(&message[16 * i..16 * i + 16]);
                }
                cipher.encrypt_blocks(&mut blocks);
                let mut counter = [0u8; 16];
                cipher.ctr32(&mut counter, &mut message);
                black_box((&blocks, &message));
            }
        }
        "ghash" => {
            let s = ghash::Strategy::from_name(name).ok_or(format!("no GHASH strategy {name}"))?;
            let hasher = ghash::Key::new(s, &h).map_err(|e| e.to_string())?;
            let mut y = h;
            hasher.update_blocks(&mut y, &message[..80]);
            black_box(&y);
        }
        "gcm" => {
            let build = |key: &[u8]| match name.split_once('+') {
                Some((a, g)) => {
                    let a = aes::Strategy::from_name(a).ok_or(format!("no AES strategy {a}"))?;
                    let g =
                        ghash::Strategy::from_name(g).ok_or(format!("no GHASH strategy {g}"))?;
                    AesGcm::with(key, a, g).map_err(|e| e.to_string())
                }
                None => {
                    let f = Fused::from_name(name).ok_or(format!("no fused kernel {name}"))?;
                    AesGcm::fused(key, f).map_err(|e| e.to_string())
                }
            };
            for key_len in [16, 32] {
                let gcm = build(&key[..key_len])?;
                // A 12-byte and an odd-length IV, AAD, messages with a
                // partial last block, short (a kernel's whole-message
                // path) and long (its wide loop): every path of the mode.
                let (aad, text) = message.split_at_mut(21);
                for len in [62, text.len()] {
                    for iv in [&public_iv[..], &public_iv[..7]] {
                        let tag = gcm
                            .encrypt_in_place_detached(iv, aad, &mut text[..len], 16)
                            .map_err(|e| e.to_string())?;
                        black_box(&tag);
                    }
                }
            }
        }
        "face" => {
            let (a, v) = name
                .split_once('/')
                .ok_or(format!("face takes AES/VARIANT, not {name}"))?;
            let a = aes::Strategy::from_name(a).ok_or(format!("no AES strategy {a}"))?;
            let v = face::Variant::from_name(v).ok_or(format!("no FACE variant {v}"))?;
            for key_len in [16, 24, 32] {
                let cipher = aes::Cipher::new(a, &key[..key_len]).map_err(|e| e.to_string())?;
                // Public counter, two blocks short of a change of byte 14:
                // the plain head, a group, a reset, a partial group.
                let mut counter = [0x0bu8; 16];
                counter[12..].copy_from_slice(&0x0000_01f9u32.to_be_bytes());
                face::ctr32(&cipher, v, &mut counter, &mut message).map_err(|e| e.to_string())?;
                black_box(&message);
            }
            for key_len in [16, 32] {
                let gcm = AesGcm::with_face(&key[..key_len], a, ghash::Strategy::Karatsuba, v)
                    .map_err(|e| e.to_string())?;
                let (aad, text) = message.split_at_mut(21);
                let tag = gcm
                    .encrypt_in_place_detached(&public_iv, aad, text, 16)
                    .map_err(|e| e.to_string())?;
                black_box(&tag);
            }
        }
        "aether" => {
            let s = aekit::aether::Strategy::from_name(name)
                .ok_or(format!("no AETHER strategy {name}"))?;
            let aether = aekit::aether::Aether::with(&key, s).map_err(|e| e.to_string())?;
            let (ad, text) = message.split_at_mut(21);
            let tag = aether
                .encrypt_in_place_detached(&h, ad, text)
                .map_err(|e| e.to_string())?;
            black_box(&tag);
        }
        _ => return Err(format!("unknown kind {kind}")),
    }
    Ok(())
}

/// Valgrind client requests, written from `valgrind.h` / `memcheck.h`.
mod memcheck {
    /// `VG_USERREQ_TOOL_BASE('M','C') + 1`: VG_USERREQ__MAKE_MEM_UNDEFINED.
    const MAKE_MEM_UNDEFINED: u64 = ((b'M' as u64) << 24 | (b'C' as u64) << 16) + 1;

    /// Tells memcheck that `bytes` hold no defined value: from here on,
    /// a branch or an address computed from them is reported.
    pub fn make_undefined(bytes: &mut [u8]) {
        client_request(
            MAKE_MEM_UNDEFINED,
            bytes.as_mut_ptr() as u64,
            bytes.len() as u64,
        );
    }

    #[cfg(target_arch = "x86_64")]
    #[allow(unsafe_code)]
    fn client_request(request: u64, arg1: u64, arg2: u64) -> u64 {
        let args: [u64; 6] = [request, arg1, arg2, 0, 0, 0];
        let result: u64;
        // SAFETY: this is Valgrind's "special instruction" sequence for
        // amd64: four rotations of rdi that add up to 128 bits (rdi ends as
        // it began) and an `xchg rbx, rbx` that is a no-op on a real CPU.
        // Under Valgrind it reads the six-word argument block at rax, which
        // lives on this stack frame for the duration of the asm, and writes
        // the result to rdx. No other state is touched.
        unsafe {
            core::arch::asm!(
                "rol rdi, 3", "rol rdi, 13", "rol rdi, 61", "rol rdi, 51",
                "xchg rbx, rbx",
                in("rax") args.as_ptr(),
                inout("rdx") 0u64 => result,
                inout("rdi") 0u64 => _,
                options(nostack),
            );
        }
        result
    }

    #[cfg(not(target_arch = "x86_64"))]
    fn client_request(_: u64, _: u64, _: u64) -> u64 {
        0
    }
}
