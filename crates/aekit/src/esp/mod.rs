//! IPsec ESP packets with AES-GCM (RFC 4106 over RFC 4303), with the
//! keystream optionally precomputed by a [`Pipeline`].
//!
//! ## The packet (RFC 4303 §2, RFC 4106 §3)
//!
//! ```text
//! SPI (4) | sequence, low 32 bits (4) | IV (8) | ciphertext | ICV (8, 12 or 16)
//!                                               └ payload | padding 1,2,3… | pad length | next header
//! ```
//!
//! - nonce = salt ‖ IV (RFC 4106 §4), the salt being the last 4 bytes of
//!   the keying material (§8.1);
//! - IV = the 64-bit sequence number, which RFC 4106 §3.1 allows and which
//!   makes IV reuse under one key impossible as long as the counter does
//!   not wrap — so the SA refuses to send once it would
//!   ([`Error::SequenceExhausted`], RFC 4303 §3.3.3: rekey);
//! - AAD = SPI ‖ sequence (8 bytes), or with extended sequence numbers
//!   SPI ‖ high 32 ‖ low 32 (12 bytes, RFC 4106 §5, RFC 4303 §2.2.1), of
//!   which only the low half is sent;
//! - padding to a multiple of 4 bytes with the bytes 1, 2, 3, …
//!   (RFC 4303 §2.4), checked on receipt after the ICV.
//!
//! Receipt follows RFC 4303 §3.4: parse, find the SA by SPI, rebuild the
//! sequence number (ESN), check the anti-replay window ([`replay`]), verify
//! the ICV, and only then move the window. Duplicates, stale and forged
//! packets are refused and leave the window as it was.
//!
//! ## The packet path
//!
//! Packets run on the implementation [`AesGcm::new`] chooses
//! ([`Implementation::Best`]): on x86-64 a fused AES+GHASH kernel whose
//! whole-message path takes a short packet in one pass. The strategy pairs
//! stay selectable ([`Implementation::Strategies`]) for comparisons.
//!
//! [`Sa::encapsulate_in_place`] and [`Sa::decapsulate_in_place`] work in
//! the caller's buffer, as packet frameworks hold packets: header and IV
//! are written into the headroom before the payload, padding, trailer and
//! ICV into the tailroom after it, and the payload is encrypted or
//! decrypted where it lies. The `Vec` API is built on the same two halves
//! (`seal`, `open`). [`burst`] takes many packets per call, of one SA or
//! of a [`SaSet`] steered by SPI, one set per worker thread.
//!
//! ## Two nonce disciplines
//!
//! [`NonceFormat::Rfc4106`] is the standard above: a pipeline precomputes,
//! per future sequence number, the keystream of the largest packet
//! allowed, and what shorter packets leave unused is wasted (measured in
//! [`PipelineStats::waste`]).
//!
//! [`NonceFormat::ContinuousCounter`] is the seed's modified format and
//! **not RFC 4106**; both ends must opt in. One counter runs through the
//! whole SA: the GCM IV is 16 bytes, salt ‖ a 12-byte ESP IV, used as the
//! first counter block Y_0 *without* GHASH; the packet takes Y_0 and the
//! next ⌈len/16⌉ blocks, and the next packet starts where it stopped. The
//! 12-byte ESP IV travels in place of the 8-byte one. A packet never
//! crosses a multiple of 2^32 blocks (the sender skips to it), so its
//! counters are exactly GCM's incr32 from Y_0. Counter blocks never repeat
//! under one key, which is all GCM's security needs of them; the GHASH of
//! a 16-byte IV is skipped because the IV is already a full counter block.
//! An IV of other than 96 bits binds its key to 128-bit tags (GCM spec
//! §2.1), so an SA of this format takes a 16-byte ICV only.
//!
//! ## Where the keystream comes from
//!
//! With [`KeystreamSource::Inline`] every packet computes its own. With
//! [`KeystreamSource::Pipeline`], each direction of the SA gets a
//! [`Pipeline`] (created on first use) fed by a [`CpuProducer`] — or by
//! any [`KeystreamProducer`] the caller gives [`Sa::with_producers`], such
//! as the GPU's — on its own thread or on a deterministic schedule; a packet whose keystream is not
//! in the buffers is computed inline, counted, and the result is the same
//! bytes. The packet thread then runs GCM's XOR and GHASH only, through
//! aekit's "GCM with the keystream supplied" (`gcm/precomputed.rs`).
//!
//! A producer's failure never reaches a packet: the pipeline computes
//! that keystream inline and keeps the producer's error
//! ([`Sa::producer_error`], a [`keystream::Error`]).
//!
//! Rejected: an SA split into outbound and inbound types (RFC 4301 SAs are
//! one-way, but tests and benchmarks pair them constantly; an SA used one
//! way here simply never starts the other lane), and one error enum with
//! aekit's ([`Error`] wraps [`crate::Error`] and [`keystream::Error`]
//! instead: replay and sequence exhaustion are ESP's alone).

pub mod burst;
#[cfg(test)]
mod exhaustion_tests;
pub mod replay;

pub use burst::{Outgoing, SaSet, spi_of, worker_for};

use core::fmt;
use core::num::NonZeroU32;
use core::ops::Range;

use zeroize::Zeroize;

use crate::aes::Block;
use crate::gcm::Class;
use crate::keystream::{
    self, CounterSpace, CpuProducer, KeystreamProducer, Pipeline, PipelineStats, Schedule,
};
use crate::{AesGcm, aes, ghash};
use replay::{Refusal, ReplayWindow};

