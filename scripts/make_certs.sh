#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Creates a certificate authority and one certificate per party for the network engine's mutual
# TLS (runtime/README.md, "The network engine"): each party's certificate carries its party id
# as its only subject alternative name (DNS), which is how its peers identify it.
#
# Usage: scripts/make_certs.sh OUT_DIR PARTY_ID...
#   OUT_DIR/ca.pem, ca.key            the CA (keep ca.key offline in a real deployment)
#   OUT_DIR/PARTY_ID.pem, PARTY_ID.key  one per party (keys mode 0600)
# With --test (first argument) it also writes, for the tests of refusals:
#   OUT_DIR/expired.pem, expired.key   the first party's id, from our CA, expired in 2020
#   OUT_DIR/foreign-ca.pem             another CA, and foreign.pem/.key: the first party's id
#                                      signed by it
#   OUT_DIR/mallory.pem, mallory.key   our CA, id "mallory" (not a party of any test run)
# Keys are EC P-256; certificates are valid for 30 days (10 years for the CA).
set -euo pipefail
test_extras=0
if [ "${1:-}" = --test ]; then
  test_extras=1
  shift
fi
if [ $# -lt 2 ]; then
  echo "usage: $0 [--test] OUT_DIR PARTY_ID..." >&2
  exit 2
fi
out=$1
shift
for id in "$@" mallory; do
  if ! [[ $id =~ ^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$ ]]; then
    echo "$0: party id '$id' must be 1-63 of a-z, 0-9, '-' (not first or last)" >&2
    exit 2
  fi
done
mkdir -p "$out"
umask 077
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

make_ca() {  # name
  openssl req -x509 -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
    -keyout "$out/$1.key" -out "$out/$1.pem" -days 3650 -subj "/CN=dpadmm $1" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
    2>/dev/null
}

# party certificate: name id ca [startdate enddate]
make_cert() {
  local name=$1 id=$2 ca=$3
  openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
    -keyout "$out/$name.key" -out "$work/$name.csr" -subj "/CN=$id" 2>/dev/null
  cat >"$work/$name.ext" <<EXT
basicConstraints=critical,CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=serverAuth,clientAuth
subjectAltName=DNS:$id
EXT
  if [ $# -ge 5 ]; then
    # Fixed dates need `openssl ca` (`x509 -req` only counts days from now).
    mkdir -p "$work/db"
    : >"$work/db/index.txt"
    echo 01 >"$work/db/serial"
    cat >"$work/ca.cnf" <<CNF
[ca]
default_ca = test_ca
[test_ca]
database = $work/db/index.txt
serial = $work/db/serial
new_certs_dir = $work/db
default_md = sha256
policy = any
copy_extensions = none
[any]
commonName = supplied
CNF
    openssl ca -batch -config "$work/ca.cnf" -cert "$out/$ca.pem" -keyfile "$out/$ca.key" \
      -in "$work/$name.csr" -out "$out/$name.pem" -startdate "$4" -enddate "$5" \
      -extfile "$work/$name.ext" -notext 2>/dev/null
  else
    openssl x509 -req -in "$work/$name.csr" -CA "$out/$ca.pem" -CAkey "$out/$ca.key" \
      -CAcreateserial -CAserial "$work/$ca.srl" -out "$out/$name.pem" -days 30 -sha256 \
      -extfile "$work/$name.ext" 2>/dev/null
  fi
  chmod 600 "$out/$name.key"
}

make_ca ca
for id in "$@"; do make_cert "$id" "$id" ca; done
if [ $test_extras -eq 1 ]; then
  make_cert mallory mallory ca
  make_cert expired "$1" ca 20200101000000Z 20200201000000Z
  make_ca foreign-ca
  make_cert foreign "$1" foreign-ca
fi
chmod 644 "$out"/*.pem
echo "certificates for: $* in $out" >&2
