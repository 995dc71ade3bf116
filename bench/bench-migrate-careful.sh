#!/usr/bin/env bash
# Benchmark of `fixturekit migrate` against what a careful user runs by hand to
# check the same migration, on the 640 MiB fixture of bench-migrate-scale.sh (a
# stage that rewrites the notes table and adds an index; business keys declared
# that no index backs).
#
#   bench/bench-migrate-careful.sh BIN    BIN: the release binary, e.g. .build/release/fixturekit
#
# The corpus is bench/work/scale-N/, built as bench-migrate-scale.sh builds its
# largest (FIXTUREKIT_BENCH_SCALE_NOTES's last number, default 1384000 notes, about 480 MiB).
#
# One hyperfine run, side by side (each command's output removed and `sync` run
# before each run, outside the timing; the fixture read from the page cache):
#   (a) `fixturekit migrate --config CORPUS/fixturekit.json --jobs 1 --json`: verifies
#       the fixture, copies it, runs the stage in one transaction, checks integrity,
#       foreign keys, user_version, the schema, the row counts and every value by key;
#       under GNU time for its peak RSS, its reports kept for the split;
#   (b) by hand, carefully: `cp` of the store, `sqlite3` with the stage between
#       BEGIN IMMEDIATE and COMMIT, then `sqlite3` with `PRAGMA integrity_check` and
#       `PRAGMA foreign_key_check`;
#   (c) by hand, the stage alone on a fresh copy (made by --prepare);
#   (d) `fixturekit verify` of the fixture and `cp` of its store: reading it once.
#
# Requirements: (a) at most 0.8x the time of (b); (a)'s phases from its --json
# reports: what comes before the stage ("fixture 1.0.0 verifies", which ends with
# the migration's copy) at most 1.5x (d), and the stage at most 1.1x (c).
#
# Exit status: 0 the requirements hold, 1 one failed, 2 could not run, 64 usage error.
set -euo pipefail
export LC_ALL=C

readonly max_ratio=0.8
readonly max_preparation_ratio=1.5 # (a)'s "fixture 1.0.0 verifies" (its copy included) / (d)
readonly max_stage_ratio=1.1       # (a)'s stage / (c)
readonly warmup=1 runs=3
readonly warm_memory_mib=2048 # freed before every run: see warm_memory_command in lib.sh

# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bench_init bench-migrate-careful "$@"
require_tools hyperfine sqlite3 jq sha256sum cp python3
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=bench/migrate-scale/corpus.sh
source bench/migrate-scale/corpus.sh

