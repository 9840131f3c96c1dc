//! The few types and numbers of OpenSSL's provider interface that this
//! provider uses, declared by hand from OpenSSL 3.0's public headers
//! (`openssl/core.h`, `core_dispatch.h`, `core_names.h`): the dispatch
//! table entry, the parameter record and the algorithm record, with the
//! function ids and parameter names as constants, and readers and writers
//! for parameters (what `OSSL_PARAM_get_*` / `OSSL_PARAM_set_*` do in
//! libcrypto, rewritten for the handful of types used here).
//!
//! These layouts are OpenSSL's stable ABI: they have not changed since
//! 3.0 and providers built for 3.0 load in every later 3.x.
//!
//! Rejected: bindgen over the headers (a build dependency on libclang for
//! three structs), and calling libcrypto's `OSSL_PARAM_*` helpers (a
//! provider is loaded by libcrypto but need not link it).

use core::ffi::{c_char, c_int, c_uint, c_void};

/// `OSSL_DISPATCH`: a function id and the function, cast to one type.
#[repr(C)]
pub struct Dispatch {
    pub function_id: c_int,
    pub function: Option<unsafe extern "C" fn()>,
}

/// A [`Dispatch`] entry: `$function`, of the signature `$signature` through
/// which OpenSSL calls entry `$id`, cast to the table's one pointer type.
/// (Binding the function to `$signature` first checks that it has it.)
macro_rules! dispatch {
    ($id:expr, $function:expr, $signature:ty) => {{
        let function: $signature = $function;
        $crate::core::Dispatch {
            function_id: $id,
            // SAFETY: function pointers have one size and representation
            // whatever their signature, and OpenSSL calls this entry
            // through the signature its id names, which `function` has.
            function: Some(unsafe {
                ::core::mem::transmute::<$signature, unsafe extern "C" fn()>(function)
            }),
        }
    }};
}
pub(crate) use dispatch;

/// The entry that ends a dispatch table.
pub const DISPATCH_END: Dispatch = Dispatch {
    function_id: 0,
    function: None,
};

/// `OSSL_ALGORITHM`: names, properties and the implementation.
#[repr(C)]
pub struct Algorithm {
    pub names: *const c_char,
    pub properties: *const c_char,
    pub implementation: *const Dispatch,
    pub description: *const c_char,
}

// SAFETY: the tables are immutable statics of C string literals and other
// statics; sharing them across threads shares nothing mutable.
unsafe impl Sync for Algorithm {}

/// `OSSL_PARAM`: one named, typed value in an array ended by a NULL key.
#[repr(C)]
pub struct Param {
    pub key: *const c_char,
    pub data_type: c_uint,
    pub data: *mut c_void,
    pub data_size: usize,
    pub return_size: usize,
}

// SAFETY: as for `Algorithm`: the descriptor tables (data NULL) are
// immutable statics.
unsafe impl Sync for Param {}

// `OSSL_PARAM` data types.
pub const PARAM_INTEGER: c_uint = 1;
pub const PARAM_UNSIGNED_INTEGER: c_uint = 2;
pub const PARAM_UTF8_STRING: c_uint = 4;
pub const PARAM_OCTET_STRING: c_uint = 5;
pub const PARAM_UTF8_PTR: c_uint = 6;
pub const PARAM_OCTET_PTR: c_uint = 7;

/// A descriptor for a gettable or settable table (no data).
pub const fn describe(key: &'static core::ffi::CStr, data_type: c_uint, data_size: usize) -> Param {
    Param {
        key: key.as_ptr(),
        data_type,
        data: core::ptr::null_mut(),
        data_size,
        return_size: usize::MAX,
    }
}

/// The entry that ends a parameter table.
pub const PARAM_END: Param = Param {
    key: core::ptr::null(),
    data_type: 0,
    data: core::ptr::null_mut(),
    data_size: 0,
    return_size: 0,
};

// Provider functions (`core_dispatch.h`).
pub const FUNC_PROVIDER_TEARDOWN: c_int = 1024;
pub const FUNC_PROVIDER_GETTABLE_PARAMS: c_int = 1025;
pub const FUNC_PROVIDER_GET_PARAMS: c_int = 1026;
pub const FUNC_PROVIDER_QUERY_OPERATION: c_int = 1027;

