#!/usr/bin/env bash
# Runs the whole test suite, built beforehand (`swift build --build-tests`), in
# several processes at once: what `make test` runs after its build.
#
#   scripts/test.sh [PROCESSES]      default 4 (FIXTUREKIT_TEST_SHARDS)
#
# Swift Testing runs a process' tests on as many threads as the machine has cores,
# and a test that waits (for a program it started, a lock, a timeout) holds its
# thread meanwhile: on 2 cores, one process kept them about half busy. Here
# PROCESSES workers each run the test binary on a batch of suites, then on the next
# one (the slowest suites first, one at a time), so that another worker's tests use
# a core while one waits, and every suite runs exactly once. Each worker's output
# goes to .build/test-logs/shard-N.log; the script prints every failure and a total.
# The tests write their files in memory (/dev/shm) unless FIXTUREKIT_TEST_TMPDIR names
# another folder (FIXTUREKIT_TEST_TMPDIR=/tmp runs them on the disk).
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
# The tests' scratch folders: FIXTUREKIT_TEST_TMPDIR, else a fresh folder in /dev/shm
# (memory: nothing the tests write waits on the disk; a quarter of the suite's time was
# the kernel's writeback), else TMPDIR. Removed at the end, whatever a test left.
scratch_parent=${FIXTUREKIT_TEST_TMPDIR:-}
if [[ -z $scratch_parent && -d /dev/shm && -w /dev/shm ]]; then scratch_parent=/dev/shm; fi
scratch_parent=${scratch_parent:-${TMPDIR:-/tmp}}
scratch=$(mktemp -d "$scratch_parent/fixturekit-tests.XXXXXX") || { echo "test.sh: $scratch_parent: cannot create a folder" >&2; exit 2; }
# As /tmp is: tests that run the tool as another user reach their folders through it.
chmod 1777 "$scratch"
export TMPDIR=$scratch
trap 'rm -rf -- "$scratch"' EXIT
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
listed=$("$bin" --testing-library swift-testing --list-tests 2>/dev/null) || { echo "test.sh: $bin could not list its tests" >&2; exit 2; }
mapfile -t all < <(sed 's|/.*||' <<<"$listed" | sort -u)
[[ -n $listed && ${#all[@]} -gt 0 ]] || { echo "test.sh: $bin lists no test" >&2; exit 2; }
ordered=()
for suite in "${slow[@]}"; do
  for known in "${all[@]}"; do [[ $known == "$suite" ]] && ordered+=("$suite"); done
done
alone=${#ordered[@]}
for suite in "${all[@]}"; do
  [[ " ${slow[*]} " == *" $suite "* ]] || ordered+=("$suite")
done

# The queue: each slow suite alone, then the others in batches of 8. Each worker
# process takes the next batch when it is done with one (flock on the queue file).
queue=$scratch/queue # the run's own: two runs at once never share it
: >"$queue"
for i in "${!ordered[@]}"; do
  filter="--filter ^${ordered[i]//./\\.}(/|\$)"
  if ((i < alone)); then echo "$filter"; else printf '%s ' "$filter"; (((i - alone) % 8 == 7)) && echo; fi
done >>"$queue"
echo >>"$queue"
next() { # prints the next batch and removes it from the queue, or fails when none is left
  flock "$queue.lock" bash -c 'line=$(grep -m 1 . "$1") || exit 1; sed -i "0,/[^[:space:]]/{/[^[:space:]]/d}" "$1"; echo "$line"' _ "$queue"
}
worker() { # runs batches until the queue is empty; fails when a batch failed
  local failed=0 batch
  while batch=$(next); do
    # shellcheck disable=SC2086 # the filters are words on purpose
    "$bin" --testing-library swift-testing $batch || failed=1
  done
  return "$failed"
}

pids=()
trap 'kill -- $(printf -- "-%s " "${pids[@]}") 2>/dev/null; rm -rf -- "$scratch"; exit 130' INT TERM
for ((shard = 0; shard < shards; shard++)); do
  worker >"$logs/shard-$shard.log" 2>&1 &
  pids[shard]=$!
done
status=0
for shard in "${!pids[@]}"; do
  wait "${pids[shard]}" || status=1
done
grep -a -h '✘' "$logs"/shard-*.log || true
# Every batch's last line: "Test run with T tests in S suites passed after X seconds[ with N known issues]."
# Their tests add up to those the binary lists, or some ran twice or not at all.
grep -a -h -E 'Test run with [0-9]+ tests? in' "$logs"/shard-*.log | awk -v shards="$shards" -v listed="$(wc -l <<<"$listed")" '
  { tests += $5; suites += $8; if ($0 ~ /failed/) failed++; if (match($0, /with [0-9]+ known issue/)) known += substr($0, RSTART + 5, RLENGTH - 17) }
  END {
    printf "%d tests in %d suites, %d processes: %s%s\n", tests, suites, shards, failed ? failed " batches failed" : "passed", known ? ", " known " known issue" (known > 1 ? "s" : "") : ""
    if (tests != listed) { printf "test.sh: %d tests ran, the binary lists %d\n", tests, listed > "/dev/stderr"; exit 1 }
  }' || status=1
[[ $status -eq 0 ]] || echo "test.sh: a test failed; the whole output is in $logs/" >&2
exit "$status"
