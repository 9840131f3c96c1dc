//! Target `esp_inbound`: ESP receipt of packets in any order, authentic,
//! edited or made up, against a model of the anti-replay window.
//!
//! The input configures a pair of security associations (extended
//! sequence numbers or not, RFC 4106 or the continuous-counter nonce,
//! window size, ICV length, inline or pipelined keystream on the
//! deterministic schedules) and then runs a script: the sender seals
//! packets and jumps its sequence number ahead; the network delivers any
//! packet sent so far, again and again, in any order, or an edited copy
//! of one, or bytes of its own; the receiver's producers run when told.
//!
//! [`Model`] is the receiver as RFC 4303 §3.4.3 describes it, written
//! without anything of `aekit::esp::replay`: a set of the sequence numbers
//! accepted, the highest one, and the window below it; the full sequence
//! number is rebuilt from its low 32 bits as the unique number congruent
//! to them in the 2^32 numbers that start at the window's bottom (which is
//! what RFC 4303 Appendix A2.2's two cases compute). For an authentic
//! packet the model says exactly what must happen: delivery with the
//! payload sent, `Replay` or `Stale` of the number inferred, or, when the
//! inferred number is not the one sent (the sender ran more than 2^32
//! ahead), an authentication failure. Everything else must be refused and
//! leave the window where it was — unless it is a genuine packet after
//! all: the key is fixed, so the fuzzer can carry the bytes of a packet
//! sealed in one run into another (libFuzzer learns them from the
//! comparisons it watches). A packet the receiver accepts that was not
//! sent in this run is therefore resealed by [`reseal`], GCM over the
//! fields as RFC 4106 (or the continuous-counter format) lays them out,
//! and must come out byte for byte the same, and be one the model
//! accepts: a genuine packet delivered once, never a forgery. The sender
//! must refuse to wrap its sequence number (RFC 4303 §3.3.3). Any other
//! outcome, or a panic, is a finding.

use std::collections::BTreeSet;

use aekit::esp::{Config, Delivered, Error, KeystreamSource, NonceFormat, PipelineConfig, Sa};
use aekit::keystream::Schedule;
use aekit::{AesGcm, aes};

use crate::input::Input;

const KEY: [u8; 16] = *b"esp fuzzing key!";
const SALT: [u8; 4] = [0xde, 0xad, 0xbe, 0xef];
const SPI: u32 = 0x0102_0304;
/// Longest payload sent; the pipelines prepare for less, so some packets
/// take their keystream from the buffers and some compute it inline.
const MAX_PAYLOAD: usize = 100;
const MAX_STEPS: usize = 256;
const MAX_KEPT: usize = 256;
/// Longest made-up packet.
const MAX_FORGED: usize = 300;

/// A packet the sender sealed.
struct Sent {
    sequence: u64,
    packet: Vec<u8>,
    payload: Vec<u8>,
    next_header: u8,
}

/// The configuration an input's first byte describes.
pub fn config(flags: u8) -> Config {
    let keystream = match flags >> 6 {
        0 | 1 => KeystreamSource::Inline,
        n => KeystreamSource::Pipeline(PipelineConfig {
            max_payload: 64,
            buffer_packets: 4,
            history_packets: 2,
            schedule: if n == 2 {
                Schedule::Immediate
            } else {
                Schedule::Manual
            },
        }),
    };
    let nonce = if flags & 2 == 0 {
        NonceFormat::Rfc4106
    } else {
        NonceFormat::ContinuousCounter
    };
    Config {
        spi: SPI,
        // The continuous counter's 16-byte IV takes 16-byte ICVs only.
        icv_len: match nonce {
            NonceFormat::Rfc4106 => [8, 12, 16][usize::from(flags >> 4 & 3) % 3],
            NonceFormat::ContinuousCounter => 16,
        },
        extended_sequence_numbers: flags & 1 != 0,
        nonce,
        keystream,
        replay_window: [32, 64, 100, 1024][usize::from(flags >> 2 & 3)],
        ..Config::default()
    }
}

