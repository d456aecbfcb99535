#!/usr/bin/env bash
# Installs the system packages the build and the test suites need, only when something is
# missing, so that a machine that has them (or a second `make test`) needs no network. Run as
# root (CI is root). The Makefile runs it before every `swift build` and `swift test`.
set -euo pipefail

missing=()
# The compression libraries SluiceCodecs links (its CZlib, CSnappy, CLZ4 and CZstd module maps
# include their headers), and pkg-config, which SwiftPM asks for their flags.
for package in zlib1g-dev libsnappy-dev liblz4-dev libzstd-dev pkg-config; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
command -v psql >/dev/null 2>&1 || missing+=(postgresql-client)
compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null || missing+=(postgresql)
command -v runuser >/dev/null 2>&1 || missing+=(util-linux)
command -v flock >/dev/null 2>&1 || missing+=(util-linux)
command -v kcat >/dev/null 2>&1 || missing+=(kcat)
# Apache Bench drives seed 002's game API (tests/e2e/test_seed_002.py) as the seed does.
command -v ab >/dev/null 2>&1 || missing+=(apache2-utils)
# pgjdbc and a JDK for tests/e2e/test_jdbc.py (tests/clients/jdbc/Metadata.java).
command -v javac >/dev/null 2>&1 || missing+=(openjdk-17-jdk-headless)
[ -f /usr/share/java/postgresql.jar ] || missing+=(libpostgresql-jdbc-java)
# The browser the dashboard's test drives with Playwright (tests/e2e/test_dashboard.py).
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
# curl with HTTP/2 (Debian's links nghttp2) for tests/e2e/test_http2.py's --http2-prior-knowledge.
{ command -v curl >/dev/null 2>&1 && curl -V | grep -q HTTP2; } || missing+=(curl)
# The certificates of the TLS tests and of `sluice bench security` are made by the openssl command.
command -v openssl >/dev/null 2>&1 || missing+=(openssl)
python3 -c 'import ensurepip, venv' >/dev/null 2>&1 || missing+=(python3-venv)
command -v python3 >/dev/null 2>&1 || missing+=(python3)
# Build dependencies: the system-library targets' headers (SluiceKafkaClient's CRdKafka).
[ -f /usr/include/librdkafka/rdkafka.h ] || missing+=(librdkafka-dev)
# libpq for SluicePostgresClient (the Postgres sinks and the CDC source).
[ -f /usr/include/postgresql/libpq-fe.h ] || missing+=(libpq-dev)
# OpenSSL's libcrypto for SluiceCrypto (S3 signatures, catalog tokens, sealed secrets).
[ -f /usr/include/openssl/evp.h ] || missing+=(libssl-dev)

if ((${#missing[@]} == 0)); then
    exit 0
fi
# De-duplicate.
mapfile -t missing < <(printf '%s\n' "${missing[@]}" | sort -u)
echo "installing system packages: ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
    echo "error: not root; install these packages first: ${missing[*]}" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
# policy-rc.d-free containers may fail to start the packaged cluster; we never use it (the
# harness runs its own server), so a failing service start is not an error here.
apt-get install -y -q --no-install-recommends "${missing[@]}"
