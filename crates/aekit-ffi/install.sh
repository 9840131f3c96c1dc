#!/usr/bin/env sh
# Installs aekit's C library, its header and its pkg-config file:
#
#   cargo build --release -p aekit-ffi
#   crates/aekit-ffi/install.sh PREFIX
#
# puts include/aekit.h, lib/libaekit_ffi.{so,a} and lib/pkgconfig/aekit.pc
# under PREFIX; then `pkg-config --cflags --libs aekit` (with
# PKG_CONFIG_PATH=PREFIX/lib/pkgconfig unless PREFIX is a system one)
# gives the flags to compile and link against it.
set -eu
if [ $# -ne 1 ]; then
    echo "usage: $0 PREFIX" >&2
    exit 2
fi
prefix=$1
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
lib="${CARGO_TARGET_DIR:-$root/target}/release"
for artifact in libaekit_ffi.so libaekit_ffi.a; do
    if [ ! -f "$lib/$artifact" ]; then
        echo "$lib/$artifact is missing: run cargo build --release -p aekit-ffi first" >&2
        exit 1
    fi
done
version=$(sed -n 's/^version = "\(.*\)"/\1/p' "$root/Cargo.toml" | head -n 1)
# What a Rust static library needs from the C library on Linux
# (`rustc --print native-static-libs`), for `pkg-config --static`.
private_libs="-lgcc_s -lutil -lrt -lpthread -lm -ldl -lc"

mkdir -p "$prefix/include" "$prefix/lib/pkgconfig"
# Absolute, for the paths written into aekit.pc.
prefix=$(cd "$prefix" && pwd)
cp "$here/include/aekit.h" "$prefix/include/aekit.h"
cp "$lib/libaekit_ffi.so" "$lib/libaekit_ffi.a" "$prefix/lib/"
sed -e "s|@PREFIX@|$prefix|" -e "s|@VERSION@|$version|" -e "s|@PRIVATE_LIBS@|$private_libs|" \
    "$here/aekit.pc.in" > "$prefix/lib/pkgconfig/aekit.pc"
echo "installed aekit $version under $prefix"