/// Everything that can go wrong with an ESP packet or SA.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// A key or strategy problem from AES-GCM itself.
    Crypto(crate::Error),
    /// The keystream for a packet could not be computed (a counter range
    /// past the end of the counter space). A pipeline's producer failing
    /// is not one: those packets are computed inline
    /// ([`Sa::producer_error`]).
    Keystream(keystream::Error),
    /// The ICV length is not 8, 12 or 16 bytes (RFC 4106 §6).
    InvalidIcvLength(usize),
    /// A configuration value is out of range (which one is named).
    InvalidConfig(&'static str),
    /// The sequence counter (or the continuous counter) would wrap:
    /// rekey the SA (RFC 4303 §3.3.3).
    SequenceExhausted,
    /// The packet's SPI is not this SA's.
    UnknownSpi(u32),
    /// The packet is too short or not well formed (what is wrong is named).
    Malformed(&'static str),
    /// The sequence number was received before.
    Replay(u64),
    /// The sequence number is left of the anti-replay window. With
    /// extended sequence numbers, a packet whose high half cannot be
    /// inferred from the window (RFC 4303 Appendix A2.2: too far behind,
    /// or past the end of the 64-bit space) carries the low 32 bits it
    /// sent.
    Stale(u64),
    /// The ICV did not verify.
    AuthenticationFailed,
    /// The ICV verified but the padding is not 1, 2, 3, … (RFC 4303 §2.4).
    BadPadding,
    /// An in-place buffer lacks the room named (headroom, tailroom) or
    /// the payload range lies outside it.
    NoRoom(&'static str),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Crypto(e) => write!(f, "{e}"),
            Error::Keystream(e) => write!(f, "{e}"),
            Error::InvalidIcvLength(n) => {
                write!(f, "invalid ICV length {n} (RFC 4106 allows 8, 12, 16)")
            }
            Error::InvalidConfig(what) => write!(f, "invalid ESP configuration: {what}"),
            Error::SequenceExhausted => {
                f.write_str("sequence number space exhausted: rekey the SA")
            }
            Error::UnknownSpi(spi) => write!(f, "no SA for SPI {spi:#010x}"),
            Error::Malformed(what) => write!(f, "malformed ESP packet: {what}"),
            Error::Replay(seq) => write!(f, "replayed packet (sequence {seq})"),
            Error::Stale(seq) => write!(f, "packet left of the replay window (sequence {seq})"),
            Error::AuthenticationFailed => f.write_str("ICV verification failed"),
            Error::BadPadding => f.write_str("ESP padding is not 1, 2, 3, ..."),
            Error::NoRoom(what) => write!(f, "buffer too small: {what}"),
        }
    }
}

impl std::error::Error for Error {}

impl From<crate::Error> for Error {
    fn from(e: crate::Error) -> Error {
        match e {
            crate::Error::AuthenticationFailed => Error::AuthenticationFailed,
            e => Error::Crypto(e),
        }
    }
}

/// A keystream error as ESP reports it: the cipher's own errors (a key
/// length) as [`Error::Crypto`], as AES-GCM reports them; the rest as
/// [`Error::Keystream`].
impl From<keystream::Error> for Error {
    fn from(e: keystream::Error) -> Error {
        match e {
            keystream::Error::Cipher(e) => Error::from(e),
            e => Error::Keystream(e),
        }
    }
}

/// How nonces are formed; see the module docs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NonceFormat {
    /// RFC 4106: salt ‖ 8-byte IV, the IV being the sequence number.
    Rfc4106,
    /// The seed's continuous counter: **not RFC 4106**. 12-byte IV on the
    /// wire, salt ‖ IV used as Y_0 directly, one counter per SA.
    ///
    /// The GCM IV is 16 bytes, and a key used with an IV other than 96
    /// bits takes 128-bit tags only (GCM spec §2.1): the ICV must be 16
    /// bytes ([`Sa::new`] refuses 8 and 12 with [`Error::InvalidConfig`]).
    ContinuousCounter,
}

/// Where packets get their keystream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeystreamSource {
    /// Each packet computes its own (the fused AES-GCM path).
    Inline,
    /// Precomputed by a producer into double buffers.
    Pipeline(PipelineConfig),
}

/// The shape of a keystream pipeline.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PipelineConfig {
    /// The largest payload the pipeline prepares for (at most 64 KiB);
    /// larger packets are computed inline. In RFC 4106 mode every
    /// sequence number is given keystream for this much.
    pub max_payload: usize,
    /// Packets of `max_payload` per buffer (more than 0; the buffer's
    /// bytes must fit in memory, or [`Sa::new`] refuses it).
    pub buffer_packets: usize,
    /// Packets of `max_payload` kept as history at the head of a buffer
    /// (at most `buffer_packets`).
    pub history_packets: usize,
    /// Where the producer runs.
    pub schedule: Schedule,
}

impl Default for PipelineConfig {
    /// 1500-byte payloads (an Ethernet MTU), 256 per buffer, 64 of history,
    /// on a thread.
    fn default() -> PipelineConfig {
        PipelineConfig {
            max_payload: 1500,
            buffer_packets: 256,
            history_packets: 64,
            schedule: Schedule::Thread,
        }
    }
}

/// The parameters of a security association, besides its key and salt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    /// Security Parameters Index.
    pub spi: u32,
    /// ICV (tag) length: 8, 12 or 16 bytes with [`NonceFormat::Rfc4106`];
    /// 16 bytes with [`NonceFormat::ContinuousCounter`], whose 16-byte
    /// GCM IV binds the key to 128-bit tags.
    pub icv_len: usize,
    /// Extended (64-bit) sequence numbers, RFC 4303 §2.2.1.
    pub extended_sequence_numbers: bool,
    /// RFC 4106 or the seed's continuous counter.
    pub nonce: NonceFormat,
    /// Inline or pipelined keystream.
    pub keystream: KeystreamSource,
    /// Anti-replay window size in packets (RFC 4303 §3.4.3), 32 to 2^20
    /// ([`Sa::new`] refuses others).
    pub replay_window: usize,
    /// The AES-GCM implementation of packets and producers alike.
    pub implementation: Implementation,
}

impl Default for Config {
    /// SPI 0x100, 16-byte ICV, 32-bit sequence numbers, RFC 4106, inline,
    /// a window of 1024, the implementation [`AesGcm::new`] chooses.
    fn default() -> Config {
        Config {
            spi: 0x100,
            icv_len: 16,
            extended_sequence_numbers: false,
            nonce: NonceFormat::Rfc4106,
            keystream: KeystreamSource::Inline,
            replay_window: 1024,
            implementation: Implementation::Best,
        }
    }
}

/// Which AES-GCM implementation an SA runs its packets on.
///
/// Packets are short, so the per-call cost of the implementation matters
/// as much as its bulk speed: the fused kernels' whole-message path
/// (`gcm::Kernel::crypt_whole`) takes a packet in one pass, where a pair
/// of strategies runs counter mode and GHASH as two passes with their own
/// setup each. The default is therefore [`AesGcm::new`]'s choice; the
/// pairs stay selectable for comparisons such as the seed's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Implementation {
    /// The fastest constant-time class this CPU runs, as [`AesGcm::new`]
    /// picks it ([`Class::best`], capped by `AEKIT_KERNEL`).
    Best,
    /// One implementation class: a fused kernel, the best pair, or
    /// portable software ([`AesGcm::with_class`]).
    Class(Class),
    /// An explicit (AES, GHASH) strategy pair, constant-time or not
    /// ([`AesGcm::with`]).
    Strategies(aes::Strategy, ghash::Strategy),
}

impl Implementation {
    /// The AES-GCM key for `key` in this implementation.
    fn gcm(self, key: &[u8]) -> Result<AesGcm, crate::Error> {
        match self {
            Implementation::Best => AesGcm::new(key),
            Implementation::Class(class) => AesGcm::with_class(key, class),
            Implementation::Strategies(a, g) => AesGcm::with(key, a, g),
        }
    }
}

