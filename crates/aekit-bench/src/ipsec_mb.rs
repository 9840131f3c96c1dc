//! Intel's ipsec-mb as a peer: its direct AES-GCM calls
//! (`IMB_AES128_GCM_ENC` and the like, through `c/ipsec_mb.c`), the
//! library under DPDK's `aesni_gcm` device and VPP's crypto engine, and the
//! fastest AES-GCM at packet sizes on x86.
//!
//! Each [`Arch`] is one of its code paths, forced as aekit's classes are:
//! the best this CPU runs, and its AVX-512, AVX2 and SSE paths, so every
//! aekit class meets the ipsec-mb path of its class (`vaes-avx512` the
//! AVX-512 one, `vaes-avx2` AVX2, `ni-clmul` SSE). Built only where the
//! library's header was found (build.rs); elsewhere [`IpsecMb::new`] says
//! why not and the tables print SKIP.

/// One of ipsec-mb's code paths.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Arch {
    /// The best this CPU runs (`init_mb_mgr_auto`).
    Best,
    /// `init_mb_mgr_avx512` (VAES and VPCLMULQDQ where present).
    Avx512,
    /// `init_mb_mgr_avx2`.
    Avx2,
    /// `init_mb_mgr_sse` (AES-NI and PCLMULQDQ).
    Sse,
}

impl Arch {
    /// Every path, best first.
    pub(crate) const ALL: [Arch; 4] = [Arch::Best, Arch::Avx512, Arch::Avx2, Arch::Sse];

    /// The peer's name in the tables.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Arch::Best => "ipsec-mb",
            Arch::Avx512 => "ipsec-mb avx512",
            Arch::Avx2 => "ipsec-mb avx2",
            Arch::Sse => "ipsec-mb sse",
        }
    }

    /// The path of an aekit implementation's class, by its name
    /// (`AesGcm::implementation`), if it has one.
    pub(crate) fn of_class(implementation: &str) -> Option<Arch> {
        match implementation {
            "fused vaes-avx512" => Some(Arch::Avx512),
            "fused vaes-avx2" => Some(Arch::Avx2),
            "fused ni-clmul" => Some(Arch::Sse),
            _ => None,
        }
    }
}

/// Why the peer cannot run: this build found no ipsec-mb.
#[cfg(not(ipsec_mb))]
const MISSING: &str = "SKIP: ipsec-mb was not found when aekit-bench was built \
                       (Debian: apt install libipsec-mb-dev, then rebuild)";

/// ipsec-mb's version, or why it is not here.
pub(crate) fn version() -> Result<String, String> {
    #[cfg(ipsec_mb)]
    {
        Ok(imp::version())
    }
    #[cfg(not(ipsec_mb))]
    {
        Err(MISSING.to_string())
    }
}

/// An AES-GCM key in one ipsec-mb path.
pub(crate) struct IpsecMb {
    #[cfg(ipsec_mb)]
    inner: imp::Key,
    /// The key's bytes, for checking against aekit.
    key: Vec<u8>,
}

impl IpsecMb {
    /// `key` (16 or 32 bytes) on the path `arch`, or why not.
    pub(crate) fn new(arch: Arch, key: &[u8]) -> Result<IpsecMb, String> {
        #[cfg(ipsec_mb)]
        {
            if key.len() != 16 && key.len() != 32 {
                return Err(format!("a {}-byte key (16 or 32 here)", key.len()));
            }
            let code = match arch {
                Arch::Best => 0,
                Arch::Avx512 => 1,
                Arch::Avx2 => 2,
                Arch::Sse => 3,
            };
            let inner = imp::Key::new(code, key)
                .map_err(|()| format!("{} does not run on this CPU", arch.name()))?;
            Ok(IpsecMb {
                inner,
                key: key.to_vec(),
            })
        }
        #[cfg(not(ipsec_mb))]
        {
            let _ = (arch, key);
            Err(MISSING.to_string())
        }
    }

    /// The key it was made with.
    pub(crate) fn key(&self) -> &[u8] {
        &self.key
    }

