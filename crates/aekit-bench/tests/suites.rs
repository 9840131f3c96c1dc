//! The suites run quickly (`aekit-bench SUITE --quick --json F`): every
//! table and every row the seeds' tables name is in the JSON (timings are
//! not checked: tests are not benchmarks), and the options a suite cannot
//! honour are refused before anything is measured.

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

/// Runs `aekit-bench SUITE --quick --json`; returns the markdown it
/// printed and the JSON it wrote.
fn quick(suite: &str) -> (String, Value) {
    quick_with(suite, &[])
}

/// Checks that `dir/name.png` is a PNG at least `min_width` pixels wide and
/// wider than tall (panels side by side, the legend beside them).
fn assert_png(dir: &std::path::Path, name: &str, min_width: u32) {
    let png = std::fs::read(dir.join(format!("{name}.png")))
        .unwrap_or_else(|e| panic!("{name}.png: {e}"));
    assert!(png.starts_with(b"\x89PNG"), "{name}.png is not a PNG");
    // The IHDR chunk: width and height, big-endian, at bytes 16 and 20.
    let width = u32::from_be_bytes(png[16..20].try_into().unwrap());
    let height = u32::from_be_bytes(png[20..24].try_into().unwrap());
    assert!(
        width >= min_width && width > height,
        "{name}.png is {width} × {height}"
    );
}

/// [`quick`] with more arguments.
fn quick_with(suite: &str, more: &[&std::ffi::OsStr]) -> (String, Value) {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("out.json");
    let out = Command::new(env!("CARGO_BIN_EXE_aekit-bench"))
        .args([suite, "--quick", "--json"])
        .arg(&json)
        .args(more)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let md = String::from_utf8(out.stdout).unwrap();
    let doc = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    (md, doc)
}

