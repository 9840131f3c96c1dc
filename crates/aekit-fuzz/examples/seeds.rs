//! Writes seed inputs for every fuzz target, built from the test vectors in
//! `vectors/` (Wycheproof AES-GCM, the GCM spec's Appendix B, aekit's
//! AETHER known answers, the C2SP chunked-encryption vectors) and from a
//! few hand-written ESP scripts, into `DIR/<target>/`:
//!
//! ```text
//! cargo run -p aekit-fuzz --example seeds -- fuzz/seeds
//! cargo +nightly fuzz cmin <target> fuzz/seeds/<target>   # then merge into fuzz/corpus
//! ```
//!
//! Each seed is a valid input in the format the target reads
//! ([`aekit_fuzz::input`]), so the fuzzer starts from inputs that reach
//! deep: ciphertexts that verify, messages that span chunks, packets that
//! arrive out of order.

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

use aekit_fuzz::input::Writer;
use serde_json::Value;

fn main() {
    let out = std::env::args()
        .nth(1)
        .expect("usage: seeds DIR (seeds go to DIR/<target>/)");
    let vectors = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../vectors");
    let mut total = 0;
    for (target, seeds) in [
        ("gcm_differential", gcm_differential(&vectors)),
        ("gcm_decrypt", gcm_decrypt(&vectors)),
        ("aether_decrypt", aether_decrypt(&vectors)),
        ("chunked_decrypt", chunked_decrypt(&vectors)),
        ("esp_inbound", esp_inbound()),
    ] {
        let dir = PathBuf::from(&out).join(target);
        fs::create_dir_all(&dir).expect("creating the seed directory");
        for (i, seed) in seeds.iter().enumerate() {
            fs::write(dir.join(format!("seed-{i:04}")), seed).expect("writing a seed");
        }
        println!("{target}: {} seeds", seeds.len());
        total += seeds.len();
    }
    println!("{total} seeds in {out}");
}

