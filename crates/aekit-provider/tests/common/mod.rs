//! Drives AES-GCM through OpenSSL's EVP interface (libcrypto, linked by
//! `openssl-sys`), in a library context that has loaded both the aekit
//! provider and OpenSSL's default provider, so each test compares the two
//! on the same calls.
//!
//! The provider is this crate's `OSSL_provider_init`, registered with
//! `OSSL_PROVIDER_add_builtin` (the code as built for this test run), or,
//! with `AEKIT_PROVIDER=/path/to/aekit.so`, an installed shared library
//! loaded by OpenSSL as any program loads it.

#![allow(dead_code, unsafe_code)]

use std::ffi::{CString, c_char, c_int, c_void};
use std::path::PathBuf;
use std::sync::OnceLock;

use openssl_sys as _; // links libcrypto

type LibCtx = c_void;
type Provider = c_void;
type Cipher = c_void;
type CipherCtx = c_void;

unsafe extern "C" {
    fn OSSL_LIB_CTX_new() -> *mut LibCtx;
    fn OSSL_PROVIDER_load(ctx: *mut LibCtx, name: *const c_char) -> *mut Provider;
    fn OSSL_PROVIDER_add_builtin(
        ctx: *mut LibCtx,
        name: *const c_char,
        init: unsafe extern "C" fn(
            *const c_void,
            *const c_void,
            *mut *const c_void,
            *mut *mut c_void,
        ) -> c_int,
    ) -> c_int;
    fn EVP_CIPHER_fetch(ctx: *mut LibCtx, alg: *const c_char, props: *const c_char) -> *mut Cipher;
    fn EVP_CIPHER_get0_provider(cipher: *const Cipher) -> *const Provider;
    fn OSSL_PROVIDER_get0_name(prov: *const Provider) -> *const c_char;
    fn EVP_CIPHER_CTX_new() -> *mut CipherCtx;
    fn EVP_CIPHER_CTX_free(ctx: *mut CipherCtx);
    fn EVP_CIPHER_CTX_copy(out: *mut CipherCtx, input: *const CipherCtx) -> c_int;
    fn EVP_CipherInit_ex(
        ctx: *mut CipherCtx,
        cipher: *const Cipher,
        engine: *mut c_void,
        key: *const u8,
        iv: *const u8,
        enc: c_int,
    ) -> c_int;
    fn EVP_CIPHER_CTX_ctrl(ctx: *mut CipherCtx, op: c_int, arg: c_int, ptr: *mut c_void) -> c_int;
    fn EVP_CipherUpdate(
        ctx: *mut CipherCtx,
        out: *mut u8,
        outl: *mut c_int,
        input: *const u8,
        inl: c_int,
    ) -> c_int;
    fn EVP_CipherFinal_ex(ctx: *mut CipherCtx, out: *mut u8, outl: *mut c_int) -> c_int;
    fn EVP_Cipher(ctx: *mut CipherCtx, out: *mut u8, input: *const u8, inl: u32) -> c_int;
    fn ERR_clear_error();
}

pub const SET_IVLEN: c_int = 0x9;
pub const GET_TAG: c_int = 0x10;
pub const SET_TAG: c_int = 0x11;
pub const SET_IV_FIXED: c_int = 0x12;
pub const IV_GEN: c_int = 0x13;
pub const TLS1_AAD: c_int = 0x16;
pub const SET_IV_INV: c_int = 0x18;

/// Which provider runs a call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Prov {
    Aekit,
    Default,
}

/// The three ciphers from both providers, fetched once.
pub struct Ciphers {
    /// [key length index][provider]: AES-128/192/256-GCM.
    ciphers: [[usize; 2]; 3],
}

/// `AEKIT_PROVIDER`: the path of an installed `aekit.so` to test instead
/// of the provider built into this test.
pub fn provider_path() -> Option<PathBuf> {
    std::env::var_os("AEKIT_PROVIDER").map(PathBuf::from)
}

