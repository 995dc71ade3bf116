#!/usr/bin/env bash
# Benchmark of `fixturekit migrate` against what a user would otherwise run: `cp` of
# the fixture's store, then `sqlite3` with the stage's SQL.
#
#   bench/bench-migrate.sh BIN      BIN: the release binary, e.g. .build/release/fixturekit
#
# The corpus, built once under bench/work/migrate-corpus/ from the SQL files of
# bench/migrate/ and reused while it verifies and was built from the same SQL:
#   - 1.0.0/: a fixture of about 500 MiB, captured with `fixturekit capture` from a
#     store that sqlite3 fills with recursive CTEs (four tables of text rows,
#     customers, orders, messages and events, two foreign keys, five indexes);
#   - 2.0.0/: a fixture of a fresh store of the new schema (the same tables, a new
#     column orders.currency, a new table labels), captured the same way;
#   - migrations/1.0.0-2.0.0.sql: ALTER TABLE orders ADD COLUMN currency, an UPDATE
#     filling it for every one of the 1,100,000 orders, CREATE TABLE labels;
#   - fixturekit.json: store App.sqlite, current 2.0.0, supported [1.0.0], that
#     stage, and `keys` {"customers": ["uuid"]} (a business key).
# The matrix is one path, 1.0.0 -> 2.0.0 (its hop is the same run).
#
# 1. In one hyperfine run, side by side:
#    (a) `fixturekit migrate --config CORPUS/fixturekit.json --jobs 1`: verifies the
#        fixture (SHA256SUMS, store set), copies it into a temporary folder, runs the
#        stage in one transaction, then checks integrity, foreign keys, user_version,
#        the schema against 2.0.0's fixture, the row counts and the value-level
#        preservation diff (every row by key, every surviving column). It runs with
#        `--json` (its report appended to a file) under GNU time (`-f %M`), so that
#        the split and the peak memory come from the runs that are timed;
#    (b) `cp FIXTURE/App.sqlite DIR/App.sqlite && sqlite3 DIR/App.sqlite < STAGE`,
#        STAGE being the stage's SQL between BEGIN IMMEDIATE and COMMIT, as
#        fixturekit runs it;
#    (c) the stage alone: `sqlite3 DIR/App.sqlite < STAGE` on a fresh copy made (and
#        synced) by hyperfine's --prepare, outside the timing: the migration itself.
#    Every output is removed and `sync` run before each run, outside the timing.
#    (d) `PRAGMA integrity_check(orders)` alone, with sqlite3 on the store (c) left
#        migrated (`immutable=1`): the check of the one table the stage rewrites,
#        which (a) runs by default, as the runner's issue asks.
#    (e) (b) followed by `PRAGMA integrity_check` and `PRAGMA foreign_key_check` of
#        the migrated copy: what a careful user runs by hand, the checks the
#        runner's issue puts on by default.
#    Requirement: (a) at most 0.8x the time of (e), the same checks by hand. (a)
#    against (b) is reported, not required: (b) skips the checks (a) must run, and
#    its requirement (at most 1.5x) was retired. (d) is reported against (b).
# 2. From (a)'s reports, `paths[].seconds` and `paths[].preservationSeconds`: the
#    split between the preservation diff and the rest; and (a)'s peak RSS.
#    Requirements (the value-level preservation issue): the preservation diff at
#    most 1x the time of (c); the peak RSS of the migrate command under 200 MiB.
#
# The fixtures are read from the page cache (warmed first). Every copy goes to the
# same file system (fixturekit's temporary folders too: TMPDIR is set to
# bench/work/migrate-out/tmp). Results go to bench/results/migrate-*.
#
# Exit status: 0 every requirement holds, 1 a requirement failed, 2 could not run,
# 64 usage error.
set -euo pipefail
export LC_ALL=C # bytewise sort, `.` as the decimal point in awk and printf

# The requirements.
readonly max_ratio_vs_careful=0.8 # fixturekit migrate time / (cp + sqlite3 stage + the checks) time
readonly max_ratio_diff_vs_stage=1.0 # preservation diff time / the stage's own time
readonly max_rss_mib=200           # fixturekit migrate's peak RSS

# How the measurements are taken.
readonly warmup=1 runs=5 # per hyperfine command
readonly warm_memory_mib=2048 # freed before every run: see warm_memory_command in lib.sh

# The 1.0.0 store: the range its size must be in (MiB).
readonly store_min_mib=450 store_max_mib=560
readonly generator_version=1 # bump when the build below changes: rebuilds the corpus