/// Runs the target on one input.
pub fn run(data: &[u8]) {
    let mut input = Input::new(data);
    let config = config(input.byte());
    let mut sender = Sa::new(&KEY, SALT, config).expect("a valid configuration");
    let mut receiver = Sa::new(&KEY, SALT, config).expect("a valid configuration");
    let mut model = Model::new(
        config.replay_window as u64,
        config.extended_sequence_numbers,
    );
    let max_sequence = if config.extended_sequence_numbers {
        u64::MAX
    } else {
        u64::from(u32::MAX)
    };
    let mut last_sent = 0u64;
    let mut sent: Vec<Sent> = Vec::new();

    for _ in 0..MAX_STEPS {
        if input.is_empty() {
            break;
        }
        match input.byte() % 8 {
            0 | 1 => {
                let payload = input.bytes(MAX_PAYLOAD);
                let next_header = input.byte();
                let result = sender.encapsulate(payload, next_header);
                if last_sent >= max_sequence {
                    assert_eq!(result, Err(Error::SequenceExhausted), "sent past the end");
                    continue;
                }
                let packet = result.expect("a packet within the sequence space");
                last_sent += 1;
                let kept = Sent {
                    sequence: last_sent,
                    packet,
                    payload: payload.to_vec(),
                    next_header,
                };
                if sent.len() < MAX_KEPT {
                    sent.push(kept);
                } else {
                    let at = usize::from(input.byte()) % MAX_KEPT;
                    sent[at] = kept;
                }
            }
            2 => {
                let by = if config.extended_sequence_numbers {
                    input.u64()
                } else {
                    u64::from(input.u32())
                };
                if let Some(next) = last_sent.checked_add(1).and_then(|n| n.checked_add(by)) {
                    assert_eq!(sender.skip_to_sequence(next), Ok(()), "skip to {next}");
                    last_sent = next - 1;
                }
            }
            3 | 4 if !sent.is_empty() => {
                let s = &sent[usize::from(input.u16()) % sent.len()];
                deliver(&mut receiver, &mut model, &config, &s.packet, Some(s));
            }
            5 if !sent.is_empty() => {
                let s = &sent[usize::from(input.u16()) % sent.len()];
                let mut packet = s.packet.clone();
                let at = usize::from(input.u16()) % packet.len();
                let mask = input.byte();
                packet[at] ^= mask;
                let authentic = (mask == 0).then_some(s);
                deliver(&mut receiver, &mut model, &config, &packet, authentic);
            }
            6 => {
                let mut packet = input.bytes(MAX_FORGED).to_vec();
                if input.byte().is_multiple_of(2) && packet.len() >= 4 {
                    packet[..4].copy_from_slice(&SPI.to_be_bytes());
                }
                let authentic = sent.iter().find(|s| s.packet == packet);
                deliver(&mut receiver, &mut model, &config, &packet, authentic);
            }
            _ => receiver.fill_keystream_now(),
        }
    }
}

/// Hands `packet` to the receiver and checks the outcome against the
/// model: `authentic` is the sent packet it is, if it is one.
fn deliver(
    receiver: &mut Sa,
    model: &mut Model,
    config: &Config,
    packet: &[u8],
    authentic: Option<&Sent>,
) {
    let mut payload = vec![0xaa; 3];
    let got = receiver.decapsulate_into(packet, &mut payload);
    match authentic {
        Some(s) => {
            let expected = model.verdict(s.sequence);
            match expected {
                Ok(()) => {
                    let delivered = Delivered {
                        sequence: s.sequence,
                        next_header: s.next_header,
                        payload: 0..s.payload.len(),
                    };
                    assert_eq!(got, Ok(delivered), "authentic packet {}", s.sequence);
                    assert_eq!(payload, s.payload, "payload of {}", s.sequence);
                    model.accept(s.sequence);
                }
                Err(e) => assert_eq!(got, Err(e), "packet {}", s.sequence),
            }
        }
        None => {
            if let Ok(delivered) = &got {
                // Genuine, sealed in another run, or a forgery?
                let iv = &packet[8..8 + iv_len(config)];
                let resealed = reseal(
                    config,
                    delivered.sequence,
                    iv,
                    &payload,
                    delivered.next_header,
                );
                assert!(resealed == packet, "a forgery was accepted: {delivered:?}");
                assert_eq!(model.verdict(delivered.sequence), Ok(()), "{delivered:?}");
                model.accept(delivered.sequence);
            }
        }
    }
    if got.is_err() {
        assert!(payload.is_empty(), "payload left after {got:?}");
    }
    assert_eq!(receiver.replay_window_top(), model.top, "the window moved");
}

fn iv_len(config: &Config) -> usize {
    match config.nonce {
        NonceFormat::Rfc4106 => 8,
        NonceFormat::ContinuousCounter => 12,
    }
}

