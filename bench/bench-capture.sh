#!/usr/bin/env bash
# Benchmark of `fixturekit capture --mode snapshot` against the tools users would
# otherwise use to copy a live WAL store.
#
#   bench/bench-capture.sh BIN      BIN: the release binary, e.g. .build/release/fixturekit
#
# The input is a store set of about 1.3 GiB: `App.sqlite` (~1.1 GiB, four tables of
# text rows with their indexes, checkpointed) and `App.sqlite-wal` (~120 MiB of
# committed transactions that no checkpoint has copied into the main file, left by a
# writer that ran with wal_autocheckpoint=0 and exited without closing), with its
# `App.sqlite-shm`. It is built once under bench/work/capture-source/ and reused
# while its files have their expected sizes and SHA-256 sums.
#
# 1. In one hyperfine run, side by side:
#    (a) `fixturekit capture SRC --version 9.9.9 --corpus OUT --mode snapshot`: the
#        fixture folder with the store copy, manifest.json (row counts included) and
#        SHA256SUMS;
#    (b) `sqlite3 -readonly SRC ".backup DST" && sha256sum DST`: SQLite's own online
#        backup, then the copy's checksum (-readonly: a read-write CLI connection
#        would checkpoint the source's WAL into its main file on close and delete
#        the -wal, changing the input);
#    (c) `cp SRC SRC-wal SRC-shm DSTDIR/ && sync && openssl dgst -sha256 DSTDIR/*`:
#        the three files as they are, on the disk, with their checksums;
#    and, for what bounds (a), two steps it cannot do without:
#    (d) SQLite's online backup alone, through python3's sqlite3 module: read-only
#        source, destination without journal or sync, no hash, no fsync;
#    (e) `openssl dgst -sha256 SRC`: the SHA-256 of the main file alone.
#    Every output is removed (and `sync` run) before each run, outside the timing.
#    Requirements: (a) at most 0.5x the time of (b), and at most 1.1x the time of (c)
#    (not a consistent capture: a writer between the three copies leaves a set that
#    does not open as it was; but the floor of a copy that is hashed and on the
#    disk). (d) and (e) against (c) are reported, not required.
# 2. Peak memory (max RSS, from GNU time) of (a). Requirement: under 100 MiB.
# 3. The source is left untouched: the SHA-256 of App.sqlite and App.sqlite-wal
#    after every run equals the one taken when the store was built (snapshot mode
#    promises it). The -shm is reported, not required: every SQLite reader, the
#    sqlite3 CLI's included, writes its read mark into it.
#
# The source is read from the page cache (warmed first). The outputs go to the
# same file system; (a) and (b) fsync their copy (SQLite commits, fixturekit
# syncs every file of a fixture), (c) runs `sync`.
# FIXTUREKIT_BENCH_CAPTURE_MIB="MAIN WAL" (MiB) builds a smaller store set, to try
# the script.
# Results go to bench/results/capture-*.
#
# Exit status: 0 every requirement holds, 1 a requirement failed, 2 could not run,
# 64 usage error.
set -euo pipefail
export LC_ALL=C # bytewise sort, `.` as the decimal point in awk and printf

# The requirements.
readonly max_ratio_vs_backup=0.5 # fixturekit capture time / (sqlite3 .backup + sha256sum) time
readonly max_ratio_vs_cp=1.1     # fixturekit capture time / (cp + sync + openssl dgst of the three files) time
readonly max_rss_mib=100         # fixturekit capture's peak RSS

# How the measurements are taken.
readonly warmup=1 runs=5 # per hyperfine command
readonly warm_memory_mib=2048 # freed before every run: see warm_memory_command in lib.sh
readonly rss_runs=3      # peak RSS: the largest of this many runs