/// A packet accepted by [`Sa::decapsulate_into`] or
/// [`Sa::decapsulate_in_place`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Delivered {
    /// Its full sequence number.
    pub sequence: u64,
    /// The next-header field (e.g. 4 for IPv4, 41 for IPv6).
    pub next_header: u8,
    /// Where the payload lies in the buffer given: from
    /// [`Sa::headroom`] in place, from 0 in the `Vec` API.
    pub payload: Range<usize>,
}

/// A packet built by [`Sa::encapsulate_in_place`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sealed {
    /// The sequence number it carries.
    pub sequence: u64,
    /// Where the ESP packet lies in the buffer given.
    pub packet: Range<usize>,
}

/// An outbound packet's place in its buffer, its header and its body
/// there ([`Sa::lay_out`]); its ICV follows the body.
struct LaidOut<'b> {
    packet: Range<usize>,
    head: &'b mut [u8],
    body: &'b mut [u8],
}

/// The next outbound packet's counters, taken by [`Sa::seal`].
struct Outbound {
    sequence: u64,
    iv: [u8; 12],
    position_after: u64,
}

/// One direction's keystream pipeline, started on first use.
enum Lane {
    Idle(Option<Box<dyn KeystreamProducer>>),
    Running(Box<Pipeline>),
}

/// Which lane a packet uses.
#[derive(Clone, Copy)]
enum Way {
    Out,
    In,
}