readonly mib=$((1024 * 1024))

# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bench_init bench-migrate "$@"
bin_sha256=$(sha256sum <"$bin" | cut -c1-64)
require_tools hyperfine sqlite3 jq sha256sum cp python3

# Every path below is relative to the repository's root.
cd "$(dirname "${BASH_SOURCE[0]}")/.."
readonly sql_dir=bench/migrate                   # the SQL the corpus is built from
readonly corpus=bench/work/migrate-corpus        # the corpus: fixturekit.json, migrations/, 1.0.0/, 2.0.0/
readonly built_stamp=bench/work/migrate-corpus.built # what the corpus was built from
readonly build_dir=bench/work/migrate-build      # the live stores, while they are captured
readonly out_dir=bench/work/migrate-out
readonly tmp_dir=$out_dir/tmp         # (a): fixturekit's TMPDIR
readonly baseline_dir=$out_dir/baseline # (b) writes $baseline_dir/App.sqlite
readonly stage_dir=$out_dir/stage     # (c) migrates $stage_dir/App.sqlite
readonly careful_dir=$out_dir/careful # (e) writes $careful_dir/App.sqlite
readonly staged_sql=$out_dir/stage-in-transaction.sql # the stage between BEGIN IMMEDIATE and COMMIT
readonly results=bench/results
readonly config=$corpus/fixturekit.json
readonly fixture=$corpus/1.0.0
readonly store=$fixture/App.sqlite
readonly stage_sql=$corpus/migrations/1.0.0-2.0.0.sql
readonly runs_json=$results/migrate-runs.json # (a)'s --json reports, one per run
readonly runs_log=$results/migrate-runs.log   # (a)'s stderr
readonly runs_rss=$results/migrate-rss.txt    # (a)'s peak RSS per run, KiB
mkdir -p "$out_dir" "$results"

# The binary under test, copied: a rebuild of BIN while the benchmark runs (other
# work on the same tree) cannot mix two builds into one set of figures.
cp -- "$bin" "$out_dir/fixturekit.partial" && mv -f -- "$out_dir/fixturekit.partial" "$out_dir/fixturekit" ||
  die "cannot copy $bin_shown to $out_dir"
[[ $(sha256sum <"$out_dir/fixturekit" | cut -c1-64) == "$bin_sha256" ]] || die "$bin_shown changed while it was copied; run again"
bin=$(realpath -- "$out_dir/fixturekit")

machine_facts() {
  local sqlite_lib
  sqlite_lib=$(sqlite_library_facts)
  host_facts
  echo "  file system:   $(findmnt -n -o FSTYPE -T "$out_dir" 2>/dev/null || echo unknown) (fixtures and every copy)"
  echo "  uptime:        $uptime_before (before the runs)"
  echo "  sqlite3:       $(sqlite3 --version | cut -d' ' -f1,2) (CLI); fixturekit links $sqlite_lib"
  echo "  cp:            $(cp --version | sed -n 1p)"
  echo "  hyperfine:     $(hyperfine --version)"
  echo "  fixturekit:    $("$bin" --version 2>/dev/null | sed -n 1p) ($bin_shown, SHA-256 ${bin_sha256:0:16}…, run from a copy in $out_dir)"
}

# What the corpus is built from: the generator version and the SHA-256 of every
# SQL file of bench/migrate/, in name order.
generator_identity() {
  echo "generator $generator_version"
  (cd "$sql_dir" && sha256sum -- *.sql)
}

# The configuration the corpus must hold.
write_config() {
  cat >"$1" <<'JSON'
{
  "store": "App.sqlite",
  "current": "2.0.0",
  "supported": ["1.0.0"],
  "stages": [
    {"from": "1.0.0", "to": "2.0.0", "sql": "migrations/1.0.0-2.0.0.sql"}
  ],
  "keys": {"customers": ["uuid"]}
}
JSON
}

