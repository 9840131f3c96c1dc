//! `bitsliced-avx2`: the bitsliced batch engine (`bitsliced.rs`, read its
//! header) compiled with AVX2, 256 messages per group.
//!
//! CPU features: AVX2, checked at run time; the [`Avx2`] token exists only
//! where it was detected. The three hot operations are compiled here with
//! AVX2 enabled, so the element-wise `[u64; 4]` operations of the generic
//! code become single 256-bit `vpxor`/`vpand`/`vpor`/`vpandn`/`vpsllq`/
//! `vpsrlq` instructions (LLVM's straight-line vectorizer; there is not one
//! intrinsic here to keep in step with the portable form).
//!
//! Constant-time: yes, as the generic code.

use super::bitsliced::{self, Lanes, Planes, Rows, Slicer};

/// Proof that this CPU runs AVX2.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Avx2 {
    _detected: (),
}

impl Avx2 {
    /// The token, if this CPU has AVX2.
    pub(crate) fn detect() -> Option<Avx2> {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            return Some(Avx2 { _detected: () });
        }
        None
    }
}

#[cfg(target_arch = "x86_64")]
impl Slicer<4> for Avx2 {
    fn round(self, st: &mut Lanes<4>, x: &[Planes<4>; 3]) {
        // SAFETY: `self` exists only if `detect` found AVX2.
        unsafe { round_tf(st, x) }
    }
    fn keystream(self, st: &mut Lanes<4>, x: &[Planes<4>; 3], y: &mut [Planes<4>; 3]) {
        *y = *x;
        // SAFETY: as above, the token proves the feature.
        unsafe { keystream_xor_tf(st, y) }
    }
    fn transpose(self, rows: &mut Rows<4>) {
        // SAFETY: as above, the token proves the feature.
        unsafe { transpose_tf(rows) }
    }
}

/// Without x86-64 the token is never built; the generic code keeps the
/// trait's contract.
#[cfg(not(target_arch = "x86_64"))]
impl Slicer<4> for Avx2 {
    fn round(self, st: &mut Lanes<4>, x: &[Planes<4>; 3]) {
        bitsliced::round(st, x);
    }
    fn keystream(self, st: &mut Lanes<4>, x: &[Planes<4>; 3], y: &mut [Planes<4>; 3]) {
        *y = *x;
        bitsliced::keystream_xor(st, y);
    }
    fn transpose(self, rows: &mut Rows<4>) {
        bitsliced::transpose(rows);
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn round_tf(st: &mut Lanes<4>, x: &[Planes<4>; 3]) {
    bitsliced::round(st, x);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn keystream_xor_tf(st: &mut Lanes<4>, data: &mut [Planes<4>; 3]) {
    bitsliced::keystream_xor(st, data);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn transpose_tf(rows: &mut Rows<4>) {
    bitsliced::transpose(rows);
}
