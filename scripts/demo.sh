#!/usr/bin/env bash
# The main job on the example corpus, as CI runs it before a release: verify every
# fixture (checksums, store sets, and a temporary copy of each store through
# SQLite), then migrate every supported version to the current one and report.
#
#   scripts/demo.sh [TOOL]        TOOL defaults to .build/release/fixturekit
set -euo pipefail
cd "$(dirname "$0")/.."
tool=${1:-.build/release/fixturekit}
report=$(mktemp -d)
trap 'rm -rf "$report"' EXIT

echo "\$ fixturekit verify --deep MigrationFixtures"
"$tool" verify --deep MigrationFixtures
echo
echo "\$ fixturekit migrate --config MigrationFixtures/fixturekit.json --junit report.xml"
"$tool" migrate --config MigrationFixtures/fixturekit.json --junit "$report/report.xml"
echo
echo "demo: every fixture verifies and every path of the matrix passes; JUnit: $(grep -c '<testcase' "$report/report.xml") testcases"