# Builds the corpus: a live store per version from the SQL of bench/migrate/,
# captured with `fixturekit capture` into a staging corpus renamed into place.
build_corpus() {
  local staging=$corpus.partial
  rm -rf -- "${corpus:?}" "${staging:?}" "${build_dir:?}" "$built_stamp"
  mkdir -p "$build_dir/1.0.0" "$build_dir/2.0.0" "$staging/migrations"
  echo "corpus: building the 1.0.0 store with sqlite3 (~500 MiB, recursive CTEs); this takes a minute or two"
  sqlite3 "$build_dir/1.0.0/App.sqlite" ".read $sql_dir/schema-1.0.0.sql" ".read $sql_dir/text.sql" \
    ".read $sql_dir/fill-1.0.0.sql" >/dev/null || die "sqlite3 could not build the 1.0.0 store"
  echo "corpus: building the 2.0.0 store (a fresh store of the new schema)"
  sqlite3 "$build_dir/2.0.0/App.sqlite" ".read $sql_dir/schema-2.0.0.sql" ".read $sql_dir/fill-2.0.0.sql" >/dev/null ||
    die "sqlite3 could not build the 2.0.0 store"
  cp -- "$sql_dir/1.0.0-2.0.0.sql" "$staging/migrations/1.0.0-2.0.0.sql"
  write_config "$staging/fixturekit.json"
  for version in 1.0.0 2.0.0; do
    echo "corpus: $bin_shown capture $build_dir/$version/App.sqlite --version $version --corpus $corpus"
    output=$("$bin" capture "$build_dir/$version/App.sqlite" --version "$version" --corpus "$staging" --no-anonymize 2>&1) ||
      die "fixturekit capture of $version failed: $output"
    [[ -z $output ]] || sed 's/^/  /' <<<"$output"
  done
  rm -rf -- "${build_dir:?}"
  mv -- "$staging" "$corpus"
  generator_identity >"$built_stamp"
}

# Creates the corpus or checks the one built earlier: built from the same SQL, the
# same configuration and stage, both fixtures verified by `fixturekit verify`, the
# 1.0.0 store's size in its range.
prepare_corpus() {
  local reuse=true why=""
  if [[ ! -s $built_stamp || $(cat "$built_stamp") != "$(generator_identity)" ]]; then
    reuse=false why="not built yet, or built from other SQL"
  elif ! cmp -s -- "$stage_sql" "$sql_dir/1.0.0-2.0.0.sql" || ! cmp -s -- "$config" <(write_config /dev/stdout); then
    reuse=false why="its configuration or stage differs from bench/migrate/"
  elif ! "$bin" verify --quiet "$corpus/1.0.0" "$corpus/2.0.0" >/dev/null 2>&1; then
    reuse=false why="a fixture does not verify"
  else
    store_bytes=$(size_of "$store")
    if ((store_bytes < store_min_mib * mib || store_bytes > store_max_mib * mib)); then
      reuse=false why="the 1.0.0 store is $(mib_of "$store_bytes") MiB"
    fi
  fi
  if $reuse; then
    echo "corpus: reusing $corpus (built from the same SQL, both fixtures verify; delete it to rebuild it)"
  else
    echo "corpus: $corpus: $why"
    build_corpus
    "$bin" verify --quiet "$corpus/1.0.0" "$corpus/2.0.0" || die "$corpus: a fixture just captured does not verify"
  fi
  store_bytes=$(size_of "$store")
  ((store_bytes >= store_min_mib * mib && store_bytes <= store_max_mib * mib)) ||
    die "$store: $(mib_of "$store_bytes") MiB, expected $store_min_mib to $store_max_mib MiB"
  [[ ! -e $store-wal ]] || die "$store-wal: the fixture was expected without a WAL (snapshot capture)"
  echo "corpus: 1.0.0/App.sqlite $(printf '%13d' "$store_bytes") bytes = $(mib_of "$store_bytes") MiB, journal mode $(
    sqlite3 "file:$store?immutable=1" 'PRAGMA journal_mode')"
  echo "corpus: 2.0.0/App.sqlite $(printf '%13d' "$(size_of "$corpus/2.0.0/App.sqlite")") bytes"
  echo "corpus: 1.0.0's tables (rows, MiB with their indexes, from dbstat):"
  sqlite3 "file:$store?immutable=1" "SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name" |
    while IFS= read -r table; do
      sqlite3 "file:$store?immutable=1" "SELECT printf('  %-10s %9d rows %7.1f MiB', '$table', (SELECT count(*) FROM \"$table\"),
        (SELECT sum(pgsize) FROM dbstat WHERE name IN (SELECT name FROM sqlite_schema WHERE tbl_name = '$table')) / 1048576.0)"
    done || die "$store: cannot read it"
}

