#!/usr/bin/env bash
# What CI runs before the tests of a release: every fixture and archive of the
# corpus verified (checksums, store sets, a temporary copy of each store through
# SQLite), then the migration matrix, with a JUnit report for the CI's test view.
#
#   scripts/ci-verify.sh [CONFIG] [JUNIT]
#
# CONFIG defaults to MigrationFixtures/fixturekit.json, JUNIT to
# build/fixturekit-junit.xml. SHARD=I/N splits the matrix across CI machines.
# Exit status: 0 everything holds, 1 a check failed, 2 could not run.
set -euo pipefail
config=${1:-MigrationFixtures/fixturekit.json}
junit=${2:-build/fixturekit-junit.xml}
tool=${FIXTUREKIT:-fixturekit}
mkdir -p "$(dirname "$junit")"

"$tool" verify --deep "$(dirname "$config")"
shard=()
if [[ -n "${SHARD:-}" ]]; then shard=(--shard "$SHARD"); fi
"$tool" migrate --config "$config" --junit "$junit" "${shard[@]}"
