//! Bursts: many packets in one call, as packet frameworks hand them over
//! (a receive ring's worth at a time), with one result per packet.
//!
//! A burst is processed packet by packet, in order, through the same
//! in-place halves as single packets ([`Sa::encapsulate_in_place`],
//! [`Sa::decapsulate_in_place`]). That order is the guarantee: a burst
//! delivers exactly what one-at-a-time processing of its packets would,
//! a forged packet is refused and its body wiped while the others are
//! delivered, and the replay window moves only for packets that
//! authenticated — a forged copy of a later sequence number cannot shut
//! out the genuine packet behind it.
//!
//! [`SaSet`] holds the SAs of one receiver (or sender) and steers each
//! packet of a mixed burst to its SA by SPI (RFC 4303 §3.4.2), the way a
//! NIC's receive-side scaling steers flows to queues. One set per worker
//! thread, each owning its SAs, keeps the hot path free of locks.
//!
//! Where the key's one-message path keeps the AES units as busy as its
//! vector lanes (`vaes-avx512`, whose whole messages take
//! `own_powers`), a burst is its packets one call each: gathering them
//! for the lanes costs more than the lanes save (docs/ESP.md).
//!
//! Outbound, on another key whose kernel runs messages in vector lanes
//! (`vaes-avx512`'s and `vaes-avx2`'s multi-buffer paths) with inline
//! keystream and RFC 4106 nonces, a burst is sealed in two steps per
//! `GATHER` packets: each packet the multi-buffer path takes (an
//! encrypted body of 33 bytes to 2 KiB, or fewer on some CPUs:
//! `AesGcm::takes_in_lanes`) is
//! framed in order (room checked, sequence number and IV taken
//! and spent, padding, trailer and header written) exactly as
//! one-at-a-time sealing frames it, and every other packet is sealed at
//! once, in its turn; then the framed packets are encrypted by one call
//! of the batch API (`AesGcm::encrypt_batch`'s, into the stack: nothing
//! allocated), which runs them four at a time.
//! The bytes and results are those of one-at-a-time sealing; encryption
//! of a framed packet cannot fail (the SA chose all its lengths), and a
//! packet refused while framing spends no sequence number.
//!
//! Inbound (the same keys), a packet's replay check depends
//! on which packets before it in the burst authenticated. So a burst is
//! taken in runs whose outcomes do not depend on one another: a packet
//! joins the run when its header check comes out the same against the
//! SA's window and against that window with every packet of the run
//! accepted (acceptance only raises the top and adds marks, so every
//! window in between agrees too); the first packet that could come out
//! otherwise ends the run and starts the next, checked once the run's
//! packets have moved the window. In a run, refused packets get their
//! refusal and the packets the multi-buffer path takes are decrypted
//! together in one batch (a forged one wiped by it); then, in order,
//! each of those has its padding checked and the window moved, and every
//! other packet is decrypted, checked and marked whole, as
//! [`Sa::decapsulate_in_place`] does. No packet moves the window before
//! the packets ahead of it in the run have, so none is marked in a window
//! that has already left it behind. With ESN the high half of a
//! sequence number is inferred from the window (RFC 4303 Appendix A2.2):
//! the number congruent to the received low half in [top − W + 1,
//! top − W + 2^32], a range that slides up with the top. A number s
//! inferred from the SA's window that also passes the run's window (so
//! s ≥ top_run − W + 1) lies in that range for every top between the
//! two, so every window between infers s too: the same rule makes the
//! runs with ESN.

use core::ops::Range;

use super::{
    Aad, Delivered, Error, KeystreamSource, LaidOut, NonceFormat, Sa, Sealed, rfc4106_nonce,
};
use crate::gcm::BatchMessage;

/// Packets an outbound burst frames before it encrypts them in one batch.
const GATHER: usize = 32;

/// One packet of an outbound burst: its buffer, where the payload lies
/// in it (with headroom and tailroom around it), and its next header.
pub struct Outgoing<'a> {
    /// The buffer, with [`Sa::headroom`] bytes before the payload and
    /// [`Sa::tailroom`] after it.
    pub buf: &'a mut [u8],
    /// Where the payload lies in `buf`.
    pub payload: Range<usize>,
    /// The next-header field (4 for IPv4, 41 for IPv6).
    pub next_header: u8,
}

