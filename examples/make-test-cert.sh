#!/usr/bin/env bash
# Makes the self-signed test certificate examples/web-config.yml names (examples/tls/server.crt and .key).
# For trying TLS on this machine only: a real deployment uses a certificate its Prometheus trusts.
set -euo pipefail
command -v openssl >/dev/null || { echo "make-test-cert: openssl is not on PATH (apt-get install openssl)" >&2; exit 1; }
dir="$(cd "$(dirname "$0")" && pwd)/tls"
mkdir -p "$dir"
# RSA, so the ECDHE-RSA suites a node_exporter web config may name apply; 30 days, for localhost only.
openssl req -x509 -newkey rsa:2048 -nodes -days 30 -subj "/CN=localhost" \
  -addext "subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1" \
  -keyout "$dir/server.key" -out "$dir/server.crt" 2>/dev/null
chmod 600 "$dir/server.key"
echo "wrote $dir/server.crt and $dir/server.key (self-signed, localhost, 30 days)"
