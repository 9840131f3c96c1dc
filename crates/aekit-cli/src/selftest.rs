//! `aekit selftest`: known-answer tests built into the binary, for every
//! family aekit implements, on everything this CPU can run (what it cannot
//! is listed as SKIP). Known answers, not round trips: each output is
//! compared with published or independently computed bytes.
//!
//! - AES-GCM, every (AES, GHASH) pair, every fused kernel, every
//!   implementation class of `AesGcm::with_class`, and GCM with FACE counter
//!   mode (each variant on each AES strategy it applies to): the 18 test
//!   cases of the GCM specification's Appendix B (McGrew & Viega; 128-,
//!   192- and 256-bit keys, 96-bit and other IV lengths, with and without
//!   associated data), from `vectors/gcm_spec_appendix_b.json`. Each case
//!   must encrypt to the published ciphertext and tag, decrypt back, and
//!   reject the tag with one bit flipped.
//! - AETHER, every implementation: the project's known answers
//!   (`vectors/aether-kat.json`, computed from `docs/AETHER.md`; no
//!   official vectors exist): the inner function F, and each message's
//!   ciphertext and tag, decryption, and a forged tag refused.
//! - ESP (RFC 4106 over RFC 4303): the packets of `vectors/esp-kat.json`
//!   (computed with OpenSSL from the packet fields), sent byte for byte and
//!   received back, with inline and with pipelined keystream.
//! - Cobblestone-128 and -256: one Wycheproof chunked-encryption vector
//!   each (tcId 9, a short message with a context), decrypted through the
//!   file format and checked against the message's published SHA-512.
//!
//! A strategy passes if every check it is in does. Any failure makes the
//! exit status 7; a failed write to standard output is an I/O failure
//! (or the quiet 141 of a closed pipe), as everywhere in the command.

use std::io::{self, Write};

use aekit::aether::{self, Aether};
use aekit::chunked::{Aead, DecryptReader};
use aekit::ctr::face;
use aekit::esp::{self, KeystreamSource, PipelineConfig, Sa};
use aekit::gcm::{Class, Fused};
use aekit::keystream::Schedule;
use aekit::{AesGcm, aes, ghash};
use serde_json::Value;
use sha2::{Digest, Sha512};

use crate::failure::{Exit, Failure};

const APPENDIX_B: &str = include_str!("../../../vectors/gcm_spec_appendix_b.json");
const AETHER_KAT: &str = include_str!("../../../vectors/aether-kat.json");
const ESP_KAT: &str = include_str!("../../../vectors/esp-kat.json");

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

/// The cases of one vector file, or an empty list if it is damaged (the
/// count is checked, so a damaged file fails the self-test).
fn parse(text: &str, list: &str) -> Vec<Value> {
    let json: Value = serde_json::from_str(text).unwrap_or(Value::Null);
    json[list].as_array().cloned().unwrap_or_default()
}

/// A hex field of a vector.
fn field(case: &Value, name: &str) -> Vec<u8> {
    unhex(case[name].as_str().unwrap_or(""))
}

struct GcmCase {
    number: u64,
    key: Vec<u8>,
    iv: Vec<u8>,
    aad: Vec<u8>,
    plaintext: Vec<u8>,
    sealed: Vec<u8>,
}

fn gcm_cases() -> Vec<GcmCase> {
    parse(APPENDIX_B, "cases")
        .iter()
        .map(|c| {
            let mut sealed = field(c, "ciphertext");
            sealed.extend(field(c, "tag"));
            GcmCase {
                number: c["case"].as_u64().unwrap_or(0),
                key: field(c, "key"),
                iv: field(c, "iv"),
                aad: field(c, "aad"),
                plaintext: field(c, "plaintext"),
                sealed,
            }
        })
        .collect()
}

/// Builds one implementation from a key.
type Build<'a> = &'a dyn Fn(&[u8]) -> Result<AesGcm, aekit::Error>;

