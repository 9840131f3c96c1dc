#!/bin/sh
# Builds aekit-core's test firmware and runs it on an emulated Cortex-M
# board; exits with the firmware's verdict (0 when every check passed).
#
#   run.sh        Cortex-M4, thumbv7em-none-eabihf, QEMU's mps2-an386
#   run.sh m3     Cortex-M3, thumbv7m-none-eabi,    QEMU's mps2-an385
#
# Needs `rustup target add thumbv7em-none-eabihf thumbv7m-none-eabi` and
# Debian's qemu-system-arm. Honours CARGO_TARGET_DIR.
set -eu
cd "$(dirname "$0")"
case "${1:-m4}" in
    m4) target=thumbv7em-none-eabihf machine=mps2-an386 cpu=cortex-m4 ;;
    m3) target=thumbv7m-none-eabi machine=mps2-an385 cpu=cortex-m3 ;;
    *) echo "usage: $0 [m4|m3]" >&2; exit 2 ;;
esac
cargo build --release --target "$target" --bin aekit-core-firmware
elf="${CARGO_TARGET_DIR:-target}/$target/release/aekit-core-firmware"
exec timeout 300 qemu-system-arm -M "$machine" -cpu "$cpu" -nographic \
    -semihosting-config enable=on,target=native -kernel "$elf"
