#!/usr/bin/env bash
# Benchmark of `fixturekit migrate` at three sizes of the same fixture (about 60,
# 240 and 480 MiB): the same schema and stage, business keys
# declared in fixturekit.json that no index backs.
#
#   bench/bench-migrate-scale.sh BIN      BIN: the release binary, e.g. .build/release/fixturekit
#
# The corpora are built once under bench/work/scale-N/ (bench/migrate-scale/corpus.sh
# says how) and reused while they verify. FIXTUREKIT_BENCH_SCALE_NOTES="N1 N2 N3"
# sets their numbers of notes (default 173000 692000 1384000: about 60, 240 and 480 MiB).
#
# One hyperfine run of `fixturekit migrate --config CORPUS/fixturekit.json --jobs 1
# --json` on each corpus (its verify, copies, stage, checks and value diff), under
# GNU time for the peak RSS, each report appended to a file so that the figures
# come from the runs timed. Before each run its temporary folder is emptied and
# `sync` run, outside the timing; the fixtures are read from the page cache.
#
# Requirements (the scale issue): the time per MiB at the largest size at most
# 1.3x the time per MiB at the smallest; peak RSS under 200 MiB at every size.
#
# Exit status: 0 every requirement holds, 1 a requirement failed, 2 could not run,
# 64 usage error.
set -euo pipefail
export LC_ALL=C

readonly max_per_mib_ratio=1.3 # time per MiB, largest / smallest
readonly max_rss_mib=200
readonly warmup=1 runs=3
readonly warm_memory_mib=2048 # freed before every run: see warm_memory_command in lib.sh

# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bench_init bench-migrate-scale "$@"
require_tools hyperfine sqlite3 jq sha256sum python3
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=bench/migrate-scale/corpus.sh
source bench/migrate-scale/corpus.sh

read -r -a notes_counts <<<"${FIXTUREKIT_BENCH_SCALE_NOTES:-173000 692000 1384000}"
[[ ${#notes_counts[@]} -eq 3 ]] || die "FIXTUREKIT_BENCH_SCALE_NOTES: three numbers of notes expected"
readonly out_dir=bench/work/scale-out results=bench/results
mkdir -p "$out_dir" "$results"
private_binary "$out_dir"

migrate_bench_facts

corpora=() sizes=() commands=() prepares=()
for index in 0 1 2; do
  corpus=bench/work/scale-${notes_counts[$index]}
  scale_corpus "$corpus" "${notes_counts[$index]}"
  corpora+=("$corpus")
  sizes+=("$(size_of "$corpus/1.0.0/App.sqlite")")
  tmp=$out_dir/tmp-$index
  : >"$results/scale-runs-$index.json"
  : >"$results/scale-rss-$index.txt"
  commands+=(-n "migrate $(mib_of "${sizes[$index]}") MiB"
    "TMPDIR=$(quote "$tmp") /usr/bin/time -f %M -a -o $(quote "$results/scale-rss-$index.txt") $(quote "$bin") migrate --config $(quote "$corpus/fixturekit.json") --jobs 1 --json >>$(quote "$results/scale-runs-$index.json") 2>>$(quote "$results/scale-runs-$index.log")")
  prepares+=(--prepare "rm -rf $(quote "$tmp") && mkdir -p $(quote "$tmp") && sync")
done
for index in 0 1 2; do echo "corpus: ${corpora[$index]}/1.0.0/App.sqlite: $(mib_of "${sizes[$index]}") MiB (${sizes[$index]} bytes)"; done
warm_page_cache "${corpora[@]}"
echo

run_hyperfine scale "$warmup" "$runs" "${prepares[@]}" "${commands[@]}"
load_after=$(load_now)
rm -rf -- "$out_dir"/tmp-*
echo

# Each report: its one path passed; the split of the last timed run.
for index in 0 1 2; do
  jq -e -s 'all(.[]; .paths | length == 1 and all(.passed))' "$results/scale-runs-$index.json" >/dev/null ||
    die "a run of fixturekit migrate on ${corpora[$index]} did not pass (see $results/scale-runs-$index.json)"
done

{
  echo "summary (mean of $runs interleaved rounds after $warmup warm-up round; fixtures in the page cache; load average $load_before before, $load_after after):"
  printf '  %-10s %10s %12s %14s %14s\n' "fixture" "MiB" "migrate [s]" "s per MiB" "peak RSS [MiB]"
  per_mib=()
  worst_rss=0
  for index in 0 1 2; do
    mean=$(mean_of "$results/scale.csv" $((index + 1)))
    mib=$(awk -v b="${sizes[$index]}" 'BEGIN { printf "%.3f", b / 1048576 }')
    per_mib+=("$(awk -v t="$mean" -v m="$mib" 'BEGIN { printf "%.5f", t / m }')")
    rss_kib=$(sort -n "$results/scale-rss-$index.txt" | tail -n 1)
    ((rss_kib > worst_rss)) && worst_rss=$rss_kib
    printf '  %-10s %10.1f %12.3f %14s %14.1f\n' "${notes_counts[$index]}" "$mib" "$mean" "${per_mib[$index]}" "$(awk -v k="$rss_kib" 'BEGIN { print k / 1024 }')"
  done
  echo "  where the time of the largest went (its last run's --json, seconds):"
  jq -r -s '.[-1].paths[0].checks[] | select(.seconds != null) | "    \(.name): \(.seconds * 1000 | round / 1000)"' "$results/scale-runs-2.json"
  ratio_per_mib=$(ratio "${per_mib[2]}" "${per_mib[0]}")
  ratio_middle=$(ratio "${per_mib[1]}" "${per_mib[0]}")
  scale_verdict=$(verdict "$ratio_per_mib" "<=" "$max_per_mib_ratio")
  rss_verdict=$(verdict "$worst_rss" "<" "$((max_rss_mib * 1024))")
  echo
  echo "requirements:"
  printf '  %s  time per MiB at %s MiB / at %s MiB: %sx (required <= %sx; at %s MiB: %sx)\n' "$scale_verdict" \
    "$(mib_of "${sizes[2]}")" "$(mib_of "${sizes[0]}")" "$ratio_per_mib" "$max_per_mib_ratio" "$(mib_of "${sizes[1]}")" "$ratio_middle"
  printf '  %s  peak RSS of fixturekit migrate: %s MiB, the largest of every run at every size (required < %s MiB)\n' "$rss_verdict" \
    "$(awk -v k="$worst_rss" 'BEGIN { printf "%.1f", k / 1024 }')" "$max_rss_mib"
} | tee "$results/scale-summary.txt"

grep -q '^  FAIL' "$results/scale-summary.txt" && exit 1
exit 0
