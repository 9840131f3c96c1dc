//! Which implementation a key runs on: the fused kernels ([`Fused`]) and
//! the classes [`AesGcm::new`](super::AesGcm::new) chooses among, fastest
//! first ([`Class`]), with the order of preference in one place
//! ([`Class::best`]) and the cap `AEKIT_KERNEL` sets on it.

use std::sync::OnceLock;

use super::kernel::FusedKernel;
use super::kernels;
use crate::Error;
use crate::aes;
use crate::ghash;

/// The fused AES+GHASH kernels: counter mode and GHASH in one pass over the
/// data, for the x86-64 and AArch64 instruction sets that have both. Each variant is
/// named as its token ([`Fused::name`]) and its file under `gcm/kernels/`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Fused {
    /// `vaes-avx512`: VAES and VPCLMULQDQ on 512-bit registers (AVX-512).
    VaesAvx512,
    /// `vaes-avx2`: VAES and VPCLMULQDQ on 256-bit registers (AVX2), for
    /// CPUs without AVX-512.
    VaesAvx2,
    /// `ni-clmul`: AES-NI and PCLMULQDQ on 128-bit registers, for older
    /// x86-64.
    NiClmul,
    /// `aes-pmull`: the ARMv8 AES and PMULL instructions on 128-bit
    /// registers (AArch64), with EOR3 where SHA3 is present.
    AesPmull,
}

/// The variants' former names, kept for code written against them.
#[allow(non_upper_case_globals)]
impl Fused {
    /// [`Fused::VaesAvx512`].
    #[deprecated(note = "renamed `Fused::VaesAvx512`, after its token `vaes-avx512`")]
    pub const Avx512: Fused = Fused::VaesAvx512;
    /// [`Fused::VaesAvx2`].
    #[deprecated(note = "renamed `Fused::VaesAvx2`, after its token `vaes-avx2`")]
    pub const Avx2: Fused = Fused::VaesAvx2;
    /// [`Fused::NiClmul`].
    #[deprecated(note = "renamed `Fused::NiClmul`, after its token `ni-clmul`")]
    pub const Ni: Fused = Fused::NiClmul;
}

impl Fused {
    /// Every fused kernel, in order of preference (the x86-64 ones, then
    /// the AArch64 one: no CPU runs both).
    pub const ALL: [Fused; 4] = [
        Fused::VaesAvx512,
        Fused::VaesAvx2,
        Fused::NiClmul,
        Fused::AesPmull,
    ];

    /// The kernel's token.
    pub fn name(self) -> &'static str {
        match self {
            Fused::VaesAvx512 => kernels::VaesAvx512::NAME,
            Fused::VaesAvx2 => kernels::VaesAvx2::NAME,
            Fused::NiClmul => kernels::NiClmul::NAME,
            Fused::AesPmull => kernels::AesPmull::NAME,
        }
    }

    /// Looks a kernel up by its token.
    pub fn from_name(name: &str) -> Option<Fused> {
        Fused::ALL.into_iter().find(|f| f.name() == name)
    }

    /// Whether this CPU can run the kernel.
    pub fn is_available(self) -> bool {
        match self {
            Fused::VaesAvx512 => kernels::VaesAvx512::is_available(),
            Fused::VaesAvx2 => kernels::VaesAvx2::is_available(),
            Fused::NiClmul => kernels::NiClmul::is_available(),
            Fused::AesPmull => kernels::AesPmull::is_available(),
        }
    }

    /// The (AES, GHASH) strategies whose keys the kernel holds.
    pub fn strategies(self) -> (aes::Strategy, ghash::Strategy) {
        match self {
            Fused::VaesAvx512 => (aes::Strategy::Vaes, ghash::Strategy::Vclmul),
            Fused::VaesAvx2 | Fused::NiClmul => (aes::Strategy::Ni, ghash::Strategy::Clmul),
            Fused::AesPmull => (aes::Strategy::Armv8, ghash::Strategy::Pmull),
        }
    }

    /// The fastest kernel this CPU runs, if any, within the cap that
    /// `AEKIT_KERNEL` sets ([`Class::best`]). All are constant-time.
    pub fn best() -> Option<Fused> {
        match Class::best() {
            Ok(Class::Fused(f)) => Some(f),
            _ => None,
        }
    }
}

