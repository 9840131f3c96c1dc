//! PLACEHOLDER — not implemented yet: reports itself unavailable, so no key
//! is ever built on it. Replace with the real fused kernel.

use super::FusedKernel;
use super::kernel::Kernel;
use crate::aes::{KeySchedule, ni::Ni};
use crate::ghash::clmul::Clmul;

/// Placeholder for the `vaes-avx2` fused kernel (uninhabited).
pub(crate) enum FusedAvx2 {}

impl Kernel for FusedAvx2 {
    type Aes = Ni;
    type Ghash = Clmul;

    fn aes(&self) -> &Ni {
        match *self {}
    }

    fn ghash(&self) -> &Clmul {
        match *self {}
    }
}

impl FusedKernel for FusedAvx2 {
    const NAME: &'static str = "vaes-avx2";

    fn is_available() -> bool {
        false
    }

    fn new(_: &KeySchedule) -> Option<Self> {
        None
    }
}
