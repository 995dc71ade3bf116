#!/usr/bin/env bash
# Benchmark of `fixturekit anonymize` against the script users would otherwise write.
#
#   bench/bench-anonymize.sh BIN    BIN: the release binary, e.g. .build/release/fixturekit
#
# FIXTUREKIT_BENCH_ANONYMIZE_ROWS sets the store's rows (default 1,000,000), to try
# the benchmark at a small size; the requirements are for the default.
#
# 1. A store of 1,000,000 rows (users: id, email, name, phone, city, created_at; about
#    100 MB; FIXTUREKIT_BENCH_ANONYMIZE_ROWS sets another count, for a trial), three
#    columns rewritten: email as a keyed pseudonym, name as a fake name, phone masked
#    but its last two characters. bench/anonymize.py (Python's sqlite3 and
#    hmac, the same strategies as SQL functions, then VACUUM) vs `fixturekit anonymize`
#    (the same, plus the leak scan and the data profile of the three columns, which
#    fixturekit measures before and after and checks), in one hyperfine run.
#    Requirement: fixturekit at least 5x faster.
# 2. Peak memory (max RSS, from GNU time) of `fixturekit anonymize` on that store.
#    Requirement: under 200 MiB.
#
# The store is generated once under bench/work/ (with the sqlite3 shell) and reused
# while it has its row count. Results go to bench/results/anonymize-*.
#
# Exit status: 0 every requirement holds, 1 a requirement failed, 2 could not run,
# 64 usage error.
set -euo pipefail
export LC_ALL=C

# The requirements.
readonly min_speedup_vs_python=5 # python time / fixturekit time
readonly max_rss_mib=200         # fixturekit anonymize's peak RSS

# How the measurements are taken.
readonly warmup=1 runs=5
readonly rss_runs=3
readonly warm_memory_mib=512 # freed before every run: see warm_memory_command in lib.sh
readonly rows=${FIXTUREKIT_BENCH_ANONYMIZE_ROWS:-1000000}

# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bench_init bench-anonymize "$@"
require_tools hyperfine python3 sqlite3

cd "$(dirname "${BASH_SOURCE[0]}")/.."
readonly work=bench/work/anonymize results=bench/results
mkdir -p "$work" "$results"
readonly source=$work/source.sqlite rules=$work/rules.json
readonly out_python=$work/out-python.sqlite out_fixturekit=$work/out-fixturekit.sqlite

# A fixed benchmark key: the figures do not depend on it.
export FIXTUREKIT_ANON_KEY=bench-key-0123456789abcdef0123456789abcdef

machine_facts() {
  host_facts
  echo "  load average:  $(cut -d' ' -f1-3 /proc/loadavg) (before the runs)"
  echo "  python:        $(python3 --version 2>&1), sqlite3 module on SQLite $(python3 -c 'import sqlite3; print(sqlite3.sqlite_version)')"
  echo "  sqlite3:       $(sqlite3 --version | cut -d' ' -f1)"
  echo "  hyperfine:     $(hyperfine --version)"
  echo "  fixturekit:    $("$bin" --version 2>/dev/null || echo unknown) ($bin_shown)"
}

# Creates the store unless one with every row is there: 200 given names x 200
# surnames (names repeat, as in real data), unique e-mails and phone numbers.
prepare_store() {
  if [[ -f $source ]] && [[ $(sqlite3 "$source" 'SELECT count(*) FROM users' 2>/dev/null) == "$rows" ]]; then
    echo "store: reusing $source ($rows rows; delete it to regenerate)"
    return
  fi
  rm -f -- "$source" "$source.partial"
  sqlite3 "$source.partial" <<SQL || die "could not generate $source"
CREATE TEMP TABLE firsts (i INTEGER PRIMARY KEY, v TEXT);
CREATE TEMP TABLE lasts (i INTEGER PRIMARY KEY, v TEXT);
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 199)
  INSERT INTO firsts SELECT i, 'Given' || char(65 + i % 26) || char(97 + i / 26 % 26) || 'ina' FROM n;
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 199)
  INSERT INTO lasts SELECT i, 'Surn' || char(97 + i % 26) || char(97 + i / 26 % 26) || 'mann' FROM n;