# The store set: main file and WAL sizes, in MiB, that the generator aims for, and
# the range a reused store set must be in.
# FIXTUREKIT_BENCH_CAPTURE_MIB="MAIN WAL" sets smaller targets, to try the script.
read -r main_target_mib wal_target_mib <<<"${FIXTUREKIT_BENCH_CAPTURE_MIB:-1100 120}"
readonly main_target_mib wal_target_mib
readonly main_min_mib=$((main_target_mib * 96 / 100)) main_max_mib=$((main_target_mib * 109 / 100))
readonly wal_min_mib=$((wal_target_mib * 95 / 100)) wal_max_mib=$((wal_target_mib * 109 / 100 + 1))
readonly generator_version=1 # bump when the generator below changes: rebuilds the store

readonly version_label=9.9.9 # the fixture's version label
readonly mib=$((1024 * 1024))

# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bench_init bench-capture "$@"
require_tools hyperfine sqlite3 python3 sha256sum cp openssl
python3 -c 'import sqlite3' 2>/dev/null || die "python3 has no sqlite3 module (needed to build the store)"

# Every path below is relative to the repository's root.
cd "$(dirname "${BASH_SOURCE[0]}")/.."
readonly source_dir=bench/work/capture-source # the store set: the input, never written by a run
readonly src=$source_dir/App.sqlite
readonly stamp=$source_dir/source.sha256         # sha256sum lines of App.sqlite and App.sqlite-wal
readonly expected_rows=$source_dir/rows.txt      # "table rows-with-the-WAL rows-in-App.sqlite-alone"
readonly generator_stamp=$source_dir/generator.txt # the generator version and targets it was built with
readonly out_dir=bench/work/capture-out
readonly corpus=$out_dir/corpus      # (a) writes $corpus/9.9.9/
readonly backup_dir=$out_dir/backup  # (b) writes $backup_dir/App.sqlite
readonly copy_dir=$out_dir/copy      # (c) writes $copy_dir/App.sqlite{,-wal,-shm}
readonly alone_dir=$out_dir/alone    # (d) writes $alone_dir/App.sqlite
readonly results=bench/results
mkdir -p "$source_dir" "$out_dir" "$results"

machine_facts() {
  local sha256sum_impl="its own C SHA-256 (does not link libcrypto)"
  if ldd "$(command -v sha256sum)" 2>/dev/null | grep -q libcrypto; then sha256sum_impl="libcrypto"; fi
  local sqlite_lib
  sqlite_lib=$(sqlite_library_facts)
  host_facts
  echo "  sha_ni:        $(if grep -qw sha_ni /proc/cpuinfo; then echo yes; else echo no; fi)"
  echo "  file system:   $(findmnt -n -o FSTYPE -T "$out_dir" 2>/dev/null || echo unknown) (source and outputs)"
  echo "  load average:  $(cut -d' ' -f1-3 /proc/loadavg) (before the runs)"
  echo "  sqlite3:       $(sqlite3 --version | cut -d' ' -f1,2) (CLI); fixturekit links $sqlite_lib"
  echo "  python3:       $(python3 -c 'import sqlite3, sys; print(sys.version.split()[0], "with SQLite", sqlite3.sqlite_version)') (builds the store)"
  echo "  sha256sum:     $(sha256sum --version | sed -n 1p), hashing with $sha256sum_impl"
  echo "  cp:            $(cp --version | sed -n 1p)"
  echo "  hyperfine:     $(hyperfine --version)"
  echo "  fixturekit:    $("$bin" --version 2>/dev/null | sed -n 1p) ($bin_shown)"
}

