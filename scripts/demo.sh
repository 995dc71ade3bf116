#!/usr/bin/env bash
# The main job, shown on a small store: until the example corpus lands, build a
# fixture folder on the spot, write its SHA256SUMS, check it with fixturekit and
# with sha256sum -c, then show that a changed byte is caught.
set -euo pipefail
tool=${1:-.build/release/fixturekit}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

fixture="$work/MigrationFixtures/1.0.0"
mkdir -p "$fixture"
sqlite3 "$fixture/App.sqlite" >/dev/null <<'SQL'
PRAGMA journal_mode = DELETE;
CREATE TABLE notes (id INTEGER PRIMARY KEY, uuid TEXT NOT NULL UNIQUE, title TEXT, body TEXT);
INSERT INTO notes (uuid, title, body) VALUES ('K1', 'Groceries', 'milk, eggs'), ('K2', 'Заметка', '笔记 ملاحظة 📝');
SQL

echo "\$ fixturekit sums MigrationFixtures/1.0.0"
(cd "$work" && "$OLDPWD/$tool" sums MigrationFixtures/1.0.0)
echo "\$ (cd MigrationFixtures/1.0.0 && sha256sum -c SHA256SUMS)"
(cd "$fixture" && sha256sum -c SHA256SUMS)
echo "\$ fixturekit verify"
(cd "$work" && "$OLDPWD/$tool" verify)

echo "\$ # one byte of the store changed:"
printf 'X' | dd of="$fixture/App.sqlite" bs=1 seek=200 conv=notrunc status=none
set +e
(cd "$work" && "$OLDPWD/$tool" verify)
status=$?
set -e
if [[ $status -ne 1 ]]; then
  echo "demo: expected exit 1 for a changed fixture, got $status" >&2
  exit 1
fi
echo "demo: OK (a changed byte is caught, exit 1)"