/// Runs one case on one implementation; `Err` says what went wrong.
fn check_gcm(case: &GcmCase, build: Build<'_>) -> Result<(), String> {
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

/// Every AETHER known answer on one implementation.
fn check_aether(strategy: aether::Strategy) -> Result<usize, String> {
    let f_cases = parse(AETHER_KAT, "f");
    let aead_cases = parse(AETHER_KAT, "aead");
    if f_cases.is_empty() || aead_cases.is_empty() {
        return Err("the built-in vectors are damaged".into());
    }
    for (i, c) in f_cases.iter().enumerate() {
        let word: [u8; 16] = field(c, "f_in").try_into().map_err(|_| "bad f_in")?;
        if aether::inner_f(strategy, &word).map(Vec::from) != Some(field(c, "f_out")) {
            return Err(format!("F case {i}: wrong output"));
        }
    }
    for (i, c) in aead_cases.iter().enumerate() {
        let aether = Aether::with(&field(c, "key"), strategy).map_err(|e| e.to_string())?;
        let (nonce, ad, msg) = (field(c, "nonce"), field(c, "ad"), field(c, "msg"));
        let mut expected = field(c, "ct");
        expected.extend(field(c, "tag"));
        let sealed = aether
            .encrypt(&nonce, &ad, &msg)
            .map_err(|e| e.to_string())?;
        if sealed != expected {
            return Err(format!("case {i}: wrong ciphertext or tag"));
        }
        if aether.decrypt(&nonce, &ad, &sealed).as_deref() != Ok(&msg[..]) {
            return Err(format!("case {i}: did not decrypt back"));
        }
        let mut forged = sealed;
        let last = forged.len() - 1;
        forged[last] ^= 1;
        if aether.decrypt(&nonce, &ad, &forged).is_ok() {
            return Err(format!("case {i}: accepted a forged tag"));
        }
    }
    Ok(f_cases.len() + aead_cases.len())
}

/// Every ESP known answer with one keystream source.
fn check_esp(keystream: KeystreamSource) -> Result<usize, String> {
    let cases = parse(ESP_KAT, "cases");
    if cases.len() != 3 {
        return Err("the built-in vectors are damaged".into());
    }
    for (i, c) in cases.iter().enumerate() {
        let number = |name: &str| c[name].as_u64().unwrap_or(0);
        let key = field(c, "key");
        let salt: [u8; 4] = field(c, "salt").try_into().map_err(|_| "bad salt")?;
        let config = esp::Config {
            spi: number("spi") as u32,
            icv_len: number("icv_len") as usize,
            extended_sequence_numbers: c["extended_sequence_numbers"].as_bool() == Some(true),
            keystream,
            ..esp::Config::default()
        };
        let (sequence, payload) = (number("sequence"), field(c, "payload"));
        let next_header = number("next_header") as u8;
        let packet = field(c, "packet");
        let sa = || Sa::new(&key, salt, config).map_err(|e| format!("case {i}: {e}"));
        let mut sender = sa()?;
        sender
            .skip_to_sequence(sequence)
            .map_err(|e| e.to_string())?;
        if sender.encapsulate(&payload, next_header).as_ref() != Ok(&packet) {
            return Err(format!("case {i}: wrong packet sent"));
        }
        let mut receiver = sa()?;
        if sequence > u64::from(u32::MAX) {
            // Only the low half travels: the receiver must have come
            // within 2^31 of it first (RFC 4303 Appendix A).
            let mut earlier = sa()?;
            let _ = earlier.skip_to_sequence(sequence - (1 << 31));
            let _ = earlier
                .encapsulate(b"", 59)
                .map(|p| receiver.decapsulate(&p));
        }
        if receiver.decapsulate(&packet) != Ok((payload, next_header)) {
            return Err(format!("case {i}: the packet did not open to its payload"));
        }
        if receiver.decapsulate(&packet).is_ok() {
            return Err(format!("case {i}: a replay was accepted"));
        }
    }
    Ok(cases.len())
}

/// Decrypts one Cobblestone vector with the default strategies.
fn check_chunked(aead: Aead, key: &str, ct: &str) -> Result<(), String> {
    let ct = unhex(ct);
    let mut reader = DecryptReader::new(&ct[..], aead, &unhex(key), CHUNKED_CONTEXT)
        .map_err(|e| e.to_string())?;
    let mut message = Vec::new();
    io::Read::read_to_end(&mut reader, &mut message).map_err(|e| e.to_string())?;
    if Sha512::digest(&message)[..] != unhex(CHUNKED_SHA512)[..] {
        return Err("wrong plaintext".into());
    }
    Ok(())
}

/// The lines and the tally.
struct Report<'a> {
    out: &'a mut dyn Write,
    passed: usize,
    failed: usize,
    skipped: usize,
}

impl Report<'_> {
    fn section(&mut self, title: &str) -> io::Result<()> {
        writeln!(self.out)?;
        writeln!(self.out, "{title}")
    }

    fn skip(&mut self, name: &str) -> io::Result<()> {
        self.skipped += 1;
        writeln!(self.out, "SKIP  {name:<26} not available on this CPU")
    }

    /// Prints one check's line; whether it passed.
    fn result(&mut self, name: &str, result: Result<String, String>) -> io::Result<bool> {
        match result {
            Ok(what) => {
                self.passed += 1;
                writeln!(self.out, "PASS  {name:<26} {what}")?;
                Ok(true)
            }
            Err(e) => {
                self.failed += 1;
                writeln!(self.out, "FAIL  {name:<26} {e}")?;
                Ok(false)
            }
        }
    }

    /// The spec's cases on one GCM implementation; whether all passed.
    fn gcm(&mut self, cases: &[GcmCase], name: &str, build: Build<'_>) -> io::Result<bool> {
        let failures: Vec<String> = cases
            .iter()
            .filter_map(|c| {
                check_gcm(c, build)
                    .err()
                    .map(|e| format!("case {}: {e}", c.number))
            })
            .collect();
        let result = match failures.is_empty() {
            true => Ok(format!("{} spec cases", cases.len())),
            false => Err(failures.join("; ")),
        };
        self.result(name, result)
    }
}

