//! The nonce and key-lifetime guards (`gcm/nonce.rs`): the random-nonce
//! sealer stops at 2^32 messages per key (SP 800-38D §8.3), the counter
//! sequence never wraps. Both are started near their limits through their
//! resume constructors; no test seals 2^32 messages.

use aekit::gcm::{CounterNonces, RANDOM_NONCE_LIMIT, RandomNonceSealer};
use aekit::{AesGcm, Error};

fn gcm() -> AesGcm {
    AesGcm::new(&[0x42u8; 16]).unwrap()
}

#[test]
fn random_sealer_round_trips_with_fresh_nonces() {
    let mut sealer = RandomNonceSealer::new(gcm());
    let (n1, s1) = sealer.seal(b"aad", b"same message", 16).unwrap();
    let (n2, s2) = sealer.seal(b"aad", b"same message", 16).unwrap();
    assert_ne!(n1, n2, "two random 96-bit nonces");
    assert_ne!(s1, s2);
    assert_eq!(sealer.messages_sealed(), 2);
    assert_eq!(sealer.remaining(), RANDOM_NONCE_LIMIT - 2);
    // The nonce is the one the ciphertext was made under: the plain API agrees.
    assert_eq!(gcm().encrypt(&n1, b"aad", b"same message", 16).unwrap(), s1);
    assert_eq!(
        sealer.gcm().decrypt(&n2, b"aad", &s2, 16).unwrap(),
        b"same message"
    );
    let mut buf = *b"detached";
    let (n3, tag) = sealer.seal_in_place_detached(b"", &mut buf, 12).unwrap();
    assert_eq!(tag.as_bytes().len(), 12);
    sealer
        .gcm()
        .decrypt_in_place_detached(&n3, b"", &mut buf, tag.as_bytes())
        .unwrap();
    assert_eq!(&buf, b"detached");
    assert_eq!(sealer.messages_sealed(), 3);
}

/// A tag length no rule allows is refused as one, before anything is
/// allocated for it (a length near `usize::MAX` overflowed the capacity),
/// and spends no nonce.
#[test]
fn random_sealer_refuses_impossible_tag_lengths_with_an_error() {
    let mut sealer = RandomNonceSealer::new(gcm());
    for tag_len in [usize::MAX, isize::MAX as usize, 1 << 40, 17] {
        let refused = sealer.seal(b"", b"message", tag_len);
        assert_eq!(refused, Err(Error::InvalidTagLength(tag_len)));
    }
    assert_eq!(sealer.messages_sealed(), 0);
}

#[test]
fn random_sealer_refuses_the_message_after_two_to_the_32() {
    let mut sealer = RandomNonceSealer::resume(gcm(), RANDOM_NONCE_LIMIT - 2);
    sealer.seal(b"", b"second to last", 16).unwrap();
    sealer.seal(b"", b"last", 16).unwrap();
    assert_eq!(sealer.messages_sealed(), RANDOM_NONCE_LIMIT);
    assert_eq!(sealer.remaining(), 0);
    for _ in 0..2 {
        let mut buf = *b"one too many";
        assert_eq!(
            sealer
                .seal_in_place_detached(b"", &mut buf, 16)
                .unwrap_err(),
            Error::RandomNonceLimitReached
        );
        assert_eq!(&buf, b"one too many", "nothing encrypted");
        assert_eq!(
            sealer.seal(b"", b"x", 16).unwrap_err(),
            Error::RandomNonceLimitReached
        );
    }
    assert_eq!(
        sealer.messages_sealed(),
        RANDOM_NONCE_LIMIT,
        "refusals not counted"
    );
    let message = Error::RandomNonceLimitReached.to_string();
    assert!(
        message.contains("2^32") && message.contains("re-key"),
        "{message}"
    );
    // A count persisted past the limit stays refused.
    let mut past = RandomNonceSealer::resume(gcm(), u64::MAX);
    assert_eq!(
        past.seal(b"", b"x", 16).unwrap_err(),
        Error::RandomNonceLimitReached
    );
}

#[test]
fn random_sealer_counts_only_what_it_sealed() {
    let mut sealer = RandomNonceSealer::resume(gcm(), RANDOM_NONCE_LIMIT - 1);
    let mut buf = [0u8; 4];
    assert_eq!(
        sealer.seal_in_place_detached(b"", &mut buf, 3).unwrap_err(),
        Error::InvalidTagLength(3)
    );
    assert_eq!(sealer.messages_sealed(), RANDOM_NONCE_LIMIT - 1);
    sealer.seal(b"", b"the last one", 16).unwrap();
    assert_eq!(sealer.remaining(), 0);
}

#[test]
fn counter_nonces_are_fixed_field_and_big_endian_counter() {
    let mut nonces = CounterNonces::new(*b"dev1");
    let first = nonces.next_nonce().unwrap();
    let second = nonces.next_nonce().unwrap();
    assert_eq!(first, *b"dev1\0\0\0\0\0\0\0\0");
    assert_eq!(second, *b"dev1\0\0\0\0\0\0\0\x01");
    assert_eq!(nonces.next_counter(), Some(2));
    let mut resumed = CounterNonces::starting_at([9; 4], 0x0102_0304_0506_0708);
    assert_eq!(
        resumed.next_nonce().unwrap(),
        [9, 9, 9, 9, 1, 2, 3, 4, 5, 6, 7, 8]
    );
}

#[test]
fn counter_nonces_refuse_to_wrap() {
    let mut nonces = CounterNonces::starting_at(*b"last", u64::MAX - 1);
    let a = nonces.next_nonce().unwrap();
    let b = nonces.next_nonce().unwrap();
    assert_eq!(a[4..], (u64::MAX - 1).to_be_bytes());
    assert_eq!(b[4..], u64::MAX.to_be_bytes());
    assert_eq!(nonces.next_counter(), None);
    for _ in 0..3 {
        assert_eq!(
            nonces.next_nonce().unwrap_err(),
            Error::NonceSequenceExhausted,
            "never back to counter 0"
        );
    }
    assert!(Error::NonceSequenceExhausted.to_string().contains("re-key"));
}
