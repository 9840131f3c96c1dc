//! ESP packets built field by field with nothing of `aekit::esp`: RFC 4106
//! packets sealed by the one-shot AES-GCM API ([`rfc4106_packet`]), and
//! packets in the continuous-counter format computed from the format's
//! description alone ([`ContinuousSender`]): the GPU-precomputation seed's modified nonce ("we
//! use the salt and the 12 byte ESP-IV as the initial counter for AES-GCM
//! … skip GHASH for nonces of 16 bytes"; the ESP-IV of the next packet
//! continues the count) and aekit's one added rule (a packet never crosses
//! a multiple of 2^32 counter blocks; the sender skips to it). AES is the
//! RustCrypto `aes` crate and GHASH the spec's Algorithm 1
//! ([`field::mul`]): nothing of aekit's producers, pipelines or GCM.

use aekit::AesGcm;
use aekit::esp::Config;
use aekit::ghash::field;

use super::oracle_aes;

/// An RFC 4106 packet: SPI, sequence number, the 64-bit sequence number as
/// IV, the payload padded as RFC 4303 §2.4 says, sealed by the one-shot API
/// with nonce salt ‖ IV and associated data SPI ‖ sequence (with the high
/// half under ESN).
pub fn rfc4106_packet(
    key: &[u8],
    salt: [u8; 4],
    config: &Config,
    seq: u64,
    payload: &[u8],
    nh: u8,
) -> Vec<u8> {
    let mut body = payload.to_vec();
    let pad = (4 - (payload.len() + 2) % 4) % 4;
    body.extend((1..=pad as u8).chain([pad as u8, nh]));
    let mut nonce = salt.to_vec();
    nonce.extend_from_slice(&seq.to_be_bytes());
    let mut aad = config.spi.to_be_bytes().to_vec();
    if config.extended_sequence_numbers {
        aad.extend_from_slice(&((seq >> 32) as u32).to_be_bytes());
    }
    aad.extend_from_slice(&(seq as u32).to_be_bytes());
    let sealed = AesGcm::new(key)
        .unwrap()
        .encrypt(&nonce, &aad, &body, config.icv_len)
        .unwrap();
    let mut packet = config.spi.to_be_bytes().to_vec();
    packet.extend_from_slice(&(seq as u32).to_be_bytes());
    packet.extend_from_slice(&seq.to_be_bytes());
    packet.extend_from_slice(&sealed);
    packet
}

/// A sender that numbers its counter blocks itself.
pub struct ContinuousSender {
    pub key: Vec<u8>,
    pub salt: [u8; 4],
    pub spi: u32,
    pub extended_sequence_numbers: bool,
    pub icv_len: usize,
    /// The next free counter block (linear index).
    pub position: u64,
    /// The last sequence number sent.
    pub sequence: u64,
}

impl ContinuousSender {
    /// A sender that has sent nothing.
    pub fn new(key: &[u8], salt: [u8; 4], spi: u32, esn: bool, icv_len: usize) -> Self {
        ContinuousSender {
            key: key.to_vec(),
            salt,
            spi,
            extended_sequence_numbers: esn,
            icv_len,
            position: 0,
            sequence: 0,
        }
    }

    /// The next packet, and the counter blocks it used (`first .. end`).
    pub fn seal(&mut self, payload: &[u8], next_header: u8) -> (Vec<u8>, core::ops::Range<u64>) {
        self.sequence += 1;
        // RFC 4303 §2.4: pad to a multiple of 4 with 1, 2, 3, …
        let pad = (4 - (payload.len() + 2) % 4) % 4;
        let mut body = payload.to_vec();
        body.extend((1..=pad as u8).chain([pad as u8, next_header]));
        // Y_0 and one block per 16 bytes of body, within one 2^32 span.
        let blocks = 1 + body.len().div_ceil(16) as u64;
        let mut first = self.position;
        if first % (1 << 32) + blocks > 1 << 32 {
            first = (first / (1 << 32) + 1) << 32;
        }
        self.position = first + blocks;

        // Y_0 = salt ‖ ESP-IV, the IV being the 96-bit count.
        let mut iv = [0u8; 12];
        iv[4..].copy_from_slice(&first.to_be_bytes());
        let counter = |i: u64| {
            let mut block = [0u8; 16];
            block[..4].copy_from_slice(&self.salt);
            block[4..].copy_from_slice(&iv);
            let low = u32::from_be_bytes(block[12..].try_into().unwrap());
            block[12..].copy_from_slice(&(low + i as u32).to_be_bytes());
            block
        };
        let mut ciphertext = body.clone();
        for (i, chunk) in ciphertext.chunks_mut(16).enumerate() {
            let mut ks = counter(1 + i as u64);
            oracle_aes(&self.key, &mut ks);
            chunk.iter_mut().zip(ks).for_each(|(c, k)| *c ^= k);
        }

        let mut aad = self.spi.to_be_bytes().to_vec();
        if self.extended_sequence_numbers {
            aad.extend_from_slice(&((self.sequence >> 32) as u32).to_be_bytes());
        }
        aad.extend_from_slice(&(self.sequence as u32).to_be_bytes());
        let mut tag = ghash(&self.key, &aad, &ciphertext);
        let mut mask = counter(0);
        oracle_aes(&self.key, &mut mask);
        tag.iter_mut().zip(mask).for_each(|(t, m)| *t ^= m);

        let mut packet = self.spi.to_be_bytes().to_vec();
        packet.extend_from_slice(&(self.sequence as u32).to_be_bytes());
        packet.extend_from_slice(&iv);
        packet.extend_from_slice(&ciphertext);
        packet.extend_from_slice(&tag[..self.icv_len]);
        (packet, first..first + blocks)
    }
}

/// GHASH_H(A, C) with H = E(K, 0^128), by Algorithm 1.
fn ghash(key: &[u8], aad: &[u8], ciphertext: &[u8]) -> [u8; 16] {
    let mut h = [0u8; 16];
    oracle_aes(key, &mut h);
    let h = field::from_block(&h);
    let mut x = 0u128;
    for data in [aad, ciphertext] {
        for chunk in data.chunks(16) {
            let mut block = [0u8; 16];
            block[..chunk.len()].copy_from_slice(chunk);
            x = field::mul(x ^ field::from_block(&block), h);
        }
    }
    let mut lengths = [0u8; 16];
    lengths[..8].copy_from_slice(&(8 * aad.len() as u64).to_be_bytes());
    lengths[8..].copy_from_slice(&(8 * ciphertext.len() as u64).to_be_bytes());
    field::to_block(field::mul(x ^ field::from_block(&lengths), h))
}
