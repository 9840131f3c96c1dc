//! An OpenSSL 3 provider exposing aekit's AES-GCM: AES-128-GCM,
//! AES-192-GCM and AES-256-GCM, with the property `provider=aekit`, to
//! every program that reaches ciphers through OpenSSL's EVP interface
//! (libssl's TLS 1.2 and 1.3 records included), without changing it.
//!
//! # Architecture
//!
//! OpenSSL loads `aekit.so` (this crate's cdylib, installed under that
//! name by `install.sh`) and calls [`OSSL_provider_init`], which hands back
//! the provider's dispatch table: `teardown`, `gettable_params` /
//! `get_params` (name, version, status) and `query_operation`, which
//! returns the three ciphers for the cipher operation and nothing for the
//! others (digests, key exchange and the rest come from the default
//! provider loaded beside this one).
//!
//! - `core.rs`: the C types and numbers of the provider interface,
//!   declared by hand (`OSSL_DISPATCH`, `OSSL_PARAM`, `OSSL_ALGORITHM`,
//!   function ids), and reading and writing parameters.
//! - `cipher.rs`: the cipher context over `aekit::AesGcm`, its dispatch
//!   table (init, update, final, `cipher`, dup, free, the parameters) and
//!   the TLS 1.2 record path; its header says how EVP's calls map onto
//!   aekit's on-line and one-shot calls.
//!
//! The provider uses none of the core's upcalls and does not link
//! libcrypto: no cryptography is delegated back to OpenSSL. A key is
//! expanded when `init` brings it (not again when `init` brings the same
//! key), in the fastest constant-time implementation aekit has on the CPU
//! (`aekit::AesGcm::new`).
//!
//! # Safety
//!
//! `unsafe` is confined to the C boundary: turning OpenSSL's pointers into
//! slices and contexts, the parameter records, and the dispatch tables'
//! function-pointer casts; each block has its `SAFETY` line. No panic
//! crosses into C: every function's body runs under `catch_unwind` and a
//! panic is a failed call.
//!
//! Rejected: delegating the key schedule or GHASH to libcrypto through
//! upcalls (the point is aekit's code); registering under the default
//! provider's property (`provider=default`), which would hide which
//! implementation a program got.

mod cipher;
mod core;

use ::core::ffi::{CStr, c_int, c_void};

use crate::core::{
    Algorithm, DISPATCH_END, Dispatch, FUNC_PROVIDER_GET_PARAMS, FUNC_PROVIDER_GETTABLE_PARAMS,
    FUNC_PROVIDER_QUERY_OPERATION, FUNC_PROVIDER_TEARDOWN, OP_CIPHER, PARAM_END, PARAM_INTEGER,
    PARAM_UTF8_PTR, Param, Params, describe, dispatch,
};

/// The provider's name, and the value of its algorithms' `provider`
/// property.
const NAME: &CStr = c"aekit";
const PROPERTIES: &CStr = c"provider=aekit";
const VERSION: &CStr = {
    // The crate's version as a C string.
    match CStr::from_bytes_with_nul(concat!(env!("CARGO_PKG_VERSION"), "\0").as_bytes()) {
        Ok(s) => s,
        Err(_) => panic!("the version has no NUL"),
    }
};
const BUILDINFO: &CStr = {
    match CStr::from_bytes_with_nul(
        concat!("aekit-provider ", env!("CARGO_PKG_VERSION"), "\0").as_bytes(),
    ) {
        Ok(s) => s,
        Err(_) => panic!("the version has no NUL"),
    }
};

