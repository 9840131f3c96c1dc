//! PLACEHOLDER — not implemented yet: reports itself unavailable, so no key
//! is ever built on it. Replace with the real fused kernel.

use super::FusedKernel;
use super::kernel::Kernel;
use crate::aes::{KeySchedule, vaes::Vaes};
use crate::ghash::vclmul::Vclmul;

/// Placeholder for the `vaes-avx512` fused kernel (uninhabited).
pub(crate) enum FusedAvx512 {}

impl Kernel for FusedAvx512 {
    type Aes = Vaes;
    type Ghash = Vclmul;

    fn aes(&self) -> &Vaes {
        match *self {}
    }

    fn ghash(&self) -> &Vclmul {
        match *self {}
    }
}

impl FusedKernel for FusedAvx512 {
    const NAME: &'static str = "vaes-avx512";

    fn is_available() -> bool {
        false
    }

    fn new(_: &KeySchedule) -> Option<Self> {
        None
    }
}
