#!/bin/sh
# Installs the agent binary for this machine from a release directory (made by `bun run release`):
# detects the OS and CPU, downloads agent-<os>-<cpu>[-musl] and SHA256SUMS, refuses a binary whose
# SHA-256 does not match, and puts it in ~/.local/bin (or --dir DIR, or $AGENT_INSTALL_DIR).
#
#   curl -fsSL <release location>/install.sh | sh
#   curl -fsSL <release location>/install.sh | sh -s -- --dir /usr/local/bin
#
# AGENT_RELEASE_URL overrides the release location written in by the release script.
set -eu

# Written by scripts/release.ts: the release this script installs.
DEFAULT_RELEASE_URL=""
RELEASE_VERSION=""
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

download() {
  if command -v curl >/dev/null 2>&1; then
    curl -fsSL --retry 2 -o "$2" "$1" || fail "cannot download $1"
  elif command -v wget >/dev/null 2>&1; then
    wget -q -O "$2" "$1" || fail "cannot download $1"
  else
    fail "neither curl nor wget is installed"
  fi
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

download "$url/SHA256SUMS" "$work/SHA256SUMS"
expected="$(awk -v f="$file" '$2 == f || $2 == "*" f { print $1 }' "$work/SHA256SUMS")"
if [ -z "$expected" ]; then
  builds="$(awk '{ sub(/^\*/, "", $2); sub(/^agent-/, "", $2); sub(/\.exe$/, "", $2); printf "%s%s", sep, $2; sep=", " }' "$work/SHA256SUMS")"
  fail "this release has no build for $key (it has: $builds)"
fi

printf 'downloading %s/%s\n' "$url" "$file"
download "$url/$file" "$work/$file"
actual="$(sha256 "$work/$file")"
if [ "$actual" != "$expected" ]; then
  fail "the download's SHA-256 is $actual, not $expected as SHA256SUMS says; nothing was installed"
fi
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
