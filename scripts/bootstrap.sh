#!/usr/bin/env bash
# Installs the Debian packages fixturekit needs that this machine lacks.
#
#   scripts/bootstrap.sh            build and test: compilers' libraries, sqlite3, archivers, chromium
#   scripts/bootstrap.sh bench      also the tools the benchmarks measure against
#
# Idempotent and silent when everything is already there. When something is
# missing and cannot be installed (not root and no sudo, or not Debian), it says
# which packages and exits 2.
set -euo pipefail

build_packages=(libsqlite3-dev libarchive-dev libssl-dev pkg-config)
# Peer tools the tests compare against: sha256sum (coreutils), shasum (perl),
# sqlite3, GNU tar and bsdtar, the compressors; headless Chromium and a font,
# which render `migrate --html`'s page in the tests; groff, zsh and fish, which
# check the manual page and the completion scripts; openssl, whose key the
# README's "your own app in five minutes" makes.
test_packages=(coreutils perl sqlite3 tar libarchive-tools zstd xz-utils gzip chromium fonts-dejavu-core groff zsh fish openssl)
bench_packages=(hyperfine time jq)

wanted=("${build_packages[@]}" "${test_packages[@]}")
case "${1:-}" in
  "") ;;
  bench) wanted+=("${bench_packages[@]}") ;;
  *) echo "usage: scripts/bootstrap.sh [bench]" >&2; exit 64 ;;
esac

missing=()
for package in "${wanted[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$package" 2>/dev/null || true)
  [[ "$status" == "installed" ]] || missing+=("$package")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

if ! command -v apt-get >/dev/null 2>&1; then
  echo "bootstrap: missing packages: ${missing[*]}: apt-get not found; install them by hand" >&2
  exit 2
fi
sudo=()
if [[ $(id -u) -ne 0 ]]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    sudo=(sudo -n)
  else
    echo "bootstrap: missing packages: ${missing[*]}: not root and no password-less sudo; run: sudo apt-get install ${missing[*]}" >&2
    exit 2
  fi
fi

echo "bootstrap: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
if ! "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null 2>&1; then
  # The package lists may be absent or stale on a fresh machine.
  "${sudo[@]}" apt-get update -qq >/dev/null 2>&1 || true
  if ! "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; then
    echo "bootstrap: could not install: ${missing[*]}" >&2
    exit 2
  fi
fi
