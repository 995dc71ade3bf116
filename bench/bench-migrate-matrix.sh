#!/usr/bin/env bash
# Benchmark of the migration matrix of a large corpus: 20 versions, each adding a
# column or a table to the previous one (bench/migrate-matrix/), every supported
# version to the current one and every stage on its own: 19 paths and 18 hops.
#
#   bench/bench-migrate-matrix.sh BIN     BIN: the release binary, e.g. .build/release/fixturekit
#
# The corpus, built once under bench/work/matrix-corpus/ and reused while it
# verifies: 1.0.0 filled by sqlite3 (FIXTUREKIT_BENCH_MATRIX_NOTES notes, default
# 40000: about 12 MiB), captured with `fixturekit capture`; each next version is
# the previous store taken through its stage, captured the same way.
#
# One hyperfine run (each command's temporary folder emptied and `sync` run before
# each run, outside the timing; the fixtures in the page cache), every command
# with `--json`, its reports kept:
#   (a) `fixturekit migrate --jobs 1`: the paths one after the other;
#   (b) `fixturekit migrate --jobs 2`;
#   (c) `fixturekit migrate --jobs 1 --shard I/4`, I from 1 to 4: four CI machines.
#
# Requirements (the scale issue): (b) at most 1.2x the sum of the paths' times
# (from (a)'s reports) divided by 2; the slowest share of (c) at most 1.5x the
# fastest. For the record: the shares round-robin would have made, from the same
# paths' times.
#
# In the same hyperfine run, for the record (no requirement): what two processes
# side by side cost on this machine without fixturekit. (f) two sqlite3 shells,
# each taking its own copy of 1.0.0 through the 19 stages (one transaction each) and
# an integrity_check, one after the other; (g) the same two side by side. (g) over
# (f) / 2 is the machine's own factor for two jobs, to read (b)'s ratio against.
# Then a second hyperfine run, the same way: (d) `fixturekit lint`, (e) `migrate
# --jobs 1 --no-lint`. Requirement (the lint's issue): (d) at most 1.5x (e); (a)
# over (e), the cost of migrate's default lint check, is reported.
#
# Exit status: 0 every requirement holds, 1 a requirement failed, 2 could not run,
# 64 usage error.
set -euo pipefail
export LC_ALL=C

readonly max_jobs_ratio=1.2 max_share_ratio=1.5 max_lint_ratio=1.5
readonly warmup=1 runs=3
readonly warm_memory_mib=2048 # freed before every run: see warm_memory_command in lib.sh
readonly versions=20

# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bench_init bench-migrate-matrix "$@"
require_tools hyperfine sqlite3 jq sha256sum python3
cd "$(dirname "${BASH_SOURCE[0]}")/.."

readonly notes=${FIXTUREKIT_BENCH_MATRIX_NOTES:-40000}
readonly sql_dir=bench/migrate-matrix corpus=bench/work/matrix-corpus out_dir=bench/work/matrix-out results=bench/results
readonly stamp=$corpus.built generator_version=1
mkdir -p "$out_dir" "$results"
private_binary "$out_dir"

identity() {
  echo "generator $generator_version, $notes notes, $versions versions"
  (cd "$sql_dir" && sha256sum -- *.sql stage.sh ../migrate/text.sql)
}

config() {
  local k
  printf '{\n  "store": "App.sqlite",\n  "current": "%d.0.0",\n  "supported": [' "$versions"
  for ((k = 1; k < versions; k++)); do printf '%s"%d.0.0"' "$([[ $k -gt 1 ]] && echo ', ')" "$k"; done
  printf '],\n  "stages": [\n'
  for ((k = 1; k < versions; k++)); do
    printf '    {"from": "%d.0.0", "to": "%d.0.0", "sql": "migrations/%d.0.0-%d.0.0.sql"}%s\n' "$k" $((k + 1)) "$k" $((k + 1)) "$([[ $k -lt $((versions - 1)) ]] && echo ,)"
  done
  printf '  ],\n  "keys": {"notes": ["uuid"]}\n}\n'
}

build_corpus() {
  local staging=$corpus.partial build=$corpus.build k output
  rm -rf -- "${corpus:?}" "${staging:?}" "${build:?}" "$stamp"
  mkdir -p "$build" "$staging/migrations"
  echo "corpus: building $corpus ($versions versions, $notes notes)"
  sqlite3 "$build/App.sqlite" ".read $sql_dir/schema-1.0.0.sql" ".read bench/migrate/text.sql" \
    ".parameter set @notes $notes" ".read $sql_dir/fill-1.0.0.sql" >/dev/null || die "sqlite3 could not build the 1.0.0 store"
  for ((k = 1; k <= versions; k++)); do
    output=$("$bin" capture "$build/App.sqlite" --version "$k.0.0" --corpus "$staging" --no-anonymize 2>&1) || die "capture of $k.0.0 failed: $output"
    ((k < versions)) || break
    "$sql_dir/stage.sh" "$k" >"$staging/migrations/$k.0.0-$((k + 1)).0.0.sql"
    { echo "BEGIN;"; cat "$staging/migrations/$k.0.0-$((k + 1)).0.0.sql"; echo "COMMIT;"; } | sqlite3 "$build/App.sqlite" ||
      die "sqlite3 could not run the stage from $k.0.0"
  done
  config >"$staging/fixturekit.json"
  rm -rf -- "${build:?}"
  mv -- "$staging" "$corpus"
  identity >"$stamp"
}

