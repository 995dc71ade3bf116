#!/usr/bin/env bash
# Prints the stage from version K.0.0 to K+1.0.0 of the matrix benchmark's app:
#   bench/migrate-matrix/stage.sh K
# An odd K adds a column to notes and fills it for every row; an even K adds a
# table with a row for every fourth note. Both touch every note, so a stage costs
# time in proportion to the store.
set -euo pipefail
k=$1
if ((k % 2 == 1)); then
  echo "ALTER TABLE notes ADD COLUMN c$k TEXT;"
  echo "UPDATE notes SET c$k = substr(uuid, 1, 8) || '-$k';"
else
  echo "CREATE TABLE t$k (note_id INTEGER PRIMARY KEY REFERENCES notes(id), score INTEGER NOT NULL);"
  echo "INSERT INTO t$k (note_id, score) SELECT id, length(body) + $k FROM notes WHERE id % 4 = 0;"
fi
echo "PRAGMA user_version = $((k + 1));"