/// The ICV to write, or the one to check.
enum Icv<'a> {
    Seal(&'a mut [u8]),
    Open(&'a [u8]),
}

/// A security association: key, salt, SPI, ICV length, the sender's
/// sequence counter and the receiver's anti-replay window.
pub struct Sa {
    config: Config,
    engine: Engine,
    last_sent: u64,
    next_position: u64,
    window: ReplayWindow,
    /// Scratch for inbound bursts: the window as if every packet of a run
    /// authenticated (`burst.rs`), kept to reuse its allocation.
    run_window: ReplayWindow,
    outbound: Lane,
    inbound: Lane,
    /// Counter blocks per packet of `max_payload` (`None` without a
    /// pipeline).
    slot_blocks: Option<NonZeroU32>,
}

impl Sa {
    /// An SA with a 16-, 24- or 32-byte AES key and the 4-byte salt
    /// (RFC 4106 §8.1: the keying material is key ‖ salt).
    ///
    /// # Errors
    ///
    /// [`Error::Crypto`] for a key of another length or an implementation
    /// this CPU lacks; [`Error::InvalidIcvLength`] for an ICV other than
    /// 8, 12 or 16 bytes; [`Error::InvalidConfig`] for a shorter one with
    /// [`NonceFormat::ContinuousCounter`], a replay window or pipeline
    /// sizes out of range.
    pub fn new(key: &[u8], salt: [u8; 4], config: Config) -> Result<Sa, Error> {
        Sa::build(key, salt, config, None)
    }

    /// An SA whose pipelines take their keystream from the given producers
    /// (outbound, inbound) instead of a [`CpuProducer`] each: a GPU's, or
    /// the caller's own. Both must be keyed with `key`. `config.keystream`
    /// must be [`KeystreamSource::Pipeline`].
    pub fn with_producers(
        key: &[u8],
        salt: [u8; 4],
        config: Config,
        outbound: Box<dyn KeystreamProducer>,
        inbound: Box<dyn KeystreamProducer>,
    ) -> Result<Sa, Error> {
        if config.keystream == KeystreamSource::Inline {
            return Err(Error::InvalidConfig(
                "producers given but the keystream source is inline",
            ));
        }
        Sa::build(key, salt, config, Some([outbound, inbound]))
    }

    fn build(
        key: &[u8],
        salt: [u8; 4],
        config: Config,
        producers: Option<[Box<dyn KeystreamProducer>; 2]>,
    ) -> Result<Sa, Error> {
        if ![8, 12, 16].contains(&config.icv_len) {
            return Err(Error::InvalidIcvLength(config.icv_len));
        }
        // GCM spec §2.1: a key used with an IV of other than 96 bits must
        // be used with 128-bit tags.
        if config.nonce == NonceFormat::ContinuousCounter && config.icv_len != 16 {
            return Err(Error::InvalidConfig(
                "the continuous counter's 16-byte GCM IV needs a 16-byte ICV \
                 (GCM takes only 128-bit tags with an IV other than 96 bits)",
            ));
        }
        if !replay::WINDOW_SIZES.contains(&config.replay_window) {
            return Err(Error::InvalidConfig("replay window must be 32 to 2^20"));
        }
        let gcm = config.implementation.gcm(key)?;
        // Producers run the AES strategy the packet kernel holds keys for
        // (`ni` under the `ni-clmul` kernel), so one key schedule's
        // instructions serve both sides.
        let producer_aes = gcm.strategies().0;
        let inline = CpuProducer::new(producer_aes, key)?;
        let (outbound, inbound, slot_blocks) = match config.keystream {
            KeystreamSource::Inline => (Lane::Idle(None), Lane::Idle(None), None),
            KeystreamSource::Pipeline(p) => {
                if p.buffer_packets == 0 || p.history_packets > p.buffer_packets {
                    return Err(Error::InvalidConfig(
                        "need 0 < buffer_packets and history_packets <= buffer_packets",
                    ));
                }
                if p.max_payload > 1 << 16 {
                    return Err(Error::InvalidConfig("max_payload over 64 KiB"));
                }
                let [outbound, inbound]: [Box<dyn KeystreamProducer>; 2] = match producers {
                    Some(given) => given,
                    None => [
                        Box::new(CpuProducer::new(producer_aes, key)?),
                        Box::new(CpuProducer::new(producer_aes, key)?),
                    ],
                };
                // At most 4 098 blocks for 64 KiB, at least 2 (Y_0 and the
                // trailer): always a valid RFC 4106 block count.
                let slot = u32::try_from(blocks_for(p.max_payload))
                    .ok()
                    .and_then(NonZeroU32::new)
                    .ok_or(Error::InvalidConfig("max_payload"))?;
                // Each of a lane's two buffers holds history and fresh
                // packets of `slot` blocks: sizes whose bytes overflow are
                // refused here, not met by the first packet.
                p.buffer_packets
                    .checked_add(p.history_packets)
                    .and_then(|packets| packets.checked_mul(slot.get() as usize * 16))
                    .filter(|&bytes| bytes <= isize::MAX as usize / 2)
                    .ok_or(Error::InvalidConfig(
                        "buffer_packets too large for a buffer in memory",
                    ))?;
                (
                    Lane::Idle(Some(outbound)),
                    Lane::Idle(Some(inbound)),
                    Some(slot),
                )
            }
        };
        Ok(Sa {
            config,
            engine: Engine {
                gcm,
                producer: inline,
                scratch: Vec::new(),
                nonce: config.nonce,
                salt,
            },
            last_sent: 0,
            next_position: 0,
            window: ReplayWindow::new(config.replay_window),
            run_window: ReplayWindow::new(config.replay_window),
            outbound,
            inbound,
            slot_blocks,
        })
    }

    /// The SA's configuration.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The AES-GCM implementation its packets run on, in words
    /// (`fused ni-clmul`, `table + table8`; [`AesGcm::implementation`]).
    pub fn implementation(&self) -> String {
        self.engine.gcm.implementation()
    }

    /// Bytes a payload grows by: header, IV, padding (at most 3), trailer
    /// and ICV.
    pub fn max_overhead(&self) -> usize {
        self.header_len() + 3 + 2 + self.config.icv_len
    }

    /// Bytes the ESP header and IV take before the payload: the headroom
    /// [`encapsulate_in_place`](Self::encapsulate_in_place) needs, and
    /// where [`decapsulate_in_place`](Self::decapsulate_in_place) leaves
    /// the payload.
    pub fn headroom(&self) -> usize {
        self.header_len()
    }

    /// Bytes that padding, pad length, next header and ICV take after a
    /// payload of `payload_len` bytes: the tailroom
    /// [`encapsulate_in_place`](Self::encapsulate_in_place) needs (at most
    /// `5 + icv_len`).
    pub fn tailroom(&self, payload_len: usize) -> usize {
        body_len_for(payload_len).wrapping_sub(payload_len) + self.config.icv_len
    }

    /// Builds the ESP packet around a payload where it already lies:
    /// `buf[payload]` is the payload, with at least
    /// [`headroom`](Self::headroom) bytes before it and
    /// [`tailroom`](Self::tailroom) after it. The header and IV are
    /// written before the payload, padding, trailer and ICV after it, the
    /// payload is encrypted in place; nothing is allocated or copied.
    /// Returns the sequence number and where the packet lies in `buf`.
    ///
    /// Sequence exhaustion and a buffer without the room are refused
    /// before anything is written.
    #[inline]
    pub fn encapsulate_in_place(
        &mut self,
        buf: &mut [u8],
        payload: Range<usize>,
        next_header: u8,
    ) -> Result<Sealed, Error> {
        let packet = self.place(buf.len(), &payload)?;
        let sequence =
            self.seal_out_of_line(&mut buf[packet.clone()], payload.len(), next_header)?;
        Ok(Sealed { sequence, packet })
    }

    /// [`Sa::seal`] in a function of its own, for the callers of
    /// [`Sa::encapsulate_in_place`], into which the rest is inlined: so
    /// that the [`Sealed`] they keep is made in registers where they use
    /// it. Returned whole through memory, it was written by 8-byte stores
    /// and moved by the caller with 16-byte loads, which are not forwarded
    /// from them and wait for the stores to reach the cache
    /// (`docs/ESP.md`).
    #[inline(never)]
    fn seal_out_of_line(
        &mut self,
        packet: &mut [u8],
        payload_len: usize,
        next_header: u8,
    ) -> Result<u64, Error> {
        self.seal(packet, payload_len, next_header)
    }

    /// The ESP packet around `payload` in `buf`: where it lies, and its
    /// header and body (payload, padding, trailer), or why it does not fit
    /// ([`Sa::place`]).
    #[inline(always)]
    fn lay_out<'b>(&self, buf: &'b mut [u8], payload: &Range<usize>) -> Result<LaidOut<'b>, Error> {
        let packet = self.place(buf.len(), payload)?;
        let (head, rest) = buf[packet.clone()].split_at_mut(self.header_len());
        let body = &mut rest[..body_len_for(payload.len())];
        Ok(LaidOut { packet, head, body })
    }

    /// Where the ESP packet around `payload` lies in a buffer of
    /// `buf_len` bytes, or why it does not fit.
    #[inline(always)]
    fn place(&self, buf_len: usize, payload: &Range<usize>) -> Result<Range<usize>, Error> {
        if payload.start > payload.end || payload.end > buf_len {
            return Err(Error::NoRoom("payload range outside the buffer"));
        }
        let start = payload
            .start
            .checked_sub(self.header_len())
            .ok_or(Error::NoRoom("headroom for the ESP header and IV"))?;
        let end = payload.start + body_len_for(payload.len()) + self.config.icv_len;
        if end > buf_len {
            return Err(Error::NoRoom("tailroom for padding, trailer and ICV"));
        }
        Ok(start..end)
    }

    /// Builds the ESP packet for `payload` into `packet` (replacing its
    /// contents) and returns the sequence number used: the payload is
    /// copied once, into place, and sealed there
    /// ([`encapsulate_in_place`](Self::encapsulate_in_place)).
    pub fn encapsulate_into(
        &mut self,
        payload: &[u8],
        next_header: u8,
        packet: &mut Vec<u8>,
    ) -> Result<u64, Error> {
        let header = self.header_len();
        let body_len = body_len_for(payload.len());
        packet.clear();
        packet.resize(header, 0);
        packet.extend_from_slice(payload);
        packet.resize(header + body_len + self.config.icv_len, 0);
        let sealed = self.seal(packet, payload.len(), next_header);
        if sealed.is_err() {
            // Not sent: the plaintext copy goes.
            crate::secret::wipe(packet);
            packet.clear();
        }
        sealed
    }

    /// [`encapsulate_into`](Self::encapsulate_into) into a new vector.
    pub fn encapsulate(&mut self, payload: &[u8], next_header: u8) -> Result<Vec<u8>, Error> {
        let mut packet = Vec::with_capacity(payload.len() + self.max_overhead());
        self.encapsulate_into(payload, next_header, &mut packet)?;
        Ok(packet)
    }

    /// Verifies an ESP packet in place, checks and updates the anti-replay
    /// window, and decrypts it where it lies: the payload is then
    /// `packet[delivered.payload]` (it starts at
    /// [`headroom`](Self::headroom)). Nothing is allocated or copied.
    ///
    /// On any error the window is unchanged, and the packet is either
    /// untouched (refused before decryption: malformed, unknown SPI,
    /// replayed, stale) or its body is zeroed (ICV or padding wrong), so
    /// no unverified plaintext is left behind.
    #[inline]
    pub fn decapsulate_in_place(&mut self, packet: &mut [u8]) -> Result<Delivered, Error> {
        let (sequence, opened) = self.decapsulate_out_of_line(packet)?;
        Ok(self.delivered_in_place(sequence, opened))
    }

    /// [`Sa::decapsulate_in_place`]'s work in a function of its own,
    /// returning the sequence number, next header and payload length, so
    /// that the [`Delivered`] its callers keep is made in registers there
    /// (as [`Sa::seal_out_of_line`] for encapsulation).
    #[inline(never)]
    fn decapsulate_out_of_line(&mut self, packet: &mut [u8]) -> Result<(u64, (u8, usize)), Error> {
        let (sequence, body_len) = self.check_header(packet)?;
        let opened = self.decapsulate_checked(packet, sequence, body_len)?;
        Ok((sequence, opened))
    }

    /// What an in-place decapsulation delivers: packet `sequence`, whose
    /// opened body gave its next header and payload length (`opened`),
    /// the payload starting after the header.
    #[inline(always)]
    fn delivered_in_place(
        &self,
        sequence: u64,
        (next_header, payload_len): (u8, usize),
    ) -> Delivered {
        let header = self.header_len();
        Delivered {
            sequence,
            next_header,
            payload: header..header + payload_len,
        }
    }

    /// [`Sa::decapsulate_in_place`] after its header check, which gave
    /// `sequence` and `body_len`: the body opened, its next header and
    /// payload length returned.
    ///
    /// Always inlined, as are the header check, [`Sa::open`],
    /// [`Sa::accept_opened`] and the AES-GCM call under them, for the
    /// reason [`Sa::crypt`] is: as calls, their frames and argument moves
    /// are a sizeable share of a short packet's work.
    #[inline(always)]
    fn decapsulate_checked(
        &mut self,
        packet: &mut [u8],
        sequence: u64,
        body_len: usize,
    ) -> Result<(u8, usize), Error> {
        let (head, rest) = packet.split_at_mut(self.header_len());
        let (body, icv) = rest.split_at_mut(body_len);
        self.open(&head[8..], sequence, body, icv)
    }

    /// Verifies an ESP packet, checks and updates the anti-replay window
    /// and writes the payload into `payload` (replacing its contents; the
    /// body is copied once and decrypted there). On any error `payload` is
    /// left empty and the window unchanged.
    pub fn decapsulate_into(
        &mut self,
        packet: &[u8],
        payload: &mut Vec<u8>,
    ) -> Result<Delivered, Error> {
        payload.clear();
        let (sequence, body_len) = self.check_header(packet)?;
        let header = self.header_len();
        let (iv, rest) = packet[8..].split_at(header - 8);
        let (body, icv) = rest.split_at(body_len);
        payload.extend_from_slice(body);
        match self.open(iv, sequence, payload, icv) {
            Ok((next_header, payload_len)) => {
                payload.truncate(payload_len);
                Ok(Delivered {
                    sequence,
                    next_header,
                    payload: 0..payload_len,
                })
            }
            Err(e) => {
                payload.clear();
                Err(e)
            }
        }
    }

    /// [`decapsulate_into`](Self::decapsulate_into) into a new vector:
    /// the payload and its next header.
    pub fn decapsulate(&mut self, packet: &[u8]) -> Result<(Vec<u8>, u8), Error> {
        let mut payload = Vec::with_capacity(packet.len());
        let delivered = self.decapsulate_into(packet, &mut payload)?;
        Ok((payload, delivered.next_header))
    }

    /// The sender's half of a packet: takes the next sequence number (and
    /// continuous-counter position), writes the header, IV and trailer
    /// around the payload that opens the body, and seals the body into the
    /// ICV; `packet` is header, body and ICV ([`Sa::place`]). The counters
    /// move only once the packet is sealed.
    #[inline(always)]
    fn seal(
        &mut self,
        packet: &mut [u8],
        payload_len: usize,
        next_header: u8,
    ) -> Result<u64, Error> {
        let (head, rest) = packet.split_at_mut(self.header_len());
        let (body, icv) = rest.split_at_mut(body_len_for(payload_len));
        let (next, aad, aad_len) = self.frame(head, body, payload_len, next_header)?;
        let seq = next.sequence;
        self.crypt(
            Way::Out,
            &head[8..],
            seq,
            &aad[..aad_len],
            body,
            Icv::Seal(icv),
        )?;
        self.sent(&next);
        Ok(seq)
    }

    /// Everything sealing does before the cryptography: takes the next
    /// counters (spent only by [`Sa::sent`]), writes the padding and
    /// trailer after the payload and the header (SPI, sequence number,
    /// IV) before it, and returns the counters and the packet's AAD.
    ///
    /// Always inlined, as are the small functions it calls: returned
    /// through memory, the counters and the AAD would be read back by
    /// loads wider than the stores that wrote them, which are not
    /// forwarded from the stores and wait for the cache.
    #[inline(always)]
    fn frame(
        &self,
        head: &mut [u8],
        body: &mut [u8],
        payload_len: usize,
        next_header: u8,
    ) -> Result<(Outbound, Aad, usize), Error> {
        let next = self.next_outbound(body.len())?;
        let seq = next.sequence;
        let pad = body.len() - payload_len - 2;
        // Padding 1, 2, 3 (RFC 4303 §2.4; at most three bytes, the body
        // being padded to four), pad length, next header: one write of a
        // length known at compile time per padding length.
        let tail = &mut body[payload_len..];
        let n = next_header;
        match pad {
            0 => tail.copy_from_slice(&[0, n]),
            1 => tail.copy_from_slice(&[1, 1, n]),
            2 => tail.copy_from_slice(&[1, 2, 2, n]),
            _ => tail.copy_from_slice(&[1, 2, 3, 3, n]),
        }
        head[..4].copy_from_slice(&self.config.spi.to_be_bytes());
        head[4..8].copy_from_slice(&(seq as u32).to_be_bytes());
        // Each format's IV length spelled out: a copy of a length known
        // only at run time is a call to `memcpy`.
        match self.config.nonce {
            NonceFormat::Rfc4106 => head[8..].copy_from_slice(&next.iv[..8]),
            NonceFormat::ContinuousCounter => head[8..].copy_from_slice(&next.iv),
        }
        let (aad, aad_len) = self.aad(seq);
        Ok((next, aad, aad_len))
    }

    /// Spends the counters of a packet just sealed.
    #[inline(always)]
    fn sent(&mut self, next: &Outbound) {
        self.last_sent = next.sequence;
        self.next_position = next.position_after;
    }

    /// The next packet's sequence number, IV and continuous-counter
    /// position after it, for a body of `body_len` bytes: the one place
    /// the outbound counters are advanced from (by [`Sa::seal`], once the
    /// packet is sealed). Refuses to wrap (RFC 4303 §3.3.3).
    #[inline(always)]
    fn next_outbound(&self, body_len: usize) -> Result<Outbound, Error> {
        let max = if self.config.extended_sequence_numbers {
            u64::MAX
        } else {
            u64::from(u32::MAX)
        };
        let sequence = self
            .last_sent
            .checked_add(1)
            .filter(|&s| s <= max)
            .ok_or(Error::SequenceExhausted)?;
        let mut iv = [0u8; 12];
        let mut position_after = self.next_position;
        match self.config.nonce {
            NonceFormat::Rfc4106 => iv[..8].copy_from_slice(&sequence.to_be_bytes()),
            NonceFormat::ContinuousCounter => {
                let blocks = blocks_for_body(body_len) as u64;
                let mut first = self.next_position;
                if crosses_incr32_wrap(first, blocks) {
                    first = (first | 0xffff_ffff)
                        .checked_add(1)
                        .ok_or(Error::SequenceExhausted)?;
                }
                position_after = first.checked_add(blocks).ok_or(Error::SequenceExhausted)?;
                iv[4..].copy_from_slice(&first.to_be_bytes());
            }
        }
        Ok(Outbound {
            sequence,
            iv,
            position_after,
        })
    }

    /// The receiver's checks before any cryptography (RFC 4303 §3.4.1–3):
    /// lengths, SPI, the full sequence number (ESN) and the replay window.
    /// Returns the sequence number and the body's length; changes nothing.
    #[inline(always)]
    fn check_header(&self, packet: &[u8]) -> Result<(u64, usize), Error> {
        self.check_header_against(&self.window, packet)
    }

    /// [`Sa::check_header`] against `window` instead of the SA's own.
    #[inline(always)]
    fn check_header_against(
        &self,
        window: &ReplayWindow,
        packet: &[u8],
    ) -> Result<(u64, usize), Error> {
        let header = self.header_len();
        let icv_len = self.config.icv_len;
        let body_len = packet
            .len()
            .checked_sub(header + icv_len)
            .filter(|&n| n >= 4)
            .ok_or(Error::Malformed("shorter than header, trailer and ICV"))?;
        if body_len % 4 != 0 {
            return Err(Error::Malformed("ciphertext not a multiple of 4 bytes"));
        }
        // At least header + 4 + ICV bytes long: the SPI and the sequence
        // number are there.
        let [s0, s1, s2, s3, l0, l1, l2, l3, ..] = *packet else {
            return Err(Error::Malformed("shorter than header, trailer and ICV"));
        };
        let spi = u32::from_be_bytes([s0, s1, s2, s3]);
        if spi != self.config.spi {
            return Err(Error::UnknownSpi(spi));
        }
        let low = u32::from_be_bytes([l0, l1, l2, l3]);
        let seq = if self.config.extended_sequence_numbers {
            window.infer_esn(low).ok_or(Error::Stale(u64::from(low)))?
        } else {
            u64::from(low)
        };
        window.check(seq).map_err(|refusal| refused(refusal, seq))?;
        let iv = &packet[8..header];
        if self.config.nonce == NonceFormat::ContinuousCounter {
            // What a sender never makes: a counter beyond 2^64, or a packet
            // whose counters would wrap (incr32, or the 64-bit index): its
            // keystream would not be GCM's, and near 2^64 it would not
            // even have a range to compute.
            let blocks = blocks_for_body(body_len) as u64;
            match continuous_first(iv) {
                None => return Err(Error::Malformed("continuous counter beyond 2^64")),
                Some(first)
                    if crosses_incr32_wrap(first, blocks)
                        || first.checked_add(blocks).is_none() =>
                {
                    return Err(Error::Malformed("continuous counter range wraps"));
                }
                Some(_) => {}
            }
        }
        Ok((seq, body_len))
    }

    /// The receiver's half after [`Sa::check_header`]: verifies and
    /// decrypts `body` in place, checks the padding, and only then moves
    /// the window. Returns the next header and the payload's length; on an
    /// error `body` is zeroed (the AES-GCM layer wipes on a bad ICV, this
    /// on bad padding) and the window unchanged.
    #[inline(always)]
    fn open(
        &mut self,
        iv: &[u8],
        seq: u64,
        body: &mut [u8],
        icv: &[u8],
    ) -> Result<(u8, usize), Error> {
        let (aad, aad_len) = self.aad(seq);
        self.crypt(Way::In, iv, seq, &aad[..aad_len], body, Icv::Open(icv))?;
        self.accept_opened(seq, body)
    }

    /// The end of [`Sa::open`] once `body` has authenticated and been
    /// decrypted: the padding checked, then the window moved (the body
    /// wiped if either refuses: a window that no longer lets `seq` in
    /// refuses it as [`Sa::check_header`] would). Returns the next header
    /// and the payload's length.
    #[inline(always)]
    fn accept_opened(&mut self, seq: u64, body: &mut [u8]) -> Result<(u8, usize), Error> {
        let body_len = body.len();
        let next_header = body[body_len - 1];
        let pad = usize::from(body[body_len - 2]);
        let padding_ok = pad + 2 <= body_len
            && body[body_len - 2 - pad..body_len - 2]
                .iter()
                .zip(1u8..)
                .all(|(&b, want)| b == want);
        if !padding_ok {
            crate::secret::wipe(body);
            return Err(Error::BadPadding);
        }
        if let Err(refusal) = self.window.accept(seq) {
            crate::secret::wipe(body);
            return Err(refused(refusal, seq));
        }
        Ok((next_header, body_len - 2 - pad))
    }

    /// Moves the sender's sequence number forward so that the next packet
    /// carries `next`: for resuming an SA under its key, never backwards,
    /// which would reuse IVs. (A `next` past the sequence space is taken,
    /// and the next packet refused with [`Error::SequenceExhausted`].)
    ///
    /// With [`NonceFormat::ContinuousCounter`] the IVs are the counter's
    /// positions, not the sequence numbers: resuming such an SA also needs
    /// [`Sa::skip_to_counter`], or its counter starts again at 0 and
    /// reuses the keystream of the packets sent before.
    pub fn skip_to_sequence(&mut self, next: u64) -> Result<(), Error> {
        if next <= self.last_sent {
            return Err(Error::InvalidConfig("sequence numbers only move forward"));
        }
        self.last_sent = next - 1;
        Ok(())
    }

    /// Where the continuous counter stands: the first counter block the
    /// next packet may take ([`NonceFormat::ContinuousCounter`]; always 0
    /// with [`NonceFormat::Rfc4106`], whose IVs are the sequence numbers).
    /// Kept with the sequence number, it resumes the SA later
    /// ([`Sa::skip_to_counter`]).
    pub fn next_counter(&self) -> u64 {
        self.next_position
    }

    /// Moves a continuous-counter SA's counter forward to `position`, a
    /// value [`Sa::next_counter`] gave before: for resuming an SA under its
    /// key, with [`Sa::skip_to_sequence`]. Never backwards, which would
    /// reuse counter blocks; refused with [`NonceFormat::Rfc4106`], which
    /// has no such counter.
    pub fn skip_to_counter(&mut self, position: u64) -> Result<(), Error> {
        if self.config.nonce != NonceFormat::ContinuousCounter {
            return Err(Error::InvalidConfig(
                "an RFC 4106 SA has no counter to move (its IVs are the sequence numbers)",
            ));
        }
        if position < self.next_position {
            return Err(Error::InvalidConfig("the counter only moves forward"));
        }
        self.next_position = position;
        Ok(())
    }

    /// The highest sequence number the receiver has accepted.
    pub fn replay_window_top(&self) -> u64 {
        self.window.top()
    }

    /// What the outbound pipeline has done (zeros when there is none).
    pub fn outbound_stats(&self) -> PipelineStats {
        lane_stats(&self.outbound)
    }

    /// What the inbound pipeline has done (zeros when there is none).
    pub fn inbound_stats(&self) -> PipelineStats {
        lane_stats(&self.inbound)
    }

    /// The most recent error of the outbound lane's producer (a GPU that
    /// failed or starved), or else of the inbound lane's, if any; the
    /// packets it affected were computed inline and counted in
    /// [`PipelineStats::failed`].
    pub fn producer_error(&self) -> Option<keystream::Error> {
        [&self.outbound, &self.inbound]
            .into_iter()
            .find_map(|lane| match lane {
                Lane::Running(pipeline) => pipeline.last_error(),
                Lane::Idle(_) => None,
            })
    }

    /// Runs the producers now, on this thread, for every buffer waiting on
    /// the [`Schedule::Manual`] schedule.
    pub fn fill_keystream_now(&mut self) {
        for lane in [&mut self.outbound, &mut self.inbound] {
            if let Lane::Running(pipeline) = lane {
                pipeline.fill_now();
            }
        }
    }

    fn iv_len(&self) -> usize {
        match self.config.nonce {
            NonceFormat::Rfc4106 => 8,
            NonceFormat::ContinuousCounter => 12,
        }
    }

    fn header_len(&self) -> usize {
        8 + self.iv_len()
    }

    /// SPI ‖ sequence, or SPI ‖ high ‖ low with ESN, and its length, in
    /// the first 8 or 12 bytes of one 16-byte value. Built as two 64-bit
    /// halves (as one `u128`, the ESN choice became a 128-bit shift by a
    /// run-time amount) and stored whole ([`whole_bytes`]): written piece
    /// by piece, the AES-GCM call that reads it back at once would wait
    /// for the pieces to reach the cache, a load wider than the stores it
    /// reads not being forwarded from them.
    #[inline(always)]
    fn aad(&self, seq: u64) -> (Aad, usize) {
        let spi = u64::from(self.config.spi) << 32;
        let (hi, lo, len) = if self.config.extended_sequence_numbers {
            (spi | seq >> 32, seq << 32, 12)
        } else {
            (spi | (seq & 0xffff_ffff), 0, 8)
        };
        (whole_bytes(hi, lo), len)
    }

    /// The linear keystream index of a packet's Y_0 in its lane's counter
    /// space, or `None` where the packet does not sit on the precomputed
    /// counters (an RFC 4106 peer whose IV is not its sequence number).
    fn index_of(&self, iv: &[u8], seq: u64, blocks: usize) -> Option<u64> {
        match self.config.nonce {
            NonceFormat::Rfc4106 => {
                let slot = u64::from(self.slot_blocks?.get());
                // A packet longer than its slot would run into the next
                // sequence number's counters: never served from the buffers.
                if blocks as u64 > slot || iv != seq.to_be_bytes() {
                    return None;
                }
                seq.checked_mul(slot)
            }
            NonceFormat::ContinuousCounter => continuous_first(iv),
        }
    }

    fn counter_space(&self, slot: NonZeroU32) -> CounterSpace {
        match self.config.nonce {
            NonceFormat::Rfc4106 => CounterSpace::PerPacket {
                salt: self.engine.salt,
                blocks_per_packet: slot,
            },
            NonceFormat::ContinuousCounter => CounterSpace::Continuous {
                salt: self.engine.salt,
            },
        }
    }

    /// Starts `way`'s pipeline if the SA has one and it is idle.
    fn start_lane(&mut self, way: Way) {
        let (KeystreamSource::Pipeline(p), Some(slot)) = (self.config.keystream, self.slot_blocks)
        else {
            return;
        };
        let start = match (way, self.config.nonce) {
            (Way::Out, NonceFormat::Rfc4106) => {
                (self.last_sent.saturating_add(1)).saturating_mul(u64::from(slot.get()))
            }
            (Way::Out, NonceFormat::ContinuousCounter) => self.next_position,
            (Way::In, NonceFormat::Rfc4106) => {
                (self.window.top().saturating_add(1)).saturating_mul(u64::from(slot.get()))
            }
            (Way::In, NonceFormat::ContinuousCounter) => 0,
        };
        let space = self.counter_space(slot);
        let slot = slot.get() as usize;
        let lane = match way {
            Way::Out => &mut self.outbound,
            Way::In => &mut self.inbound,
        };
        if let Lane::Idle(producer) = lane
            && let Some(producer) = producer.take()
        {
            *lane = Lane::Running(Box::new(Pipeline::new(
                producer,
                space,
                p.buffer_packets * slot,
                p.history_packets * slot,
                p.schedule,
                start,
            )));
        }
    }

    /// Encrypts and seals, or verifies and decrypts, one packet body, with
    /// the lane's precomputed keystream when it has it and inline when not.
    // Always inlined, with `Engine::inline`, into the two callers (`seal`,
    // `open`): as calls, the two layers' prologues, argument moves and
    // results passed through memory cost about 50 instructions a packet,
    // a sizeable share of a short packet's work.
    #[inline(always)]
    fn crypt(
        &mut self,
        way: Way,
        iv: &[u8],
        seq: u64,
        aad: &[u8],
        body: &mut [u8],
        icv: Icv<'_>,
    ) -> Result<(), Error> {
        // Without a pipeline (no slots), straight to the inline call.
        if self.slot_blocks.is_none() {
            return self.engine.inline(iv, aad, body, icv);
        }
        self.start_lane(way);
        let blocks = blocks_for_body(body.len());
        let index = self.index_of(iv, seq, blocks);
        let lane = match way {
            Way::Out => &mut self.outbound,
            Way::In => &mut self.inbound,
        };
        let Lane::Running(pipeline) = lane else {
            return self.engine.inline(iv, aad, body, icv);
        };
        let Some(index) = index else {
            pipeline.count_unplaceable();
            return self.engine.inline(iv, aad, body, icv);
        };
        if let Some(keystream) = pipeline.keystream(index, blocks) {
            return self.engine.supplied(keystream, aad, body, icv);
        }
        self.engine.inline(iv, aad, body, icv)?;
        // Authentic (just sealed, or just verified): the pipeline may follow.
        pipeline.observe(index);
        Ok(())
    }
}