# Builds the store set in $source_dir: the bulk with its indexes, checkpointed into
# App.sqlite, then ~100 MiB of committed transactions that stay in App.sqlite-wal.
build_source() {
  rm -rf -- "${source_dir:?}"
  mkdir -p "$source_dir"
  echo "source: building $src (~$main_target_mib MiB) and its -wal (~$wal_target_mib MiB); this takes a few minutes"
  python3 - "$src" "$main_target_mib" "$wal_target_mib" "$expected_rows" <<'PY'
import os, random, sqlite3, sys

path, main_target, wal_target, rows_path = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
MIB = 1024 * 1024
rng = random.Random(20261130)

# Text from a fixed vocabulary: a pool of sentences, rows made of a few of them.
words = ("order invoice delivery customer account payment refund shipment parcel warehouse "
         "address street city country region postal code phone email message subject reply "
         "thanks please update status pending shipped delivered returned cancelled review "
         "rating product item quantity price discount coupon total tax currency euro dollar "
         "monday tuesday wednesday thursday friday morning evening week month year today "
         "the a an and or but with without from to for of in on at by about after before "
         "is are was were be been will would can could should may might must have has had "
         "new old small large blue red green black white fast slow early late happy sorry").split()
sentences = []
for _ in range(8000):
    sentence = " ".join(rng.choice(words) for _ in range(rng.randint(6, 18)))
    sentences.append(sentence[0].upper() + sentence[1:] + ".")
first_names = ["Ada", "Ben", "Chloe", "David", "Emma", "Farid", "Grace", "Hugo", "Ines", "Jonas",
               "Kira", "Liam", "Maya", "Noah", "Olga", "Paul", "Quinn", "Rosa", "Sven", "Tara"]
last_names = ["Martin", "Bernard", "Dubois", "Thomas", "Robert", "Richard", "Petit", "Durand",
              "Leroy", "Moreau", "Simon", "Laurent", "Lefebvre", "Michel", "Garcia", "Muller"]
cities = ["Lyon", "Paris", "Berlin", "Madrid", "Rome", "Lisbon", "Vienna", "Prague", "Oslo",
          "Dublin", "Brussels", "Warsaw", "Athens", "Helsinki", "Zurich", "Porto", "Milan"]
statuses = ["pending", "paid", "shipped", "delivered", "returned", "cancelled"]
kinds = ["open", "close", "view", "search", "add_to_cart", "checkout", "login", "logout", "sync"]

def text(low, high):
    return " ".join(rng.choice(sentences) for _ in range(rng.randint(low, high)))

def stamp(seconds):
    days, rest = divmod(seconds, 86400)
    return "2025-%02d-%02dT%02d:%02d:%02dZ" % (1 + days // 28 % 12, 1 + days % 28, rest // 3600, rest // 60 % 60, rest % 60)

next_id = {"customers": 1, "orders": 1, "messages": 1, "events": 1}
def customer():
    i = next_id["customers"]; next_id["customers"] += 1
    first, last = rng.choice(first_names), rng.choice(last_names)
    return (i, f"{first} {last}", f"{first.lower()}.{last.lower()}.{i}@example.com", rng.choice(cities),
            stamp(i * 37), text(1, 4))
def order():
    i = next_id["orders"]; next_id["orders"] += 1
    return (i, rng.randint(1, next_id["customers"] - 1), rng.choice(statuses), rng.randint(100, 500000),
            stamp(i * 13), text(0, 2))
def message():
    i = next_id["messages"]; next_id["messages"] += 1
    return (i, rng.randint(1, next_id["customers"] - 1), text(1, 1)[:80], text(3, 12), stamp(i * 11))
def event():
    i = next_id["events"]; next_id["events"] += 1
    return (i, rng.choice(kinds), '{"screen":"%s","ms":%d,"note":"%s"}' % (rng.choice(words), rng.randint(1, 9999), text(1, 1)),
            stamp(i * 7))

inserts = {
    "customers": ("INSERT INTO customers VALUES (?,?,?,?,?,?)", customer),
    "orders": ("INSERT INTO orders VALUES (?,?,?,?,?,?)", order),
    "messages": ("INSERT INTO messages VALUES (?,?,?,?,?)", message),
    "events": ("INSERT INTO events VALUES (?,?,?,?)", event),
}
def insert(db, table, count):
    sql, make = inserts[table]
    db.executemany(sql, (make() for _ in range(count)))

def count_rows(db):
    return {table: db.execute(f"SELECT count(*) FROM {table}").fetchone()[0] for table in inserts}

# 1. The bulk: no journal while loading, then WAL mode, checkpointed and closed cleanly.
db = sqlite3.connect(path, isolation_level=None)
db.executescript("""
PRAGMA page_size = 4096;
PRAGMA journal_mode = OFF;
PRAGMA synchronous = OFF;
PRAGMA cache_size = -1048576;
CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL UNIQUE,
                        city TEXT NOT NULL, created_at TEXT NOT NULL, bio TEXT);
CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL REFERENCES customers(id),
                     status TEXT NOT NULL, total_cents INTEGER NOT NULL, created_at TEXT NOT NULL, note TEXT);
CREATE TABLE messages (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL REFERENCES customers(id),
                       subject TEXT NOT NULL, body TEXT NOT NULL, sent_at TEXT NOT NULL);
CREATE TABLE events (id INTEGER PRIMARY KEY, kind TEXT NOT NULL, payload TEXT NOT NULL, at TEXT NOT NULL);
CREATE INDEX customers_city ON customers(city, name);
CREATE INDEX orders_customer ON orders(customer_id, created_at);
CREATE INDEX orders_status ON orders(status);
CREATE INDEX messages_customer ON messages(customer_id, sent_at);
CREATE INDEX events_kind_at ON events(kind, at);
PRAGMA user_version = 42;
""")
insert(db, "customers", 1000)
while True:
    db.execute("BEGIN")
    insert(db, "customers", 500)
    insert(db, "orders", 2000)
    insert(db, "messages", 1500)
    insert(db, "events", 3000)
    db.execute("COMMIT")
    pages, page_size = db.execute("PRAGMA page_count").fetchone()[0], db.execute("PRAGMA page_size").fetchone()[0]
    if pages * page_size >= main_target * MIB:
        break
db.execute("PRAGMA journal_mode = WAL")
main_rows = count_rows(db)
db.close()

# 2. The WAL: committed transactions, autocheckpoint off, and an exit without
# closing the connection (closing it would checkpoint and delete the -wal).
db = sqlite3.connect(path, isolation_level=None)
db.execute("PRAGMA wal_autocheckpoint = 0")
db.execute("PRAGMA synchronous = NORMAL")
deleted = 0
while os.stat(path + "-wal").st_size < wal_target * MIB:
    db.execute("BEGIN")
    insert(db, "customers", 10)
    insert(db, "orders", 30)
    insert(db, "messages", 20)
    insert(db, "events", 50)
    for _ in range(5):
        db.execute("UPDATE orders SET status = ? WHERE id = ?", (rng.choice(statuses), rng.randint(1, next_id["orders"] - 1)))
    for _ in range(2):
        deleted += db.execute("DELETE FROM events WHERE id = ?", (rng.randint(1, next_id["events"] - 1),)).rowcount
    db.execute("COMMIT")
all_rows = count_rows(db)
with open(rows_path, "w") as f:
    for table in sorted(inserts):
        f.write(f"{table} {all_rows[table]} {main_rows[table]}\n")
    f.flush()
    os.fsync(f.fileno())
os._exit(0)
PY
  sync -- "$src" "$src-wal" "$src-shm" "$expected_rows"
  (cd "$source_dir" && sha256sum App.sqlite App.sqlite-wal >source.sha256)
  echo "$generator_version $main_target_mib $wal_target_mib" >"$generator_stamp"
}

# Prints what the WAL holds, read from the files themselves: its frames, its commit
# frames, and how many frames the -shm says a checkpoint has copied (nBackfill).
describe_wal() {
  python3 - "$src" <<'PY'
import struct, sys
path = sys.argv[1]
with open(path + "-wal", "rb") as f:
    header = f.read(32)
    magic, version, page_size = struct.unpack(">III", header[:12])
    assert magic in (0x377F0682, 0x377F0683), "not a WAL"
    frames = commits = 0
    while True:
        frame_header = f.read(24)
        if len(frame_header) < 24: break
        if struct.unpack(">I", frame_header[4:8])[0] != 0: commits += 1
        frames += 1
        f.seek(page_size, 1)
with open(path + "-shm", "rb") as f:
    shm = f.read(136)
# The -shm: two copies of the 48-byte WalIndexHdr, then WalCkptInfo whose first field is nBackfill.
backfilled = struct.unpack("=I", shm[96:100])[0]
print(f"{frames} frames of {page_size} bytes, {commits} commits; -shm: {backfilled} frames checkpointed")
PY
}

# Creates the store set or checks the one built earlier: every file with a size in
# its range, App.sqlite and App.sqlite-wal with the SHA-256 sums taken when it was built.
prepare_source() {
  local reuse=true
  if [[ ! -s $stamp || ! -s $expected_rows || ! -f $src-shm ||
    $(cat "$generator_stamp" 2>/dev/null) != "$generator_version $main_target_mib $wal_target_mib" ]]; then
    reuse=false
  else
    main_bytes=$(size_of "$src" 2>/dev/null || echo 0)
    wal_bytes=$(size_of "$src-wal" 2>/dev/null || echo 0)
    if ((main_bytes < main_min_mib * mib || main_bytes > main_max_mib * mib ||
      wal_bytes < wal_min_mib * mib || wal_bytes > wal_max_mib * mib)); then
      reuse=false
    elif ! (cd "$source_dir" && sha256sum -c --quiet source.sha256); then
      echo "source: $source_dir/source.sha256 does not match: the store set changed since it was built" >&2
      reuse=false
    fi
  fi
  if $reuse; then
    echo "source: reusing $source_dir (sizes in range, SHA-256 of App.sqlite and App.sqlite-wal as built; delete the folder to rebuild it)"
  else
    build_source
  fi
  main_bytes=$(size_of "$src")
  wal_bytes=$(size_of "$src-wal")
  shm_bytes=$(size_of "$src-shm")
  source_bytes=$((main_bytes + wal_bytes + shm_bytes))
  ((main_bytes >= main_min_mib * mib && main_bytes <= main_max_mib * mib)) ||
    die "$src: $(mib_of "$main_bytes") MiB, expected $main_min_mib to $main_max_mib MiB"
  ((wal_bytes >= wal_min_mib * mib && wal_bytes <= wal_max_mib * mib)) ||
    die "$src-wal: $(mib_of "$wal_bytes") MiB, expected $wal_min_mib to $wal_max_mib MiB"
  wal_facts=$(describe_wal) || die "$src-wal: cannot read it"
  [[ $wal_facts == *"-shm: 0 frames checkpointed"* ]] || die "$src-wal: a checkpoint copied part of it into $src: rebuild it (delete $source_dir)"
  shm_sha_before=$(sha256sum <"$src-shm" | cut -c1-64)
  echo "source: App.sqlite      $(printf '%13d' "$main_bytes") bytes = $(mib_of "$main_bytes") MiB"
  echo "source: App.sqlite-wal  $(printf '%13d' "$wal_bytes") bytes = $(mib_of "$wal_bytes") MiB: $wal_facts"
  echo "source: App.sqlite-shm  $(printf '%13d' "$shm_bytes") bytes"
  echo "source: rows (table: with the WAL / in App.sqlite alone):"
  awk '{ printf "          %-10s %10d / %10d  (%+d only in the WAL)\n", $1, $2, $3, $2 - $3 }' "$expected_rows"
}

# Reads the source once so that every command reads it from memory.
warm_page_cache() {
  local available_kib resident
  available_kib=$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo)
  # The source, and one output per command alive at a time.
  if ((available_kib * 1024 < source_bytes * 3)); then
    echo "warning: only $((available_kib / 1024)) MiB of memory available: the source may not stay in the page cache" >&2
  fi
  cat -- "$src" "$src-wal" "$src-shm" >/dev/null
  if command -v fincore >/dev/null; then
    resident=$(fincore --bytes --noheadings --raw --output RES -- "$src" "$src-wal" "$src-shm" |
      awk '{ sum += $1 } END { print sum + 0 }')
    echo "page cache: warmed with cat; $((resident / mib)) of $((source_bytes / mib)) MiB of the source resident (fincore)"
    if ((resident < source_bytes)); then
      echo "warning: the page cache does not hold the whole source: part of it will be read from the disk" >&2
    else
      echo "page cache: every command reads the source from memory"
    fi
  else
    echo "page cache: warmed with cat (fincore not installed to confirm): every command reads the source from memory"
  fi
}