#[test]
fn quick_seeds_suite_writes_every_row() {
    let dir = tempfile::tempdir().unwrap();
    let (md, doc) = quick_with("seeds", &["--plot".as_ref(), dir.path().as_os_str()]);
    // One plot per table with one, a panel per world where the worlds'
    // scales differ (three panels side by side).
    for (name, panels) in [
        ("m4-gctr", 2),
        ("m4-gcm", 2),
        ("spec-table3", 1),
        ("spec-table3-aes", 3),
        ("gcm-fig3", 3),
        ("esp-fig3", 3),
    ] {
        assert_png(dir.path(), name, 500 * panels);
    }
    for title in [
        "GCM spec Table 1",
        "10 MiB",
        "GCTR with FACE",
        "256-byte table (shoup4) against karatsuba",
        "full GCM",
        "GCM spec Table 3",
        "GCM spec Table 3's GCM rows over each AES",
        "Which of GCM spec Table 3's orderings reproduce",
        "ESP seed's Fig. 3 as bare GCM",
        "ESP seed's Fig. 3",
    ] {
        assert!(md.contains(title), "markdown lacks {title}");
    }

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
                    // The seed's 256-byte table is Shoup's: `shoup4`.
                    for g in ["shoup4", "karatsuba"] {
                        let mut key = key.to_vec();
                        key.push(("ghash", g.into()));
                        assert!(has(rows(&doc, "m4_gcm"), &key), "m4_gcm {key:?}");
                    }
                }
            }
        }
        // `table4` stays in the GHASH table as a reference row.
        for g in ["shoup4", "table4", "karatsuba"] {
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
    // Table 3's GCM rows over each AES beside counter mode alone, and
    // which of the spec's orderings reproduce with each.
    let by_aes = rows(&doc, "spec_table3_aes");
    let rankings = rows(&doc, "spec_table3_rankings");
    for aes in ["table", "fixslice", "ni"] {
        for n in [16, 64, 256, 1024, 8192] {
            for mode in [
                "GCM, 64Kb storage",
                "GCM, 8Kb storage",
                "GCM, 4Kb storage",
                "GCM, 256b storage",
                "AES alone (counter mode)",
            ] {
                let at = [
                    ("aes", aes.into()),
                    ("mode", mode.into()),
                    ("size_bytes", n.into()),
                ];
                assert!(has(by_aes, &at), "spec_table3_aes lacks {at:?}");
            }
            let at: [(&str, Value); 3] = [
                ("aes", aes.into()),
                ("scope", "gcm storage".into()),
                ("size_bytes", n.into()),
            ];
            let row = rankings
                .iter()
                .find(|r| at.iter().all(|(k, v)| &r[*k] == v))
                .unwrap_or_else(|| panic!("spec_table3_rankings lacks {at:?}"));
            assert_eq!(row["measured_order"].as_array().map(Vec::len), Some(4));
            assert!(
                ["same", "same up to ties", "different"]
                    .contains(&row["verdict"].as_str().unwrap())
            );
        }
    }
    assert!(has(rankings, &[("scope", "all modes".into())]));
    // The ESP seed's Fig. 3 as bare GCM: every world and keystream at 1
    // and 10 MB (100 MB only without --quick), with ordered quantiles.
    let bare = rows(&doc, "gcm_fig3");
    for world in ["default", "table", "fixslice"] {
        for keystream in ["stock", "precomputed"] {
            for mb in [1, 10] {
                let row = bare
                    .iter()
                    .find(|r| {
                        r["world"] == world
                            && r["keystream"] == keystream
                            && r["message_bytes"] == mb * 1_000_000
                    })
                    .unwrap_or_else(|| panic!("gcm_fig3 lacks {world} {keystream} {mb} MB"));
                let q: Vec<f64> = ["min", "p5", "p25", "median", "p75", "p95", "max"]
                    .iter()
                    .map(|p| row[format!("{p}_seconds")].as_f64().unwrap())
                    .collect();
                assert!(q[0] > 0.0 && q.windows(2).all(|w| w[0] <= w[1]), "{row}");
                assert!(row["runs"].as_u64() >= Some(3), "{row}");
                assert_eq!(row["chunk_bytes"], 1024);
            }
        }
    }
    assert!(!has(bare, &[("message_bytes", 100_000_000.into())]));
    // The ESP seed's Fig. 3: every world, mode and direction at 1 and
    // 10 MB (100 MB only without --quick), with a spread over the runs.
    let esp = rows(&doc, "esp_fig3");
    for world in ["default", "table", "fixslice"] {
        for mode in ["inline", "cpu-producer"] {
            for direction in ["encapsulate", "decapsulate"] {
                for mb in [1, 10] {
                    let row = esp
                        .iter()
                        .find(|r| {
                            r["world"] == world
                                && r["mode"] == mode
                                && r["direction"] == direction
                                && r["message_bytes"] == mb * 1_000_000
                        })
                        .unwrap_or_else(|| {
                            panic!("esp_fig3 lacks {world} {mode} {direction} {mb} MB")
                        });
                    let (fast, median, slow) = (
                        row["fastest_seconds"].as_f64().unwrap(),
                        row["median_seconds"].as_f64().unwrap(),
                        row["slowest_seconds"].as_f64().unwrap(),
                    );
                    assert!(0.0 < fast && fast <= median && median <= slow, "{row}");
                    assert!(row["runs"].as_u64() >= Some(3));
                }
            }
        }
    }
    assert!(!has(esp, &[("message_bytes", 100_000_000.into())]));
}

/// `aekit-bench aether-analysis --quick --json`: the recomputed
/// design tables agree with the paper wherever the suite recomputes them
/// (these are exact results, not timings).
#[test]
fn quick_aether_analysis_agrees_with_the_paper() {
    let (md, doc) = quick("aether-analysis");
    for title in ["Table 3", "Table 4", "Table 5", "Table 6", "Table 7"] {
        assert!(
            md.contains(&format!("AETHER {title}")),
            "markdown lacks {title}"
        );
    }
    let t3 = rows(&doc, "aether_table3");
    for sbox in ["AES", "Orthros", "Midori (Sb0)", "Midori (Sb1)", "PRINCE"] {
        assert!(
            has(t3, &[("sbox", sbox.into()), ("agrees", true.into())]),
            "{sbox}"
        );
    }
    let t4 = rows(&doc, "aether_table4");
    for m in ["MDS matrix in AES", "16 × 16 binary matrix (AETHER)"] {
        assert!(
            has(t4, &[("matrix", m.into()), ("agrees", true.into())]),
            "{m}"
        );
    }
    let t5 = rows(&doc, "aether_table5");
    for f in ["F_AES", "F_16"] {
        assert!(
            has(t5, &[("inner_function", f.into()), ("agrees", true.into())]),
            "{f}"
        );
    }
    // The experiment saw the impossible characteristic never, and the
    // others about as often as their exact probability says.
    for r in t5.iter().filter(|r| r.get("followed").is_some()) {
        let (seen, expected) = (
            r["followed"].as_f64().unwrap(),
            r["expected"].as_f64().unwrap(),
        );
        assert!(
            (seen - expected).abs() <= 5.0 * expected.sqrt() + 1.0,
            "{r}"
        );
    }
    let t6 = rows(&doc, "aether_table6");
    assert_eq!(t6.len(), 25, "--quick searches every row up to 9 words");
    assert!(
        t6.iter().all(|r| r["agrees"] == true),
        "a Table 6 row disagrees"
    );
    assert!(has(
        t6,
        &[
            ("words", 9.into()),
            ("inputs", 3.into()),
            ("found", 8478.into())
        ]
    ));
    let t7 = rows(&doc, "aether_table7");
    assert_eq!(t7[0]["agrees"], true);
    assert_eq!(t7[0]["collision_min_active_f"], 8);
}