/// The provider's entry point with the pointer types OpenSSL's prototype
/// spells as `OSSL_CORE_HANDLE` and `OSSL_DISPATCH`, all opaque here.
unsafe extern "C" fn builtin_init(
    handle: *const c_void,
    core: *const c_void,
    out: *mut *const c_void,
    provctx: *mut *mut c_void,
) -> c_int {
    // SAFETY: the same C signature; the pointer types differ in name only.
    unsafe { aekit_provider::OSSL_provider_init(handle, core.cast(), out.cast(), provctx) }
}

pub fn ciphers() -> &'static Ciphers {
    static C: OnceLock<Ciphers> = OnceLock::new();
    C.get_or_init(|| {
        // SAFETY: libcrypto's functions called as documented,
        // with C strings that outlive the calls.
        unsafe {
            let lib = OSSL_LIB_CTX_new();
            assert!(!lib.is_null());
            let name = match provider_path() {
                Some(path) => {
                    assert!(path.exists(), "AEKIT_PROVIDER: {}", path.display());
                    println!("provider: {}", path.display());
                    CString::new(path.to_str().unwrap()).unwrap()
                }
                None => {
                    assert_eq!(
                        OSSL_PROVIDER_add_builtin(lib, c"aekit".as_ptr(), builtin_init),
                        1
                    );
                    c"aekit".to_owned()
                }
            };
            assert!(
                !OSSL_PROVIDER_load(lib, name.as_ptr()).is_null(),
                "aekit provider loads"
            );
            assert!(!OSSL_PROVIDER_load(lib, c"default".as_ptr()).is_null());
            let mut ciphers = [[0usize; 2]; 3];
            for (i, name) in ["AES-128-GCM", "AES-192-GCM", "AES-256-GCM"]
                .iter()
                .enumerate()
            {
                for (j, props) in [c"provider=aekit", c"provider=default"].iter().enumerate() {
                    let n = CString::new(*name).unwrap();
                    let c = EVP_CIPHER_fetch(lib, n.as_ptr(), props.as_ptr());
                    assert!(!c.is_null(), "{name} from {props:?}");
                    let prov = std::ffi::CStr::from_ptr(OSSL_PROVIDER_get0_name(
                        EVP_CIPHER_get0_provider(c),
                    ));
                    if j == 0 {
                        assert!(prov.to_str().unwrap().contains("aekit"), "{prov:?}");
                    } else {
                        assert_eq!(prov.to_str().unwrap(), "default");
                    }
                    ciphers[i][j] = c as usize;
                }
            }
            Ciphers { ciphers }
        }
    })
}

impl Ciphers {
    pub fn get(&self, key_len: usize, prov: Prov) -> *const Cipher {
        let i = match key_len {
            16 => 0,
            24 => 1,
            32 => 2,
            _ => panic!("key length {key_len}"),
        };
        self.ciphers[i][prov as usize] as *const Cipher
    }
}

/// An EVP cipher context, freed on drop.
pub struct Ctx(pub *mut CipherCtx);

impl Drop for Ctx {
    fn drop(&mut self) {
        // SAFETY: a context from EVP_CIPHER_CTX_new, freed once.
        unsafe { EVP_CIPHER_CTX_free(self.0) }
    }
}

/// A message's inputs; `splits` cuts the data into `update` pieces (and
/// the AAD into pieces of the same sizes, cycled).
pub struct Msg<'a> {
    pub key: &'a [u8],
    pub iv: &'a [u8],
    pub aad: &'a [u8],
    pub text: &'a [u8],
    pub splits: &'a [usize],
}

fn pieces<'a>(data: &'a [u8], splits: &[usize]) -> Vec<&'a [u8]> {
    let mut out = Vec::new();
    let mut at = 0;
    let mut i = 0;
    while at < data.len() {
        let n = if splits.is_empty() {
            data.len()
        } else {
            splits[i % splits.len()].max(1)
        };
        let end = (at + n).min(data.len());
        out.push(&data[at..end]);
        at = end;
        i += 1;
    }
    out
}

