#!/usr/bin/env bash
# Benchmark of `fixturekit pack` and `fixturekit unpack` against the tools users
# would otherwise use.
#
#   bench/bench-pack.sh BIN       BIN: the release binary, e.g. .build/release/fixturekit
#
# The fixture: one SQLite store of about 1 GiB built by sqlite3 (a notes table of text
# rows made of words, with two indexes: what compresses like a real store, unlike
# random bytes), its manifest.json and its SHA256SUMS, under bench/work/pack-fixture/.
#
# 1. Packing, in one hyperfine run:
#      fixturekit pack (tar.zst, level 3; the folder's SHA256SUMS verified in the same read)
#      tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 -cf - DIR | gzip -n
#      the same tar | zstd -3
#    Requirements: pack at least 3x faster than tar | gzip -n, its archive no larger
#    than tar | gzip -n's; pack at most 0.8x tar | zstd -3's time (pack compresses on
#    every core), its archive no larger than tar | zstd -3's.
# 1b. The same pack pinned to one core (taskset -c 0): the same bytes (required).
# 2. Unpacking the archive pack wrote, in one hyperfine run:
#      fixturekit unpack (verification and fsync included)
#      tar -xf, then sha256sum -c in the extracted folder
#    Requirement: unpack faster.
# 3. Peak memory (max RSS, GNU time) of pack and of unpack. Requirement: under 100 MiB.
#
# The data is generated once and reused while its SHA256SUMS holds. It is read from the
# page cache (warmed first). Results go to bench/results/pack-*.
#
# Exit status: 0 every requirement holds, 1 a requirement failed, 2 could not run,
# 64 usage error.
set -euo pipefail
export LC_ALL=C # `.` as the decimal point in awk and printf

# The requirements.
readonly min_speedup_vs_gzip=3     # tar | gzip -n time / fixturekit pack time
readonly max_slowdown_vs_zstd=0.8  # fixturekit pack time / tar | zstd -3 time (zstd on every core)
readonly min_speedup_unpack=1      # (tar -x + sha256sum -c) time / fixturekit unpack time
readonly max_rss_mib=100           # fixturekit pack's and unpack's peak RSS

# How the measurements are taken. Packing runs fewer times: tar | gzip -n alone takes
# over a minute a run on a 2-core machine (the page cache is warmed before, by cat).
readonly pack_warmup=0 pack_runs=3 # per hyperfine command, packing
readonly warmup=1 runs=5           # per hyperfine command, unpacking
readonly rss_runs=3                # peak RSS: the largest of this many runs

# The store: rows of the notes table (about 500 bytes each with the indexes).
readonly rows=${FIXTUREKIT_BENCH_PACK_ROWS:-2050000} # a smaller store to try the script
readonly mib=$((1024 * 1024))

# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bench_init bench-pack "$@"
require_tools hyperfine sqlite3 tar gzip zstd sha256sum

# Every path below is relative to the repository's root.
cd "$(dirname "${BASH_SOURCE[0]}")/.."
readonly corpus=bench/work/pack-fixture # holds the fixture folder 1.0.0/
readonly fixture=$corpus/1.0.0
readonly out=bench/work/pack-out        # archives and extractions
readonly results=bench/results
mkdir -p "$corpus" "$out" "$results"

machine_facts() {
  host_facts
  echo "  file system:   $(df -T "$corpus" | awk 'NR == 2 { print $2 }') ($(df -h "$corpus" | awk 'NR == 2 { print $1 }'))"
  echo "  load average:  $(cut -d' ' -f1-3 /proc/loadavg) (before the runs)"
  echo "  tar:           $(tar --version | sed -n 1p)"
  echo "  gzip:          $(gzip --version | sed -n 1p)"
  echo "  zstd:          $(zstd --version)"
  echo "  sha256sum:     $(sha256sum --version | sed -n 1p)"
  echo "  sqlite3:       $(sqlite3 --version | cut -d' ' -f1)"
  echo "  hyperfine:     $(hyperfine --version)"
  echo "  fixturekit:    $("$bin" --version 2>/dev/null || echo unknown) ($bin_shown)"
}

