//! Replays every committed fuzz corpus (`fuzz/corpus/<target>/`) through
//! the target bodies, on stable, as ordinary tests: an input the fuzzers
//! once found interesting, or a finding that was fixed, keeps being
//! checked by every `cargo test`.

use std::fs;
use std::path::PathBuf;

fn corpus(target: &str) -> Vec<(String, Vec<u8>)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fuzz/corpus")
        .join(target);
    let mut inputs: Vec<_> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| {
            let path = entry.expect("a directory entry").path();
            let name = path.file_name().expect("a file").to_string_lossy().into();
            (name, fs::read(&path).expect("a corpus file"))
        })
        .collect();
    inputs.sort();
    inputs
}

fn replay(target: &str) {
    let (_, run) = aekit_fuzz::TARGETS
        .into_iter()
        .find(|(name, _)| *name == target)
        .expect("a known target");
    replay_with(target, run);
}

fn replay_with(target: &str, run: fn(&[u8])) {
    let inputs = corpus(target);
    assert!(!inputs.is_empty(), "the {target} corpus is empty");
    for (name, data) in &inputs {
        // The name says which input failed; the panic says why.
        eprintln!("{target}/{name}");
        run(data);
    }
    println!("{target}: {} inputs replayed", inputs.len());
}

/// Every implementation on every input, not only the two each input
/// picks when fuzzed.
#[test]
fn gcm_differential_corpus() {
    replay_with("gcm_differential", aekit_fuzz::gcm_differential::run_all);
}

#[test]
fn gcm_decrypt_corpus() {
    replay("gcm_decrypt");
}

#[test]
fn aether_decrypt_corpus() {
    replay("aether_decrypt");
}

#[test]
fn chunked_decrypt_corpus() {
    replay("chunked_decrypt");
}

#[test]
fn esp_inbound_corpus() {
    replay("esp_inbound");
}

#[test]
fn every_target_has_a_corpus_and_a_test() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus");
    for (target, _) in aekit_fuzz::TARGETS {
        assert!(dir.join(target).is_dir(), "no corpus for {target}");
    }
}