/// `api --sizes` measures the sizes given, and only those; a size that is
/// not a number of bytes, or is over 256 MiB, is a usage error.
#[test]
fn api_suite_measures_the_sizes_asked() {
    let (md, doc) = quick_with("api", &["--sizes".as_ref(), "0,240".as_ref()]);
    for row in [
        "| AES-128 | 0 B |",
        "| AES-128 | 240 B |",
        "| AES-256 | 0 B |",
        "| AES-256 | 240 B |",
    ] {
        assert!(md.contains(row), "markdown lacks {row}:\n{md}");
    }
    assert!(
        !md.contains("| 16 B |"),
        "a default size was measured:\n{md}"
    );
    // A row per key and size where ipsec-mb, the reference, was found at
    // build time; without it the markdown says why and there are none.
    let rows = rows(&doc, "api");
    if rows.is_empty() {
        skip("no ipsec-mb, so no timed rows");
        return;
    }
    assert_eq!(rows.len(), 4, "{rows:?}");
    for row in rows {
        assert!([0, 240].contains(&row["size"].as_u64().unwrap()), "{row}");
        assert!(row["rust_in_place_ns"].as_f64() > Some(0.0), "{row}");
        assert!(row["c_out_of_place_ns"].as_f64() > Some(0.0), "{row}");
    }
    for bad in ["1x", "268435457", ""] {
        let out = Command::new(env!("CARGO_BIN_EXE_aekit-bench"))
            .args(["api", "--sizes", bad])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "--sizes {bad:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("--sizes"), "{stderr}");
    }
}

/// An unknown suite is a usage error (status 2) that lists the suites.
#[test]
fn an_unknown_suite_is_refused() {
    let out = Command::new(env!("CARGO_BIN_EXE_aekit-bench"))
        .arg("nope")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("unrecognized subcommand"), "{stderr}");
}

/// `aekit-bench --help` lists every suite, one line each, and says how to
/// measure the Python binding.
#[test]
fn help_lists_every_suite() {
    let out = Command::new(env!("CARGO_BIN_EXE_aekit-bench"))
        .arg("--help")
        .output()
        .unwrap();
    assert!(out.status.success());
    let help = String::from_utf8(out.stdout).unwrap();
    for suite in [
        "peers",
        "seeds",
        "cores",
        "ct",
        "batch",
        "esp",
        "aether",
        "aether-analysis",
        "gpu",
        "prefixes",
    ] {
        assert!(
            help.lines()
                .any(|l| l.trim_start().starts_with(&format!("{suite} "))),
            "--help lacks {suite}: {help}"
        );
    }
    assert!(help.contains("python/bench.py"), "{help}");
}

