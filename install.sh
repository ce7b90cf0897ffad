#!/bin/sh
# Installs the agent binary for this machine from a release directory (made by `bun run release`):
# detects the OS and CPU, downloads agent-<os>-<cpu>[-musl], refuses a binary whose SHA-256 is not the
# release's, and puts it in ~/.local/bin (or --dir DIR, or $AGENT_INSTALL_DIR). Only https, or plain
# http to this machine.
#
#   curl -fsSL <release location>/install.sh | sh
#   curl -fsSL <release location>/install.sh | sh -s -- --dir /usr/local/bin
#
# The checksums of the release this script was written for are in it (it came over https from the
# release's own location). AGENT_RELEASE_URL names another release: its SHA256SUMS must then carry a
# signature (SHA256SUMS.sig) by one of the release keys written in below, checked with OpenSSL 3.
set -eu

# Written by scripts/release.ts: the release this script installs, its binaries' SHA-256 (SHA256SUMS
# lines), and the release signing keys (key id, then the base64 DER public key) for AGENT_RELEASE_URL.
DEFAULT_RELEASE_URL=""
RELEASE_VERSION=""
RELEASE_SUMS=''
RELEASE_KEYS=''
NPM_PACKAGE="@agent-runtime/agent"

fail() {
  printf 'agent install: %s\n' "$*" >&2
  exit 1
}

usage() {
  printf 'usage: install.sh [--dir DIR]\n  installs agent %s into DIR (default: $AGENT_INSTALL_DIR or ~/.local/bin)\n  from $AGENT_RELEASE_URL (default: %s)\n' "${RELEASE_VERSION:-}" "${DEFAULT_RELEASE_URL:-none}"
}

dir="${AGENT_INSTALL_DIR:-${HOME:-}/.local/bin}"
while [ $# -gt 0 ]; do
  case "$1" in
    --dir) [ $# -ge 2 ] || fail "--dir needs a directory"; dir="$2"; shift 2 ;;
    --dir=*) dir="${1#--dir=}"; shift ;;
    -h|--help) usage; exit 0 ;;
    *) fail "unknown option '$1' (usage: install.sh [--dir DIR])" ;;
  esac
done

url="${AGENT_RELEASE_URL:-$DEFAULT_RELEASE_URL}"
[ -n "$url" ] || fail "no release location: set AGENT_RELEASE_URL to a release directory (the one holding SHA256SUMS and the agent-<platform> binaries)"
url="${url%/}"

# Plain http only to this machine: anyone on the path could otherwise hold back or swap what is fetched.
case "$url" in
  https://*) ;;
  http://*)
    host="${url#http://}"; host="${host%%/*}"; host="${host##*@}"
    case "$host" in
      \[::1\]|\[::1\]:*) ;;
      *)
        host="${host%:*}"
        case "$host" in
          localhost) ;;
          *[!0-9.]*) fail "refusing $url: plain http is allowed only to this machine (localhost, 127.0.0.1, [::1]); use https" ;;
          127.*) ;;
          *) fail "refusing $url: plain http is allowed only to this machine (localhost, 127.0.0.1, [::1]); use https" ;;
        esac
        ;;
    esac
    ;;
  *) fail "refusing $url: only https (or http to this machine) is allowed" ;;
esac

os_name="$(uname -s)"
cpu_name="$(uname -m)"
case "$os_name" in
  Linux) os=linux ;;
  Darwin) os=darwin ;;
  MINGW*|MSYS*|CYGWIN*|Windows_NT) fail "this script installs on Linux and macOS; on Windows install with npm: npm install -g $NPM_PACKAGE" ;;
  *) fail "agent has no build for the operating system '$os_name' (builds exist for Linux and macOS, x64 and arm64, and Windows x64 through npm)" ;;
esac
case "$cpu_name" in
  x86_64|amd64) cpu=x64 ;;
  aarch64|arm64) cpu=arm64 ;;
  *) fail "agent has no build for the processor '$cpu_name' on $os_name (builds exist for x64 and arm64)" ;;
esac
# An x64 shell under Rosetta on Apple silicon gets the native build.
if [ "$os" = darwin ] && [ "$cpu" = x64 ] && [ "$(sysctl -n sysctl.proc_translated 2>/dev/null || true)" = 1 ]; then
  cpu=arm64
fi
libc=""
if [ "$os" = linux ] && ! getconf GNU_LIBC_VERSION >/dev/null 2>&1 && ls /lib/ld-musl-*.so.1 >/dev/null 2>&1; then
  libc="-musl"
fi
key="$os-$cpu$libc"
file="agent-$key"

# fetch URL FILE: 0 when FILE holds URL's body. Redirects may not leave https.
fetch() {
  if command -v curl >/dev/null 2>&1; then
    curl -fsSL --retry 2 --proto-redir =https -o "$2" "$1"
  elif command -v wget >/dev/null 2>&1; then
    wget -q -O "$2" "$1"
  else
    fail "neither curl nor wget is installed"
  fi
}

download() {
  fetch "$1" "$2" || fail "cannot download $1"
}

