#!/bin/bash
# AETHER's steady-state loops on AArch64 cores, in llvm-mca's pipeline
# model: the `neon` engine against the `portable` one, compiled for
# aarch64 in release as the library ships.
#
# What it does: builds `aekit` for aarch64-unknown-linux-gnu (release, v0
# symbol mangling so that `crypt_tf::<true>` names itself; the code is the
# same), disassembles the rlib with relocations, cuts each engine's block
# loop out with `loop.py` (the widest backward branch of the function, the
# portable engine's calls to `f` spliced in), and runs llvm-mca on it for
# each core. One loop iteration is one 48-byte block: for `encrypt`, the
# three keystream words, the ciphertext and the round update R (twelve F);
# for `absorb`, R alone (nine F). Printed: cycles per block (llvm-mca's
# total cycles over its iterations) and the portable/neon ratio.
#
# Reading apple-m1: LLVM 19 models it with Cyclone's scheduling model,
# which books every register-register logical instruction (EOR, ORR, BIC)
# on the two shift-capable integer units, as if it shifted its operand.
# The portable engine is mostly such instructions, so the model makes it
# slower there than the core runs it, and the ratio larger.
#
# Usage: crates/aekit-bench/mca/aether.sh [OUT_DIR]
# Needs: rustup's aarch64-unknown-linux-gnu target, llvm-objdump-19,
# llvm-mca-19, python3. OUT_DIR (default: target/mca/aether) keeps the
# disassembly and the extracted loops (`*.s`, which llvm-mca reads as is).
# The build goes to its own target directory, `<target>/mca`.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
target_dir=${CARGO_TARGET_DIR:-$root/target}/mca
out=${1:-$root/target/mca/aether}
cpus="neoverse-n1 neoverse-v1 neoverse-v2 apple-m1"
iterations=100
mkdir -p "$out"

(cd "$root" && RUSTFLAGS="-C symbol-mangling-version=v0" cargo build --quiet --release \
    --target aarch64-unknown-linux-gnu -p aekit --lib --target-dir "$target_dir")
rlib=$target_dir/aarch64-unknown-linux-gnu/release/libaekit.rlib
llvm-objdump-19 -d -r --no-show-raw-insn --demangle "$rlib" >"$out/aekit.dis" 2>/dev/null

extract() { # file function
    python3 "$here/loop.py" "$out/aekit.dis" "$2" >"$out/$1.s"
}
extract neon-encrypt 'aekit::aether::neon::imp::crypt_tf::<true>'
extract neon-absorb 'aekit::aether::neon::imp::absorb_tf'
extract portable-encrypt '<aekit::aether::portable::Portable as aekit::aether::engine::Engine>::encrypt'
extract portable-absorb '<aekit::aether::portable::Portable as aekit::aether::engine::Engine>::absorb'

cycles() { # cpu file: cycles per iteration
    llvm-mca-19 -mtriple=aarch64 -mcpu="$1" -iterations=$iterations "$out/$2.s" |
        awk -v n=$iterations '/^Total Cycles:/ { printf "%.1f", $3 / n }'
}

printf '%-12s %-8s %10s %10s %8s\n' cpu loop neon portable ratio
for cpu in $cpus; do
    for loop in encrypt absorb; do
        n=$(cycles "$cpu" "neon-$loop")
        p=$(cycles "$cpu" "portable-$loop")
        printf '%-12s %-8s %10s %10s %7.1fx\n' "$cpu" "$loop" "$n" "$p" \
            "$(echo "$p $n" | awk '{ print $1 / $2 }')"
    done
done
echo "(cycles per 48-byte block, llvm-mca-19 -mtriple=aarch64, $iterations iterations)"
