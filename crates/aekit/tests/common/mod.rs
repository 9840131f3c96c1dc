//! Helpers shared by the integration tests.
#![allow(dead_code)] // each test file uses its own subset

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

/// Every available (AES, GHASH) pair, enumerated from the registries.
pub fn pairs() -> Vec<(aekit::aes::Strategy, aekit::ghash::Strategy)> {
    let ghash = ghash_strategies();
    aes_strategies()
        .into_iter()
        .flat_map(|a| ghash.iter().map(move |&g| (a, g)))
        .collect()
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
                eprintln!("SKIP {}: not available on this CPU", name(s));
            }
            on
        })
        .collect()
}