CREATE TABLE users (id INTEGER PRIMARY KEY, email TEXT, name TEXT, phone TEXT, city TEXT, created_at TEXT);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $rows)
  INSERT INTO users SELECT i, 'person.' || i || '@mail' || (i % 89) || '.example.com',
    (SELECT v FROM firsts WHERE firsts.i = n.i % 200) || ' ' || (SELECT v FROM lasts WHERE lasts.i = n.i * 7 % 200),
    printf('+33 6 %02d %02d %02d %02d', i % 100, i / 100 % 100, i / 10000 % 100, i * 7 % 100),
    'City' || (i % 500), date('2015-01-01', '+' || (i % 3000) || ' days') FROM n;
VACUUM;
SQL
  mv -f -- "$source.partial" "$source"
  echo "store: generated $source ($rows rows, $(($(stat -c %s "$source") / 1024 / 1024)) MiB)"
}

cat >"$rules" <<'JSON'
{
  "keyEnv": "FIXTUREKIT_ANON_KEY",
  "tables": {
    "users": {
      "email": {"strategy": "pseudonym", "format": "email", "domain": "email"},
      "name": {"strategy": "fake", "kind": "name"},
      "phone": {"strategy": "mask", "keepLast": 2},
      "id": "keep", "city": "keep", "created_at": "keep"
    }
  }
}
JSON

machine_facts
echo
prepare_store
echo

python_cmd="python3 bench/anonymize.py $(quote "$source") $(quote "$out_python")"
fixturekit_cmd="$(quote "$bin") anonymize $(quote "$source") --rules $(quote "$rules") --output $(quote "$out_fixturekit") --force"
echo "--- $rows rows, 3 columns rewritten: bench/anonymize.py vs fixturekit anonymize"
run_hyperfine anonymize "$warmup" "$runs" \
  -n "python3 bench/anonymize.py $source $out_python" "$python_cmd" \
  -n "$bin_shown anonymize $source --rules $rules --output $out_fixturekit --force" "$fixturekit_cmd"
echo

# Both did the work: every row there, no original e-mail or phone left in the rewritten columns.
for out in "$out_python" "$out_fixturekit"; do
  [[ $(sqlite3 "$out" "SELECT count(*) FROM users WHERE email LIKE '%@example.invalid' AND phone LIKE '*%'") == "$rows" ]] ||
    die "$out: not every row was rewritten"
done

echo "--- peak memory: /usr/bin/time -f %M $bin_shown anonymize ($rss_runs runs)"
: >"$results/anonymize-rss.txt"
for ((i = 1; i <= rss_runs; i++)); do
  /usr/bin/time -f '%M' -a -o "$results/anonymize-rss.txt" "$bin" anonymize "$source" --rules "$rules" --output "$out_fixturekit" --force 2>/dev/null ||
    die "fixturekit anonymize failed under /usr/bin/time"
done
peak_rss_kib=$(sort -n "$results/anonymize-rss.txt" | tail -n 1)
echo "max RSS per run (KiB): $(paste -sd' ' "$results/anonymize-rss.txt")"
echo

python_s=$(mean_of "$results/anonymize.csv" 1)
python_sd=$(stddev_of "$results/anonymize.csv" 1)
fixturekit_s=$(mean_of "$results/anonymize.csv" 2)
fixturekit_sd=$(stddev_of "$results/anonymize.csv" 2)
speedup=$(ratio "$python_s" "$fixturekit_s")
peak_rss_mib=$(awk -v k="$peak_rss_kib" 'BEGIN { printf "%.1f", k / 1024 }')
speedup_verdict=$(verdict "$speedup" ">=" "$min_speedup_vs_python")
rss_verdict=$(verdict "$peak_rss_kib" "<" "$((max_rss_mib * 1024))")

{
  echo "summary (mean of $runs interleaved rounds after $warmup warm-up round):"
  printf '  bench/anonymize.py     %8.3f s ± %.3f s\n' "$python_s" "$python_sd"
  printf '  fixturekit anonymize   %8.3f s ± %.3f s\n' "$fixturekit_s" "$fixturekit_sd"
  echo "  fixturekit anonymize peak RSS: $peak_rss_kib KiB = $peak_rss_mib MiB (largest of $rss_runs runs)"
  echo
  echo "requirements:"
  printf '  %s  fixturekit anonymize vs bench/anonymize.py, %s rows: %sx faster (required >= %sx)\n' \
    "$speedup_verdict" "$rows" "$speedup" "$min_speedup_vs_python"
  printf '  %s  fixturekit anonymize peak RSS: %s MiB (required < %s MiB)\n' "$rss_verdict" "$peak_rss_mib" "$max_rss_mib"
} | tee "$results/anonymize-summary.txt"

[[ $speedup_verdict == PASS && $rss_verdict == PASS ]] || exit 1