# Checks one capture's output: its SHA256SUMS accepted by sha256sum -c, one store
# file and no sidecar, and the manifest's row counts equal to the rows the store
# set holds WAL included (the copy is opened with immutable=1: nothing written).
check_fixture() {
  local fixture=$corpus/$version_label counts
  [[ -s $fixture/manifest.json && -s $fixture/SHA256SUMS && -s $fixture/App.sqlite ]] ||
    die "$fixture: expected App.sqlite, manifest.json and SHA256SUMS"
  [[ ! -e $fixture/App.sqlite-wal ]] || die "$fixture: snapshot mode left an App.sqlite-wal"
  (cd "$fixture" && sha256sum -c --quiet SHA256SUMS) || die "$fixture/SHA256SUMS: rejected by sha256sum -c"
  counts=$(python3 - "$fixture" <<'PY'
import json, sqlite3, sys
fixture = sys.argv[1]
manifest = json.load(open(fixture + "/manifest.json"))
def find_tables(node):
    # The row counts: the object whose keys are the four tables, wherever the manifest keeps it.
    if isinstance(node, dict):
        if {"customers", "events", "messages", "orders"} <= node.keys() and all(isinstance(v, int) for v in node.values()):
            return node
        for value in node.values():
            found = find_tables(value)
            if found: return found
    return None
tables = find_tables(manifest) or {}
db = sqlite3.connect(f"file:{fixture}/App.sqlite?immutable=1", uri=True)
for table in sorted(tables):
    print(table, tables[table], db.execute(f'SELECT count(*) FROM "{table}"').fetchone()[0])
PY
  ) || die "$fixture: cannot read its manifest or its store"
  [[ $(awk '{ print $1, $2 }' <<<"$counts") == "$(awk '{ print $1, $2 }' "$expected_rows")" ]] ||
    die "$fixture/manifest.json: row counts $(tr '\n' ' ' <<<"$counts")differ from the source's ($(tr '\n' ' ' <"$expected_rows"))"
  [[ $(awk '{ print $1, $3 }' <<<"$counts") == "$(awk '{ print $1, $2 }' "$expected_rows")" ]] ||
    die "$fixture/App.sqlite: row counts differ from the source's: the snapshot lost transactions"
}