/// The cipher operation's id.
pub const OP_CIPHER: c_int = 2;

// Cipher functions (`core_dispatch.h`).
pub const FUNC_CIPHER_NEWCTX: c_int = 1;
pub const FUNC_CIPHER_ENCRYPT_INIT: c_int = 2;
pub const FUNC_CIPHER_DECRYPT_INIT: c_int = 3;
pub const FUNC_CIPHER_UPDATE: c_int = 4;
pub const FUNC_CIPHER_FINAL: c_int = 5;
pub const FUNC_CIPHER_CIPHER: c_int = 6;
pub const FUNC_CIPHER_FREECTX: c_int = 7;
pub const FUNC_CIPHER_DUPCTX: c_int = 8;
pub const FUNC_CIPHER_GET_PARAMS: c_int = 9;
pub const FUNC_CIPHER_GET_CTX_PARAMS: c_int = 10;
pub const FUNC_CIPHER_SET_CTX_PARAMS: c_int = 11;
pub const FUNC_CIPHER_GETTABLE_PARAMS: c_int = 12;
pub const FUNC_CIPHER_GETTABLE_CTX_PARAMS: c_int = 13;
pub const FUNC_CIPHER_SETTABLE_CTX_PARAMS: c_int = 14;

/// `EVP_CIPH_GCM_MODE`, the value of the `mode` parameter.
pub const GCM_MODE: c_uint = 0x6;

/// The longest parameter key [`Param::name`] reads.
pub const NAME_MAX: usize = 32;

/// A parameter array as OpenSSL passes it: NULL, or entries up to a NULL
/// key.
pub struct Params(*mut Param);

impl Params {
    /// # Safety
    /// `p` is NULL or points to an array of `OSSL_PARAM` ended by an entry
    /// whose key is NULL, each key a C string, valid for the returned
    /// value's use (the length of one provider call).
    pub unsafe fn new(p: *const Param) -> Params {
        Params(p.cast_mut())
    }

    /// The entries, in order.
    pub fn iter(&self) -> impl Iterator<Item = &mut Param> + '_ {
        let mut at = self.0;
        core::iter::from_fn(move || {
            if at.is_null() {
                return None;
            }
            // SAFETY: `at` points into the array `new` was promised,
            // at or before its end entry.
            let p = unsafe { &mut *at };
            if p.key.is_null() {
                return None;
            }
            // SAFETY: the entry was not the end, so the next one exists.
            at = unsafe { at.add(1) };
            Some(p)
        })
    }
}

impl Param {
    /// The key as bytes.
    /// Keys longer than [`NAME_MAX`] bytes, which no parameter here has,
    /// come back cut to that length.
    ///
    /// Measured by a bounded loop rather than `strlen` (to which an
    /// unbounded loop compiles): EVP asks for one short parameter at a
    /// time, several times per message, and the call costs more than the
    /// bytes.
    #[inline]
    pub fn name(&self) -> &[u8] {
        let mut n = 0;
        // SAFETY: a parameter's key is a C string (`Params::new`): every
        // byte up to its NUL is readable, and the loop stops at the NUL.
        while n < NAME_MAX && unsafe { *self.key.add(n) } != 0 {
            n += 1;
        }
        // SAFETY: the `n` bytes before the NUL, read above.
        unsafe { core::slice::from_raw_parts(self.key.cast::<u8>(), n) }
    }

    /// The data of an octet string (or of an octet pointer's target).
    pub fn octets(&self) -> Option<&[u8]> {
        let (data, len) = match self.data_type {
            PARAM_OCTET_STRING => (self.data.cast_const().cast::<u8>(), self.data_size),
            PARAM_OCTET_PTR if !self.data.is_null() => {
                // SAFETY: an octet pointer's data is a pointer-sized slot
                // holding the pointer; its size is in `data_size`.
                (unsafe { *self.data.cast::<*const u8>() }, self.data_size)
            }
            _ => return None,
        };
        if len == 0 {
            return Some(&[]);
        }
        if data.is_null() {
            return None;
        }
        // SAFETY: OpenSSL's contract: `data` holds `data_size` bytes.
        Some(unsafe { core::slice::from_raw_parts(data, len) })
    }

