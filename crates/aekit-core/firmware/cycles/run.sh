#!/bin/sh
# Modelled Cortex-M4 cycles of aekit-core: builds the `cycles` firmware,
# runs it on QEMU's mps2-an386 with a per-instruction trace, and costs each
# marked region with m4model.py (validated by validate.sh). Prints one
# line per region with its label: AES-GCM sealing of 1, 4, 16, 40 KiB for
# AES-128 and AES-256 in each (GHASH, counter mode) pair, then the
# primitives, in the order of src/bin/cycles.rs.
set -eu
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here/.."
cargo build --release --bin cycles
elf="${CARGO_TARGET_DIR:-target}/thumbv7em-none-eabihf/release/cycles"
labels() {
    for key in 128 256; do
        for pair in karatsuba+plain karatsuba+rd1 karatsuba+rd1+ karatsuba+rd2+ \
            shoup4+plain shoup4+rd1 shoup4+rd1+ shoup4+rd2+; do
            for size in 1024 4096 16384 40960; do
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