# Whether App.sqlite and App.sqlite-wal still have the SHA-256 sums taken when
# they were built: prints "unchanged" or "CHANGED".
source_state() {
  if (cd "$source_dir" && sha256sum -c --quiet source.sha256 >/dev/null 2>&1); then echo unchanged; else echo CHANGED; fi
}

machine_facts
echo
prepare_source
warm_page_cache
echo

# The commands, as shown and as run.
capture_shown="$bin_shown capture $src --version $version_label --corpus $corpus --mode snapshot --no-anonymize"
capture_run="$(quote "$bin") capture $(quote "$src") --version $version_label --corpus $(quote "$corpus") --mode snapshot --no-anonymize"
backup_shown="sqlite3 -readonly $src \".backup $backup_dir/App.sqlite\" && sha256sum $backup_dir/App.sqlite"
backup_run="sqlite3 -readonly $(quote "$src") $(quote ".backup $backup_dir/App.sqlite") && sha256sum $(quote "$backup_dir/App.sqlite")"
cp_shown="cp $src $src-wal $src-shm $copy_dir/ && sync && openssl dgst -sha256 (the three copies)"
cp_run="cp $(quote "$src") $(quote "$src-wal") $(quote "$src-shm") $(quote "$copy_dir/") && sync && openssl dgst -sha256 $(quote "$copy_dir")/* >/dev/null"
# Before each run, outside the timing: the command's output removed, and `sync`,
# so that no run pays for the write-back of an earlier run's output.
capture_prepare="rm -rf $(quote "$corpus") && sync"
backup_prepare="rm -rf $(quote "$backup_dir") && mkdir -p $(quote "$backup_dir") && sync"
cp_prepare="rm -rf $(quote "$copy_dir") && mkdir -p $(quote "$copy_dir") && sync"
alone_shown="python3: SQLite's backup of $src into $alone_dir/App.sqlite without journal or sync"
alone_script='import sqlite3, sys
source = sqlite3.connect("file:" + sys.argv[1] + "?mode=ro", uri=True)
copy = sqlite3.connect(sys.argv[2])
copy.execute("PRAGMA journal_mode = OFF")
copy.execute("PRAGMA synchronous = OFF")
source.backup(copy)
copy.close()
source.close()'
alone_run="python3 -c $(quote "$alone_script") $(quote "$src") $(quote "$alone_dir/App.sqlite")"
alone_prepare="rm -rf $(quote "$alone_dir") && mkdir -p $(quote "$alone_dir") && sync"
hash_shown="openssl dgst -sha256 $src"
hash_run="openssl dgst -sha256 $(quote "$src") >/dev/null"