# Reads the fixtures once so that every command reads them from memory.
warm_page_cache() {
  local available_kib resident total
  available_kib=$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo)
  # The fixture, and up to four copies of it alive at a time (fixturekit's three, one of the baseline).
  if ((available_kib * 1024 < store_bytes * 6)); then
    echo "warning: only $((available_kib / 1024)) MiB of memory available: the fixture may not stay in the page cache" >&2
  fi
  find "$corpus" -type f -exec cat -- {} + >/dev/null
  total=$(find "$corpus" -type f -printf '%s\n' | awk '{ sum += $1 } END { print sum + 0 }')
  if command -v fincore >/dev/null; then
    resident=$(find "$corpus" -type f -exec fincore --bytes --noheadings --raw --output RES -- {} + |
      awk '{ sum += $1 } END { print sum + 0 }')
    echo "page cache: warmed with cat; $((resident / mib)) of $((total / mib)) MiB of the corpus resident (fincore)"
    if ((resident < total)); then
      echo "warning: the page cache does not hold the whole corpus: part of it will be read from the disk" >&2
    else
      echo "page cache: every command reads the fixtures from memory"
    fi
  else
    echo "page cache: warmed with cat (fincore not installed to confirm): every command reads the fixtures from memory"
  fi
}

uptime_before=$(uptime | sed 's/^ *//')
machine_facts
echo
prepare_corpus
{
  echo "BEGIN IMMEDIATE;"
  cat -- "$stage_sql"
  echo "COMMIT;"
} >"$staged_sql"
warm_page_cache
echo

# The commands, as shown and as run.
migrate_shown="$bin_shown migrate --config $config --jobs 1 --json"
migrate_run="TMPDIR=$(quote "$tmp_dir") /usr/bin/time -f %M -a -o $(quote "$runs_rss") $(quote "$bin") migrate --config $(quote "$config") --jobs 1 --json >>$(quote "$runs_json") 2>>$(quote "$runs_log")"
baseline_shown="cp $store $baseline_dir/App.sqlite && sqlite3 $baseline_dir/App.sqlite < $staged_sql"
baseline_run="cp $(quote "$store") $(quote "$baseline_dir/App.sqlite") && sqlite3 $(quote "$baseline_dir/App.sqlite") < $(quote "$staged_sql")"
stage_shown="sqlite3 $stage_dir/App.sqlite < $staged_sql"
stage_run="sqlite3 $(quote "$stage_dir/App.sqlite") < $(quote "$staged_sql")"
careful_shown="cp $store $careful_dir/App.sqlite && sqlite3 $careful_dir/App.sqlite < $staged_sql && sqlite3 $careful_dir/App.sqlite 'PRAGMA integrity_check' 'PRAGMA foreign_key_check'"
careful_run="cp $(quote "$store") $(quote "$careful_dir/App.sqlite") && sqlite3 $(quote "$careful_dir/App.sqlite") < $(quote "$staged_sql") && sqlite3 $(quote "$careful_dir/App.sqlite") 'PRAGMA integrity_check' 'PRAGMA foreign_key_check' | grep -x ok >/dev/null"
careful_prepare="rm -rf $(quote "$careful_dir") && mkdir -p $(quote "$careful_dir") && sync"
# (d) runs after every run of (c): its store is the one (c) migrated last.
integrity_shown="sqlite3 'file:$stage_dir/App.sqlite?immutable=1' 'PRAGMA integrity_check(orders)'"
integrity_run="sqlite3 $(quote "file:$stage_dir/App.sqlite?immutable=1") 'PRAGMA integrity_check(orders)' | grep -qx ok"
# Before each run, outside the timing: the command's output removed (for (c), the
# fresh copy made), and `sync`, so that no run pays for an earlier run's write-back.
migrate_prepare="rm -rf $(quote "$tmp_dir") && mkdir -p $(quote "$tmp_dir") && sync"
baseline_prepare="rm -rf $(quote "$baseline_dir") && mkdir -p $(quote "$baseline_dir") && sync"
stage_prepare="rm -rf $(quote "$stage_dir") && mkdir -p $(quote "$stage_dir") && cp $(quote "$store") $(quote "$stage_dir/App.sqlite") && sync"

# 1. The baseline once outside the timing, to check that it migrates.
echo "--- check: $baseline_shown"
bash -c "$baseline_prepare" && bash -c "$baseline_run" || die "the baseline failed"
[[ $(sqlite3 "$baseline_dir/App.sqlite" "PRAGMA user_version; SELECT count(*) FROM orders WHERE currency IS NULL;" | paste -sd' ') == "2 0" ]] ||
  die "the baseline's copy is not migrated: user_version 2 and every order's currency expected"
