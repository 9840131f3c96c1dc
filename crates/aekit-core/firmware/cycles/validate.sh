#!/bin/sh
# Validates m4model.py against published Cortex-M4 cycle counts: Schwabe
# and Stoffelen's AES code (github.com/Ko-/aes-armcortexm, SAC 2016), whose
# README gives DWT cycle counts on an STM32F407 for 4096-byte messages.
# Their code is not part of aekit: pass a checkout.
#
#   validate.sh PATH-TO-aes-armcortexm
#
# Needs gcc-arm-none-eabi, qemu-system-arm and llvm-objdump-19.
set -eu
ko="$1"
here="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
for v in aes128ctrbs/aes_128_ctr_bs aes128ctr/aes_128_ctr; do
    n="$(basename "$v")"
    arm-none-eabi-gcc -mcpu=cortex-m4 -mthumb -O2 -nostartfiles -nostdlib \
        -T "$here/ko_link.x" "$here/ko_driver.c" "$ko/$v.s" -o "$work/$n.elf"
    echo "$n (region 0: key schedule, region 1: CTR over 4096 bytes = 256 blocks)"
    timeout 120 qemu-system-arm -M mps2-an386 -cpu cortex-m4 -nographic \
        -semihosting-config enable=on,target=native -singlestep \
        -d exec,nochain -D /dev/fd/3 -kernel "$work/$n.elf" 3>&1 1>/dev/null |
        python3 "$here/m4model.py" "$work/$n.elf" -
done
