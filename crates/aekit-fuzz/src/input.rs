//! The byte format every target reads its input in, and the writer that
//! builds seeds in the same format.
//!
//! libFuzzer hands a target one byte string. Each target reads it as a
//! sequence of fields: single bytes, big-endian integers, and byte strings
//! prefixed by a 16-bit length. A read past the end yields zeros or an
//! empty string, so every byte string is a valid input and a mutation that
//! cuts a field short still means something. Lengths are clipped to a
//! maximum per field and to what is left, so no input allocates more than
//! it could describe.
//!
//! [`Writer`] is the inverse, used to turn the test vectors in `vectors/`
//! into seed inputs: a seed written with it reads back field for field.
//!
//! Rejected: the `arbitrary` crate's derived decoding. It is convenient for
//! targets, but its encoding is an implementation detail, so seeds could
//! not be built from the vector files, and the corpus would go stale with
//! each of its releases.

/// A cursor over a fuzz input.
pub struct Input<'a> {
    data: &'a [u8],
}

impl<'a> Input<'a> {
    /// A cursor at the start of `data`.
    pub fn new(data: &'a [u8]) -> Input<'a> {
        Input { data }
    }

    /// Whether every byte has been read.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// The next byte, or 0 past the end.
    pub fn byte(&mut self) -> u8 {
        let [b] = self.array::<1>();
        b
    }

    /// The next two bytes, big-endian.
    pub fn u16(&mut self) -> u16 {
        u16::from_be_bytes(self.array())
    }

    /// The next four bytes, big-endian.
    pub fn u32(&mut self) -> u32 {
        u32::from_be_bytes(self.array())
    }

    /// The next eight bytes, big-endian.
    pub fn u64(&mut self) -> u64 {
        u64::from_be_bytes(self.array())
    }

    /// A byte string: a 16-bit length, then that many bytes, clipped to
    /// `max` and to what is left.
    pub fn bytes(&mut self, max: usize) -> &'a [u8] {
        let len = usize::from(self.u16()).min(max).min(self.data.len());
        let (taken, rest) = self.data.split_at(len);
        self.data = rest;
        taken
    }

    /// Everything not yet read.
    pub fn rest(&mut self) -> &'a [u8] {
        core::mem::take(&mut self.data)
    }

    /// The next `N` bytes, zero-padded past the end.
    fn array<const N: usize>(&mut self) -> [u8; N] {
        let mut out = [0u8; N];
        let n = N.min(self.data.len());
        out[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        out
    }
}

/// Builds an input field by field, as [`Input`] reads it.
#[derive(Default)]
pub struct Writer {
    out: Vec<u8>,
}

impl Writer {
    /// An empty input.
    pub fn new() -> Writer {
        Writer::default()
    }

    /// Appends one byte.
    pub fn byte(mut self, b: u8) -> Writer {
        self.out.push(b);
        self
    }

    /// Appends a big-endian `u16`.
    pub fn u16(mut self, v: u16) -> Writer {
        self.out.extend_from_slice(&v.to_be_bytes());
        self
    }

    /// Appends a big-endian `u32`.
    pub fn u32(mut self, v: u32) -> Writer {
        self.out.extend_from_slice(&v.to_be_bytes());
        self
    }

    /// Appends a big-endian `u64`.
    pub fn u64(mut self, v: u64) -> Writer {
        self.out.extend_from_slice(&v.to_be_bytes());
        self
    }

    /// Appends a byte string with its 16-bit length.
    ///
    /// # Panics
    /// If `bytes` is longer than 65 535 bytes (no field takes that much).
    pub fn bytes(mut self, bytes: &[u8]) -> Writer {
        let len = u16::try_from(bytes.len()).expect("a field of at most 64 KiB");
        self.out.extend_from_slice(&len.to_be_bytes());
        self.out.extend_from_slice(bytes);
        self
    }

    /// Appends bytes as they are (for a target's rest).
    pub fn raw(mut self, bytes: &[u8]) -> Writer {
        self.out.extend_from_slice(bytes);
        self
    }

    /// The input.
    pub fn finish(self) -> Vec<u8> {
        self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writer_and_input_agree_and_reads_past_the_end_are_empty() {
        let data = Writer::new()
            .byte(7)
            .u16(0x1234)
            .u32(5)
            .u64(u64::MAX)
            .bytes(b"hello")
            .raw(b"tail")
            .finish();
        let mut input = Input::new(&data);
        assert_eq!(input.byte(), 7);
        assert_eq!(input.u16(), 0x1234);
        assert_eq!(input.u32(), 5);
        assert_eq!(input.u64(), u64::MAX);
        assert_eq!(input.bytes(100), b"hello");
        assert_eq!(input.rest(), b"tail");
        assert!(input.is_empty());
        assert_eq!((input.byte(), input.u64()), (0, 0));
        assert_eq!(input.bytes(10), b"");
        // A length beyond the maximum or beyond the data is clipped.
        let data = Writer::new().bytes(b"abcdef").finish();
        assert_eq!(Input::new(&data).bytes(3), b"abc");
        assert_eq!(Input::new(&data[..5]).bytes(100), b"abc");
    }
}
