#!/usr/bin/env bash
# Interoperability of the aekit provider with OpenSSL's default provider
# through real clients and servers, on 127.0.0.1:
#
# 1. TLS 1.3 and TLS 1.2 AES-GCM: `openssl s_server` and `openssl
#    s_client`, the provider on one side and the default provider on the
#    other, both ways round; each side sends MIB MiB of random data and
#    the SHA-256 of what each received must equal what the other sent.
# 2. With NGINX_MIB > 0 and nginx installed: nginx (linked to the system
#    OpenSSL) turned onto the provider through OPENSSL_CONF, serving a file
#    of NGINX_MIB MiB over HTTPS (TLS 1.3, AES-256-GCM) to curl, once with
#    the provider and once without; the file's hash is checked and the
#    server's CPU seconds per GiB are printed for both.
#
# Usage: interop.sh MODULES_DIR [MIB] [NGINX_MIB]
#   MODULES_DIR  the directory holding aekit.so (install.sh's lib/ossl-modules)
# Every process runs under `timeout`, and the script stops what it starts.
set -euo pipefail

dir=$(cd "$1" && pwd)
mib=${2:-4}
nginx_mib=${3:-0}
[ -f "$dir/aekit.so" ] || { echo "FAIL no aekit.so in $dir"; exit 1; }

work=$(mktemp -d)
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT

openssl req -x509 -newkey rsa:2048 -nodes -keyout "$work/key.pem" -out "$work/cert.pem" \
    -days 1 -subj /CN=127.0.0.1 2>/dev/null

# The provider's side: aekit loaded beside the default provider, preferred
# for every algorithm it has (AES-GCM); the default side loads nothing.
aekit=(-provider-path "$dir" -provider aekit -provider default -propquery '?provider=aekit')
default=()

bytes=$((mib * 1024 * 1024))
head -c "$bytes" /dev/urandom >"$work/to_client"
head -c "$bytes" /dev/urandom >"$work/to_server"

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# Waits until FILE holds SIZE bytes (or TIMEOUT seconds pass).
wait_for() {
    local file=$1 size=$2 deadline=$((SECONDS + $3))
    while [ "$(stat -c %s "$file" 2>/dev/null || echo 0)" -lt "$size" ]; do
        [ "$SECONDS" -lt "$deadline" ] || return 1
        sleep 0.1
    done
}

# Waits until something listens on 127.0.0.1:PORT (a test connection
# would take s_server's one accept).
listening() {
    local hex
    hex=$(printf '%04X' "$1")
    for _ in $(seq 100); do
        # /proc/net/tcp: local address (hex) in field 2, state in field 4
        # (0A: LISTEN); no tool beyond awk needed.
        awk -v p=":$hex" '$2 ~ p"$" && $4 == "0A" { found = 1 } END { exit !found }' \
            /proc/net/tcp && return 0
        sleep 0.1
    done
    return 1
}

# One connection: VERSION (1.2 or 1.3), then which side runs aekit.
exchange() {
    local version=$1 aekit_side=$2 port server_opts client_opts tls
    port=$(free_port)
    if [ "$version" = 1.3 ]; then
        tls=(-tls1_3 -ciphersuites TLS_AES_256_GCM_SHA384:TLS_AES_128_GCM_SHA256)
    else
        tls=(-tls1_2 -cipher ECDHE-RSA-AES256-GCM-SHA384:ECDHE-RSA-AES128-GCM-SHA256)
    fi
    if [ "$aekit_side" = server ]; then
        server_opts=("${aekit[@]}"); client_opts=("${default[@]}")
    else
        server_opts=("${default[@]}"); client_opts=("${aekit[@]}")
    fi
    rm -f "$work/at_server" "$work/at_client"
    # The server sends its file and holds its input open until it has
    # received the client's (at its input's end s_server stops reading),
    # then serves until the client closes.
    # shellcheck disable=SC2094 # wait_for only reads the output's size
    { cat "$work/to_client"; wait_for "$work/at_server" "$bytes" 110 || true; } |
        timeout 120 openssl s_server -accept "127.0.0.1:$port" -naccept 1 -quiet \
            -cert "$work/cert.pem" -key "$work/key.pem" "${tls[@]}" "${server_opts[@]}" \
            >"$work/at_server" 2>"$work/server.err" &
    local server=$!
    pids+=("$server")
    listening "$port"
    # The client sends its file, waits for all of the server's, then its
    # input ends and it closes the connection.
    # shellcheck disable=SC2094 # as above
    { cat "$work/to_server"; wait_for "$work/at_client" "$bytes" 110 || true; } |
        timeout 120 openssl s_client -connect "127.0.0.1:$port" -quiet -no_ign_eof -nocommands \
            "${tls[@]}" "${client_opts[@]}" >"$work/at_client" 2>"$work/client.err" || true
    wait "$server" || true
    local got_s got_c
    got_s=$(sha256sum <"$work/at_server" | cut -c1-16)
    got_c=$(sha256sum <"$work/at_client" | cut -c1-16)
    if [ "$got_s" = "$(sha256sum <"$work/to_server" | cut -c1-16)" ] &&
        [ "$got_c" = "$(sha256sum <"$work/to_client" | cut -c1-16)" ]; then
        echo "ok   TLS $version, aekit on the $aekit_side: $mib MiB each way, hashes match ($got_s.., $got_c..)"
    else
        echo "FAIL TLS $version, aekit on the $aekit_side: received $(stat -c %s "$work/at_server") and $(stat -c %s "$work/at_client") of $bytes bytes"
        tail -n 5 "$work/server.err" "$work/client.err"
        return 1
    fi
}