migrate_bench_facts
if [[ -s $stamp && $(cat "$stamp") == "$(identity)" ]] && "$bin" verify --quiet "$corpus" >/dev/null 2>&1 && cmp -s "$corpus/fixturekit.json" <(config); then
  echo "corpus: reusing $corpus (delete it to rebuild it)"
else
  build_corpus
fi
echo "corpus: $versions fixtures, $(du -sm "$corpus" | cut -f1) MiB; 1.0.0/App.sqlite $(mib_of "$(size_of "$corpus/1.0.0/App.sqlite")") MiB, $versions.0.0/App.sqlite $(mib_of "$(size_of "$corpus/$versions.0.0/App.sqlite")") MiB"
find "$corpus" -type f -exec cat -- {} + >/dev/null
echo

names=("jobs-1" "jobs-2" "shard-1" "shard-2" "shard-3" "shard-4")
options=("--jobs 1" "--jobs 2" "--jobs 1 --shard 1/4" "--jobs 1 --shard 2/4" "--jobs 1 --shard 3/4" "--jobs 1 --shard 4/4")
arguments=()
for index in "${!names[@]}"; do
  : >"$results/matrix-${names[$index]}.json"
  arguments+=(--prepare "rm -rf $(quote "$out_dir/tmp") && mkdir -p $(quote "$out_dir/tmp") && sync"
    -n "migrate ${options[$index]}"
    "TMPDIR=$(quote "$out_dir/tmp") $(quote "$bin") migrate --config $(quote "$corpus/fixturekit.json") ${options[$index]} --json >>$(quote "$results/matrix-${names[$index]}.json") 2>>$(quote "$results/matrix-runs.log")")
done
# (f) and (g): pair.sh runs the two shells one after the other or side by side.
pair_dir=$out_dir/pair
for ((k = 1; k < versions; k++)); do echo "BEGIN;"; bash "$sql_dir/stage.sh" "$k"; echo "COMMIT;"; done >"$out_dir/stages.sql"
cat >"$out_dir/pair.sh" <<EOF
#!/usr/bin/env bash
# pair.sh MODE: two sqlite3 shells each take a copy of 1.0.0 through every stage (MODE: serial or parallel).
set -euo pipefail
one() { cp -- $(quote "$corpus/1.0.0/App.sqlite") $(quote "$pair_dir")/\$1.sqlite && sqlite3 $(quote "$pair_dir")/\$1.sqlite ".read $(quote "$out_dir/stages.sql")" "PRAGMA integrity_check" >/dev/null; }
if [[ \$1 == serial ]]; then one a; one b; else one a & first=\$!; one b & second=\$!; wait "\$first"; wait "\$second"; fi
EOF
for mode in serial parallel; do
  arguments+=(--prepare "rm -rf $(quote "$pair_dir") && mkdir -p $(quote "$pair_dir") && sync"
    -n "two sqlite3 shells, $mode" "bash $(quote "$out_dir/pair.sh") $mode")
done
run_hyperfine matrix "$warmup" "$runs" "${arguments[@]}"
load_after=$(load_now)
rm -rf -- "$out_dir/tmp" "$pair_dir"
echo

for name in "${names[@]}"; do
  jq -e -s 'all(.[]; all(.paths[]; .passed))' "$results/matrix-$name.json" >/dev/null || die "a run of migrate ($name) failed a path (see $results/matrix-$name.json)"
done
[[ $(jq -s '.[0].paths | length' "$results/matrix-jobs-1.json") -eq $((2 * versions - 3)) ]] || die "expected $((2 * versions - 3)) paths"

# The paths' times of (a)'s timed runs, by path, averaged.
jq -s --argjson runs "$runs" '.[-$runs:] | map(.paths | map({key: (.kind + " " + .id), value: .seconds}) | from_entries)
  | (.[0] | keys) as $ids | [$ids[] as $id | {id: $id, seconds: (map(.[$id]) | add / length)}]' "$results/matrix-jobs-1.json" >"$results/matrix-path-times.json"