    /// Encrypts `buf` in place; returns the 16-byte tag.
    pub(crate) fn seal_in_place(&self, iv: &[u8; 12], aad: &[u8], buf: &mut [u8]) -> [u8; 16] {
        #[cfg(ipsec_mb)]
        {
            self.inner.seal_in_place(iv, aad, buf)
        }
        #[cfg(not(ipsec_mb))]
        {
            let _ = (iv, aad, buf);
            unreachable!("no key is made without ipsec-mb")
        }
    }

    /// Decrypts `buf` in place; whether `tag` verified.
    pub(crate) fn open_in_place(
        &self,
        iv: &[u8; 12],
        aad: &[u8],
        buf: &mut [u8],
        tag: &[u8],
    ) -> bool {
        self.open(iv, aad, None, buf, tag)
    }

    /// Decrypts `input` into `out` (as long); whether `tag` verified.
    pub(crate) fn open_from(
        &self,
        iv: &[u8; 12],
        aad: &[u8],
        input: &[u8],
        out: &mut [u8],
        tag: &[u8],
    ) -> bool {
        self.open(iv, aad, Some(input), out, tag)
    }

    fn open(
        &self,
        iv: &[u8; 12],
        aad: &[u8],
        from: Option<&[u8]>,
        buf: &mut [u8],
        tag: &[u8],
    ) -> bool {
        #[cfg(ipsec_mb)]
        {
            self.inner.open(iv, aad, from, buf, tag)
        }
        #[cfg(not(ipsec_mb))]
        {
            let _ = (iv, aad, from, buf, tag);
            unreachable!("no key is made without ipsec-mb")
        }
    }
}

impl IpsecMb {
    /// Encrypts messages in place through the job API (`IMB_SUBMIT_JOB`,
    /// then `IMB_FLUSH_JOB`): message `i` is the next `lens[i]` bytes of
    /// `buf`, under `ivs[i]` with no AAD, its tag into `tags[i]`; panics
    /// unless every job completed.
    pub(crate) fn seal_jobs(
        &self,
        buf: &mut [u8],
        lens: &[u64],
        ivs: &[[u8; 12]],
        tags: &mut [[u8; 16]],
    ) {
        #[cfg(ipsec_mb)]
        {
            self.inner.seal_jobs(buf, lens, ivs, tags)
        }
        #[cfg(not(ipsec_mb))]
        {
            let _ = (buf, lens, ivs, tags);
            unreachable!("no key is made without ipsec-mb")
        }
    }
}

#[cfg(ipsec_mb)]
#[allow(unsafe_code)] // calls into C; each block says why it is sound
mod imp {
    use core::ffi::{c_char, c_int, c_void};
    use std::ffi::CStr;

    unsafe extern "C" {
        fn aekit_imb_new(arch: c_int) -> *mut c_void;
        fn aekit_imb_free(mgr: *mut c_void);
        fn aekit_imb_version() -> *const c_char;
        fn aekit_imb_gcm_key(mgr: *mut c_void, key: *const u8, len: usize) -> *mut c_void;
        fn aekit_imb_gcm_key_free(key: *mut c_void);
        fn aekit_imb_gcm_enc(
            mgr: *mut c_void,
            key: *const c_void,
            key_len: usize,
            dst: *mut u8,
            src: *const u8,
            len: u64,
            iv: *const u8,
            aad: *const u8,
            aad_len: u64,
            tag: *mut u8,
            tag_len: u64,
        );
        fn aekit_imb_gcm_jobs(
            mgr: *mut c_void,
            key: *const c_void,
            key_len: usize,
            buf: *mut u8,
            lens: *const u64,
            ivs: *const [u8; 12],
            tags: *mut [u8; 16],
            n: usize,
        ) -> usize;
        fn aekit_imb_gcm_dec(
            mgr: *mut c_void,
            key: *const c_void,
            key_len: usize,
            dst: *mut u8,
            src: *const u8,
            len: u64,
            iv: *const u8,
            aad: *const u8,
            aad_len: u64,
            tag: *const u8,
            tag_len: u64,
        ) -> c_int;
    }

    pub(super) fn version() -> String {
        // SAFETY: the library returns a static NUL-terminated string.
        unsafe { CStr::from_ptr(aekit_imb_version()) }
            .to_string_lossy()
            .into_owned()
    }

    /// A manager of one path and an expanded key, both owned.
    pub(super) struct Key {
        mgr: *mut c_void,
        key: *mut c_void,
        key_len: usize,
    }