impl Sa {
    /// Encapsulates a burst in place, in order; `results` is cleared and
    /// gets one result per packet. A packet refused (no room, sequence
    /// space exhausted) spends no sequence number.
    pub fn encapsulate_burst(
        &mut self,
        packets: &mut [Outgoing<'_>],
        results: &mut Vec<Result<Sealed, Error>>,
    ) {
        if !self.in_batches() {
            each(packets, results, |p| {
                self.encapsulate_in_place(p.buf, p.payload.clone(), p.next_header)
            });
            return;
        }
        results.clear();
        for chunk in packets.chunks_mut(GATHER) {
            self.encapsulate_gathered(chunk, results);
        }
    }

    /// Whether bursts go through the batch API: inline keystream, RFC 4106
    /// nonces and a kernel with a multi-buffer path whose one-message
    /// path is not as fast (module header).
    fn in_batches(&self) -> bool {
        self.config.keystream == KeystreamSource::Inline
            && self.config.nonce == NonceFormat::Rfc4106
            && self.engine.gcm.has_multi_buffer()
            && !self.engine.gcm.whole_messages_match_lanes()
    }

    /// Frames up to [`GATHER`] packets in order, then encrypts the framed
    /// ones in one batch; a result per packet is pushed onto `results`.
    fn encapsulate_gathered(
        &mut self,
        chunk: &mut [Outgoing<'_>],
        results: &mut Vec<Result<Sealed, Error>>,
    ) {
        let base = results.len();
        let mut framed: [Option<Framed>; GATHER] = [const { None }; GATHER];
        let aad_len = self.aad(0).1;
        for (p, slot) in chunk.iter_mut().zip(&mut framed) {
            // A packet the batch would run on its own is sealed at once.
            let body_len = super::body_len_for(p.payload.len());
            if !self.engine.gcm.takes_in_lanes(aad_len, body_len) {
                results.push(self.encapsulate_in_place(p.buf, p.payload.clone(), p.next_header));
                continue;
            }
            match self.frame_outgoing(p) {
                Ok((sealed, f)) => {
                    results.push(Ok(sealed));
                    *slot = Some(f);
                }
                Err(e) => results.push(Err(e)),
            }
        }
        if framed.iter().all(Option::is_none) {
            return; // nothing for the batch: every packet is done
        }
        let messages = chunk.iter_mut().zip(&framed).filter_map(|(p, f)| {
            let f = f.as_ref()?;
            let (body, icv) = p.buf[f.body.start..f.icv_end].split_at_mut(f.body.len());
            Some(BatchMessage {
                iv: &f.nonce,
                aad: &f.aad[..f.aad_len],
                buf: body,
                tag: icv,
            })
        });
        let encrypted = run_batch(&self.engine.gcm, messages, true);
        // Framed packets in order meet their encryption's results in order.
        let mut encrypted = encrypted.into_iter();
        for (r, f) in results[base..].iter_mut().zip(&framed) {
            if f.is_some()
                && let Some(Err(e)) = encrypted.next()
            {
                *r = Err(e.into());
            }
        }
    }

    /// One packet of an outbound burst framed as [`Sa::seal`] frames it,
    /// its counters spent: where it lies, and what its encryption needs.
    fn frame_outgoing(&mut self, p: &mut Outgoing<'_>) -> Result<(Sealed, Framed), Error> {
        let LaidOut { packet, head, body } = self.lay_out(p.buf, &p.payload)?;
        let body_len = body.len();
        let (next, aad, aad_len) = self.frame(head, body, p.payload.len(), p.next_header)?;
        self.sent(&next);
        let body = packet.start + head.len()..packet.start + head.len() + body_len;
        let framed = Framed {
            nonce: rfc4106_nonce(self.engine.salt, &head[8..]),
            aad,
            aad_len,
            body,
            icv_end: packet.end,
        };
        let sealed = Sealed {
            sequence: next.sequence,
            packet,
        };
        Ok((sealed, framed))
    }

    /// Decapsulates a burst in place, in order; `results` is cleared and
    /// gets one result per packet, as [`Sa::decapsulate_in_place`] gives
    /// it (the payload of a delivered packet lies in its own buffer).
    pub fn decapsulate_burst(
        &mut self,
        packets: &mut [&mut [u8]],
        results: &mut Vec<Result<Delivered, Error>>,
    ) {
        if !self.in_batches() {
            each(packets, results, |packet| self.decapsulate_in_place(packet));
            return;
        }
        results.clear();
        let mut done = 0;
        while done < packets.len() {
            done += self.decapsulate_gathered(&mut packets[done..], results);
        }
    }

    /// Takes the longest run of `packets` (at most [`GATHER`]) whose
    /// outcomes do not depend on one another (module header), pushes a
    /// result per packet onto `results`, and returns how many it took
    /// (at least one).
    fn decapsulate_gathered(
        &mut self,
        packets: &mut [&mut [u8]],
        results: &mut Vec<Result<Delivered, Error>>,
    ) -> usize {
        let base = results.len();
        let (header, aad_len) = (self.header_len(), self.aad(0).1);
        // `run_window`: the window as if every packet taken so far
        // authenticated. A packet whose check comes out the same against
        // it and against the SA's own window comes out the same whichever
        // of them do.
        self.run_window.clone_from(&self.window);
        let mut opened: [Option<Opened>; GATHER] = [const { None }; GATHER];
        let mut taken = 0;
        for (packet, slot) in packets.iter_mut().zip(&mut opened) {
            match self.check_header(packet) {
                Err(e) => {
                    let worst = self.check_header_against(&self.run_window, packet);
                    if worst.as_ref().err() != Some(&e) {
                        break; // its refusal depends on the packets before
                    }
                    results.push(Err(e));
                }
                Ok((seq, body_len)) => {
                    // Checked against the run's window, and marked there if
                    // it passes.
                    if self.run_window.accept(seq).is_err() {
                        break; // a packet before may replay it or push it out
                    }
                    // With ESN, passing the run's window means every window
                    // between infers the same number (module header).
                    debug_assert!(
                        !self.config.extended_sequence_numbers
                            || self.run_window.infer_esn(seq as u32) == Some(seq)
                    );
                    // Its result once the run's window moves, below.
                    results.push(Err(Error::AuthenticationFailed));
                    *slot = Some(Opened {
                        seq,
                        body_len,
                        in_lanes: self.engine.gcm.takes_in_lanes(aad_len, body_len),
                    });
                }
            }
            taken += 1;
        }

        let mut nonces = [[0u8; 12]; GATHER];
        let mut aads = [Aad::default(); GATHER];
        for ((packet, slot), (nonce, aad)) in packets
            .iter()
            .zip(&opened)
            .zip(nonces.iter_mut().zip(&mut aads))
        {
            if let Some(o) = slot.filter(|o| o.in_lanes) {
                *nonce = rfc4106_nonce(self.engine.salt, &packet[8..header]);
                *aad = self.aad(o.seq).0;
            }
        }
        let messages = packets
            .iter_mut()
            .zip(&opened)
            .zip(nonces.iter().zip(&aads))
            .filter_map(|((packet, slot), (nonce, aad))| {
                let o = slot.filter(|o| o.in_lanes)?;
                let (body, icv) = packet[header..].split_at_mut(o.body_len);
                Some(BatchMessage {
                    iv: nonce,
                    aad: &aad[..aad_len],
                    buf: body,
                    tag: icv,
                })
            });
        let decrypted = if opened.iter().flatten().any(|o| o.in_lanes) {
            run_batch(&self.engine.gcm, messages, false)
        } else {
            [const { Ok(()) }; GATHER]
        };
        // In order, as one at a time: a packet the batch decrypted has its
        // padding checked and the window moved; any other is decrypted,
        // checked and marked whole. The window moves packet by packet in
        // the run's order, so each packet is marked in a window between
        // the SA's and the run's, which both let it in: never in one that
        // has left it behind.
        let mut decrypted = decrypted.into_iter();
        for ((packet, slot), r) in packets.iter_mut().zip(&opened).zip(&mut results[base..]) {
            let Some(Opened {
                seq,
                body_len,
                in_lanes,
            }) = *slot
            else {
                continue;
            };
            if !in_lanes {
                *r = self
                    .decapsulate_checked(packet, seq, body_len)
                    .map(|opened| self.delivered_in_place(seq, opened));
                continue;
            }
            *r = match decrypted.next() {
                Some(Ok(())) => {
                    let body = &mut packet[header..header + body_len];
                    self.accept_opened(seq, body)
                        .map(|opened| self.delivered_in_place(seq, opened))
                }
                Some(Err(e)) => Err(e.into()),
                None => Err(Error::AuthenticationFailed), // not reached: one result each
            };
        }
        taken
    }
}

/// The batch API over `messages` (at most [`GATHER`]), encrypting or
/// decrypting in place, with the results on the stack: theirs in order,
/// then `Ok` for the rest.
fn run_batch<'a>(
    gcm: &crate::AesGcm,
    messages: impl Iterator<Item = BatchMessage<'a>>,
    encrypt: bool,
) -> [Result<(), crate::Error>; GATHER] {
    let mut batch: [BatchMessage<'_>; GATHER] = core::array::from_fn(|_| BatchMessage {
        iv: &[],
        aad: &[],
        buf: &mut [],
        tag: &mut [],
    });
    let mut n = 0;
    for (slot, m) in batch.iter_mut().zip(messages) {
        *slot = m;
        n += 1;
    }
    let mut results = [const { Ok(()) }; GATHER];
    if encrypt {
        gcm.encrypt_batch_into(&mut batch[..n], &mut results[..n]);
    } else {
        gcm.decrypt_batch_into(&mut batch[..n], &mut results[..n]);
    }
    results
}

