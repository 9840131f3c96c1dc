//! `aekit bench --suite seeds --quick --json`: every table and every row
//! the seeds' tables name is in the JSON (timings are not checked: tests
//! are not benchmarks).

use std::process::Command;

use serde_json::Value;

fn rows<'a>(doc: &'a Value, table: &str) -> &'a Vec<Value> {
    doc["tables"][table]
        .as_array()
        .unwrap_or_else(|| panic!("table {table} missing"))
}

fn has(rows: &[Value], pairs: &[(&str, Value)]) -> bool {
    rows.iter().any(|r| pairs.iter().all(|(k, v)| &r[*k] == v))
}

#[test]
fn quick_seeds_suite_writes_every_row() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("out.json");
    let out = Command::new(env!("CARGO_BIN_EXE_aekit"))
        .args(["bench", "--suite", "seeds", "--quick", "--json"])
        .arg(&json)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let md = String::from_utf8(out.stdout).unwrap();
    for title in [
        "GCM spec Table 1",
        "10 MiB",
        "GCTR with FACE",
        "table4 against karatsuba",
        "full GCM",
        "GCM spec Table 3",
    ] {
        assert!(md.contains(title), "markdown lacks {title}");
    }
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();

    let t1 = rows(&doc, "spec_table1");
    for s in [
        "bitserial",
        "table1",
        "table4",
        "table8",
        "shoup4",
        "shoup8",
        "karatsuba",
        "clmul",
        "vclmul",
    ] {
        assert!(has(t1, &[("strategy", s.into())]), "spec_table1 lacks {s}");
    }
    let blog = rows(&doc, "blog_10mib");
    for t in ["table0", "table1", "table4", "table8"] {
        assert!(has(blog, &[("type", t.into())]), "blog lacks {t}");
    }
    assert!(
        blog.iter()
            .all(|r| r["heap_bytes"].as_u64() > Some(20 << 20))
    );
    for size in [1024, 4096, 20480, 40960] {
        for bits in [128, 256] {
            for aes in ["table", "fixslice"] {
                for v in ["basic", "rd1", "rd1+", "rd2+"] {
                    let key = [
                        ("aes", aes.into()),
                        ("variant", v.into()),
                        ("key_bits", bits.into()),
                        ("size_bytes", size.into()),
                    ];
                    assert!(has(rows(&doc, "m4_gctr"), &key), "m4_gctr {key:?}");
                    for g in ["table4", "karatsuba"] {
                        let mut key = key.to_vec();
                        key.push(("ghash", g.into()));
                        assert!(has(rows(&doc, "m4_gcm"), &key), "m4_gcm {key:?}");
                    }
                }
            }
        }
        for g in ["table4", "karatsuba"] {
            assert!(has(
                rows(&doc, "m4_ghash"),
                &[("ghash", g.into()), ("size_bytes", size.into())]
            ));
        }
    }
    let t3 = rows(&doc, "spec_table3");
    for mode in [
        "GCM, 64Kb storage",
        "GCM, 8Kb storage",
        "GCM, 4Kb storage",
        "GCM, 256b storage",
        "GCM, aekit's fastest",
        "CCM",
        "EAX",
        "OCB",
        "CBC-HMAC-SHA1",
    ] {
        for n in [16, 64, 256, 1024, 8192] {
            assert!(
                has(t3, &[("mode", mode.into()), ("size_bytes", n.into())]),
                "spec_table3 lacks {mode} at {n}"
            );
        }
    }
}

#[test]
fn an_unknown_suite_is_refused() {
    let out = Command::new(env!("CARGO_BIN_EXE_aekit"))
        .args(["bench", "--suite", "nope"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown suite"));
}