read -r -a notes_counts <<<"${FIXTUREKIT_BENCH_SCALE_NOTES:-173000 692000 1384000}"
readonly notes=${notes_counts[${#notes_counts[@]} - 1]}
readonly corpus=bench/work/scale-$notes out_dir=bench/work/careful-out results=bench/results
readonly store=$corpus/1.0.0/App.sqlite staged=$out_dir/stage-in-transaction.sql
readonly tmp=$out_dir/tmp hand=$out_dir/hand stage_only=$out_dir/stage
mkdir -p "$out_dir" "$results"
private_binary "$out_dir"

load_before=$(load_now)
host_facts
echo "  file system:   $(findmnt -n -o FSTYPE -T "$out_dir" 2>/dev/null || echo unknown) (fixture and every copy)"
echo "  sqlite3:       $(sqlite3 --version | cut -d' ' -f1,2) (CLI); fixturekit links $(sqlite_library_facts)"
echo "  hyperfine:     $(hyperfine --version)"
echo "  fixturekit:    $("$bin" --version 2>/dev/null | sed -n 1p) ($bin_shown, SHA-256 ${bin_sha256:0:16}…)"
echo "  load average:  $load_before (before the runs)"
echo
scale_corpus "$corpus" "$notes"
store_bytes=$(size_of "$store")
echo "corpus: $store: $(mib_of "$store_bytes") MiB ($store_bytes bytes)"
stage_in_transaction "$corpus/migrations/1.0.0-2.0.0.sql" >"$staged"
warm_page_cache "$corpus"

# The careful user's commands, checked once outside the timing.
careful="cp $(quote "$store") $(quote "$hand/App.sqlite") && sqlite3 $(quote "$hand/App.sqlite") < $(quote "$staged") && sqlite3 $(quote "$hand/App.sqlite") 'PRAGMA integrity_check' 'PRAGMA foreign_key_check' | grep -qx ok"
rm -rf -- "$hand" && mkdir -p "$hand"
bash -c "$careful" || die "the careful baseline failed"
[[ $(sqlite3 "$hand/App.sqlite" "PRAGMA user_version; SELECT count(*) FROM pragma_table_info('notes') WHERE name = 'pinned';" | paste -sd' ') == "2 1" ]] ||
  die "the careful baseline's copy is not migrated"
echo "check: the careful baseline migrates its copy (user_version 2, notes.pinned) and its checks pass"
echo

: >"$results/careful-runs.json"
: >"$results/careful-rss.txt"
migrate="TMPDIR=$(quote "$tmp") /usr/bin/time -f %M -a -o $(quote "$results/careful-rss.txt") $(quote "$bin") migrate --config $(quote "$corpus/fixturekit.json") --jobs 1 --json >>$(quote "$results/careful-runs.json") 2>>$(quote "$results/careful-runs.log")"
run_hyperfine careful "$warmup" "$runs" \
  --prepare "rm -rf $(quote "$tmp") && mkdir -p $(quote "$tmp") && sync" \
  --prepare "rm -rf $(quote "$hand") && mkdir -p $(quote "$hand") && sync" \
  --prepare "rm -rf $(quote "$stage_only") && mkdir -p $(quote "$stage_only") && cp $(quote "$store") $(quote "$stage_only/App.sqlite") && sync" \
  --prepare "rm -rf $(quote "$hand") && mkdir -p $(quote "$hand") && sync" \
  -n "(a) fixturekit migrate" "$migrate" \
  -n "(b) cp + sqlite3 stage + integrity_check + foreign_key_check" "$careful" \
  -n "(c) sqlite3 stage alone" "sqlite3 $(quote "$stage_only/App.sqlite") < $(quote "$staged")" \
  -n "(d) fixturekit verify + cp of the store" "$(quote "$bin") verify --quiet $(quote "$corpus/1.0.0") && cp $(quote "$store") $(quote "$hand/App.sqlite")"
load_after=$(load_now)
rm -rf -- "$tmp" "$hand" "$stage_only"
echo
jq -e -s 'all(.[]; .paths | length == 1 and all(.passed))' "$results/careful-runs.json" >/dev/null ||
  die "a run of fixturekit migrate did not pass (see $results/careful-runs.json)"

migrate_s=$(mean_of "$results/careful.csv" 1)
careful_s=$(mean_of "$results/careful.csv" 2)
stage_s=$(mean_of "$results/careful.csv" 3)
ratio_careful=$(ratio "$migrate_s" "$careful_s")
rss_kib=$(sort -n "$results/careful-rss.txt" | tail -n 1)
careful_verdict=$(verdict "$ratio_careful" "<=" "$max_ratio")
prepare_s=$(mean_of "$results/careful.csv" 4)
# (a)'s own phases, mean of its timed runs: before the stage (verification, copies,
# contents read; "fixture 1.0.0 verifies" ends with the migration's copy), the stage.
phase_mean() {
  jq -r -s --argjson runs "$runs" --arg name "$1" \
    '[.[-$runs:][] | .paths[0].checks[] | select(.name | startswith($name)) | .seconds] | add / length' "$results/careful-runs.json"
}
preparation_s=$(phase_mean "fixture 1.0.0 verifies")
migrate_stage_s=$(phase_mean "stage ")
ratio_preparation=$(ratio "$preparation_s" "$prepare_s")
ratio_stage=$(ratio "$migrate_stage_s" "$stage_s")
preparation_verdict=$(verdict "$ratio_preparation" "<=" "$max_preparation_ratio")
stage_verdict=$(verdict "$ratio_stage" "<=" "$max_stage_ratio")
{
  echo "summary (mean of $runs interleaved rounds after $warmup warm-up round; the fixture in the page cache; load average $load_before before, $load_after after):"
  echo "  fixture 1.0.0: App.sqlite $(mib_of "$store_bytes") MiB"
  printf '    (a) fixturekit migrate                    %8.3f s ± %.3f s\n' "$migrate_s" "$(stddev_of "$results/careful.csv" 1)"
  printf '    (b) by hand: cp, stage, integrity, fk     %8.3f s ± %.3f s\n' "$careful_s" "$(stddev_of "$results/careful.csv" 2)"
  printf '    (c) by hand: the stage alone              %8.3f s ± %.3f s\n' "$stage_s" "$(stddev_of "$results/careful.csv" 3)"
  printf '    (d) fixturekit verify + cp of the store   %8.3f s ± %.3f s\n' "$prepare_s" "$(stddev_of "$results/careful.csv" 4)"
  echo "  where (a)'s time went, mean of its timed runs (--json; integrity_check runs beside the checks after it):"
  jq -r -s --argjson runs "$runs" '.[-$runs:] | map(.paths[0].checks) | transpose | .[] |
    select(.[0].seconds != null) | "    \(.[0].name): \((map(.seconds) | add / length) * 1000 | round / 1000) s"' "$results/careful-runs.json"
  echo "  fixturekit migrate peak RSS: $(awk -v k="$rss_kib" 'BEGIN { printf "%.1f", k / 1024 }') MiB"
  echo
  echo "requirements:"
  printf '  %s  fixturekit migrate vs the careful check by hand: %sx its time, %.3fs against %.3fs (required <= %sx)\n' "$careful_verdict" "$ratio_careful" "$migrate_s" "$careful_s" "$max_ratio"
  printf '  %s  migrate before its stage vs verify + cp: %sx, %.3fs against %.3fs (required <= %sx)\n' "$preparation_verdict" "$ratio_preparation" "$preparation_s" "$prepare_s" "$max_preparation_ratio"
  printf '  %s  migrate'"'"'s stage vs the stage in sqlite3: %sx, %.3fs against %.3fs (required <= %sx)\n' "$stage_verdict" "$ratio_stage" "$migrate_stage_s" "$stage_s" "$max_stage_ratio"
} | tee "$results/careful-summary.txt"
[[ $careful_verdict == PASS && $preparation_verdict == PASS && $stage_verdict == PASS ]] || exit 1