    impl Key {
        /// A manager of the path `code` (as `aekit_imb_new` takes it)
        /// and `key` (16 or 32 bytes) expanded; `Err` where the CPU lacks
        /// the path.
        pub(super) fn new(code: c_int, key: &[u8]) -> Result<Key, ()> {
            assert!(key.len() == 16 || key.len() == 32, "a 16- or 32-byte key");
            // SAFETY: no arguments but an integer; NULL is handled.
            let mgr = unsafe { aekit_imb_new(code) };
            if mgr.is_null() {
                return Err(());
            }
            // SAFETY: `mgr` is a live manager; `key` is `key.len()` bytes.
            let expanded = unsafe { aekit_imb_gcm_key(mgr, key.as_ptr(), key.len()) };
            if expanded.is_null() {
                // SAFETY: `mgr` came from `aekit_imb_new` and is freed once.
                unsafe { aekit_imb_free(mgr) };
                panic!("out of memory for an ipsec-mb key");
            }
            Ok(Key {
                mgr,
                key: expanded,
                key_len: key.len(),
            })
        }

        pub(super) fn seal_in_place(&self, iv: &[u8; 12], aad: &[u8], buf: &mut [u8]) -> [u8; 16] {
            let mut tag = [0u8; 16];
            let p = buf.as_mut_ptr();
            // SAFETY: live manager and key; `buf` is `buf.len()` bytes, both
            // source and destination (the library encrypts in place), `iv`
            // 12, `aad` `aad.len()`, `tag` 16.
            unsafe {
                aekit_imb_gcm_enc(
                    self.mgr,
                    self.key,
                    self.key_len,
                    p,
                    p,
                    buf.len() as u64,
                    iv.as_ptr(),
                    aad.as_ptr(),
                    aad.len() as u64,
                    tag.as_mut_ptr(),
                    16,
                )
            };
            tag
        }

        /// Decrypts `from` (or `buf` itself, in place) into `buf`.
        pub(super) fn open(
            &self,
            iv: &[u8; 12],
            aad: &[u8],
            from: Option<&[u8]>,
            buf: &mut [u8],
            tag: &[u8],
        ) -> bool {
            if tag.len() != 16 || from.is_some_and(|f| f.len() != buf.len()) {
                return false;
            }
            let p = buf.as_mut_ptr();
            let src = from.map_or(p.cast_const(), <[u8]>::as_ptr);
            // SAFETY: as in `seal_in_place`, `src` being `buf` or a
            // slice as long that does not overlap it (a shared and a
            // mutable borrow); `tag` is 16 bytes.
            unsafe {
                aekit_imb_gcm_dec(
                    self.mgr,
                    self.key,
                    self.key_len,
                    p,
                    src,
                    buf.len() as u64,
                    iv.as_ptr(),
                    aad.as_ptr(),
                    aad.len() as u64,
                    tag.as_ptr(),
                    16,
                ) == 1
            }
        }

        pub(super) fn seal_jobs(
            &self,
            buf: &mut [u8],
            lens: &[u64],
            ivs: &[[u8; 12]],
            tags: &mut [[u8; 16]],
        ) {
            let n = lens.len();
            assert!(
                ivs.len() == n && tags.len() == n,
                "an IV and a tag per message"
            );
            let total: u64 = lens.iter().sum();
            assert!(total <= buf.len() as u64, "the messages lie in the buffer");
            // SAFETY: live manager and key; the `n` messages lie one after
            // another in `buf` (checked), borrowed mutably for the call;
            // `n` IVs of 12 bytes and `n` tag slots of 16.
            let done = unsafe {
                aekit_imb_gcm_jobs(
                    self.mgr,
                    self.key,
                    self.key_len,
                    buf.as_mut_ptr(),
                    lens.as_ptr(),
                    ivs.as_ptr(),
                    tags.as_mut_ptr(),
                    n,
                )
            };
            assert_eq!(done, n, "ipsec-mb completed {done} of {n} jobs");
        }
    }

    impl Drop for Key {
        fn drop(&mut self) {
            // SAFETY: both came from the library's constructors here and
            // are freed once.
            unsafe {
                aekit_imb_gcm_key_free(self.key);
                aekit_imb_free(self.mgr);
            }
        }
    }
}
