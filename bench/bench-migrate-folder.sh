#!/usr/bin/env bash
# Benchmark of a folder stage's transactions: each migration file in a transaction
# of its own (`"transaction": "each file"`, the default) against the whole stage in
# one (`"whole stage"`), on a fixture of about 500 MiB.
#
#   bench/bench-migrate-folder.sh BIN      BIN: the release binary, e.g. .build/release/fixturekit
#
# The corpus is bench-migrate-scale's (bench/migrate-scale/corpus.sh), built once
# under bench/work/folder-N/ with N notes (FIXTUREKIT_BENCH_FOLDER_NOTES, default
# 1440000: about 500 MiB) and reused while it verifies. Two corpora are made beside
# it, bench/work/folder-N-each-file/ and folder-N-whole-stage/, with its fixtures
# hard-linked and one stage, the folder bench/migrate-folder/ (copied into their
# migrations/folder/): the same statements as the scale stage, one step a file
# (notes rewritten, its index, tags rewritten, user_version), with "transaction":
# "each file" in the first and "whole stage" in the second.
#
# One hyperfine run of `fixturekit migrate --config CONFIG --jobs 1 --json` with each
# configuration, side by side, each report appended to a file, so that the stage's
# own time (`paths[].checks[]` "stage 1.0.0 -> 2.0.0", its `seconds`) comes from the
# runs timed. Before each run its temporary folder is emptied and `sync` run,
# outside the timing; the fixtures are read from the page cache.
#
# Requirement (the stage connection issue): the stage with each file in its own
# transaction takes at most 1.1x the time of the same stage in one transaction
# (means of the stage's own seconds). The whole runs' ratio is reported.
#
# Exit status: 0 the requirement holds, 1 it failed, 2 could not run, 64 usage error.
set -euo pipefail
export LC_ALL=C

readonly max_ratio=1.1 # the stage's time, each file / whole stage
readonly warmup=1 runs=5
readonly warm_memory_mib=2048 # freed before every run: see warm_memory_command in lib.sh

# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bench_init bench-migrate-folder "$@"
require_tools hyperfine sqlite3 jq sha256sum python3
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=bench/migrate-scale/corpus.sh
source bench/migrate-scale/corpus.sh

notes=${FIXTUREKIT_BENCH_FOLDER_NOTES:-1440000}
[[ $notes =~ ^[1-9][0-9]*$ ]] || die "FIXTUREKIT_BENCH_FOLDER_NOTES: a number of notes expected"
readonly corpus=bench/work/folder-$notes out_dir=bench/work/folder-out results=bench/results
mkdir -p "$out_dir" "$results"
private_binary "$out_dir"

migrate_bench_facts

scale_corpus "$corpus" "$notes"
modes=("each file" "whole stage")
commands=() prepares=()
for index in 0 1; do
  # A corpus per mode: the fixtures hard-linked (fixturekit never writes them), the
  # folder stage, and no lock (the scale corpus' pins its own stage).
  derived=$corpus-${modes[$index]// /-}
  config=$derived/fixturekit.json
  rm -rf -- "${derived:?}"
  mkdir -p "$derived/migrations"
  cp -al -- "$corpus/1.0.0" "$corpus/2.0.0" "$derived/" || die "cannot link the fixtures into $derived"
  cp -R -- bench/migrate-folder "$derived/migrations/folder"
  jq --arg mode "${modes[$index]}" '.stages[0] = {"from": "1.0.0", "to": "2.0.0", "folder": "migrations/folder", "transaction": $mode}' \
    <"$corpus/fixturekit.json" >"$config" || die "cannot write $config"
  tmp=$out_dir/tmp-$index
  : >"$results/folder-runs-$index.json"
  commands+=(-n "${modes[$index]}"
    "TMPDIR=$(quote "$tmp") $(quote "$bin") migrate --config $(quote "$config") --jobs 1 --json >>$(quote "$results/folder-runs-$index.json") 2>>$(quote "$results/folder-runs-$index.log")")
  prepares+=(--prepare "rm -rf $(quote "$tmp") && mkdir -p $(quote "$tmp") && sync")
done
size=$(size_of "$corpus/1.0.0/App.sqlite")
echo "corpus: $corpus/1.0.0/App.sqlite: $(mib_of "$size") MiB ($size bytes); stage: $(find bench/migrate-folder -name '*.sql' | wc -l) files"
warm_page_cache "$corpus" "$corpus"-each-file "$corpus"-whole-stage
echo

run_hyperfine folder "$warmup" "$runs" "${prepares[@]}" "${commands[@]}"
load_after=$(load_now)
rm -rf -- "$out_dir"/tmp-*
echo

stage_seconds=()
for index in 0 1; do
  jq -e -s 'all(.[]; .paths | length == 1 and all(.passed))' "$results/folder-runs-$index.json" >/dev/null ||
    die "a run of fixturekit migrate (${modes[$index]}) did not pass (see $results/folder-runs-$index.json)"
  # The stage's mean over the timed runs (the warm-up's report is the first).
  stage_seconds+=("$(jq -s --argjson skip "$warmup" '[.[$skip:][] | .paths[0].checks[] | select(.name == "stage 1.0.0 -> 2.0.0") | .seconds] | add / length' \
    "$results/folder-runs-$index.json")")
done

{
  echo "summary (mean of $runs interleaved rounds after $warmup warm-up round; fixtures in the page cache; load average $load_before before, $load_after after):"
  printf '  %-12s %12s %12s\n' "transaction" "migrate [s]" "stage [s]"
  for index in 0 1; do
    printf '  %-12s %12.3f %12.3f\n' "${modes[$index]}" "$(mean_of "$results/folder.csv" $((index + 1)))" "${stage_seconds[$index]}"
  done
  stage_ratio=$(ratio "${stage_seconds[0]}" "${stage_seconds[1]}")
  run_ratio=$(ratio "$(mean_of "$results/folder.csv" 1)" "$(mean_of "$results/folder.csv" 2)")
  echo
  echo "requirements:"
  printf '  %s  the stage, each file in its own transaction / in one transaction: %sx (required <= %sx; whole runs: %sx) at %s MiB\n' \
    "$(verdict "$stage_ratio" "<=" "$max_ratio")" "$stage_ratio" "$max_ratio" "$run_ratio" "$(mib_of "$size")"
} | tee "$results/folder-summary.txt"

grep -q '^  FAIL' "$results/folder-summary.txt" && exit 1
exit 0