/// A packet of an inbound run that passed its header check: its sequence
/// number, its body's length, and whether the batch decrypts it.
#[derive(Clone, Copy)]
struct Opened {
    seq: u64,
    body_len: usize,
    in_lanes: bool,
}

/// What a framed outbound packet's encryption needs.
struct Framed {
    nonce: [u8; 12],
    aad: Aad,
    aad_len: usize,
    /// The body (payload, padding, trailer) in the packet's buffer.
    body: Range<usize>,
    /// The end of its ICV, which follows the body.
    icv_end: usize,
}

/// The SAs of one endpoint (or of one worker thread), found by SPI.
#[derive(Default)]
pub struct SaSet {
    /// Sorted by SPI, for a binary search per packet.
    sas: Vec<Sa>,
}

impl SaSet {
    /// An empty set.
    pub fn new() -> SaSet {
        SaSet::default()
    }

    /// Adds an SA; [`Error::InvalidConfig`] when its SPI is taken.
    pub fn insert(&mut self, sa: Sa) -> Result<(), Error> {
        match self.position(sa.config().spi) {
            Ok(_) => Err(Error::InvalidConfig("an SA with this SPI is in the set")),
            Err(at) => {
                self.sas.insert(at, sa);
                Ok(())
            }
        }
    }

    /// Removes and returns the SA with `spi`.
    pub fn remove(&mut self, spi: u32) -> Option<Sa> {
        let at = self.position(spi).ok()?;
        Some(self.sas.remove(at))
    }