sum_paths=$(jq '[.[].seconds] | add' "$results/matrix-path-times.json")
jobs1_s=$(mean_of "$results/matrix.csv" 1)
jobs2_s=$(mean_of "$results/matrix.csv" 2)
ideal_s=$(awk -v s="$sum_paths" 'BEGIN { printf "%.3f", s / 2 }')
jobs_ratio=$(ratio "$jobs2_s" "$ideal_s")
shares=()
for index in 3 4 5 6; do shares+=("$(mean_of "$results/matrix.csv" "$index")"); done
share_max=$(printf '%s\n' "${shares[@]}" | sort -g | tail -n 1)
share_min=$(printf '%s\n' "${shares[@]}" | sort -g | head -n 1)
share_ratio=$(ratio "$share_max" "$share_min")
pair_serial_s=$(mean_of "$results/matrix.csv" 7)
pair_parallel_s=$(mean_of "$results/matrix.csv" 8)
pair_ratio=$(ratio "$pair_parallel_s" "$(awk -v s="$pair_serial_s" 'BEGIN { print s / 2 }')")
# Round-robin, for the record: every 4th path of the matrix order, from the same paths' times.
round_robin=$(jq -r -s '.[0].paths | to_entries | map({share: (.key % 4), id: (.value.kind + " " + .value.id)})' "$results/matrix-jobs-1.json" |
  jq -r --slurpfile times "$results/matrix-path-times.json" '($times[0] | map({key: .id, value: .seconds}) | from_entries) as $t
    | group_by(.share) | map(map($t[.id]) | add) | "\(max / min * 100 | round / 100) (\(map(. * 100 | round / 100) | join(", ")) s)"')
# The shares made by cost, from the same paths' times: like for like with round-robin.
by_cost=$(for index in 1 2 3 4; do jq -s -r '.[0].paths | map(.kind + " " + .id) | .[]' "$results/matrix-shard-$index.json" |
  jq -R -s --slurpfile times "$results/matrix-path-times.json" '($times[0] | map({key: .id, value: .seconds}) | from_entries) as $t
    | split("\n") | map(select(length > 0) | $t[.]) | add'; done | jq -s -r '"\(max / min * 100 | round / 100) (\(map(. * 100 | round / 100) | join(", ")) s)"')
jobs_verdict=$(verdict "$jobs_ratio" "<=" "$max_jobs_ratio")
share_verdict=$(verdict "$share_ratio" "<=" "$max_share_ratio")
{
  echo "summary (mean of $runs interleaved rounds after $warmup warm-up round; fixtures in the page cache; load average $load_before before, $load_after after):"
  printf '  (a) --jobs 1                %8.3f s; the sum of its paths'"'"' times %.3f s\n' "$jobs1_s" "$sum_paths"
  printf '  (b) --jobs 2                %8.3f s; (a) / (b) = %s\n' "$jobs2_s" "$(ratio "$jobs1_s" "$jobs2_s")"
  for index in 0 1 2 3; do printf '  (c) --jobs 1 --shard %d/4    %8.3f s, %d paths\n' $((index + 1)) "${shares[$index]}" "$(jq -s '.[0].paths | length' "$results/matrix-shard-$((index + 1)).json")"; done
  echo "  the shares by cost, from (a)'s paths' times: slowest / fastest $by_cost"
  echo "  shares round-robin would have made, from the same times: slowest / fastest $round_robin"
  printf '  (f) two sqlite3 shells, one after the other %8.3f s\n' "$pair_serial_s"
  printf '  (g) the same, side by side                 %8.3f s: %sx (f) / 2, this machine'"'"'s own factor for two jobs\n' "$pair_parallel_s" "$pair_ratio"
  echo
  echo "requirements:"
  printf '  %s  --jobs 2: %.3f s, %sx the sum of the paths'"'"' times / 2 (%s s) (required <= %sx)\n' "$jobs_verdict" "$jobs2_s" "$jobs_ratio" "$ideal_s" "$max_jobs_ratio"
  printf '  %s  --shard I/4 by expected cost: slowest share / fastest %sx (required <= %sx)\n' "$share_verdict" "$share_ratio" "$max_share_ratio"
} | tee "$results/matrix-summary.txt"
echo

run_hyperfine matrix-lint "$warmup" "$runs" \
  --prepare "rm -rf $(quote "$out_dir/tmp") && mkdir -p $(quote "$out_dir/tmp") && sync" -n "lint" \
  "TMPDIR=$(quote "$out_dir/tmp") $(quote "$bin") lint --quiet --config $(quote "$corpus/fixturekit.json")" \
  --prepare "rm -rf $(quote "$out_dir/tmp") && mkdir -p $(quote "$out_dir/tmp") && sync" -n "migrate --jobs 1 --no-lint" \
  "TMPDIR=$(quote "$out_dir/tmp") $(quote "$bin") migrate --quiet --jobs 1 --no-lint --config $(quote "$corpus/fixturekit.json")"
rm -rf -- "$out_dir/tmp"
lint_s=$(mean_of "$results/matrix-lint.csv" 1)
unlinted_s=$(mean_of "$results/matrix-lint.csv" 2)
lint_ratio=$(ratio "$lint_s" "$unlinted_s")
lint_verdict=$(verdict "$lint_ratio" "<=" "$max_lint_ratio")
{
  printf '  (d) lint                    %8.3f s\n' "$lint_s"
  printf '  (e) --jobs 1 --no-lint      %8.3f s; (a), with its default lint check, is %sx (e)\n' "$unlinted_s" "$(ratio "$jobs1_s" "$unlinted_s")"
  printf '  %s  lint: %.3f s, %sx migrate --no-lint (required <= %sx)\n' "$lint_verdict" "$lint_s" "$lint_ratio" "$max_lint_ratio"
} | tee -a "$results/matrix-summary.txt"
[[ $jobs_verdict == PASS && $share_verdict == PASS && $lint_verdict == PASS ]] || exit 1
