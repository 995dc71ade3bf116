#!/usr/bin/env bash
# Regenerates the version folders of the example corpus from the SQL in
# scripts/example-corpus/, the archive of each, and the corpus' fixturekit.lock,
# reproducibly: running it again gives the same bytes.
#
#   scripts/make-example-corpus.sh [TOOL] [CORPUS]
#
# TOOL defaults to .build/release/fixturekit, CORPUS to MigrationFixtures (its
# fixturekit.json, anonymize.json and migrations/ are kept as they are). 1.0.0
# and 3.0.0 are anonymized with the corpus' example rules. SQLite's random numbers
# (the WAL's salts) are seeded, so the raw 2.0.0 fixture is reproducible too.
set -euo pipefail
cd "$(dirname "$0")/.."
tool=$(realpath "${1:-.build/release/fixturekit}")
corpus=${2:-MigrationFixtures}
sql=scripts/example-corpus
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export SOURCE_DATE_EPOCH=0
# The example corpus is synthetic: its anonymization key is no secret, and a
# fixed key keeps the anonymized fixtures reproducible.
export FIXTUREKIT_ANON_KEY=${FIXTUREKIT_ANON_KEY:-example-corpus-key-not-a-secret}

build() { # VERSION: a store built from its SQL, closed cleanly
  mkdir -p "$work/$1"
  sqlite3 -bail "$work/$1/App.sqlite" < "$sql/$1.sql" > /dev/null
}

build 1.0.0
"$tool" capture "$work/1.0.0/App.sqlite" --version 1.0.0 --corpus "$corpus" --force

# 2.0.0 is captured raw: its last commits stay in App.sqlite-wal (no checkpoint
# on close, automatic checkpoints off), as in a store copied out of a running app.
# Anonymizing folds a WAL away, so this synthetic store opts out of the rules.
build 2.0.0
{
  echo ".testctrl prng_seed 20"
  echo ".dbconfig no_ckpt_on_close on"
  echo "PRAGMA journal_mode = WAL;"
  echo "PRAGMA wal_autocheckpoint = 0;"
  cat "$sql/2.0.0-wal.sql"
} | sqlite3 -bail "$work/2.0.0/App.sqlite" > /dev/null
"$tool" capture "$work/2.0.0/App.sqlite" --version 2.0.0 --corpus "$corpus" --mode raw --no-anonymize --force

build 3.0.0
"$tool" capture "$work/3.0.0/App.sqlite" --version 3.0.0 --corpus "$corpus" --force

# The archive of every version, beside its folder, with its .sha256 (replacing
# the locked ones: regenerating the example is a rewrite of its history).
for version in 1.0.0 2.0.0 3.0.0; do
  "$tool" pack "$corpus/$version" --quiet --force
done

# The shipped history as it now stands: every fixture, archive and stage. Review
# the diff of fixturekit.lock before committing it.
"$tool" lock "$corpus" --quiet