/// The ciphers, by OpenSSL's names and OIDs for them.
static CIPHERS: [Algorithm; 4] = [
    Algorithm {
        names: c"AES-128-GCM:id-aes128-GCM:2.16.840.1.101.3.4.1.6".as_ptr(),
        properties: PROPERTIES.as_ptr(),
        implementation: cipher::AES_128_GCM.as_ptr(),
        description: c"aekit AES-128-GCM".as_ptr(),
    },
    Algorithm {
        names: c"AES-192-GCM:id-aes192-GCM:2.16.840.1.101.3.4.1.26".as_ptr(),
        properties: PROPERTIES.as_ptr(),
        implementation: cipher::AES_192_GCM.as_ptr(),
        description: c"aekit AES-192-GCM".as_ptr(),
    },
    Algorithm {
        names: c"AES-256-GCM:id-aes256-GCM:2.16.840.1.101.3.4.1.46".as_ptr(),
        properties: PROPERTIES.as_ptr(),
        implementation: cipher::AES_256_GCM.as_ptr(),
        description: c"aekit AES-256-GCM".as_ptr(),
    },
    Algorithm {
        names: ::core::ptr::null(),
        properties: ::core::ptr::null(),
        implementation: ::core::ptr::null(),
        description: ::core::ptr::null(),
    },
];

#[repr(transparent)]
struct Table<const N: usize>([Param; N]);

static PROVIDER_PARAMS: Table<5> = Table([
    describe(c"name", PARAM_UTF8_PTR, 0),
    describe(c"version", PARAM_UTF8_PTR, 0),
    describe(c"buildinfo", PARAM_UTF8_PTR, 0),
    describe(c"status", PARAM_INTEGER, 4),
    PARAM_END,
]);

unsafe extern "C" fn teardown(_provctx: *mut c_void) {}

unsafe extern "C" fn gettable_params(_provctx: *mut c_void) -> *const Param {
    PROVIDER_PARAMS.0.as_ptr()
}

unsafe extern "C" fn get_params(_provctx: *mut c_void, params: *mut Param) -> c_int {
    std::panic::catch_unwind(|| {
        // SAFETY: OpenSSL passes a parameter array.
        let params = unsafe { Params::new(params) };
        for p in params.iter() {
            let ok = match p.name() {
                b"name" => p.set_utf8(NAME),
                b"version" => p.set_utf8(VERSION),
                b"buildinfo" => p.set_utf8(BUILDINFO),
                b"status" => p.set_size(1),
                _ => true,
            };
            if !ok {
                return 0;
            }
        }
        1
    })
    .unwrap_or(0)
}

unsafe extern "C" fn query_operation(
    _provctx: *mut c_void,
    operation_id: c_int,
    no_store: *mut c_int,
) -> *const Algorithm {
    if !no_store.is_null() {
        // SAFETY: OpenSSL passes a pointer to an int it reads back; 0:
        // the core may cache the answer (it never changes).
        unsafe { *no_store = 0 };
    }
    if operation_id == OP_CIPHER {
        CIPHERS.as_ptr()
    } else {
        ::core::ptr::null()
    }
}

type Teardown = unsafe extern "C" fn(*mut c_void);
type Gettable = unsafe extern "C" fn(*mut c_void) -> *const Param;
type ProviderGetParams = unsafe extern "C" fn(*mut c_void, *mut Param) -> c_int;
type Query = unsafe extern "C" fn(*mut c_void, c_int, *mut c_int) -> *const Algorithm;

/// The provider's dispatch table.
static PROVIDER: [Dispatch; 5] = [
    dispatch!(FUNC_PROVIDER_TEARDOWN, teardown, Teardown),
    dispatch!(FUNC_PROVIDER_GETTABLE_PARAMS, gettable_params, Gettable),
    dispatch!(FUNC_PROVIDER_GET_PARAMS, get_params, ProviderGetParams),
    dispatch!(FUNC_PROVIDER_QUERY_OPERATION, query_operation, Query),
    DISPATCH_END,
];

/// The entry point OpenSSL looks up when it loads the provider: hands back
/// the provider's dispatch table. The provider keeps no state of its own
/// (`provctx` is the core's handle, unused), so it can be loaded into any
/// number of library contexts.
///
/// # Safety
/// Called by OpenSSL with `out` and `provctx` pointing to writable slots.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn OSSL_provider_init(
    handle: *const c_void,
    _core_dispatch: *const Dispatch,
    out: *mut *const Dispatch,
    provctx: *mut *mut c_void,
) -> c_int {
    if out.is_null() || provctx.is_null() {
        return 0;
    }
    // SAFETY: OpenSSL's contract: both are writable slots.
    unsafe {
        *out = PROVIDER.as_ptr();
        *provctx = handle.cast_mut();
    }
    1
}