fn json(dir: &Path, name: &str) -> Value {
    let text = fs::read_to_string(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn hex(v: &Value, field: &str) -> Vec<u8> {
    let s = v[field].as_str().unwrap_or_else(|| panic!("no {field}"));
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex"))
        .collect()
}

/// Wycheproof AES-GCM tests: (key, iv, aad, msg, ct, tag, valid).
type GcmCase = (Vec<u8>, Vec<u8>, Vec<u8>, Vec<u8>, Vec<u8>, Vec<u8>, bool);

fn wycheproof_gcm(dir: &Path) -> Vec<GcmCase> {
    let file = json(dir, "aes_gcm_test.json");
    let mut cases = Vec::new();
    for group in file["testGroups"].as_array().expect("groups") {
        for t in group["tests"].as_array().expect("tests") {
            cases.push((
                hex(t, "key"),
                hex(t, "iv"),
                hex(t, "aad"),
                hex(t, "msg"),
                hex(t, "ct"),
                hex(t, "tag"),
                t["result"] == "valid",
            ));
        }
    }
    cases
}

/// Cut points that split on-line calls into uneven pieces.
const CUTS: [u8; 8] = [0, 1, 0, 15, 0, 0, 0, 33];

fn gcm_differential(dir: &Path) -> Vec<Vec<u8>> {
    let mut seeds = Vec::new();
    for case in json(dir, "gcm_spec_appendix_b.json")["cases"]
        .as_array()
        .expect("cases")
    {
        seeds.push(
            Writer::new()
                .bytes(&hex(case, "key"))
                .bytes(&hex(case, "iv"))
                .bytes(&hex(case, "aad"))
                .bytes(&hex(case, "plaintext"))
                .byte(16)
                .byte(case["case"].as_u64().unwrap_or(0) as u8)
                .byte(7 * case["case"].as_u64().unwrap_or(0) as u8 + 1)
                .raw(&CUTS)
                .finish(),
        );
    }
    // One Wycheproof case in four: every key size, IV length and tag
    // length it has, without thousands of near-copies.
    for (i, (key, iv, aad, msg, _, tag, _)) in
        wycheproof_gcm(dir).into_iter().step_by(4).enumerate()
    {
        seeds.push(
            Writer::new()
                .bytes(&key)
                .bytes(&iv)
                .bytes(&aad)
                .bytes(&msg)
                .byte(tag.len() as u8)
                .byte(i as u8)
                .byte((i as u8).wrapping_mul(13))
                .raw(&CUTS)
                .finish(),
        );
    }
    seeds
}

fn gcm_decrypt(dir: &Path) -> Vec<Vec<u8>> {
    let mut seeds = Vec::new();
    for (i, (key, iv, aad, msg, ct, tag, _)) in wycheproof_gcm(dir).into_iter().enumerate() {
        if i % 3 != 0 {
            continue;
        }
        let head = Writer::new()
            .bytes(&key)
            .bytes(&iv)
            .bytes(&aad)
            .byte(tag.len() as u8)
            .byte(i as u8);
        // Raw: the vector's ciphertext and tag, valid or not.
        seeds.push(head.byte(0).raw(&[ct, tag].concat()).finish());
        // Sealed here, then one byte flipped.
        let at = (i as u32).wrapping_mul(7);
        seeds.push(
            Writer::new()
                .bytes(&key)
                .bytes(&iv)
                .bytes(&aad)
                .byte(16)
                .byte(i as u8)
                .byte(1)
                .bytes(&msg)
                .byte(1)
                .byte(0)
                .u32(at)
                .byte(0x80)
                .finish(),
        );
    }
    seeds
}

fn aether_decrypt(dir: &Path) -> Vec<Vec<u8>> {
    let mut seeds = Vec::new();
    for (i, case) in json(dir, "aether-kat.json")["aead"]
        .as_array()
        .expect("aead")
        .iter()
        .enumerate()
    {
        let (key, nonce, ad) = (hex(case, "key"), hex(case, "nonce"), hex(case, "ad"));
        let sealed = [hex(case, "ct"), hex(case, "tag")].concat();
        seeds.push(
            Writer::new()
                .bytes(&key)
                .bytes(&nonce)
                .bytes(&ad)
                .byte(0)
                .raw(&sealed)
                .finish(),
        );
        seeds.push(
            Writer::new()
                .bytes(&key)
                .bytes(&nonce)
                .bytes(&ad)
                .byte(1)
                .bytes(&hex(case, "msg"))
                .byte(1)
                .byte(3)
                .u32(i as u32 * 5)
                .u16(16)
                .finish(),
        );
    }
    seeds
}

fn chunked_decrypt(dir: &Path) -> Vec<Vec<u8>> {
    let mut seeds = Vec::new();
    for (name, aead) in [
        ("c2sp_chunked_encryption_aes_128_gcm_test.json", 0),
        ("c2sp_chunked_encryption_aes_256_gcm_test.json", 1),
    ] {
        for group in json(dir, name)["testGroups"].as_array().expect("groups") {
            for t in group["tests"].as_array().expect("tests") {
                // The ciphertexts are zlib-compressed hex.
                let mut ct = Vec::new();
                flate2::read::ZlibDecoder::new(&hex(t, "ct")[..])
                    .read_to_end(&mut ct)
                    .expect("zlib");
                if ct.len() > 40_000 {
                    continue; // the 256-chunk vectors: too large for a seed
                }
                seeds.push(
                    Writer::new()
                        .byte(aead)
                        .bytes(&hex(t, "key"))
                        .bytes(&hex(t, "ctx"))
                        .byte(1)
                        .byte(0)
                        .bytes(&[])
                        .bytes(&ct)
                        // Two random reads: the start, and 20 bytes from the end.
                        .byte(2)
                        .byte(0)
                        .u32(0)
                        .u16(100)
                        .byte(2)
                        .u32(-20i32 as u32)
                        .u16(100)
                        .finish(),
                );
            }
        }
    }
    // Sealed here: around the chunk boundaries, edited or not.
    for (len, edit) in [
        (0u32, false),
        (100, true),
        (16_384, false),
        (16_385, true),
        (40_000, true),
    ] {
        let w = Writer::new()
            .byte((len % 2) as u8)
            .bytes(&vec![len as u8; 16 << (len % 2)])
            .bytes(b"ctx")
            .byte(0)
            .byte(2)
            .bytes(&[7; 24])
            .u32(len)
            .byte(0x5a);
        let w = if edit {
            w.byte(1).byte(0).u32(len / 2 + 60).byte(1)
        } else {
            w.byte(0)
        };
        seeds.push(
            w.byte(1)
                .byte(0)
                .u32(len.saturating_sub(10))
                .u16(4000)
                .finish(),
        );
    }
    seeds
}

fn esp_inbound() -> Vec<Vec<u8>> {
    // Flags: bit 0 ESN, bit 1 continuous counter, bits 2-3 window, bits 4-5
    // ICV, bits 6-7 keystream (inline, inline, immediate, manual).
    let mut seeds = Vec::new();
    for flags in [0x00u8, 0x01, 0x02, 0x03, 0x85, 0xc6, 0x9b, 0x4f] {
        let mut w = Writer::new().byte(flags);
        // Five packets, delivered in order, one replayed, one out of order.
        for i in 0..5u8 {
            w = w.byte(0).bytes(&[i; 40][..usize::from(i) * 9]).byte(4);
        }
        for at in [0u16, 1, 3, 2, 2, 4, 0] {
            w = w.byte(3).u16(at);
        }
        // Jump ahead (near 2^32 with ESN: the high half changes), send,
        // deliver, then an edited copy and a made-up packet.
        w = if flags & 1 == 1 {
            w.byte(2).u64(u64::from(u32::MAX) - 10)
        } else {
            w.byte(2).u32(1000)
        };
        for _ in 0..3 {
            w = w.byte(0).bytes(b"after the jump").byte(41);
        }
        for at in [6u16, 5, 7, 0] {
            w = w.byte(4).u16(at);
        }
        w = w.byte(5).u16(6).u16(20).byte(1);
        w = w.byte(6).bytes(&[0; 48]).byte(0);
        w = w.byte(7);
        seeds.push(w.finish());
    }
    // Sequence exhaustion without ESN: jump to the last number and send twice.
    seeds.push(
        Writer::new()
            .byte(0)
            .byte(2)
            .u32(u32::MAX - 2)
            .byte(0)
            .bytes(b"last")
            .byte(4)
            .byte(0)
            .bytes(b"one too many")
            .byte(4)
            .byte(3)
            .u16(0)
            .finish(),
    );
    seeds
}
