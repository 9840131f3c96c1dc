#!/bin/sh
# Modelled Cortex-M4 cycles of aekit-core: builds the `cycles` firmware,
# runs it on QEMU's mps2-an386 with a per-instruction trace, and costs each
# marked region with m4model.py (validated by validate.sh). Prints one
# line per region with its label, in the order of src/bin/cycles.rs: for
# 1, 4, 20, 40 KiB, counter mode alone (GCTR) for AES-128 and AES-256 in
# each mode, GHASH alone in each strategy, AES-GCM sealing for AES-128 and
# AES-256 in each (GHASH, counter mode) pair; then the primitives.
# `run.sh | python3 tables.py` prints the seed's three tables beside these.
set -eu
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here/.."
cargo build --release --bin cycles
elf="${CARGO_TARGET_DIR:-target}/thumbv7em-none-eabihf/release/cycles"
sizes="1024 4096 20480 40960"
labels() {
    for key in 128 256; do
        for mode in plain rd1 rd1+ rd2+; do
            for size in $sizes; do
                echo "AES-$key-CTR fixslice+$mode $size B"
            done
        done
    done
    for strategy in karatsuba shoup4; do
        for size in $sizes; do
            echo "GHASH $strategy $size B"
        done
    done
    for key in 128 256; do
        for pair in karatsuba+plain karatsuba+rd1 karatsuba+rd1+ karatsuba+rd2+ \
            shoup4+plain shoup4+rd1 shoup4+rd1+ shoup4+rd2+; do
            for size in $sizes; do
                echo "AES-$key-GCM fixslice+$pair seal $size B"
            done
        done
    done
    echo "AES-128 key setup (fixslice)"
    echo "AES-128 two blocks (fixslice)"
    echo "GHASH one block (karatsuba)"
    echo "GHASH one block (shoup4)"
}
timeout 3000 qemu-system-arm -M mps2-an386 -cpu cortex-m4 -nographic \
    -semihosting-config enable=on,target=native -singlestep \
    -d exec,nochain -D /dev/fd/3 -kernel "$elf" 3>&1 1>/dev/null |
    python3 "$here/m4model.py" "$elf" - |
    { labels > "${TMPDIR:-/tmp}/aekit-core-cycles-labels.$$"
      paste -d' ' - "${TMPDIR:-/tmp}/aekit-core-cycles-labels.$$" | sed 's/^region [0-9]*: //'
      rm -f "${TMPDIR:-/tmp}/aekit-core-cycles-labels.$$"; }