    /// A non-negative integer of 4 or 8 bytes, signed or not.
    pub fn size(&self) -> Option<usize> {
        if self.data.is_null() {
            return None;
        }
        // SAFETY: the type and size checked in each arm say what `data`
        // holds; OpenSSL does not promise alignment, hence the unaligned
        // reads.
        let value: i128 = unsafe {
            match (self.data_type, self.data_size) {
                (PARAM_INTEGER, 4) => self.data.cast::<i32>().read_unaligned().into(),
                (PARAM_INTEGER, 8) => self.data.cast::<i64>().read_unaligned().into(),
                (PARAM_UNSIGNED_INTEGER, 4) => self.data.cast::<u32>().read_unaligned().into(),
                (PARAM_UNSIGNED_INTEGER, 8) => self.data.cast::<u64>().read_unaligned().into(),
                _ => return None,
            }
        };
        usize::try_from(value).ok()
    }

    /// Writes a non-negative integer in the entry's type and size; false
    /// when it does not fit or the entry is not an integer.
    pub fn set_size(&mut self, value: usize) -> bool {
        if self.data.is_null() {
            // A query for the size alone.
            self.return_size = self.data_size;
            return matches!(self.data_type, PARAM_INTEGER | PARAM_UNSIGNED_INTEGER);
        }
        // SAFETY: as in `size`, the arm's type and size say what `data`
        // holds room for.
        unsafe {
            match (self.data_type, self.data_size) {
                (PARAM_INTEGER, 4) => match i32::try_from(value) {
                    Ok(v) => self.data.cast::<i32>().write_unaligned(v),
                    Err(_) => return false,
                },
                (PARAM_INTEGER, 8) => match i64::try_from(value) {
                    Ok(v) => self.data.cast::<i64>().write_unaligned(v),
                    Err(_) => return false,
                },
                (PARAM_UNSIGNED_INTEGER, 4) => match u32::try_from(value) {
                    Ok(v) => self.data.cast::<u32>().write_unaligned(v),
                    Err(_) => return false,
                },
                (PARAM_UNSIGNED_INTEGER, 8) => {
                    self.data.cast::<u64>().write_unaligned(value as u64)
                }
                _ => return false,
            }
        }
        self.return_size = self.data_size;
        true
    }

    /// Copies `bytes` into an octet string of at least their length (or
    /// points an octet pointer at them, which must then outlive the
    /// caller's use: the context's own buffers).
    pub fn set_octets(&mut self, bytes: &[u8]) -> bool {
        match self.data_type {
            PARAM_OCTET_STRING => {
                self.return_size = bytes.len();
                if self.data.is_null() {
                    return true;
                }
                if self.data_size < bytes.len() {
                    return false;
                }
                // SAFETY: `data` holds `data_size` >= `bytes.len()` bytes,
                // and is the caller's, apart from the context's `bytes`.
                unsafe {
                    core::ptr::copy_nonoverlapping(bytes.as_ptr(), self.data.cast(), bytes.len())
                };
                true
            }
            PARAM_OCTET_PTR if !self.data.is_null() => {
                // SAFETY: an octet pointer's data is a slot for the pointer.
                unsafe {
                    self.data
                        .cast::<*const u8>()
                        .write_unaligned(bytes.as_ptr())
                };
                self.return_size = bytes.len();
                true
            }
            _ => false,
        }
    }

    /// Points a UTF-8 pointer at a static C string, or copies it into a
    /// UTF-8 string buffer.
    pub fn set_utf8(&mut self, s: &'static core::ffi::CStr) -> bool {
        let bytes = s.to_bytes();
        match self.data_type {
            PARAM_UTF8_PTR if !self.data.is_null() => {
                // SAFETY: a UTF-8 pointer's data is a slot for the pointer.
                unsafe {
                    self.data
                        .cast::<*const c_char>()
                        .write_unaligned(s.as_ptr())
                };
                self.return_size = bytes.len();
                true
            }
            PARAM_UTF8_STRING => {
                self.return_size = bytes.len();
                if self.data.is_null() {
                    return true;
                }
                if self.data_size < bytes.len() + 1 {
                    return false;
                }
                // SAFETY: `data` holds `data_size` > `bytes.len()` bytes:
                // the string and its terminating NUL.
                unsafe {
                    core::ptr::copy_nonoverlapping(s.as_ptr(), self.data.cast(), bytes.len() + 1)
                };
                true
            }
            _ => false,
        }
    }
}
