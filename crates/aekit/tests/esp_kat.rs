//! ESP known answers (`vectors/esp-kat.json`, computed with OpenSSL's
//! AES-GCM from the packet fields): each packet is first rebuilt here
//! with RustCrypto's `aes-gcm`, a second independent implementation, so
//! the file itself is checked; then `aekit::esp` must send exactly those
//! bytes and receive them back, with inline and pipelined keystream.

mod common;

use aekit::esp::{Config, Error, KeystreamSource, PipelineConfig, Sa};
use aekit::keystream::Schedule;
use aes_gcm::aead::consts::U12;
use aes_gcm::aead::{Aead, KeyInit, Payload};
use common::unhex;
use serde_json::Value;

struct Case {
    name: String,
    key: Vec<u8>,
    salt: [u8; 4],
    config: Config,
    sequence: u64,
    payload: Vec<u8>,
    next_header: u8,
    packet: Vec<u8>,
}

fn cases() -> Vec<Case> {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../vectors/esp-kat.json"
    ))
    .unwrap();
    let doc: Value = serde_json::from_str(&text).unwrap();
    let cases: Vec<Case> = doc["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let hex = |k: &str| unhex(c[k].as_str().unwrap());
            Case {
                name: c["name"].as_str().unwrap().to_owned(),
                key: hex("key"),
                salt: hex("salt").try_into().unwrap(),
                config: Config {
                    spi: c["spi"].as_u64().unwrap() as u32,
                    icv_len: c["icv_len"].as_u64().unwrap() as usize,
                    extended_sequence_numbers: c["extended_sequence_numbers"].as_bool().unwrap(),
                    ..Config::default()
                },
                sequence: c["sequence"].as_u64().unwrap(),
                payload: hex("payload"),
                next_header: c["next_header"].as_u64().unwrap() as u8,
                packet: hex("packet"),
            }
        })
        .collect();
    assert_eq!(cases.len(), 3);
    cases
}

/// The packet built from its fields with RustCrypto's AES-GCM.
fn rustcrypto_packet(case: &Case) -> Vec<u8> {
    let Case { config, .. } = case;
    let seq = case.sequence;
    let mut body = case.payload.clone();
    let pad = (body.len() + 2).next_multiple_of(4) - body.len() - 2;
    body.extend((1..=pad as u8).chain([pad as u8, case.next_header]));
    let mut nonce = case.salt.to_vec();
    nonce.extend_from_slice(&seq.to_be_bytes());
    let mut aad = config.spi.to_be_bytes().to_vec();
    if config.extended_sequence_numbers {
        aad.extend_from_slice(&((seq >> 32) as u32).to_be_bytes());
    }
    aad.extend_from_slice(&(seq as u32).to_be_bytes());
    let payload = Payload {
        msg: &body,
        aad: &aad,
    };
    let nonce = nonce.as_slice().try_into().unwrap();
    let mut sealed = match case.key.len() {
        16 => aes_gcm::Aes128Gcm::new_from_slice(&case.key)
            .unwrap()
            .encrypt(nonce, payload),
        24 => aes_gcm::AesGcm::<aes::Aes192, U12>::new_from_slice(&case.key)
            .unwrap()
            .encrypt(nonce, payload),
        _ => aes_gcm::Aes256Gcm::new_from_slice(&case.key)
            .unwrap()
            .encrypt(nonce, payload),
    }
    .unwrap();
    sealed.truncate(body.len() + config.icv_len);
    let mut packet = config.spi.to_be_bytes().to_vec();
    packet.extend_from_slice(&(seq as u32).to_be_bytes());
    packet.extend_from_slice(&seq.to_be_bytes());
    packet.extend_from_slice(&sealed);
    packet
}

#[test]
fn the_known_answers_agree_with_rustcrypto() {
    for case in cases() {
        assert_eq!(rustcrypto_packet(&case), case.packet, "{}", case.name);
    }
}

#[test]
fn aekit_sends_and_receives_the_known_answers() {
    let pipeline = KeystreamSource::Pipeline(PipelineConfig {
        schedule: Schedule::Immediate,
        ..PipelineConfig::default()
    });
    for case in cases() {
        for keystream in [KeystreamSource::Inline, pipeline] {
            let config = Config {
                keystream,
                ..case.config
            };
            let mut sender = Sa::new(&case.key, case.salt, config).unwrap();
            sender.skip_to_sequence(case.sequence).unwrap();
            let packet = sender.encapsulate(&case.payload, case.next_header).unwrap();
            assert_eq!(packet, case.packet, "{} {keystream:?}", case.name);
            let receiver = || {
                let mut receiver = Sa::new(&case.key, case.salt, config).unwrap();
                if case.sequence > u64::from(u32::MAX) {
                    // Only the low half is sent: the receiver infers the
                    // high half from its window (RFC 4303 App. A), so it
                    // must have come within 2^31 of the sequence number
                    // first.
                    let mut earlier = Sa::new(&case.key, case.salt, config).unwrap();
                    earlier.skip_to_sequence(case.sequence - (1 << 31)).unwrap();
                    receiver
                        .decapsulate(&earlier.encapsulate(b"", 59).unwrap())
                        .unwrap();
                }
                receiver
            };
            let (payload, next_header) = receiver().decapsulate(&case.packet).unwrap();
            assert_eq!(
                (payload, next_header),
                (case.payload.clone(), case.next_header)
            );
            // The same receiver refuses the packet with its ICV changed,
            // for the ICV alone.
            let mut forged = case.packet.clone();
            *forged.last_mut().unwrap() ^= 1;
            let refused = receiver().decapsulate(&forged);
            assert_eq!(refused, Err(Error::AuthenticationFailed), "{}", case.name);
        }
    }
}
