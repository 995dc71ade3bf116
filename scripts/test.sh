#!/usr/bin/env bash
# Runs the whole test suite, built beforehand (`swift build --build-tests`), in
# several processes at once: what `make test` runs after its build.
#
#   scripts/test.sh [SHARDS]      SHARDS processes, default 4 (FIXTUREKIT_TEST_SHARDS)
#
# Swift Testing runs a process' tests on as many threads as the machine has cores,
# and a test that waits (for a program it started, a lock, a timeout) holds its
# thread meanwhile: on 2 cores, one process kept them about half busy. Each shard
# is the test binary run on some of the suites (every suite in exactly one shard,
# the slowest ones first, one per shard in turn), so that another shard's tests use
# a core while one waits. Each shard's output goes to .build/test-logs/shard-N.log;
# the script prints every failure and each shard's last line.
#
# Exit status: 0 every test passed, 1 a test failed, 2 could not run.
set -euo pipefail
# Job control: each shard in its own process group, and with SIGINT not ignored
# (a shell without it starts a background command with SIGINT ignored, and the
# tests that send SIGINT to the tool would see it ignored too).
set -m

shards=${1:-${FIXTUREKIT_TEST_SHARDS:-4}}
[[ $shards =~ ^[1-9][0-9]*$ ]] || { echo "test.sh: shards: $shards: not a positive number" >&2; exit 2; }
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck disable=SC2086 # SWIFT_FLAGS are words
bin="$(${SWIFT:-swift} build ${SWIFT_FLAGS:-} --show-bin-path)/fixturekitPackageTests.xctest"
[[ -x $bin ]] || { echo "test.sh: $bin: not built (run swift build --build-tests)" >&2; exit 2; }
logs=.build/test-logs
mkdir -p "$logs"
rm -f "$logs"/shard-*.log

# The suites that take longest (seconds of one core, measured on the debug build),
# placed first: a suite missing here (new, renamed) is placed after them.
slow=(
  FixtureKitTests.RealisticLeakScanTests FixtureKitTests.TortureTests FixtureKitTests.AnonymizeTests
  FixtureKitTests.StageProcessTests FixtureKitTests.AnonymizationAccelerationTests
  FixtureKitTests.ProgramKillProbeTests FixtureKitTests.UpgradeConcurrencyTests FixtureKitTests.LeakScanTests
  FixtureKitTests.AnonymizeHistoryTests FixtureKitTests.SparseEntryTests FixtureKitModelsTests.ProfileTallyTests
  FixtureKitTests.MigrateTests FixtureKitToolTests.HTMLFoldingTests FixtureKitTests.StreamTests
)
mapfile -t all < <("$bin" --testing-library swift-testing --list-tests 2>/dev/null | sed 's|/.*||' | sort -u)
[[ ${#all[@]} -gt 0 ]] || { echo "test.sh: $bin lists no test" >&2; exit 2; }
ordered=()
for suite in "${slow[@]}"; do
  for known in "${all[@]}"; do [[ $known == "$suite" ]] && ordered+=("$suite"); done
done
for suite in "${all[@]}"; do
  [[ " ${slow[*]} " == *" $suite "* ]] || ordered+=("$suite")
done

# Suite i goes to shard i mod SHARDS; each shard filters on its suites' names.
declare -a filters
for i in "${!ordered[@]}"; do
  shard=$((i % shards))
  filters[shard]+=" --filter ^${ordered[i]//./\\.}(/|\$)"
done

pids=()
trap 'kill -- $(printf -- "-%s " "${pids[@]}") 2>/dev/null; exit 130' INT TERM
for ((shard = 0; shard < shards; shard++)); do
  [[ -n ${filters[shard]:-} ]] || continue
  # shellcheck disable=SC2086 # the filters are words on purpose
  "$bin" --testing-library swift-testing ${filters[shard]} >"$logs/shard-$shard.log" 2>&1 &
  pids[shard]=$!
done
status=0
for shard in "${!pids[@]}"; do
  wait "${pids[shard]}" || status=1
done
for shard in "${!pids[@]}"; do
  log=$logs/shard-$shard.log
  grep -a '✘' "$log" || true
  echo "shard $shard: $(grep -a -E 'Test run with|error' "$log" | tail -n 1)"
done
[[ $status -eq 0 ]] || echo "test.sh: a shard failed; the whole output is in $logs/" >&2
exit "$status"
