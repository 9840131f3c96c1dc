//! Embeds the test vectors as const tables: the GCM spec's test cases
//! 1–18 and Wycheproof's AES-GCM file (every case with a 16-, 24- or
//! 32-byte key), read from the repository's `vectors/` directory.

use std::fmt::Write;

fn bytes(v: &serde_json::Value, name: &str) -> String {
    let hex = v[name].as_str().unwrap_or_else(|| panic!("missing {name}"));
    let mut s = String::from("b\"");
    for i in (0..hex.len()).step_by(2) {
        write!(s, "\\x{}", &hex[i..i + 2]).unwrap();
    }
    s.push('"');
    s
}

fn read(name: &str) -> serde_json::Value {
    let path = format!("{}/../../../vectors/{name}", env!("CARGO_MANIFEST_DIR"));
    println!("cargo:rerun-if-changed={path}");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap()
}

fn main() {
    let mut out = String::new();
    let spec = read("gcm_spec_appendix_b.json");
    let cases = spec["cases"].as_array().unwrap();
    writeln!(out, "pub static SPEC: [Case; {}] = [", cases.len()).unwrap();
    for c in cases {
        writeln!(
            out,
            "Case {{ id: {}, key: {}, iv: {}, aad: {}, pt: {}, ct: {}, tag: {}, valid: true }},",
            c["case"],
            bytes(c, "key"),
            bytes(c, "iv"),
            bytes(c, "aad"),
            bytes(c, "plaintext"),
            bytes(c, "ciphertext"),
            bytes(c, "tag")
        )
        .unwrap();
    }
    out.push_str("];\n");

    let wp = read("aes_gcm_test.json");
    let mut rows = Vec::new();
    for g in wp["testGroups"].as_array().unwrap() {
        if ![128, 192, 256].contains(&g["keySize"].as_u64().unwrap()) {
            continue;
        }
        for t in g["tests"].as_array().unwrap() {
            rows.push(format!(
                "Case {{ id: {}, key: {}, iv: {}, aad: {}, pt: {}, ct: {}, tag: {}, valid: {} }},",
                t["tcId"],
                bytes(t, "key"),
                bytes(t, "iv"),
                bytes(t, "aad"),
                bytes(t, "msg"),
                bytes(t, "ct"),
                bytes(t, "tag"),
                t["result"].as_str().unwrap() != "invalid"
            ));
        }
    }
    writeln!(out, "pub static WYCHEPROOF: [Case; {}] = [", rows.len()).unwrap();
    for r in rows {
        out.push_str(&r);
        out.push('\n');
    }
    out.push_str("];\n");
    let dest = format!("{}/vectors.rs", std::env::var("OUT_DIR").unwrap());
    std::fs::write(dest, out).unwrap();
    println!("cargo:rustc-link-search={}", env!("CARGO_MANIFEST_DIR"));
    println!("cargo:rerun-if-changed=link.x");
    println!("cargo:rerun-if-changed=build.rs");
}
