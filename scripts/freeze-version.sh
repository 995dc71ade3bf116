#!/usr/bin/env bash
# Freezes the store of a shipped version into the corpus: capture (snapshot),
# anonymization with the corpus' rules, manifest, SHA256SUMS and the archive with
# its .sha256, in one step. Copy it into a release pipeline.
#
#   scripts/freeze-version.sh STORE VERSION [CONFIG]
#
# STORE is the app's store, e.g. a simulator container's
#   ~/Library/Developer/CoreSimulator/Devices/<device>/data/Containers/Data/Application/<app>/Library/Application Support/App.sqlite
# (its -wal and -shm are read with it: nothing committed is lost); CONFIG defaults
# to MigrationFixtures/fixturekit.json. The key of the anonymization rules comes
# from the environment variable the rules name (FIXTUREKIT_ANON_KEY by default).
# Prints `<sha256>  <archive>`; commit the fixture folder and the archive.
set -euo pipefail
if [[ $# -lt 2 || $# -gt 3 ]]; then
  echo "usage: scripts/freeze-version.sh STORE VERSION [CONFIG]" >&2
  exit 64
fi
store=$1 version=$2 config=${3:-MigrationFixtures/fixturekit.json}
tool=${FIXTUREKIT:-fixturekit}
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-0}

"$tool" freeze "$store" --version "$version" --config "$config"
corpus=$(dirname "$config")
"$tool" verify --deep "$corpus/$version"