/// The packet with sequence number `sequence`, ESP IV `iv`, `payload` and
/// `next_header`, sealed field by field without `aekit::esp`: RFC 4303's
/// layout and padding, RFC 4106's nonce (salt ‖ IV) and associated data
/// (SPI ‖ sequence, with the high half under ESN), or for the continuous
/// counter the keystream of the blocks salt ‖ IV, salt ‖ IV + 1, … given
/// to GCM directly.
pub fn reseal(
    config: &Config,
    sequence: u64,
    iv: &[u8],
    payload: &[u8],
    next_header: u8,
) -> Vec<u8> {
    let mut body = payload.to_vec();
    let pad = (4 - (payload.len() + 2) % 4) % 4;
    body.extend((1..=pad as u8).chain([pad as u8, next_header]));
    let mut aad = SPI.to_be_bytes().to_vec();
    if config.extended_sequence_numbers {
        aad.extend_from_slice(&((sequence >> 32) as u32).to_be_bytes());
    }
    aad.extend_from_slice(&(sequence as u32).to_be_bytes());
    let gcm = AesGcm::new(&KEY).expect("a 16-byte key");
    let sealed = match config.nonce {
        NonceFormat::Rfc4106 => {
            let nonce = [&SALT[..], iv].concat();
            gcm.encrypt(&nonce, &aad, &body, config.icv_len)
                .expect("GCM takes these")
        }
        NonceFormat::ContinuousCounter => {
            let aes = aes::Cipher::new(aes::Strategy::Table, &KEY).expect("a 16-byte key");
            let first = u128::from_be_bytes([&SALT[..], iv].concat().try_into().expect("16"));
            let mut keystream: Vec<[u8; 16]> = (0..1 + body.len().div_ceil(16))
                .map(|k| first.wrapping_add(k as u128).to_be_bytes())
                .collect();
            aes.encrypt_blocks(&mut keystream);
            let mut ciphertext = body.clone();
            let tag = gcm
                .encrypt_with_keystream(
                    keystream.as_flattened(),
                    &aad,
                    &mut ciphertext,
                    config.icv_len,
                )
                .expect("GCM takes these");
            [ciphertext, tag.as_bytes().to_vec()].concat()
        }
    };
    let mut packet = SPI.to_be_bytes().to_vec();
    packet.extend_from_slice(&(sequence as u32).to_be_bytes());
    packet.extend_from_slice(iv);
    packet.extend_from_slice(&sealed);
    packet
}

/// The receiver of RFC 4303 §3.4.3, as plainly as it can be said.
pub struct Model {
    size: u64,
    extended: bool,
    top: u64,
    /// Every sequence number accepted that is still in the window (and 0,
    /// which is never valid).
    seen: BTreeSet<u64>,
}

impl Model {
    /// A receiver with a window of `size` that has accepted nothing.
    pub fn new(size: u64, extended: bool) -> Model {
        Model {
            size,
            extended,
            top: 0,
            seen: BTreeSet::from([0]),
        }
    }

    /// The full sequence number whose low 32 bits are `low`: the unique
    /// number congruent to `low` modulo 2^32 among the 2^32 that start at
    /// the bottom of the window, or `None` if that is outside 0..2^64.
    pub fn infer(&self, low: u32) -> Option<u64> {
        if !self.extended {
            return Some(u64::from(low));
        }
        let bottom = i128::from(self.top) - (i128::from(self.size) - 1);
        let full = bottom + (i128::from(low) - bottom).rem_euclid(1 << 32);
        u64::try_from(full).ok()
    }

    /// What receiving the authentic packet with sequence number `sent`
    /// must give.
    pub fn verdict(&self, sent: u64) -> Result<(), Error> {
        let low = sent as u32;
        let Some(inferred) = self.infer(low) else {
            return Err(Error::Stale(u64::from(low)));
        };
        if inferred <= self.top && self.top - inferred >= self.size {
            Err(Error::Stale(inferred))
        } else if self.seen.contains(&inferred) {
            Err(Error::Replay(inferred))
        } else if inferred != sent {
            // Authenticated under another high half: the ICV fails.
            Err(Error::AuthenticationFailed)
        } else {
            Ok(())
        }
    }

    /// Records an accepted sequence number.
    pub fn accept(&mut self, sequence: u64) {
        self.seen.insert(sequence);
        self.top = self.top.max(sequence);
        let bottom = self.top.saturating_sub(self.size);
        self.seen = self.seen.split_off(&bottom);
    }
}