pub fn run(out: &mut dyn Write) -> Result<(), Failure> {
    let cases = gcm_cases();
    if cases.len() != 18 {
        return Err(Failure::new(
            Exit::SelftestFailed,
            "the built-in vectors are damaged",
        ));
    }
    let mut report = Report {
        out,
        passed: 0,
        failed: 0,
        skipped: 0,
    };
    let failed = families(&mut report, &cases).map_err(Failure::stdout)?;
    if failed == 0 {
        Ok(())
    } else {
        Err(Failure::new(
            Exit::SelftestFailed,
            format!("selftest: {failed} check(s) failed"),
        ))
    }
}

/// Runs every family and prints the summary; the number of failures.
fn families(report: &mut Report<'_>, cases: &[GcmCase]) -> io::Result<usize> {
    writeln!(
        report.out,
        "AES-GCM, every (AES, GHASH) pair: GCM spec Appendix B"
    )?;
    let mut failed_pairs = Vec::new();
    for a in aes::Strategy::ALL {
        for g in ghash::Strategy::ALL {
            let pair = format!("{} + {}", a.name(), g.name());
            if !a.is_available() || !g.is_available() {
                report.skip(&pair)?;
            } else if !report.gcm(cases, &pair, &|key| AesGcm::with(key, a, g))? {
                failed_pairs.push((a, g));
            }
        }
    }
    report.section("Fused kernels")?;
    let mut failed_kernels = Vec::new();
    for f in Fused::ALL {
        let name = format!("fused {}", f.name());
        if !f.is_available() {
            report.skip(&name)?;
        } else if !report.gcm(cases, &name, &|key| AesGcm::fused(key, f))? {
            failed_kernels.push(f);
        }
    }
    report.section("Implementation classes (AEKIT_KERNEL, AesGcm::with_class)")?;
    for class in Class::ALL {
        let name = format!("class {}", class.name());
        if !class.is_available() {
            report.skip(&name)?;
        } else {
            report.gcm(cases, &name, &|key| AesGcm::with_class(key, class))?;
        }
    }
    report.section("GCM with FACE counter mode (GHASH karatsuba)")?;
    for a in aes::Strategy::ALL
        .into_iter()
        .filter(|&a| face::supports(a))
    {
        for v in face::Variant::ALL {
            let name = format!("face {}/{}", a.name(), v.name());
            let build = |key: &[u8]| AesGcm::with_face(key, a, ghash::Strategy::Karatsuba, v);
            if !a.is_available() {
                report.skip(&name)?;
            } else {
                report.gcm(cases, &name, &build)?;
            }
        }
    }
    report.section("AETHER: the project's known answers (docs/AETHER.md)")?;
    for s in aether::Strategy::ALL {
        let name = format!("aether {}", s.name());
        if !s.is_available() {
            report.skip(&name)?;
        } else {
            let result = check_aether(s).map(|n| format!("{n} known answers"));
            report.result(&name, result)?;
        }
    }
    report.section("ESP (RFC 4106 over RFC 4303): known packets sent and received")?;
    let pipeline = KeystreamSource::Pipeline(PipelineConfig {
        schedule: Schedule::Immediate,
        ..PipelineConfig::default()
    });
    for (name, keystream) in [
        ("esp inline", KeystreamSource::Inline),
        ("esp pipeline", pipeline),
    ] {
        let result = check_esp(keystream).map(|n| format!("{n} packets"));
        report.result(name, result)?;
    }
    report.section("Chunked encryption (C2SP), default implementation")?;
    for (aead, key, ct) in CHUNKED {
        let result = check_chunked(aead, key, ct).map(|()| "Wycheproof tcId 9".to_owned());
        report.result(aead.instantiation(), result)?;
    }

    report.section("Per strategy:")?;
    let verdict = |available: bool, failed: bool| match (available, failed) {
        (false, _) => "skipped (not available)",
        (true, false) => "pass",
        (true, true) => "FAIL",
    };
    let aes_rows = aes::Strategy::ALL.map(|a| {
        let bad = failed_pairs.iter().any(|p: &(aes::Strategy, _)| p.0 == a);
        ("aes", a.name(), a.is_available(), bad)
    });
    let ghash_rows = ghash::Strategy::ALL.map(|g| {
        let bad = failed_pairs.iter().any(|p| p.1 == g);
        ("ghash", g.name(), g.is_available(), bad)
    });
    let fused_rows = Fused::ALL.map(|f| {
        let bad = failed_kernels.contains(&f);
        ("fused", f.name(), f.is_available(), bad)
    });
    for (kind, name, available, bad) in aes_rows.into_iter().chain(ghash_rows).chain(fused_rows) {
        writeln!(
            report.out,
            "  {kind:<5} {name:<12} {}",
            verdict(available, bad)
        )?;
    }
    writeln!(
        report.out,
        "selftest: {} passed, {} failed, {} skipped (not available on this CPU)",
        report.passed, report.failed, report.skipped
    )?;
    if report.failed == 0 {
        writeln!(report.out, "selftest: all passed")?;
    }
    Ok(report.failed)
}
