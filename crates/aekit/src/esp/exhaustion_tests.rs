//! The continuous counter refuses to wrap (RFC 4303 §3.3.3 asks the same of
//! the sequence number; `tests/esp.rs` checks that one through the public
//! API). The counter position cannot be reached from outside without
//! sending 2^64 blocks, so these tests set it directly. And the lengths at
//! the other end: the trailer's against RFC 4303's rule, up to a payload
//! length of `usize::MAX`.

use super::{Config, Error, NonceFormat, Sa, body_len_for};

const SALT: [u8; 4] = [1, 2, 3, 4];

fn continuous() -> (Sa, Sa) {
    let config = Config {
        nonce: NonceFormat::ContinuousCounter,
        extended_sequence_numbers: true,
        ..Config::default()
    };
    let sender = Sa::new(&[5; 16], SALT, config).unwrap();
    let receiver = Sa::new(&[5; 16], SALT, config).unwrap();
    (sender, receiver)
}

#[test]
fn the_last_counter_segment_is_used_then_refused() {
    let (mut sender, mut receiver) = continuous();
    // The start of the last 2^32-block segment: still usable.
    sender.next_position = 0xffff_ffff_0000_0000;
    let packet = sender.encapsulate(b"near the end", 4).unwrap();
    assert_eq!(packet[8..12], [0; 4]);
    assert_eq!(packet[12..20], 0xffff_ffff_0000_0000u64.to_be_bytes());
    assert_eq!(receiver.decapsulate(&packet).unwrap().0, b"near the end");

    // Two blocks before 2^64: a packet needs Y_0 and at least one more, and
    // the position after it (2^64) does not exist.
    sender.next_position = u64::MAX - 1;
    let (sent, position) = (sender.last_sent, sender.next_position);
    for _ in 0..2 {
        assert_eq!(sender.encapsulate(b"x", 4), Err(Error::SequenceExhausted));
        assert_eq!((sender.last_sent, sender.next_position), (sent, position));
    }
}

#[test]
fn a_packet_that_would_cross_into_the_wrapped_segment_is_refused() {
    let (mut sender, _) = continuous();
    // Inside the last segment with too little room for 100 blocks: the
    // sender would skip to the next multiple of 2^32, which is 2^64.
    sender.next_position = u64::MAX - 10;
    assert_eq!(
        sender.encapsulate(&[0u8; 1600], 4),
        Err(Error::SequenceExhausted)
    );
}

#[test]
fn the_trailer_pads_payload_and_trailer_to_four_bytes() {
    let sa = Sa::new(&[5; 16], SALT, Config::default()).unwrap();
    // RFC 4303 §2.4, spelled out: 0 to 3 bytes of padding, then two.
    for payload in 0..1000 {
        let pad = (4 - (payload + 2) % 4) % 4;
        assert_eq!(body_len_for(payload), payload + pad + 2, "{payload}");
        assert_eq!(sa.tailroom(payload), pad + 2 + 16, "{payload}");
    }
    // A tailroom asked for any length is computed without overflow.
    for payload in [usize::MAX, usize::MAX - 1, usize::MAX - 2, usize::MAX - 3] {
        let pad = (4 - (payload % 4 + 2) % 4) % 4;
        assert_eq!(
            body_len_for(payload).wrapping_sub(payload),
            pad + 2,
            "{payload}"
        );
        assert_eq!(sa.tailroom(payload), pad + 2 + 16, "{payload}");
    }
}