/// A context initialized for `m` (key, IV length, IV), or `None` where
/// EVP refuses the setup.
pub fn start(prov: Prov, m: &Msg<'_>, enc: bool) -> Option<Ctx> {
    let cipher = ciphers().get(m.key.len(), prov);
    // SAFETY: EVP's calls with live buffers of the lengths
    // passed.
    unsafe {
        let ctx = Ctx(EVP_CIPHER_CTX_new());
        let enc = c_int::from(enc);
        if EVP_CipherInit_ex(
            ctx.0,
            cipher,
            std::ptr::null_mut(),
            std::ptr::null(),
            std::ptr::null(),
            enc,
        ) != 1
            || EVP_CIPHER_CTX_ctrl(ctx.0, SET_IVLEN, m.iv.len() as c_int, std::ptr::null_mut()) != 1
            || EVP_CipherInit_ex(
                ctx.0,
                std::ptr::null(),
                std::ptr::null_mut(),
                m.key.as_ptr(),
                m.iv.as_ptr(),
                enc,
            ) != 1
        {
            ERR_clear_error();
            return None;
        }
        Some(ctx)
    }
}

/// Feeds AAD and text through `update` in pieces; the text transformed.
pub fn feed(ctx: &Ctx, m: &Msg<'_>) -> Option<Vec<u8>> {
    let mut out = vec![0u8; m.text.len()];
    // SAFETY: EVP's calls with live buffers of the lengths
    // passed.
    unsafe {
        let mut n: c_int = 0;
        for a in pieces(m.aad, m.splits) {
            if EVP_CipherUpdate(
                ctx.0,
                std::ptr::null_mut(),
                &mut n,
                a.as_ptr(),
                a.len() as c_int,
            ) != 1
            {
                ERR_clear_error();
                return None;
            }
        }
        let mut at = 0;
        for p in pieces(m.text, m.splits) {
            if EVP_CipherUpdate(
                ctx.0,
                out[at..].as_mut_ptr(),
                &mut n,
                p.as_ptr(),
                p.len() as c_int,
            ) != 1
            {
                ERR_clear_error();
                return None;
            }
            assert_eq!(n as usize, p.len(), "update writes its whole input");
            at += p.len();
        }
    }
    Some(out)
}

/// Encrypts: ciphertext and a tag of `tag_len` bytes, or `None` where a
/// call fails.
pub fn seal(prov: Prov, m: &Msg<'_>, tag_len: usize) -> Option<(Vec<u8>, Vec<u8>)> {
    let ctx = start(prov, m, true)?;
    let ct = feed(&ctx, m)?;
    let mut tag = vec![0u8; tag_len];
    // SAFETY: as above.
    unsafe {
        let mut n: c_int = -1;
        if EVP_CipherFinal_ex(ctx.0, std::ptr::null_mut(), &mut n) != 1 {
            ERR_clear_error();
            return None;
        }
        assert_eq!(n, 0, "GCM's final writes nothing");
        if EVP_CIPHER_CTX_ctrl(ctx.0, GET_TAG, tag_len as c_int, tag.as_mut_ptr().cast()) != 1 {
            ERR_clear_error();
            return None;
        }
    }
    Some((ct, tag))
}