sha256() {
  if command -v sha256sum >/dev/null 2>&1; then sha256sum "$1" | cut -d ' ' -f 1
  elif command -v shasum >/dev/null 2>&1; then shasum -a 256 "$1" | cut -d ' ' -f 1
  elif command -v openssl >/dev/null 2>&1; then openssl dgst -sha256 -r "$1" | cut -d ' ' -f 1
  else fail "no SHA-256 tool (sha256sum, shasum or openssl) to check the download with"
  fi
}

work="$(mktemp -d 2>/dev/null || mktemp -d -t agent-install)"
staged=""
cleanup() {
  rm -rf "$work"
  if [ -n "$staged" ]; then rm -f "$staged"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# verify_sums: SHA256SUMS must be signed by one of RELEASE_KEYS (Ed25519, checked with OpenSSL 3).
verify_sums() {
  fetch "$url/SHA256SUMS.sig" "$work/SHA256SUMS.sig" 2>/dev/null || fail "$url/SHA256SUMS is not signed (cannot download $url/SHA256SUMS.sig); nothing was installed"
  command -v openssl >/dev/null 2>&1 || fail "openssl (3.0 or newer) is needed to check the signature of $url/SHA256SUMS; install it, or run that release's own install.sh (its checksums are built in): curl -fsSL $url/install.sh | sh"
  signers=""
  while read -r kind id signature; do
    [ "$kind" = ed25519 ] || continue
    signers="$signers $id"
    public_key="$(printf '%s\n' "$RELEASE_KEYS" | awk -v id="$id" '$1 == id { print $2 }')"
    [ -n "$public_key" ] || continue
    printf -- '-----BEGIN PUBLIC KEY-----\n%s\n-----END PUBLIC KEY-----\n' "$public_key" > "$work/key.pem"
    openssl pkey -pubin -in "$work/key.pem" -noout >/dev/null 2>&1 || fail "this openssl ($(openssl version 2>/dev/null)) cannot read Ed25519 keys; OpenSSL 3.0 or newer is needed to check $url/SHA256SUMS"
    printf '%s' "$signature" | openssl base64 -d -A > "$work/signature.bin" 2>/dev/null || true
    if openssl pkeyutl -verify -pubin -inkey "$work/key.pem" -rawin -in "$work/SHA256SUMS" -sigfile "$work/signature.bin" >/dev/null 2>&1; then
      return 0
    fi
    fail "the signature of $url/SHA256SUMS by key $id does not match it (changed after it was signed, or this openssl cannot check Ed25519: OpenSSL 3.0 or newer can); nothing was installed"
  done < "$work/SHA256SUMS.sig"
  fail "$url/SHA256SUMS is signed by key${signers:- (none)}, which this install.sh does not trust; nothing was installed"
}

if [ -z "${AGENT_RELEASE_URL:-}" ] && [ -n "$RELEASE_SUMS" ]; then
  printf '%s\n' "$RELEASE_SUMS" > "$work/SHA256SUMS"
  sums_from="this install.sh says"
else
  [ -n "$RELEASE_KEYS" ] || fail "this install.sh holds no release keys, so it cannot check $url; run that release's own install.sh: curl -fsSL $url/install.sh | sh"
  download "$url/SHA256SUMS" "$work/SHA256SUMS"
  verify_sums
  sums_from="the signed SHA256SUMS says"
fi
expected="$(awk -v f="$file" '$2 == f || $2 == "*" f { print $1 }' "$work/SHA256SUMS")"
if [ -z "$expected" ]; then
  builds="$(awk '{ sub(/^\*/, "", $2); sub(/^agent-/, "", $2); sub(/\.exe$/, "", $2); printf "%s%s", sep, $2; sep=", " }' "$work/SHA256SUMS")"
  fail "this release has no build for $key (it has: $builds)"
fi

printf 'downloading %s/%s\n' "$url" "$file"
download "$url/$file" "$work/$file"
actual="$(sha256 "$work/$file")"
if [ "$actual" != "$expected" ]; then
  fail "the download's SHA-256 is $actual, not $expected as $sums_from; nothing was installed"
fi
# Executable only now that its checksum matched.
chmod 755 "$work/$file"
printed="$("$work/$file" --version 2>&1)" || fail "the downloaded binary does not run on this machine ($printed); nothing was installed"

mkdir -p "$dir" || fail "cannot create $dir"
# Stage beside the target, then rename: the old binary (if any) is replaced in one step.
staged="$dir/.agent-install.$$"
cp "$work/$file" "$staged" || fail "cannot write in $dir"
chmod 755 "$staged"
mv -f "$staged" "$dir/agent" || fail "cannot replace $dir/agent"
staged=""
printf 'installed %s to %s/agent\n' "$printed" "$dir"

case ":${PATH:-}:" in
  *":$dir:"*) printf 'run: agent\n' ;;
  *)
    case "${SHELL:-}" in
      */zsh) rc="~/.zshrc" ;;
      */bash) rc="~/.bashrc" ;;
      */fish) rc="" ;;
      *) rc="~/.profile" ;;
    esac
    printf '%s is not on your PATH. ' "$dir"
    if [ -n "$rc" ]; then
      printf 'Add it (then open a new terminal):\n  echo '\''export PATH="%s:$PATH"'\'' >> %s\n' "$dir" "$rc"
    else
      printf 'Add it (then open a new terminal):\n  fish_add_path %s\n' "$dir"
    fi
    ;;
esac
