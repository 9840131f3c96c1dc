//! `aekit selftest`: known-answer tests built into the binary, run on every
//! (AES, GHASH) pair this CPU can run.
//!
//! - AES-GCM: the 18 test cases of the GCM specification's Appendix B
//!   (McGrew & Viega; 128/192/256-bit keys, 96-bit and other IV lengths,
//!   with and without associated data), from the repository's
//!   `vectors/gcm_spec_appendix_b.json`, compiled in. Each case must
//!   encrypt to the published ciphertext and tag, decrypt back, and reject
//!   the tag with one bit flipped.
//! - Cobblestone-128 and -256: one Wycheproof chunked-encryption vector
//!   each (tcId 9, a short message with a context), decrypted through the
//!   file format and checked against the message's published SHA-512.
//!
//! A pair passes if every case does; a strategy passes if every pair it is
//! in does. Any failure makes the exit status 7.

use aekit::chunked::{Aead, DecryptReader};
use aekit::gcm::Fused;
use aekit::{AesGcm, aes, ghash};
use serde_json::Value;
use sha2::{Digest, Sha512};

use crate::{Exit, Failure};

const APPENDIX_B: &str = include_str!("../../../vectors/gcm_spec_appendix_b.json");

/// Wycheproof `c2sp_chunked_encryption_aes_{128,256}_gcm_test.json`, tcId 9
/// ("short message with non-empty context string"), `ct` decompressed.
const CHUNKED: [(Aead, &str, &str); 2] = [
    (
        Aead::Aes128Gcm,
        "59454c4c4f57205355424d4152494e45",
        "de2ff42cb103e3c5583e1f39bfe368e9b2a83996fd28804927145e3dde6a611edf2fbb2ab7afc10f4f6e0426d2e4a9ae\
         bc7349ea5cda426488c91fd589e9d8d6da8759c7be16d0abf726266ee340e6",
    ),
    (
        Aead::Aes256Gcm,
        "59454c4c4f57205355424d4152494e452059454c4c4f57205355424d4152494e",
        "dbedaefc1c35dc6c0f22b743b03e488747166a51f33479e7ceb8b7e11cc0d2710f624a127501bc4aea7d0af6f83cfe35\
         9b9e69415aa537f36adf86eb35b070475baa039bb7791432adbca49578bbd3",
    ),
];
const CHUNKED_CONTEXT: &[u8] = b"test context";
const CHUNKED_SHA512: &str = "e85f32a85f1d4f7c9b2d36d20eca8435d81253e7075e9dea069eb1b6da48daf9\
                              2ef1797367b520d8a46c4f72cecb85b1daff8887fcb41721d39943d1952fc180";

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len() / 2)
        .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap_or(0))
        .collect()
}

struct Case {
    number: u64,
    key: Vec<u8>,
    iv: Vec<u8>,
    aad: Vec<u8>,
    plaintext: Vec<u8>,
    sealed: Vec<u8>,
}

fn cases() -> Vec<Case> {
    let json: Value = serde_json::from_str(APPENDIX_B).unwrap_or(Value::Null);
    let empty = Vec::new();
    let list = json["cases"].as_array().unwrap_or(&empty);
    list.iter()
        .map(|c| {
            let field = |name: &str| unhex(c[name].as_str().unwrap_or(""));
            let mut sealed = field("ciphertext");
            sealed.extend(field("tag"));
            Case {
                number: c["case"].as_u64().unwrap_or(0),
                key: field("key"),
                iv: field("iv"),
                aad: field("aad"),
                plaintext: field("plaintext"),
                sealed,
            }
        })
        .collect()
}

/// Runs one case on one implementation (`build` makes it from the key);
/// `Err` says what went wrong.
fn check(case: &Case, build: &dyn Fn(&[u8]) -> Result<AesGcm, aekit::Error>) -> Result<(), String> {
    let gcm = build(&case.key).map_err(|e| e.to_string())?;
    let sealed = gcm
        .encrypt(&case.iv, &case.aad, &case.plaintext, 16)
        .map_err(|e| e.to_string())?;
    if sealed != case.sealed {
        return Err("wrong ciphertext or tag".into());
    }
    let opened = gcm.decrypt(&case.iv, &case.aad, &sealed, 16);
    if opened.as_deref() != Ok(&case.plaintext[..]) {
        return Err("did not decrypt back".into());
    }
    let mut forged = sealed;
    let last = forged.len() - 1;
    forged[last] ^= 1;
    if gcm.decrypt(&case.iv, &case.aad, &forged, 16).is_ok() {
        return Err("accepted a forged tag".into());
    }
    Ok(())
}

