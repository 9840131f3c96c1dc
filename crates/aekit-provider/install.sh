#!/usr/bin/env sh
# Installs the aekit OpenSSL provider:
#
#   cargo build --release -p aekit-provider
#   crates/aekit-provider/install.sh PREFIX
#
# puts the module at PREFIX/lib/ossl-modules/aekit.so (the name OpenSSL
# looks for when asked for the provider `aekit`) and an OpenSSL
# configuration that turns it on at PREFIX/ssl/openssl-aekit.cnf. With
# PREFIX=/usr and Debian's layout, use `openssl version -m`'s MODULESDIR
# instead: crates/aekit-provider/install.sh --modules-dir DIR PREFIX.
set -eu
modules=
if [ "${1:-}" = --modules-dir ]; then
    modules=$2
    shift 2
fi
if [ $# -ne 1 ]; then
    echo "usage: $0 [--modules-dir DIR] PREFIX" >&2
    exit 2
fi
prefix=$1
modules=${modules:-$prefix/lib/ossl-modules}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
lib="${CARGO_TARGET_DIR:-$root/target}/release/libaekit_provider.so"
if [ ! -f "$lib" ]; then
    echo "$lib is missing: run cargo build --release -p aekit-provider first" >&2
    exit 1
fi
mkdir -p "$modules" "$prefix/ssl"
# Absolute, for the module's path written into the configuration (OpenSSL
# looks for a relative one under its own modules directory).
prefix=$(cd "$prefix" && pwd)
modules=$(cd "$modules" && pwd)
cp "$lib" "$modules/aekit.so"
cat > "$prefix/ssl/openssl-aekit.cnf" <<CNF
# OpenSSL with aekit's AES-GCM: OPENSSL_CONF=$prefix/ssl/openssl-aekit.cnf
openssl_conf = openssl_init

[openssl_init]
providers = provider_sect
alg_section = evp_properties

[provider_sect]
default = default_sect
aekit = aekit_sect

[default_sect]
activate = 1

[aekit_sect]
module = $modules/aekit.so
activate = 1

[evp_properties]
# Prefer aekit where it has the algorithm (AES-GCM); the rest comes
# from the default provider.
default_properties = ?provider=aekit
CNF
echo "installed the aekit provider as $modules/aekit.so; configuration: $prefix/ssl/openssl-aekit.cnf"