/// The error of a sequence number the window refuses.
fn refused(refusal: Refusal, seq: u64) -> Error {
    match refusal {
        Refusal::Duplicate => Error::Replay(seq),
        Refusal::Stale => Error::Stale(seq),
    }
}

/// An ESP packet's AAD ([`Sa::aad`]): its first 8 or 12 bytes.
pub(crate) type Aad = [u8; 16];

/// The big-endian bytes of the 128-bit value `hi ‖ lo`, written by one
/// 16-byte store: as a `u128`, the compiler writes the two halves from
/// general registers, and a 16-byte load of them waits for the cache.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
#[allow(unsafe_code)] // one SSE2 store, with its SAFETY line
fn whole_bytes(hi: u64, lo: u64) -> Aad {
    use core::arch::x86_64::{_mm_set_epi64x, _mm_storeu_si128};
    let mut bytes = [0u8; 16];
    // SAFETY: SSE2 is part of x86-64; `bytes` is 16 writable bytes.
    unsafe {
        let v = _mm_set_epi64x(lo.swap_bytes() as i64, hi.swap_bytes() as i64);
        _mm_storeu_si128(bytes.as_mut_ptr().cast(), v);
    }
    bytes
}

/// The big-endian bytes of the 128-bit value `hi ‖ lo`.
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn whole_bytes(hi: u64, lo: u64) -> Aad {
    (u128::from(hi) << 64 | u128::from(lo)).to_be_bytes()
}