# 0. One capture outside the timing, to check what it writes.
echo "--- check: $capture_shown"
bash -c "$capture_prepare" || die "could not remove $corpus"
bash -c "$capture_run" 2>&1 | sed 's/^/  /' || die "fixturekit capture failed"
check_fixture
echo "check: the fixture has App.sqlite (no -wal), manifest.json and SHA256SUMS; sha256sum -c accepts it;"
echo "       its row counts, in the manifest and in the store, are the source's with the WAL's transactions"
[[ $(source_state) == unchanged ]] || die "$src: fixturekit capture --mode snapshot changed the source's main file or -wal"
echo

# 1. The commands in one hyperfine run.
echo "--- $((source_bytes / mib)) MiB store set: fixturekit capture vs sqlite3 .backup + sha256sum vs cp; the backup and the hash alone"
run_hyperfine capture "$warmup" "$runs" \
  --prepare "$capture_prepare" --prepare "$backup_prepare" --prepare "$cp_prepare" --prepare "$alone_prepare" --prepare sync \
  -n "$capture_shown" "$capture_run" \
  -n "$backup_shown" "$backup_run" \
  -n "$cp_shown" "$cp_run" \
  -n "$alone_shown" "$alone_run" \
  -n "$hash_shown" "$hash_run"
state_after_hyperfine=$(source_state)
echo