echo "check: the baseline's copy has user_version 2 and a currency for every order"
echo

# 2. The three commands in one hyperfine run. Every run of (a) appends its --json
# report to $runs_json, its stderr to $runs_log and its peak RSS in KiB (GNU time's
# %M) to $runs_rss: the split and the memory come from the very runs timed.
: >"$runs_json"
: >"$runs_log"
: >"$runs_rss"
echo "--- $((store_bytes / mib)) MiB fixture: fixturekit migrate vs cp + sqlite3 stage vs the stage alone"
run_hyperfine migrate "$warmup" "$runs" \
  --prepare "$migrate_prepare" --prepare "$baseline_prepare" --prepare "$stage_prepare" --prepare sync --prepare "$careful_prepare" \
  -n "$migrate_shown" "$migrate_run" \
  -n "$baseline_shown" "$baseline_run" \
  -n "$stage_shown" "$stage_run" \
  -n "$integrity_shown" "$integrity_run" \
  -n "$careful_shown" "$careful_run"
uptime_after=$(uptime | sed 's/^ *//')
rm -rf -- "${baseline_dir:?}" "${stage_dir:?}" "${careful_dir:?}" "${tmp_dir:?}"
echo

# 3. The reports of (a)'s runs: the first is hyperfine's warm-up. Each must have
# passed its one path; its seconds and preservationSeconds give the split.
echo "--- (a)'s own reports (migrate --json) and peak RSS (GNU time), run by run"
jq -r '.paths | "\(length) \(all(.passed)) \(.[0].seconds) \(.[0].preservationSeconds)"' "$runs_json" >"$results/migrate-split.txt" ||
  die "$runs_json: cannot read paths[].seconds and paths[].preservationSeconds"
[[ $(wc -l <"$results/migrate-split.txt") -eq $((warmup + runs)) && $(wc -l <"$runs_rss") -eq $((warmup + runs)) ]] ||
  die "$runs_json, $runs_rss: expected one report per run of (a), warm-up included"
awk '$1 != 1 || $2 != "true" { exit 1 }' "$results/migrate-split.txt" ||
  die "a run of fixturekit migrate did not pass its one path (see $runs_json and $runs_log)"
echo "run         path [s]  preservation diff [s]  the rest [s]  max RSS [KiB]"
paste -d' ' "$results/migrate-split.txt" "$runs_rss" |
  awk -v w="$warmup" '{ printf "%-9s %10.3f  %21.3f  %12.3f  %13d\n", (NR <= w ? "warm-up" : NR - w), $3, $4, $3 - $4, $5 }'
sed -n '/^PASS\|^FAIL/p' "$runs_log" | tail -n 1 | sed 's/^/last run: /'
jq -r '.paths[0].preservation[] | select(.column == null) | "\(.table) \(.compared) rows \(if .identicalPages then "(pages identical to the fixture'"'"'s: no join)" else "(joined by key)" end)"' "$runs_json" | tail -n 4 |
  paste -sd',' | sed 's/,/, /g; s/^/preservation, rows compared: /'
tail -n "$runs" "$results/migrate-split.txt" >"$results/migrate-split-timed.txt"
peak_rss_kib=$(sort -n "$runs_rss" | tail -n 1)
echo

# The figures and the verdicts.
migrate_s=$(mean_of "$results/migrate.csv" 1)
migrate_sd=$(stddev_of "$results/migrate.csv" 1)
baseline_s=$(mean_of "$results/migrate.csv" 2)
baseline_sd=$(stddev_of "$results/migrate.csv" 2)
stage_s=$(mean_of "$results/migrate.csv" 3)
stage_sd=$(stddev_of "$results/migrate.csv" 3)
integrity_s=$(mean_of "$results/migrate.csv" 4)
integrity_sd=$(stddev_of "$results/migrate.csv" 4)
ratio_integrity=$(ratio "$integrity_s" "$baseline_s")
careful_s=$(mean_of "$results/migrate.csv" 5)
careful_sd=$(stddev_of "$results/migrate.csv" 5)
ratio_careful=$(ratio "$migrate_s" "$careful_s")
path_s=$(awk '{ sum += $3 } END { printf "%.3f", sum / NR }' "$results/migrate-split-timed.txt")
diff_s=$(awk '{ sum += $4 } END { printf "%.3f", sum / NR }' "$results/migrate-split-timed.txt")
rest_s=$(awk -v a="$path_s" -v b="$diff_s" 'BEGIN { printf "%.3f", a - b }')