/// An RFC 4106 nonce: salt ‖ the packet's 8-byte IV (§4).
fn rfc4106_nonce(salt: [u8; 4], iv: &[u8]) -> [u8; 12] {
    let mut nonce = [0u8; 12];
    nonce[..4].copy_from_slice(&salt);
    nonce[4..].copy_from_slice(iv);
    nonce
}

/// The packet computation proper, apart from the lanes so both can be
/// borrowed at once.
struct Engine {
    gcm: AesGcm,
    /// Continuous-counter keystream computed inline.
    producer: CpuProducer,
    scratch: Vec<Block>,
    nonce: NonceFormat,
    salt: [u8; 4],
}

impl Engine {
    /// GCM over `body` with precomputed keystream (Y_0's block first).
    fn supplied(
        &self,
        keystream: &[u8],
        aad: &[u8],
        body: &mut [u8],
        icv: Icv<'_>,
    ) -> Result<(), Error> {
        match icv {
            Icv::Seal(icv) => {
                let tag = self
                    .gcm
                    .encrypt_with_keystream(keystream, aad, body, icv.len())?;
                tag.copy_to(icv);
            }
            Icv::Open(icv) => self.gcm.decrypt_with_keystream(keystream, aad, body, icv)?,
        }
        Ok(())
    }