/// `aekit-bench peers --quick --json`: the CPU and aekit's kernel
/// at the top; in the JSON every (AEAD, direction, size) has a row for
/// aekit's default with its ratio to the best peer and a row per peer; the
/// multi-core rows cover 1 and 16 MiB on one thread and on two (256 MiB
/// only without `--quick`).
#[test]
fn quick_peers_suite_writes_every_row() {
    let dir = tempfile::tempdir().unwrap();
    let (md, doc) = quick_with("peers", &["--plot".as_ref(), dir.path().as_os_str()]);
    for name in [
        "peers-aes128-encrypt",
        "peers-aes128-decrypt",
        "peers-aes256-encrypt",
        "peers-aes256-decrypt",
    ] {
        assert_png(dir.path(), name, 1000);
    }
    for text in [
        "CPU: ",
        "aekit default (`AesGcm::new`",
        "one core",
        "many cores",
    ] {
        assert!(md.contains(text), "markdown lacks {text:?}");
    }
    if cfg!(ipsec_mb) {
        assert!(md.contains("Intel ipsec-mb "), "{md}");
    } else {
        skip("ipsec-mb rows: the library was not found at build time");
        assert!(md.contains("SKIP: ipsec-mb was not found"), "{md}");
    }
    assert_eq!(doc["suite"], "peers");
    let default = doc["aekit_default"].as_str().unwrap().to_string();
    assert!(!default.is_empty());
    for (bits, aead) in [(128, "AES-128-GCM"), (256, "AES-256-GCM")] {
        for op in ["encrypt", "decrypt"] {
            let table = rows(&doc, &format!("peers_aes{bits}_{op}"));
            for size in [16, 64, 256, 1024, 1500, 8192, 16384, 1 << 20] {
                let at = |imp: &str| {
                    table.iter().find(|r| {
                        r["aead"] == aead
                            && r["size_bytes"] == size
                            && r["implementation"].as_str() == Some(imp)
                    })
                };
                let ours = at(&format!("aekit default ({default})"))
                    .unwrap_or_else(|| panic!("no aekit default row, {aead} {op} {size}"));
                assert!(ours["gb_per_s"].as_f64() > Some(0.0));
                assert!(ours["ratio_to_best_peer"].as_f64() > Some(0.0));
                for peer in ["aws-lc-rs", "ring", "aes-gcm", "openssl"] {
                    let row = at(peer).unwrap_or_else(|| panic!("no {peer} row"));
                    assert!(row["gb_per_s"].as_f64() > Some(0.0), "{peer} {aead} {op}");
                }
                // ipsec-mb: a row per path, measured where the library was
                // found at build time (its SSE path runs on every x86-64
                // with AES-NI), and the default class's ratio to its path.
                for peer in ["ipsec-mb avx512", "ipsec-mb avx2", "ipsec-mb sse"] {
                    assert!(at(peer).is_some(), "no {peer} row");
                }
                if cfg!(ipsec_mb) {
                    let sse = at("ipsec-mb sse").unwrap();
                    assert!(sse["gb_per_s"].as_f64() > Some(0.0), "{aead} {op}");
                    if default.starts_with("fused ") {
                        assert!(
                            ours["ratio_to_ipsec_mb_of_class"].as_f64() > Some(0.0),
                            "{aead} {op} {size}: {ours}"
                        );
                    }
                }
            }
        }
    }
    let cores = rows(&doc, "multicore");
    for size in [1 << 20, 16 << 20] {
        for threads in [1, 2] {
            assert!(has(
                cores,
                &[("size_bytes", size.into()), ("threads", threads.into())]
            ));
        }
    }
    assert!(!has(cores, &[("size_bytes", (256 << 20).into())]));
}

/// `aekit-bench batch --quick --json F --plot DIR`: each table's
/// JSON holds its own cases (AES-GCM's and AETHER's apart) for every mix
/// and batch size, and each table draws one PNG per mix.
#[test]
fn quick_batch_suite_writes_every_row_and_plot() {
    let dir = tempfile::tempdir().unwrap();
    let plots = dir.path().join("plots");
    let (_, doc) = quick_with("batch", &["--plot".as_ref(), plots.as_os_str()]);
    assert_eq!(doc["suite"], "batch");
    let tables = [
        (
            "batch_gcm",
            "gcm",
            &[
                "aekit per-message",
                "aekit batch",
                "aws-lc-rs per-message",
                "ring per-message",
                "ipsec-mb per-message",
                "ipsec-mb jobs",
            ][..],
        ),
        (
            "batch_aether",
            "aether",
            &[
                "AETHER per-message",
                "AETHER batch",
                "AETHER portable batch",
                "AEGIS-256 per-message",
                "AEGIS-256X4 per-message",
            ][..],
        ),
    ];
    for (table, stem, cases) in tables {
        let rows = rows(&doc, table);
        assert_eq!(
            rows.len(),
            4 * 6 * cases.len(),
            "{table}: one row per mix, size, case"
        );
        for (mix, file) in [
            ("64 B", "64b"),
            ("576 B", "576b"),
            ("1500 B", "1500b"),
            ("IMIX 7:4:1", "imix"),
        ] {
            for n in [1, 4, 16, 64, 256, 1024] {
                for case in cases {
                    let at = [
                        ("mix", mix.into()),
                        ("messages", n.into()),
                        ("case", (*case).into()),
                    ];
                    assert!(has(rows, &at), "{table}: no row {mix} × {n} {case}");
                }
            }
            assert_png(&plots, &format!("batch-{stem}-{file}"), 1000);
        }
    }
}