/// Decrypts one Cobblestone vector with the default strategies.
fn check_chunked(aead: Aead, key: &str, ct: &str) -> Result<(), String> {
    let ct = unhex(ct);
    let mut reader = DecryptReader::new(&ct[..], aead, &unhex(key), CHUNKED_CONTEXT)
        .map_err(|e| e.to_string())?;
    let mut message = Vec::new();
    std::io::Read::read_to_end(&mut reader, &mut message).map_err(|e| e.to_string())?;
    if Sha512::digest(&message)[..] != unhex(CHUNKED_SHA512)[..] {
        return Err("wrong plaintext".into());
    }
    Ok(())
}

pub fn run() -> Result<(), Failure> {
    let cases = cases();
    if cases.len() != 18 {
        return Err(Failure::new(
            Exit::SelftestFailed,
            "the built-in vectors are damaged",
        ));
    }
    // Runs every case on one implementation and prints its line.
    let passes = |name: &str, build: &dyn Fn(&[u8]) -> Result<AesGcm, aekit::Error>| {
        let failures: Vec<String> = cases
            .iter()
            .filter_map(|c| {
                check(c, build)
                    .err()
                    .map(|e| format!("case {}: {e}", c.number))
            })
            .collect();
        if failures.is_empty() {
            println!("PASS  {name:<22} {} spec cases", cases.len());
        } else {
            println!("FAIL  {name:<22} {}", failures.join("; "));
        }
        failures.is_empty()
    };
    let mut failed_pairs: Vec<(aes::Strategy, ghash::Strategy)> = Vec::new();
    for a in aes::Strategy::ALL {
        for g in ghash::Strategy::ALL {
            let pair = format!("{} + {}", a.name(), g.name());
            if !a.is_available() || !g.is_available() {
                println!("SKIP  {pair:<22} not available on this CPU");
            } else if !passes(&pair, &|key| AesGcm::with(key, a, g)) {
                failed_pairs.push((a, g));
            }
        }
    }
    let mut failed_kernels: Vec<Fused> = Vec::new();
    for f in Fused::ALL {
        let name = format!("fused {}", f.name());
        if !f.is_available() {
            println!("SKIP  {name:<22} not available on this CPU");
        } else if !passes(&name, &|key| AesGcm::fused(key, f)) {
            failed_kernels.push(f);
        }
    }
    let mut failed = failed_pairs.len() + failed_kernels.len();
    for (aead, key, ct) in CHUNKED {
        let name = format!("{} (default)", aead.instantiation());
        match check_chunked(aead, key, ct) {
            Ok(()) => println!("PASS  {name:<40} Wycheproof tcId 9"),
            Err(e) => {
                println!("FAIL  {name:<40} {e}");
                failed += 1;
            }
        }
    }

    println!();
    println!("Per strategy:");
    let verdict = |available: bool, failed: bool| match (available, failed) {
        (false, _) => "skipped (not available)",
        (true, false) => "pass",
        (true, true) => "FAIL",
    };
    let aes_rows = aes::Strategy::ALL.map(|a| {
        let bad = failed_pairs.iter().any(|p| p.0 == a);
        ("aes", a.name(), a.is_available(), bad)
    });
    let ghash_rows = ghash::Strategy::ALL.map(|g| {
        let bad = failed_pairs.iter().any(|p| p.1 == g);
        ("ghash", g.name(), g.is_available(), bad)
    });
    let fused_rows = Fused::ALL.map(|f| {
        (
            "fused",
            f.name(),
            f.is_available(),
            failed_kernels.contains(&f),
        )
    });
    for (kind, name, available, bad) in aes_rows.into_iter().chain(ghash_rows).chain(fused_rows) {
        println!("  {kind:<5} {name:<12} {}", verdict(available, bad));
    }
    if failed == 0 {
        println!("selftest: all passed");
        Ok(())
    } else {
        Err(Failure::new(
            Exit::SelftestFailed,
            format!("selftest: {failed} check(s) failed"),
        ))
    }
}