# The store's SQL: words, 200,000 sentences of 12 words, then $rows notes of a title
# and four sentences, with two indexes. Deterministic: no random(), the same bytes
# every time for the same sqlite3.
store_sql() {
  local word sentence
  word() { echo "(SELECT word FROM words WHERE id = 1 + (i * $1 / 65536 + $2) % (SELECT count(*) FROM words))"; }
  sentence() { echo "(SELECT text FROM sentences WHERE id = 1 + (i * $1 / 65536) % 200000)"; }
  cat <<SQL
PRAGMA page_size = 4096;
PRAGMA journal_mode = OFF;
PRAGMA synchronous = OFF;
CREATE TABLE words(id INTEGER PRIMARY KEY, word TEXT NOT NULL);
INSERT INTO words(word) SELECT value FROM json_each('["the","of","and","to","in","is","you","that","it","he","was","for","on","are","as","with","his","they","at","be","this","have","from","or","one","had","by","word","but","not","what","all","were","we","when","your","can","said","there","use","an","each","which","she","do","how","their","if","will","up","other","about","out","many","then","them","these","so","some","her","would","make","like","him","into","time","has","look","two","more","write","go","see","number","no","way","could","people","my","than","first","water","been","call","who","oil","its","now","find","long","down","day","did","get","come","made","may","part","meeting","notes","project","budget","review","draft","agenda","follow","update","client","invoice","deadline","schedule","design","release","version","migration","store","backup","fixture","garden","recipe","travel","flight","hotel","ticket","grocery","milk","bread","coffee","lunch","dinner","birthday","present","family","weekend","holiday","doctor","appointment","dentist","school","homework","teacher","lesson","piano","guitar","movie","book","chapter","author","library","idea","plan","list","task","reminder","urgent","later","tomorrow","today","yesterday","morning","evening","night","week","month","year","Monday","Tuesday","Wednesday","Thursday","Friday","Saturday","Sunday","January","February","March","April","May","June","July","August","September","October","November","December","email","phone","address","street","city","country","north","south","east","west","price","cost","total","tax","receipt","order","delivery","package","shipping","return","refund","account","password","login","server","database","column","index","query","report","chart","sales","team","manager","office","desk","window","door","kitchen","table","chair","lamp","paint","color","blue","green","red","yellow","black","white","small","large","quick","slow","happy","tired","busy","free","open","closed","new","old","good","bad"]');
CREATE TABLE sentences(id INTEGER PRIMARY KEY, text TEXT NOT NULL);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200000)
INSERT INTO sentences(id, text) SELECT i,
  $(word 2654435761 1) || ' ' || $(word 2246822519 2) || ' ' || $(word 3266489917 3) || ' ' ||
  $(word 668265263 4) || ' ' || $(word 374761393 5) || ' ' || $(word 2654435769 6) || ' ' ||
  $(word 1597334677 7) || ' ' || $(word 3812015801 8) || ' ' || $(word 2869860233 9) || ' ' ||
  $(word 1013904223 10) || ' ' || $(word 1664525 11) || ' ' || $(word 22695477 12) || '.'
FROM n;
CREATE TABLE notes(id INTEGER PRIMARY KEY, created INTEGER NOT NULL, modified INTEGER NOT NULL,
  title TEXT NOT NULL, body TEXT NOT NULL, folder INTEGER NOT NULL);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $rows)
INSERT INTO notes SELECT i, 1600000000 + i * 37, 1600000000 + i * 37 + (i * 7919) % 86400,
  'Note ' || i || ': ' || $(sentence 104729),
  $(sentence 2654435761) || ' ' || $(sentence 2246822519) || ' ' || $(sentence 3266489917) || ' ' ||
  $(sentence 668265263) || ' ' || printf('Total %d.%02d, ref #%08x', (i * 31) % 5000, i % 100, i * 2654435761 % 4294967296),
  (i * 7) % 40
FROM n;
CREATE INDEX notes_created ON notes(created);
CREATE INDEX notes_folder ON notes(folder, modified);
SQL
}

# Creates the fixture when it is absent or fails its SHA256SUMS.
prepare_fixture() {
  if [[ -s $fixture/SHA256SUMS ]] && (cd "$fixture" && sha256sum -c --quiet --status SHA256SUMS); then
    echo "fixture: reusing $fixture (its SHA256SUMS holds; delete the folder to regenerate it)"
    return
  fi
  rm -rf -- "${fixture:?}" "$fixture.partial" "$corpus.source"
  mkdir -p "$corpus.source"
  echo "fixture: generating a store of $rows notes with sqlite3 (a minute or two)"
  store_sql | sqlite3 "$corpus.source/App.sqlite" >/dev/null || die "sqlite3 could not build the store"
  # A real fixture, manifest included (verify reads it): captured from the store.
  "$bin" capture --no-anonymize --mode snapshot "$corpus.source/App.sqlite" --version 1.0.0 --corpus "$corpus" >/dev/null 2>&1 ||
    die "fixturekit capture of the generated store failed"
  rm -rf -- "$corpus.source"
}