/// `aekit-bench esp --quick --json`: the packet rate for every
/// implementation, mix and direction, and the whole messages for every
/// world, keystream and direction at 1 and 10 MiB (100 MiB only without
/// `--quick`), with the CPU time beside them.
#[test]
fn quick_esp_suite_writes_every_row() {
    let (md, doc) = quick("esp");
    for title in [
        "ESP packet rate",
        "ESP: the AES-GCM call under each packet",
        "ESP over whole messages",
    ] {
        assert!(md.contains(title), "markdown lacks {title}");
    }
    // The AES-GCM call per packet, aekit's and (where the library was
    // found at build time) ipsec-mb's, beside the encapsulation.
    let floor = rows(&doc, "esp_floor");
    for mix in ["64 B", "576 B", "1500 B", "IMIX 7:4:1"] {
        let row = floor
            .iter()
            .find(|r| r["mix"] == mix)
            .unwrap_or_else(|| panic!("esp_floor lacks {mix}"));
        assert!(row["aekit_call_mpps"].as_f64() > Some(0.0), "{row}");
        assert!(row["esp_encapsulate_mpps"].as_f64() > Some(0.0), "{row}");
        assert_eq!(
            row["ipsec_mb_call_mpps"].as_f64().is_some(),
            cfg!(ipsec_mb),
            "{row}"
        );
    }
    let rate = rows(&doc, "esp_packet_rate");
    for mix in ["64 B", "576 B", "1500 B", "IMIX 7:4:1"] {
        for direction in ["encapsulate", "decapsulate"] {
            for keystream in ["inline", "precompute"] {
                let at = [
                    ("mix", mix.into()),
                    ("direction", direction.into()),
                    ("keystream", keystream.into()),
                ];
                assert!(has(rate, &at), "esp_packet_rate lacks {at:?}");
            }
        }
    }
    let messages = rows(&doc, "esp_messages");
    for world in ["default", "table", "fixslice"] {
        for keystream in [
            "inline",
            "precompute, RFC 4106",
            "precompute, continuous counter",
        ] {
            for direction in ["encapsulate", "decapsulate"] {
                for mib in [1, 10] {
                    let at: [(&str, Value); 4] = [
                        ("world", world.into()),
                        ("keystream", keystream.into()),
                        ("direction", direction.into()),
                        ("message_bytes", (mib << 20).into()),
                    ];
                    let row = messages
                        .iter()
                        .find(|r| at.iter().all(|(k, v)| &r[*k] == v))
                        .unwrap_or_else(|| panic!("esp_messages lacks {at:?}"));
                    assert!(row["mb_per_s"].as_f64() > Some(0.0), "{row}");
                    assert!(row["process_cpu_seconds"].as_f64() >= Some(0.0), "{row}");
                    let waste = row["waste"].as_f64().unwrap();
                    assert!((0.0..=1.0).contains(&waste), "{row}");
                }
            }
        }
    }
    assert!(!has(messages, &[("message_bytes", (100 << 20).into())]));
}

/// A suite that draws no plot has no `--plot`, and `gpu` (markdown only)
/// no `--json`: they are refused as usage errors before anything is
/// measured, instead of ignored.
#[test]
fn outputs_a_suite_does_not_write_are_refused() {
    for (suite, flag) in [("esp", "--plot"), ("cores", "--plot"), ("gpu", "--json")] {
        let dir = tempfile::tempdir().unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_aekit-bench"))
            .args([suite, "--quick", flag])
            .arg(dir.path().join("out"))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{suite} {flag}: {stderr}");
        assert!(stderr.contains(flag), "{suite} {flag}: {stderr}");
        assert!(
            out.stdout.is_empty(),
            "{suite} {flag}: measured before failing"
        );
    }
}

/// A `--json` or `--plot` path that cannot be written fails before anything
/// is measured (nothing on stdout), not after the whole run.
#[test]
fn unwritable_outputs_fail_before_measuring() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a-file");
    std::fs::write(&file, b"").unwrap();
    let missing = dir.path().join("no-such-dir").join("out.json");
    for (flag, path) in [("--json", &missing), ("--plot", &file)] {
        let out = Command::new(env!("CARGO_BIN_EXE_aekit-bench"))
            .args(["seeds", "--quick", flag])
            .arg(path)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{flag}: {stderr}");
        assert!(stderr.contains(flag), "{stderr}");
        assert!(out.stdout.is_empty(), "{flag}: measured before failing");
    }
}

/// Prints `SKIP <why>` where a reader sees it: straight to stderr, which
/// the test harness does not capture (it captures `eprintln!`).
fn skip(why: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "SKIP {why}");
}