# 2. Peak RSS of fixturekit capture, in KiB (GNU time's %M).
echo "--- peak memory: /usr/bin/time -f %M $capture_shown ($rss_runs runs)"
: >"$results/capture-rss.txt"
for ((i = 1; i <= rss_runs; i++)); do
  bash -c "$capture_prepare"
  /usr/bin/time -f '%M' -a -o "$results/capture-rss.txt" \
    "$bin" capture "$src" --version "$version_label" --corpus "$corpus" --mode snapshot --no-anonymize 2>/dev/null ||
    die "fixturekit capture $src failed under /usr/bin/time"
done
peak_rss_kib=$(sort -n "$results/capture-rss.txt" | tail -n 1)
echo "max RSS per run (KiB): $(paste -sd' ' "$results/capture-rss.txt")"
state_after_rss=$(source_state)
shm_state=unchanged
[[ $(sha256sum <"$src-shm" | cut -c1-64) == "$shm_sha_before" ]] || shm_state="changed (SQLite readers write their read marks into it)"
rm -rf -- "${out_dir:?}"/* # the outputs: ~3.5 GiB
echo

# The figures and the verdicts.
capture_s=$(mean_of "$results/capture.csv" 1)
capture_sd=$(stddev_of "$results/capture.csv" 1)
backup_s=$(mean_of "$results/capture.csv" 2)
backup_sd=$(stddev_of "$results/capture.csv" 2)
cp_s=$(mean_of "$results/capture.csv" 3)
cp_sd=$(stddev_of "$results/capture.csv" 3)
alone_s=$(mean_of "$results/capture.csv" 4)
alone_sd=$(stddev_of "$results/capture.csv" 4)
hash_s=$(mean_of "$results/capture.csv" 5)
hash_sd=$(stddev_of "$results/capture.csv" 5)

ratio_backup=$(ratio "$capture_s" "$backup_s")
ratio_cp=$(ratio "$capture_s" "$cp_s")
ratio_alone_cp=$(ratio "$alone_s" "$cp_s")
ratio_hash_cp=$(ratio "$hash_s" "$cp_s")
peak_rss_mib=$(awk -v k="$peak_rss_kib" 'BEGIN { printf "%.1f", k / 1024 }')
backup_verdict=$(verdict "$ratio_backup" "<=" "$max_ratio_vs_backup")
cp_verdict=$(verdict "$ratio_cp" "<=" "$max_ratio_vs_cp")
rss_verdict=$(verdict "$peak_rss_kib" "<" "$((max_rss_mib * 1024))")
source_verdict=FAIL
[[ $state_after_hyperfine == unchanged && $state_after_rss == unchanged ]] && source_verdict=PASS

# "MEAN ± SD s, N MB/s" for BYTES of source in MEAN seconds (MB = 10^6 bytes).
figure() {
  awk -v mean="$1" -v sd="$2" -v bytes="$3" \
    'BEGIN { printf "%8.3f s ± %.3f s  %7.0f MB/s", mean, sd, bytes / mean / 1e6 }'
}

{
  echo "summary (mean of $runs interleaved rounds after $warmup warm-up round, source in the page cache, outputs removed and \`sync\` before each run; MB = 10^6 bytes of source):"
  echo "  store set: App.sqlite $(mib_of "$main_bytes") MiB + App.sqlite-wal $(mib_of "$wal_bytes") MiB + App.sqlite-shm $((shm_bytes / 1024)) KiB = $source_bytes bytes"
  echo "    (a) fixturekit capture --mode snapshot  $(figure "$capture_s" "$capture_sd" "$source_bytes")"
  echo "    (b) sqlite3 .backup + sha256sum         $(figure "$backup_s" "$backup_sd" "$source_bytes")"
  echo "    (c) cp + sync + openssl dgst, 3 files   $(figure "$cp_s" "$cp_sd" "$source_bytes")"
  echo "    (d) SQLite's backup alone (python3)     $(figure "$alone_s" "$alone_sd" "$source_bytes")"
  echo "    (e) openssl dgst -sha256 App.sqlite     $(figure "$hash_s" "$hash_sd" "$main_bytes") (of App.sqlite's bytes)"
  echo "  ratios: (a)/(b) = $ratio_backup, (a)/(c) = $ratio_cp; (d)/(c) = $ratio_alone_cp, (e)/(c) = $ratio_hash_cp"
  echo "  fixturekit capture peak RSS: $peak_rss_kib KiB = $peak_rss_mib MiB (largest of $rss_runs runs)"
  echo "  source after the hyperfine run: App.sqlite and App.sqlite-wal $state_after_hyperfine; after the RSS runs: $state_after_rss"
  echo "  App.sqlite-shm (not required): $shm_state"
  echo
  echo "requirements:"
  printf '  %s  fixturekit capture vs sqlite3 .backup + sha256sum: %sx its time, %.3fs against %.3fs (required <= %sx)\n' \
    "$backup_verdict" "$ratio_backup" "$capture_s" "$backup_s" "$max_ratio_vs_backup"
  printf '  %s  fixturekit capture vs cp + sync + openssl dgst of the three files: %sx its time, %.3fs against %.3fs (required <= %sx)\n' \
    "$cp_verdict" "$ratio_cp" "$capture_s" "$cp_s" "$max_ratio_vs_cp"
  printf '  info  what bounds (a): the backup alone is %sx (c), the SHA-256 of App.sqlite alone %sx (c)\n' \
    "$ratio_alone_cp" "$ratio_hash_cp"
  printf '  %s  fixturekit capture peak RSS: %s MiB (required < %s MiB)\n' \
    "$rss_verdict" "$peak_rss_mib" "$max_rss_mib"
  printf '  %s  source untouched: SHA-256 of App.sqlite and App.sqlite-wal as built, after every run\n' "$source_verdict"
} | tee "$results/capture-summary.txt"

[[ $backup_verdict == PASS && $cp_verdict == PASS && $rss_verdict == PASS && $source_verdict == PASS ]] || exit 1