    /// The SA with `spi`.
    pub fn get_mut(&mut self, spi: u32) -> Option<&mut Sa> {
        let at = self.position(spi).ok()?;
        Some(&mut self.sas[at])
    }

    /// The number of SAs.
    pub fn len(&self) -> usize {
        self.sas.len()
    }

    /// Whether the set has no SA.
    pub fn is_empty(&self) -> bool {
        self.sas.is_empty()
    }

    /// Decapsulates a burst of packets of any of the set's SAs, each
    /// steered by its SPI, in order; `results` is cleared and gets one
    /// result per packet ([`Error::UnknownSpi`] for an SPI not in the set,
    /// [`Error::Malformed`] for a packet too short to carry one).
    pub fn decapsulate_burst(
        &mut self,
        packets: &mut [&mut [u8]],
        results: &mut Vec<Result<Delivered, Error>>,
    ) {
        each(packets, results, |packet| match spi_of(packet) {
            None => Err(Error::Malformed("shorter than an SPI")),
            Some(spi) => match self.get_mut(spi) {
                Some(sa) => sa.decapsulate_in_place(packet),
                None => Err(Error::UnknownSpi(spi)),
            },
        });
    }

    fn position(&self, spi: u32) -> Result<usize, usize> {
        self.sas.binary_search_by_key(&spi, |sa| sa.config().spi)
    }
}

/// Runs `one` on every packet of a burst, in order, into `results`
/// (cleared first): the one loop every burst call is. A plain loop, so
/// that `one` is inlined into it and each result is made in registers
/// and stored once into the vector. (Rejected: `extend` over a `map`,
/// which called `one` out of line: each result was written to a
/// temporary by 8-byte stores and moved into the vector by 16-byte
/// loads, which are not forwarded from them and wait for the stores to
/// reach the cache.)
fn each<P, T>(
    packets: &mut [P],
    results: &mut Vec<Result<T, Error>>,
    mut one: impl FnMut(&mut P) -> Result<T, Error>,
) {
    results.clear();
    results.reserve(packets.len());
    for packet in packets {
        results.push(one(packet));
    }
}

/// The SPI a packet names (its first 4 bytes, RFC 4303 §2.1).
pub fn spi_of(packet: &[u8]) -> Option<u32> {
    Some(u32::from_be_bytes(*packet.first_chunk::<4>()?))
}

/// The worker, of `workers`, that owns the SAs with `spi`: the steering
/// function of a set of [`SaSet`]s, one per thread. SPIs are chosen by the
/// receiver (RFC 4301 §4.1), often sequentially, so they are mixed before
/// the modulo to spread neighbours across workers.
///
/// # Panics
///
/// If `workers` is 0 or more than 2^32.
pub fn worker_for(spi: u32, workers: usize) -> usize {
    assert!(
        (1..=1u64 << 32).contains(&(workers as u64)),
        "1 to 2^32 workers, not {workers}"
    );
    // Fibonacci hashing: multiply by 2^32 / φ, keep the high half (below
    // `workers`; under 2^32 times at most 2^32, the product fits).
    let mixed = u64::from(spi.wrapping_mul(0x9e37_79b9));
    ((mixed * workers as u64) >> 32) as usize
}