    /// GCM over `body` computing its own keystream: the one-shot API with
    /// nonce salt ‖ IV in RFC 4106 mode; in continuous mode the keystream
    /// from Y_0 = salt ‖ IV, computed here, then the supplied-keystream path.
    #[inline(always)] // see `Sa::crypt`
    fn inline(
        &mut self,
        iv: &[u8],
        aad: &[u8],
        body: &mut [u8],
        icv: Icv<'_>,
    ) -> Result<(), Error> {
        match self.nonce {
            NonceFormat::Rfc4106 => {
                let nonce = rfc4106_nonce(self.salt, iv);
                match icv {
                    Icv::Seal(icv) => {
                        self.gcm.seal_to_slot(&nonce, aad, body, icv)?;
                    }
                    Icv::Open(icv) => self.gcm.open_in_place(None, &nonce, aad, body, icv)?,
                }
                Ok(())
            }
            NonceFormat::ContinuousCounter => {
                let first = continuous_first(iv)
                    .ok_or(Error::Malformed("continuous counter beyond 2^64"))?;
                let mut scratch = core::mem::take(&mut self.scratch);
                scratch.resize(blocks_for_body(body.len()), [0; 16]);
                let space = CounterSpace::Continuous { salt: self.salt };
                let result = match self.producer.fill(&space, first, &mut scratch) {
                    Ok(()) => self.supplied(scratch.as_flattened(), aad, body, icv),
                    Err(e) => Err(e.into()),
                };
                scratch.zeroize();
                scratch.clear();
                self.scratch = scratch;
                result
            }
        }
    }
}

