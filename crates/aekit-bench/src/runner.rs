//! The runner of the table suites: each suite's tables in order, markdown
//! on stdout, then the JSON and the plots asked for (`plot.rs`).

use std::path::Path;

use aekit_harness as harness;
use serde_json::{Value, json};

use crate::report::{Effort, Table};
use crate::{peers, plot};

/// What a table suite was asked for on the command line.
pub(crate) struct Outputs<'a> {
    /// `--quick`: fewer rounds, no largest messages.
    pub(crate) quick: bool,
    /// `--json FILE`.
    pub(crate) json: Option<&'a Path>,
    /// `--plot DIR` (only the suites that draw take it).
    pub(crate) plot: Option<&'a Path>,
}

/// Checks, before anything is measured, that `--json` and `--plot` can be
/// written: a mistyped path must not cost a whole run. The JSON file is
/// opened for appending (not emptied) and the plot directory created, with
/// a probe file written and removed in it.
fn check_outputs(outputs: &Outputs<'_>) -> Result<(), String> {
    if let Some(path) = outputs.json {
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| format!("--json {}: {e}", path.display()))?;
    }
    if let Some(dir) = outputs.plot {
        let probe = dir.join(".aekit-bench-probe");
        std::fs::create_dir_all(dir)
            .and_then(|()| std::fs::write(&probe, b""))
            .and_then(|()| std::fs::remove_file(&probe))
            .map_err(|e| format!("--plot {}: {e}", dir.display()))?;
    }
    Ok(())
}

/// Runs the table suite `suite`: its `tables` in order, markdown on
/// stdout, then the JSON and the plots asked for; an error is one line for
/// stderr.
pub(crate) fn run(suite: &str, tables: &[Table<'_>], outputs: &Outputs<'_>) -> Result<(), String> {
    check_outputs(outputs)?;
    let effort = if outputs.quick {
        Effort {
            rounds: 3,
            blog_runs: 1,
            quick: true,
        }
    } else {
        Effort {
            rounds: 9,
            blog_runs: 3,
            quick: false,
        }
    };
    let cpu = harness::cpu_model();
    let ghz = harness::tsc_ghz(std::time::Duration::from_millis(100));
    println!(
        "# aekit-bench {suite}{}\n",
        if outputs.quick { " --quick" } else { "" }
    );
    let core = harness::core_per_tsc();
    let clock = core.map_or(String::new(), |c| {
        format!(
            "; the core ran at {c:.2}× it ({:.2} GHz) while a chain of dependent additions was timed",
            c * ghz
        )
    });
    println!("CPU: {cpu}; time-stamp counter {ghz:.2} GHz{clock}. Cycles are TSC cycles.\n");
    let width_before = core.and_then(harness::adds_per_cycle);
    if let Some(w) = width_before {
        println!(
            "Before the runs, the core retired {}; docs/BENCHMARKS.md, \"Method\", says how \
             to read it.\n",
            harness::width_words(w)
        );
    }
    let default = peers::default_implementation();
    if matches!(suite, "peers" | "cores") {
        println!("aekit default (`AesGcm::new` on this CPU): {default}.\n");
        match crate::ipsec_mb::version() {
            Ok(v) => println!(
                "Intel ipsec-mb {v}: its direct AES-GCM calls, each path forced \
                 (`init_mb_mgr_avx512`, `_avx2`, `_sse`).\n"
            ),
            Err(why) => println!("{why}\n"),
        }
        peers::cross_check().map_err(|e| format!("peers disagree: {e}"))?;
    }

    let mut reports = Vec::new();
    for table in tables {
        for report in table(effort) {
            println!("{}", report.markdown);
            reports.push(report);
        }
    }
    let width_after = core.and_then(harness::adds_per_cycle);
    if let Some(w) = width_after {
        println!("After the runs, the core retired {w:.1} independent additions a cycle.\n");
    }

    if let Some(path) = outputs.json {
        let mut tables = serde_json::Map::new();
        for r in &reports {
            tables.insert(r.key.to_string(), Value::Array(r.rows.clone()));
        }
        let doc = json!({
            "suite": suite,
            "quick": outputs.quick,
            "cpu": cpu,
            "aekit_default": default,
            "tsc_ghz": ghz,
            "core_per_tsc": core,
            "adds_per_cycle": [width_before, width_after],
            "tables": tables,
        });
        let text = serde_json::to_string_pretty(&doc).map_err(|e| e.to_string())?;
        std::fs::write(path, text).map_err(|e| format!("write {}: {e}", path.display()))?;
    }
    if let Some(dir) = outputs.plot {
        std::fs::create_dir_all(dir).map_err(|e| format!("create {}: {e}", dir.display()))?;
        for p in reports.iter().flat_map(|r| &r.plots) {
            let path = dir.join(format!("{}.png", p.name));
            plot::draw(&path, p, &cpu)?;
            eprintln!("wrote {}", path.display());
        }
    }
    Ok(())
}
