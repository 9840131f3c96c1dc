//! Helpers shared by the integration tests.
#![allow(dead_code)] // each test file uses its own subset

pub mod esp_reference;

use aes::cipher::{BlockCipherEncrypt, KeyInit};

/// E(K, block) by the RustCrypto `aes` crate, an implementation independent
/// of aekit's.
pub fn oracle_aes(key: &[u8], block: &mut [u8; 16]) {
    let b = block.into();
    match key.len() {
        16 => aes::Aes128::new_from_slice(key).unwrap().encrypt_block(b),
        24 => aes::Aes192::new_from_slice(key).unwrap().encrypt_block(b),
        32 => aes::Aes256::new_from_slice(key).unwrap().encrypt_block(b),
        n => panic!("no AES key of {n} bytes"),
    }
}

/// The keystream `encrypt_with_keystream` takes for a 96-bit IV and a
/// message of `len` bytes, by [`oracle_aes`]: E(K, IV ‖ 1) (Y_0's block),
/// then E(K, IV ‖ 2), … for the message's blocks, no byte more.
pub fn oracle_keystream(key: &[u8], iv: &[u8; 12], len: usize) -> Vec<u8> {
    let mut keystream = vec![0u8; 16 + len.next_multiple_of(16)];
    for (j, block) in keystream.chunks_exact_mut(16).enumerate() {
        block[..12].copy_from_slice(iv);
        block[12..].copy_from_slice(&(j as u32 + 1).to_be_bytes());
        oracle_aes(key, block.try_into().unwrap());
    }
    keystream
}

/// A small deterministic generator (SplitMix64) so failures reproduce
/// from the seed printed with them.
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next_u64() as u8).collect()
    }

    pub fn block(&mut self) -> [u8; 16] {
        let mut b = [0u8; 16];
        b.iter_mut().for_each(|x| *x = self.next_u64() as u8);
        b
    }
}

/// Decodes a hex string (test data only).
pub fn unhex(s: &str) -> Vec<u8> {
    assert!(s.len().is_multiple_of(2), "odd-length hex {s:?}");
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex"))
        .collect()
}

/// The AES strategies this CPU runs; prints SKIP for the others.
pub fn aes_strategies() -> Vec<aekit::aes::Strategy> {
    available(
        &aekit::aes::Strategy::ALL,
        |s| s.is_available(),
        |s| s.name(),
    )
}

/// The GHASH strategies this CPU runs; prints SKIP for the others.
pub fn ghash_strategies() -> Vec<aekit::ghash::Strategy> {
    available(
        &aekit::ghash::Strategy::ALL,
        |s| s.is_available(),
        |s| s.name(),
    )
}

/// The AES-GCM classes this CPU runs; prints SKIP for the others.
pub fn classes() -> Vec<aekit::gcm::Class> {
    available(&aekit::gcm::Class::ALL, |c| c.is_available(), |c| c.name())
}

/// One way aekit can compute AES-GCM: a strategy pair or a fused kernel.
#[derive(Clone, Copy, Debug)]
pub enum Implementation {
    Pair(aekit::aes::Strategy, aekit::ghash::Strategy),
    Fused(aekit::gcm::Fused),
    /// A pair whose counter mode is a FACE variant.
    Face(
        aekit::aes::Strategy,
        aekit::ghash::Strategy,
        aekit::ctr::face::Variant,
    ),
}

impl Implementation {
    pub fn build(self, key: &[u8]) -> Result<aekit::AesGcm, aekit::Error> {
        match self {
            Implementation::Pair(a, g) => aekit::AesGcm::with(key, a, g),
            Implementation::Fused(f) => aekit::AesGcm::fused(key, f),
            Implementation::Face(a, g, v) => aekit::AesGcm::with_face(key, a, g, v),
        }
    }
}

impl std::fmt::Display for Implementation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Implementation::Pair(a, g) => write!(f, "({}, {})", a.name(), g.name()),
            Implementation::Fused(k) => write!(f, "fused {}", k.name()),
            Implementation::Face(a, g, v) => {
                write!(f, "({}/{}, {})", a.name(), v.name(), g.name())
            }
        }
    }
}

/// Every implementation this CPU runs, enumerated from the registries:
/// each available (AES, GHASH) pair, each available fused kernel, and each
/// FACE variant on each AES strategy FACE applies to (with `karatsuba`:
/// FACE changes counter mode only, so one GHASH keeps the matrix small).
pub fn implementations() -> Vec<Implementation> {
    let ghash = ghash_strategies();
    let mut all: Vec<Implementation> = aes_strategies()
        .into_iter()
        .flat_map(|a| ghash.iter().map(move |&g| Implementation::Pair(a, g)))
        .collect();
    all.extend(
        available(&aekit::gcm::Fused::ALL, |f| f.is_available(), |f| f.name())
            .into_iter()
            .map(Implementation::Fused),
    );
    for a in aes_strategies()
        .into_iter()
        .filter(|&a| aekit::ctr::face::supports(a))
    {
        for v in aekit::ctr::face::Variant::ALL {
            all.push(Implementation::Face(
                a,
                aekit::ghash::Strategy::Karatsuba,
                v,
            ));
        }
    }
    assert!(
        !all.is_empty(),
        "no implementation runs here: nothing would be tested"
    );
    all
}

fn available<S: Copy>(
    all: &[S],
    ok: impl Fn(S) -> bool,
    name: impl Fn(S) -> &'static str,
) -> Vec<S> {
    all.iter()
        .copied()
        .filter(|&s| {
            let on = ok(s);
            if !on {
                skip(&format!("{}: not available on this CPU", name(s)));
            }
            on
        })
        .collect()
}

/// Prints `SKIP <why>` where a reader sees it: straight to stderr, which
/// the test harness does not capture (it captures `eprintln!`).
pub fn skip(why: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "SKIP {why}");
}

/// `len` bytes that end at a page boundary, the next page unmapped.
pub struct Guarded {
    base: *mut u8,
    size: usize,
    start: usize,
    len: usize,
}

impl Guarded {
    pub fn new(len: usize) -> Guarded {
        // SAFETY: a plain call.
        let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) } as usize;
        let body = len.div_ceil(page).max(1) * page;
        let size = body + page;
        // SAFETY: an anonymous private mapping of `size` bytes.
        let base = unsafe {
            libc::mmap(
                core::ptr::null_mut(),
                size,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        assert_ne!(base, libc::MAP_FAILED, "mmap");
        let base = base.cast::<u8>();
        // SAFETY: the last page of the mapping made above.
        let r = unsafe { libc::mprotect(base.add(body).cast(), page, libc::PROT_NONE) };
        assert_eq!(r, 0, "mprotect");
        Guarded {
            base,
            size,
            start: body - len,
            len,
        }
    }

    /// A copy of `bytes`, ending at the page boundary.
    pub fn holding(bytes: &[u8]) -> Guarded {
        let mut g = Guarded::new(bytes.len());
        g.slice().copy_from_slice(bytes);
        g
    }

    pub fn slice(&mut self) -> &mut [u8] {
        // SAFETY: the `len` bytes before the guard page are mapped
        // read-write and borrowed through `self` only.
        unsafe { core::slice::from_raw_parts_mut(self.base.add(self.start), self.len) }
    }
}

impl Drop for Guarded {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `new`.
        unsafe { libc::munmap(self.base.cast(), self.size) };
    }
}