/// Decrypts and checks `tag`: the plaintext, or `None` where a call (the
/// tag's check at final, above all) fails.
pub fn open(prov: Prov, m: &Msg<'_>, tag: &[u8]) -> Option<Vec<u8>> {
    let ctx = start(prov, m, false)?;
    let mut t = tag.to_vec();
    // SAFETY: EVP's call with a live buffer of the length passed.
    if unsafe { EVP_CIPHER_CTX_ctrl(ctx.0, SET_TAG, t.len() as c_int, t.as_mut_ptr().cast()) } != 1
    {
        // SAFETY: clears this thread's error queue.
        unsafe { ERR_clear_error() };
        return None;
    }
    let pt = feed(&ctx, m)?;
    let mut n: c_int = -1;
    // SAFETY: EVP's call on a live context.
    if unsafe { EVP_CipherFinal_ex(ctx.0, std::ptr::null_mut(), &mut n) } != 1 {
        // SAFETY: clears this thread's error queue.
        unsafe { ERR_clear_error() };
        return None;
    }
    Some(pt)
}

/// `EVP_CIPHER_CTX_copy` into a new context.
pub fn copy(ctx: &Ctx) -> Option<Ctx> {
    // SAFETY: EVP's calls on live contexts.
    unsafe {
        let out = Ctx(EVP_CIPHER_CTX_new());
        if EVP_CIPHER_CTX_copy(out.0, ctx.0) != 1 {
            ERR_clear_error();
            return None;
        }
        Some(out)
    }
}

/// `EVP_CIPHER_CTX_ctrl`, true on success.
pub fn ctrl(ctx: &Ctx, op: c_int, arg: c_int, ptr: *mut c_void) -> bool {
    // SAFETY: the caller passes `ptr` as the control `op` expects.
    let ok = unsafe { EVP_CIPHER_CTX_ctrl(ctx.0, op, arg, ptr) } > 0;
    if !ok {
        // SAFETY: clears this thread's error queue.
        unsafe { ERR_clear_error() };
    }
    ok
}

/// A context for TLS 1.2 records: key, and `fixed` (4 bytes) as the
/// nonce's fixed part.
pub fn tls_ctx(prov: Prov, key: &[u8], fixed: &[u8; 4], enc: bool) -> Ctx {
    let cipher = ciphers().get(key.len(), prov);
    // SAFETY: EVP's calls with live buffers.
    unsafe {
        let ctx = Ctx(EVP_CIPHER_CTX_new());
        assert_eq!(
            EVP_CipherInit_ex(
                ctx.0,
                cipher,
                std::ptr::null_mut(),
                key.as_ptr(),
                std::ptr::null(),
                c_int::from(enc)
            ),
            1
        );
        let mut f = *fixed;
        assert!(
            ctrl(&ctx, SET_IV_FIXED, 4, f.as_mut_ptr().cast()),
            "tlsivfixed"
        );
        ctx
    }
}

/// One TLS 1.2 record through `EVP_Cipher` in place: sets `tlsaad` from
/// the header fields, checks the pad it returns, runs the record. The
/// record is explicit nonce ‖ payload ‖ tag; returns false if EVP_Cipher
/// fails.
pub fn tls_record(ctx: &Ctx, seq: u64, record: &mut [u8], enc: bool) -> bool {
    let mut aad = [0u8; 13];
    aad[..8].copy_from_slice(&seq.to_be_bytes());
    aad[8] = 23;
    aad[9..11].copy_from_slice(&[3, 3]);
    // On encryption libssl gives the payload's length plus the explicit
    // nonce; on decryption the whole record's.
    let len = if enc { record.len() - 16 } else { record.len() };
    aad[11..].copy_from_slice(&(len as u16).to_be_bytes());
    // SAFETY: EVP's call with the 13-byte AAD.
    let pad = unsafe { EVP_CIPHER_CTX_ctrl(ctx.0, TLS1_AAD, 13, aad.as_mut_ptr().cast()) };
    assert_eq!(pad, 16, "tlsaadpad: the tag's 16 bytes");
    let p = record.as_mut_ptr();
    // SAFETY: in place over the record's bytes.
    let r = unsafe { EVP_Cipher(ctx.0, p, p, record.len() as u32) };
    if r < 0 {
        // SAFETY: clears this thread's error queue.
        unsafe { ERR_clear_error() };
    }
    r >= 0
}
