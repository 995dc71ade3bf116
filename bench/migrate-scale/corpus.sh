# shellcheck shell=bash
# The corpora of bench-migrate-scale.sh and bench-migrate-careful.sh: sourced
# after lib.sh, from the repository's root, with $bin set.
#
#   scale_corpus DIR NOTES   builds DIR (or reuses it when it was built from the
#                            same SQL for the same NOTES and still verifies):
#   - 1.0.0/: a fixture of about NOTES * 364 bytes, captured with `fixturekit
#     capture` from a store that sqlite3 fills (schema-1.0.0.sql, fill-1.0.0.sql
#     with ../migrate/text.sql for the text): folders, notes, tags;
#   - 2.0.0/: a fresh store of the new schema, captured the same way;
#   - migrations/1.0.0-2.0.0.sql: notes rewritten with a new column and a new
#     index, tags rewritten with a primary key;
#   - fixturekit.json: keys notes(uuid), folders(uuid), tags(note_uuid, tag),
#     none of them backed by an index in 1.0.0.

readonly scale_sql_dir=bench/migrate-scale
readonly scale_generator_version=1 # bump when the build below changes: rebuilds the corpora

# What a corpus is built from: the generator, its size and the SQL files.
scale_identity() {
  echo "generator $scale_generator_version, $1 notes"
  (cd "$scale_sql_dir" && sha256sum -- *.sql ../migrate/text.sql)
}

scale_config() {
  cat <<'JSON'
{
  "store": "App.sqlite",
  "current": "2.0.0",
  "supported": ["1.0.0"],
  "stages": [
    {"from": "1.0.0", "to": "2.0.0", "sql": "migrations/1.0.0-2.0.0.sql"}
  ],
  "keys": {"notes": ["uuid"], "folders": ["uuid"], "tags": ["note_uuid", "tag"]}
}
JSON
}

scale_corpus() {
  local folder=$1 count=$2 stamp=$1.built staging=$1.partial build=$1.build version output
  if [[ -s $stamp && $(cat "$stamp") == "$(scale_identity "$count")" ]] &&
    "$bin" verify --quiet "$folder/1.0.0" "$folder/2.0.0" >/dev/null 2>&1 &&
    cmp -s "$folder/fixturekit.json" <(scale_config); then
    echo "corpus: reusing $folder ($count notes; delete it to rebuild it)"
    return
  fi
  rm -rf -- "${folder:?}" "${staging:?}" "${build:?}" "$stamp"
  mkdir -p "$build/1.0.0" "$build/2.0.0" "$staging/migrations"
  echo "corpus: building $folder: the 1.0.0 store with sqlite3 ($count notes)"
  sqlite3 "$build/1.0.0/App.sqlite" ".read $scale_sql_dir/schema-1.0.0.sql" ".read bench/migrate/text.sql" \
    ".parameter set @notes $count" ".read $scale_sql_dir/fill-1.0.0.sql" >/dev/null || die "sqlite3 could not build the 1.0.0 store"
  sqlite3 "$build/2.0.0/App.sqlite" ".read $scale_sql_dir/schema-2.0.0.sql" ".read $scale_sql_dir/fill-2.0.0.sql" >/dev/null ||
    die "sqlite3 could not build the 2.0.0 store"
  cp -- "$scale_sql_dir/1.0.0-2.0.0.sql" "$staging/migrations/1.0.0-2.0.0.sql"
  scale_config >"$staging/fixturekit.json"
  for version in 1.0.0 2.0.0; do
    output=$("$bin" capture "$build/$version/App.sqlite" --version "$version" --corpus "$staging" --no-anonymize 2>&1) ||
      die "fixturekit capture of $version failed: $output"
  done
  rm -rf -- "${build:?}"
  mv -- "$staging" "$folder"
  scale_identity "$count" >"$stamp"
}

# Reads every file below the folders given, so that the runs read them from memory.
warm_page_cache() {
  find "$@" -type f -exec cat -- {} + >/dev/null
}

# The stage between BEGIN IMMEDIATE and COMMIT, as fixturekit runs it: what a
# careful user gives sqlite3.
stage_in_transaction() {
  echo "BEGIN IMMEDIATE;"
  cat -- "$1"
  echo "COMMIT;"
}