warm_page_cache() {
  cat -- "$fixture"/* >/dev/null
  echo "page cache: warmed with cat: every tool reads the fixture from memory"
}

machine_facts
echo
prepare_fixture
store_bytes=$(stat -c %s "$fixture/App.sqlite")
fixture_bytes=$(du -cb "$fixture"/* | awk 'END { print $1 }')
echo "fixture: $fixture, $((fixture_bytes / mib)) MiB (App.sqlite: $store_bytes bytes, page count $(sqlite3 "file:$fixture/App.sqlite?immutable=1" 'PRAGMA page_count'))"
warm_page_cache
echo

ours=$out/App-1.0.0.tar.zst
gnu_gzip=$out/gnu.tar.gz
gnu_zstd=$out/gnu.tar.zst
tar_command="tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 -cf - -C $(quote "$corpus") 1.0.0"

# 1. Packing: the three in one hyperfine run.
echo "--- packing $((fixture_bytes / mib)) MiB: fixturekit pack vs tar | gzip -n vs tar | zstd -3"
run_hyperfine pack "$pack_warmup" "$pack_runs" \
  -n "fixturekit pack -o $ours $fixture" "$(quote "$bin") pack --quiet -o $(quote "$ours") $(quote "$fixture")" \
  -n "tar ... | gzip -n" "$tar_command | gzip -n >$(quote "$gnu_gzip")" \
  -n "tar ... | zstd -3" "$tar_command | zstd -3 -q -c >$(quote "$gnu_zstd")"
echo

# 2. Unpacking the archive pack wrote, both ways, into a fresh folder each run.
dest_ours=$out/unpacked-fixturekit
dest_tar=$out/unpacked-tar
echo "--- unpacking $ours: fixturekit unpack vs tar -x + sha256sum -c"
run_hyperfine unpack "$warmup" "$runs" \
  --prepare "rm -rf $(quote "$dest_ours") $(quote "$dest_tar") && sync" \
  -n "fixturekit unpack" "$(quote "$bin") unpack --quiet $(quote "$ours") $(quote "$dest_ours")" \
  -n "tar -x + sha256sum -c" "mkdir $(quote "$dest_tar") && tar -xf $(quote "$ours") -C $(quote "$dest_tar") && (cd $(quote "$dest_tar") && sha256sum -c --quiet SHA256SUMS)"
echo

# 3. Peak RSS, in KiB (GNU time's %M).
echo "--- peak memory: /usr/bin/time -f %M, $rss_runs runs each"
: >"$results/pack-rss.txt"
: >"$results/unpack-rss.txt"
for ((i = 1; i <= rss_runs; i++)); do
  /usr/bin/time -f '%M' -a -o "$results/pack-rss.txt" "$bin" pack --quiet -o "$ours" "$fixture" ||
    die "fixturekit pack failed under /usr/bin/time"
  rm -rf -- "$dest_ours"
  /usr/bin/time -f '%M' -a -o "$results/unpack-rss.txt" "$bin" unpack --quiet "$ours" "$dest_ours" ||
    die "fixturekit unpack failed under /usr/bin/time"
done
pack_rss_kib=$(sort -n "$results/pack-rss.txt" | tail -n 1)
unpack_rss_kib=$(sort -n "$results/unpack-rss.txt" | tail -n 1)
echo "max RSS per run (KiB): pack $(paste -sd' ' "$results/pack-rss.txt"); unpack $(paste -sd' ' "$results/unpack-rss.txt")"
echo

# 1b. The same pack on one core: zstd's output must not depend on the cores.
one_core=$out/one-core.tar.zst
cores_verdict=FAIL
if command -v taskset >/dev/null; then
  taskset -c 0 "$bin" pack --quiet --force -o "$one_core" "$fixture" || die "fixturekit pack on one core failed"
  cmp -s -- "$one_core" "$ours" && cores_verdict=PASS
else
  cores_verdict="SKIP (no taskset)"
fi
rm -f -- "$one_core" "$one_core.sha256"

# The archives are what each tool wrote in the last run.
"$bin" verify --quiet "$ours" || die "$ours does not verify"
ours_bytes=$(stat -c %s "$ours")
gzip_bytes=$(stat -c %s "$gnu_gzip")
zstd_bytes=$(stat -c %s "$gnu_zstd")

pack_s=$(mean_of "$results/pack.csv" 1)
pack_sd=$(stddev_of "$results/pack.csv" 1)
gzip_s=$(mean_of "$results/pack.csv" 2)
gzip_sd=$(stddev_of "$results/pack.csv" 2)
zstd_s=$(mean_of "$results/pack.csv" 3)
zstd_sd=$(stddev_of "$results/pack.csv" 3)
unpack_s=$(mean_of "$results/unpack.csv" 1)
unpack_sd=$(stddev_of "$results/unpack.csv" 1)
untar_s=$(mean_of "$results/unpack.csv" 2)
untar_sd=$(stddev_of "$results/unpack.csv" 2)

speedup_gzip=$(ratio "$gzip_s" "$pack_s")
slowdown_zstd=$(ratio "$pack_s" "$zstd_s")
speedup_unpack=$(ratio "$untar_s" "$unpack_s")
size_ratio=$(awk -v a="$ours_bytes" -v b="$gzip_bytes" 'BEGIN { printf "%.3f", a / b }')
pack_rss_mib=$(awk -v k="$pack_rss_kib" 'BEGIN { printf "%.1f", k / 1024 }')
unpack_rss_mib=$(awk -v k="$unpack_rss_kib" 'BEGIN { printf "%.1f", k / 1024 }')

gzip_verdict=$(verdict "$speedup_gzip" ">=" "$min_speedup_vs_gzip")
size_verdict=$(verdict "$ours_bytes" "<=" "$gzip_bytes")
zstd_verdict=$(verdict "$slowdown_zstd" "<=" "$max_slowdown_vs_zstd")
zstd_size_verdict=$(verdict "$ours_bytes" "<=" "$zstd_bytes")
unpack_verdict=$(verdict "$speedup_unpack" ">=" "$min_speedup_unpack")
rss_verdict=$(verdict "$(((pack_rss_kib > unpack_rss_kib) ? pack_rss_kib : unpack_rss_kib))" "<" "$((max_rss_mib * 1024))")

# "MEAN ± SD s, N MB/s" for BYTES in MEAN seconds (MB = 10^6 bytes).
figure() {
  awk -v mean="$1" -v sd="$2" -v bytes="$3" \
    'BEGIN { printf "%7.3f s ± %.3f s  %6.0f MB/s", mean, sd, bytes / mean / 1e6 }'
}

{
  echo "summary (mean of $pack_runs interleaved rounds packing, $runs after $warmup warm-up round unpacking; fixture in the page cache; MB = 10^6 bytes):"
  echo "  fixture: $((fixture_bytes / mib)) MiB ($fixture_bytes bytes)"
  echo "  packing:"
  echo "    fixturekit pack (tar.zst -3)   $(figure "$pack_s" "$pack_sd" "$fixture_bytes")  archive $ours_bytes bytes"
  echo "    tar | gzip -n                  $(figure "$gzip_s" "$gzip_sd" "$fixture_bytes")  archive $gzip_bytes bytes"
  echo "    tar | zstd -3                  $(figure "$zstd_s" "$zstd_sd" "$fixture_bytes")  archive $zstd_bytes bytes"
  echo "  unpacking $ours:"
  echo "    fixturekit unpack              $(figure "$unpack_s" "$unpack_sd" "$fixture_bytes")"
  echo "    tar -x + sha256sum -c          $(figure "$untar_s" "$untar_sd" "$fixture_bytes")"
  echo "  peak RSS (largest of $rss_runs runs): pack $pack_rss_kib KiB = $pack_rss_mib MiB, unpack $unpack_rss_kib KiB = $unpack_rss_mib MiB"
  echo
  echo "requirements:"
  printf '  %s  pack vs tar | gzip -n: %sx faster (required >= %sx)\n' "$gzip_verdict" "$speedup_gzip" "$min_speedup_vs_gzip"
  printf '  %s  pack archive vs tar | gzip -n output: %s of its size (required <= 1)\n' "$size_verdict" "$size_ratio"
  printf '  %s  pack vs tar | zstd -3: %sx its time, %.3fs against %.3fs (required <= %sx)\n' "$zstd_verdict" "$slowdown_zstd" "$pack_s" "$zstd_s" "$max_slowdown_vs_zstd"
  printf '  %s  pack archive vs tar | zstd -3: %s bytes against %s (required: no larger)\n' "$zstd_size_verdict" "$ours_bytes" "$zstd_bytes"
  printf '  %s  pack on one core (taskset -c 0) writes the same bytes as on every core\n' "$cores_verdict"
  printf '  %s  unpack vs tar -x + sha256sum -c: %sx faster (required >= %sx)\n' "$unpack_verdict" "$speedup_unpack" "$min_speedup_unpack"
  printf '  %s  peak RSS: pack %s MiB, unpack %s MiB (required < %s MiB)\n' "$rss_verdict" "$pack_rss_mib" "$unpack_rss_mib" "$max_rss_mib"
} | tee "$results/pack-summary.txt"

[[ $gzip_verdict == PASS && $size_verdict == PASS && $zstd_verdict == PASS && $zstd_size_verdict == PASS && $cores_verdict != FAIL && $unpack_verdict == PASS && $rss_verdict == PASS ]] || exit 1