for version in 1.3 1.2; do
    for side in server client; do
        exchange "$version" "$side"
    done
done

[ "$nginx_mib" -gt 0 ] || exit 0
for tool in nginx curl; do
    if ! command -v "$tool" >/dev/null; then
        echo "SKIP nginx: $tool is not installed"
        exit 0
    fi
done

# nginx, one process in the foreground, its CPU time read from /proc
# around one download.
cat >"$work/openssl-aekit.cnf" <<CNF
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
module = $dir/aekit.so
activate = 1

[evp_properties]
default_properties = ?provider=aekit
CNF
mkdir -p "$work/www" "$work/tmp"
head -c $((nginx_mib * 1024 * 1024)) /dev/urandom >"$work/www/big.bin"
want=$(sha256sum <"$work/www/big.bin" | cut -c1-16)

# CPU seconds (user + system) of process PID so far.
cpu_seconds() {
    awk -v hz="$(getconf CLK_TCK)" '{ printf "%.2f", ($14 + $15) / hz }' "/proc/$1/stat"
}

serve() {
    local label=$1 conf=$2 port before after got
    port=$(free_port)
    cat >"$work/nginx.conf" <<NGINX
daemon off;
master_process off;
worker_processes 1;
pid $work/nginx.pid;
error_log $work/nginx.err warn;
events { worker_connections 64; }
http {
    access_log off;
    client_body_temp_path $work/tmp; proxy_temp_path $work/tmp; fastcgi_temp_path $work/tmp;
    uwsgi_temp_path $work/tmp; scgi_temp_path $work/tmp;
    server {
        listen 127.0.0.1:$port ssl;
        ssl_certificate $work/cert.pem;
        ssl_certificate_key $work/key.pem;
        ssl_protocols TLSv1.3;
        ssl_conf_command Ciphersuites TLS_AES_256_GCM_SHA384;
        root $work/www;
    }
}
NGINX
    OPENSSL_CONF=$conf timeout 600 nginx -p "$work" -e "$work/nginx.err" -c "$work/nginx.conf" &
    local server=$!
    pids+=("$server")
    listening "$port"
    local nginx_pid
    nginx_pid=$(cat "$work/nginx.pid")
    # The configuration loads the module, or this is not the run it says.
    if [ "$conf" != /dev/null ] && ! grep -q '/aekit\.so$' "/proc/$nginx_pid/maps"; then
        echo "FAIL nginx $label: aekit.so is not loaded in the server"
        return 1
    fi
    before=$(cpu_seconds "$nginx_pid")
    got=$(env -u OPENSSL_CONF timeout 120 curl -sk --tlsv1.3 "https://127.0.0.1:$port/big.bin" | sha256sum | cut -c1-16)
    after=$(cpu_seconds "$nginx_pid")
    kill -QUIT "$nginx_pid"
    wait "$server" || true
    if [ "$got" != "$want" ]; then
        echo "FAIL nginx $label: the download's hash differs"
        tail -n 5 "$work/nginx.err"
        return 1
    fi
    awk -v b="$before" -v a="$after" -v m="$nginx_mib" -v l="$label" \
        'BEGIN { printf "ok   nginx %s: %d MiB over TLS 1.3 AES-256-GCM, hash matches; server CPU %.2f s, %.3f s per GiB\n", l, m, a - b, (a - b) * 1024 / m }'
}

# NGINX_ROUNDS (default 1) alternations of the two, for a shared machine.
for _ in $(seq "${NGINX_ROUNDS:-1}"); do
    serve "with aekit  " "$work/openssl-aekit.cnf"
    serve "default only" /dev/null
done
