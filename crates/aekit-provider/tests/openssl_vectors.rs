//! OpenSSL's own AES-GCM test vectors (`tests/data/evpciph_aes_gcm.txt`:
//! the AES-GCM stanzas of OpenSSL 3.0's
//! `test/recipes/30-test_evp_data/evpciph_aes_common.txt`, in OpenSSL's
//! test file format) through the provider, fetched with `provider=aekit`, run as
//! OpenSSL's evp_test runs a cipher stanza: encryption compared with the
//! ciphertext and tag, decryption with the plaintext, and
//! `Result = CIPHERFINAL_ERROR` stanzas must fail at final.

mod common;

use common::{Msg, Prov, open, seal};

fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

#[test]
fn openssl_evpciph_aes_gcm() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/evpciph_aes_gcm.txt");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let (mut run, mut failures_expected) = (0, 0);
    for stanza in text.split("\n\n") {
        let mut f = std::collections::HashMap::new();
        for line in stanza.lines() {
            let line = line.trim();
            if line.starts_with('#') || line.is_empty() {
                continue;
            }
            if let Some((k, v)) = line.split_once('=') {
                f.insert(k.trim().to_ascii_lowercase(), v.trim().to_string());
            }
        }
        let Some(cipher) = f.get("cipher") else {
            continue;
        };
        assert!(cipher.to_ascii_lowercase().contains("gcm"), "{cipher}");
        let get = |k: &str| f.get(k).map(|v| hex(v)).unwrap_or_default();
        let (key, iv, aad, pt, ct, tag) = (
            get("key"),
            get("iv"),
            get("aad"),
            get("plaintext"),
            get("ciphertext"),
            get("tag"),
        );
        let op = f.get("operation").map(|s| s.to_ascii_uppercase());
        let fails = f.get("result").map(|s| s.as_str()) == Some("CIPHERFINAL_ERROR");
        for splits in [vec![], vec![1], vec![5, 16, 3]] {
            let m = Msg {
                key: &key,
                iv: &iv,
                aad: &aad,
                text: &pt,
                splits: &splits,
            };
            if op.as_deref() != Some("DECRYPT") && !fails {
                let (c, t) = seal(Prov::Aekit, &m, tag.len())
                    .unwrap_or_else(|| panic!("encrypts: {stanza}"));
                assert_eq!((c, t), (ct.clone(), tag.clone()), "{stanza}");
            }
            if op.as_deref() != Some("ENCRYPT") {
                let got = open(Prov::Aekit, &Msg { text: &ct, ..m }, &tag);
                if fails {
                    assert_eq!(got, None, "must fail: {stanza}");
                } else {
                    assert_eq!(got.as_deref(), Some(&pt[..]), "{stanza}");
                }
            }
        }
        run += 1;
        failures_expected += usize::from(fails);
    }
    println!(
        "OpenSSL evpciph_aes_gcm.txt through provider=aekit: {run} stanzas ({failures_expected} expected to fail at final), each whole and in two splittings"
    );
    // The file's stanzas, as the provider's README counts them: a parser
    // that merged or lost some would still pass every one it read.
    assert_eq!((run, failures_expected), (43, 3));
}