/// Counter blocks a packet of `payload` bytes takes: Y_0 and the body.
fn blocks_for(payload: usize) -> usize {
    blocks_for_body(body_len_for(payload))
}

/// Bytes of ciphertext for a payload: payload, padding to a multiple of 4
/// (RFC 4303 §2.4), pad length and next header, rounded up by a mask
/// (rejected: `next_multiple_of`, a remainder and a branch). A payload is
/// a slice, at most `isize::MAX` bytes, so for one the sum does not wrap;
/// for a length near `usize::MAX` ([`Sa::tailroom`] takes any) it wraps,
/// and the result less the payload, taken wrapping too, is still the
/// trailer's length, the arithmetic being modulo 2^64.
fn body_len_for(payload: usize) -> usize {
    payload.wrapping_add(2 + 3) & !3
}

fn blocks_for_body(body_len: usize) -> usize {
    1 + body_len.div_ceil(16)
}

/// The first counter (Y_0's linear index) a continuous-counter IV names:
/// its low 8 bytes, when its high 4 are zero (the index space is 2^64).
fn continuous_first(iv: &[u8]) -> Option<u64> {
    match *iv {
        [0, 0, 0, 0, a, b, c, d, e, f, g, h] => Some(u64::from_be_bytes([a, b, c, d, e, f, g, h])),
        _ => None,
    }
}

/// Whether `blocks` counters from `first` would cross a multiple of 2^32,
/// where GCM's incr32 wraps the low word but the linear index carries: the
/// sender skips to the multiple instead, so such a packet is never valid.
fn crosses_incr32_wrap(first: u64, blocks: u64) -> bool {
    (first & 0xffff_ffff) + blocks > 1 << 32
}

fn lane_stats(lane: &Lane) -> PipelineStats {
    match lane {
        Lane::Running(pipeline) => pipeline.stats(),
        Lane::Idle(_) => PipelineStats::default(),
    }
}