/// The classes of implementation [`AesGcm::new`](super::AesGcm::new) chooses among, fastest
/// first: each fused kernel, then the best pair of separate strategies,
/// then portable constant-time software.
///
/// The environment variable `AEKIT_KERNEL` caps the choice at a class, so
/// that one machine can measure and test the classes below its best:
/// `vaes-avx512`, `vaes-avx2`, `ni-clmul`, `aes-pmull`, `pair` or
/// `portable`. The default is then the best class this CPU runs at or
/// below the one named, in [`Class::ALL`]'s order
/// (`AEKIT_KERNEL=vaes-avx2` on a CPU without VAES gives `ni-clmul`). The
/// x86-64 kernels come before `aes-pmull` and no CPU runs both, so on
/// AArch64 any x86-64 kernel's name caps nothing (the best is `aes-pmull`
/// where the CPU has it), and on x86-64 `aes-pmull` caps at `pair`: a cap
/// names a rung, and the rungs a CPU lacks are skipped. It is read once
/// per process; an unknown value makes [`AesGcm::new`](super::AesGcm::new)
/// fail rather than be silently ignored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Class {
    /// A fused AES+GHASH kernel.
    Fused(Fused),
    /// The best constant-time (AES, GHASH) pair, in two passes
    /// ([`aes::Strategy::best`], [`ghash::Strategy::best`]).
    Pair,
    /// Constant-time software with no AES or carry-less-multiply
    /// instructions: `fixslice` + `karatsuba`.
    Portable,
}

impl Class {
    /// Every class, fastest first.
    pub const ALL: [Class; 6] = [
        Class::Fused(Fused::VaesAvx512),
        Class::Fused(Fused::VaesAvx2),
        Class::Fused(Fused::NiClmul),
        Class::Fused(Fused::AesPmull),
        Class::Pair,
        Class::Portable,
    ];

    /// The class's token, the value `AEKIT_KERNEL` takes.
    pub fn name(self) -> &'static str {
        match self {
            Class::Fused(f) => f.name(),
            Class::Pair => "pair",
            Class::Portable => "portable",
        }
    }

    /// Looks a class up by its token.
    pub fn from_name(name: &str) -> Option<Class> {
        Class::ALL.into_iter().find(|c| c.name() == name)
    }

    /// Whether this CPU runs the class.
    pub fn is_available(self) -> bool {
        match self {
            Class::Fused(f) => f.is_available(),
            Class::Pair | Class::Portable => true,
        }
    }

    /// The cap `AEKIT_KERNEL` sets: `None` when it is unset or empty,
    /// [`Error::Unsupported`] when it names no class.
    pub fn forced() -> Result<Option<Class>, Error> {
        static FORCED: OnceLock<Option<Option<Class>>> = OnceLock::new();
        let forced = FORCED.get_or_init(|| match std::env::var("AEKIT_KERNEL") {
            Ok(name) if !name.is_empty() => Class::from_name(&name).map(Some),
            _ => Some(None),
        });
        forced.ok_or(Error::Unsupported(
            "an AEKIT_KERNEL value other than vaes-avx512, vaes-avx2, ni-clmul, aes-pmull, pair or portable",
        ))
    }

    /// The fastest class this CPU runs, at or below the `AEKIT_KERNEL` cap.
    pub fn best() -> Result<Class, Error> {
        let cap = Class::forced()?.unwrap_or(Class::ALL[0]);
        let from = Class::ALL.iter().position(|&c| c == cap).unwrap_or(0);
        Ok(Class::ALL[from..]
            .iter()
            .copied()
            .find(|c| c.is_available())
            .unwrap_or(Class::Portable))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The former variant names still name the same kernels, in
    /// expressions and in patterns.
    #[test]
    #[allow(deprecated)]
    fn the_former_names_are_the_kernels_tokens() {
        assert_eq!(Fused::Avx512, Fused::VaesAvx512);
        assert_eq!(Fused::Avx2, Fused::VaesAvx2);
        assert_eq!(Fused::Ni, Fused::NiClmul);
        for f in Fused::ALL {
            let token = match f {
                Fused::Avx512 => "vaes-avx512",
                Fused::Avx2 => "vaes-avx2",
                Fused::Ni => "ni-clmul",
                Fused::AesPmull => "aes-pmull",
            };
            assert_eq!(f.name(), token);
            assert_eq!(Fused::from_name(token), Some(f));
        }
    }
}