ratio_total=$(ratio "$migrate_s" "$baseline_s")
# (a) without the preservation diff (the same runs' reports): the runner as the
# migration runner's issue described it, before the diff existed.
without_diff_s=$(awk -v a="$migrate_s" -v d="$diff_s" 'BEGIN { printf "%.3f", a - d }')
ratio_without_diff=$(ratio "$without_diff_s" "$baseline_s")
ratio_diff_stage=$(awk -v d="$diff_s" -v s="$stage_s" 'BEGIN { printf "%.2f", d / s }')
diff_share=$(awk -v d="$diff_s" -v p="$path_s" 'BEGIN { printf "%.0f", 100 * d / p }')
peak_rss_mib=$(awk -v k="$peak_rss_kib" 'BEGIN { printf "%.1f", k / 1024 }')
careful_verdict=$(verdict "$ratio_careful" "<=" "$max_ratio_vs_careful")
diff_verdict=$(verdict "$ratio_diff_stage" "<=" "$max_ratio_diff_vs_stage")
rss_verdict=$(verdict "$peak_rss_kib" "<" "$((max_rss_mib * 1024))")

figure() { awk -v mean="$1" -v sd="$2" 'BEGIN { printf "%8.3f s ± %.3f s", mean, sd }'; }

{
  echo "summary (mean of $runs interleaved rounds after $warmup warm-up round; fixtures in the page cache; outputs removed and \`sync\` before each run):"
  echo "  fixture 1.0.0: App.sqlite $(mib_of "$store_bytes") MiB ($store_bytes bytes)"
  echo "    (a) fixturekit migrate --jobs 1        $(figure "$migrate_s" "$migrate_sd")"
  echo "    (b) cp + sqlite3 < stage               $(figure "$baseline_s" "$baseline_sd")"
  echo "    (c) sqlite3 < stage (the stage alone)  $(figure "$stage_s" "$stage_sd")"
  echo "    (d) integrity_check(orders) alone      $(figure "$integrity_s" "$integrity_sd")"
  echo "    (e) (b) + integrity + foreign key check $(figure "$careful_s" "$careful_sd")"
  echo "  ratios: (a)/(b) = $ratio_total; (a) without the preservation diff / (b) = $ratio_without_diff"
  echo "  split of (a), from its --json reports (mean of the same $runs runs): path $path_s s = preservation diff $diff_s s ($diff_share %) + the rest $rest_s s"
  echo "  preservation diff / (c) = $ratio_diff_stage"
  echo "  fixturekit migrate peak RSS: $peak_rss_kib KiB = $peak_rss_mib MiB (largest of $((warmup + runs)) runs, warm-up included)"
  echo "  uptime before the runs: $uptime_before"
  echo "  uptime after the runs:  $uptime_after"
  echo
  echo "requirements:"
  printf '  %s  fixturekit migrate vs (e), cp + sqlite3 stage + integrity and foreign key checks by hand: %sx its time (required <= %sx)\n' \
    "$careful_verdict" "$ratio_careful" "$max_ratio_vs_careful"
  printf '  info  fixturekit migrate vs (b), cp + sqlite3 stage without the checks (not required): %sx its time\n' \
    "$ratio_total"
  printf '  info  (a) without its preservation diff, %s s - %s s = %s s: %sx the time of (b)\n' \
    "$(printf "%.3f" "$migrate_s")" "$diff_s" "$without_diff_s" "$ratio_without_diff"
  printf '  info  what bounds (a): integrity_check(orders) alone, (d), is %sx the time of (b); (a) runs it after the stage, and the stage alone is (c)\n' \
    "$ratio_integrity"
  printf '  %s  preservation diff vs the stage alone: %sx its time, %s s / %s s (required <= %sx)\n' \
    "$diff_verdict" "$ratio_diff_stage" "$diff_s" "$(printf '%.3f' "$stage_s")" "$max_ratio_diff_vs_stage"
  printf '  %s  fixturekit migrate peak RSS: %s MiB (required < %s MiB)\n' \
    "$rss_verdict" "$peak_rss_mib" "$max_rss_mib"
} | tee "$results/migrate-summary.txt"

[[ $careful_verdict == PASS && $diff_verdict == PASS && $rss_verdict == PASS ]] || exit 1
