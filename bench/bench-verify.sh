#!/usr/bin/env bash
# Benchmark of `fixturekit verify` against the tools users would otherwise use.
#
#   bench/bench-verify.sh BIN       BIN: the release binary, e.g. .build/release/fixturekit
#
# 1. A fixture folder of about 2 GiB (1 x 1 GiB, 4 x 200 MiB, 50 files of 4 KiB to
#    4 MiB, random bytes): `sha256sum -c` vs `fixturekit verify`, in one hyperfine run.
#    Requirement: fixturekit at least 5x faster.
# 2. One 1 GiB file: `openssl dgst -sha256` vs `fixturekit verify` of a folder holding
#    just that file, in one hyperfine run.
#    Requirement: fixturekit's throughput at least 0.85x openssl's.
# 3. Peak memory (max RSS, from GNU time) of `fixturekit verify` on the 2 GiB folder.
#    Requirement: under 64 MiB.
#
# The data is generated once under bench/work/ and reused while every file has its
# expected size. It is read from the page cache (warmed first), so the figures measure
# hashing and I/O overhead, not the disk. Results go to bench/results/verify-*.
#
# Exit status: 0 every requirement holds, 1 a requirement failed, 2 could not run,
# 64 usage error.
set -euo pipefail
export LC_ALL=C # bytewise sort, `.` as the decimal point in awk and printf

# The requirements.
readonly min_speedup_vs_sha256sum=5     # sha256sum -c time / fixturekit time, 2 GiB folder
readonly min_throughput_vs_openssl=0.85 # fixturekit MB/s / openssl MB/s, one 1 GiB file
readonly max_rss_mib=64                 # fixturekit verify's peak RSS, 2 GiB folder

# How the measurements are taken.
readonly warmup=1 runs=5 # per hyperfine command
readonly rss_runs=3      # peak RSS: the largest of this many runs

readonly mib=$((1024 * 1024))

# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bench_init bench-verify "$@"
require_tools hyperfine sha256sum openssl

# Every path below is relative to the repository's root.
cd "$(dirname "${BASH_SOURCE[0]}")/.."
readonly corpus=bench/work/verify-corpus # the ~2 GiB fixture folder
readonly single=bench/work/verify-single # a folder holding only the corpus' big.bin (hard link)
readonly results=bench/results
mkdir -p "$corpus" "$single" "$results"

# The corpus' files, relative to its folder, and their sizes in bytes.
paths=(big.bin)
sizes=($((1024 * mib)))
for i in 1 2 3 4; do
  paths+=("medium-$i.bin")
  sizes+=($((200 * mib)))
done
for ((i = 1; i <= 50; i++)); do
  paths+=("$(printf 'small/small-%02d.bin' "$i")")
  sizes+=($((4096 * (1 + (i * 7919) % 1024)))) # 4 KiB to 4 MiB, spread evenly
done
total_bytes=0
for size in "${sizes[@]}"; do total_bytes=$((total_bytes + size)); done
readonly total_bytes big_bytes=${sizes[0]}

machine_facts() {
  local sha256sum_impl="its own C SHA-256 (does not link libcrypto)"
  if ldd "$(command -v sha256sum)" 2>/dev/null | grep -q libcrypto; then sha256sum_impl="libcrypto"; fi
  host_facts
  echo "  sha_ni:        $(if grep -qw sha_ni /proc/cpuinfo; then echo yes; else echo no; fi)"
  echo "  load average:  $(cut -d' ' -f1-3 /proc/loadavg) (before the runs)"
  echo "  sha256sum:     $(sha256sum --version | sed -n 1p), hashing with $sha256sum_impl"
  echo "  openssl:       $(openssl version)"
  echo "  hyperfine:     $(hyperfine --version)"
  echo "  fixturekit:    $("$bin" --version 2>/dev/null || echo unknown) ($bin_shown)"
}

# Creates or repairs the corpus: every file with its size, nothing else, and a
# SHA256SUMS from `fixturekit sums` that `sha256sum -c` accepts.
prepare_corpus() {
  local changed=false generated=0 removed=0 extra file k
  mkdir -p "$corpus/small"
  # Anything not in the list (a *.partial of an interrupted run included) would be
  # listed by `sums` and reported unlisted by `verify`: remove it.
  while IFS= read -r extra; do
    rm -f -- "${corpus:?}/$extra"
    changed=true
    removed=$((removed + 1))
  done < <(comm -13 <(printf '%s\n' "${paths[@]}" SHA256SUMS | sort) \
    <(cd "$corpus" && find . -type f -printf '%P\n' | sort))
  for k in "${!paths[@]}"; do
    file=$corpus/${paths[k]}
    if [[ -f $file && $(stat -c %s -- "$file") -eq ${sizes[k]} ]]; then continue; fi
    # Written beside its final name, then renamed: never a short file under it.
    head -c "${sizes[k]}" /dev/urandom >"$file.partial"
    mv -f -- "$file.partial" "$file"
    changed=true
    generated=$((generated + 1))
  done
  if $changed || [[ ! -s $corpus/SHA256SUMS ]]; then
    echo "corpus: $corpus: generated $generated file(s) of random bytes, removed $removed stray file(s)"
    "$bin" sums --quiet "$corpus" || die "fixturekit sums $corpus failed"
    (cd "$corpus" && sha256sum -c --quiet SHA256SUMS) ||
      die "$corpus/SHA256SUMS: written by fixturekit sums, rejected by sha256sum -c"
    echo "corpus: SHA256SUMS written by \`fixturekit sums\`, accepted by \`sha256sum -c\`"
  else
    echo "corpus: reusing $corpus (every file has its expected size; delete the folder to regenerate it)"
  fi
  [[ $(wc -l <"$corpus/SHA256SUMS") -eq ${#paths[@]} ]] ||
    die "$corpus/SHA256SUMS: expected ${#paths[@]} lines; delete $corpus to regenerate it"
}

# Creates or repairs the one-file folder: a hard link to the corpus' big.bin (a copy
# where links are impossible) and its SHA256SUMS, which must be the corpus' line for it.
prepare_single() {
  if [[ ! $single/big.bin -ef $corpus/big.bin || ! -s $single/SHA256SUMS ]]; then
    rm -rf -- "${single:?}"
    mkdir -p "$single"
    ln -- "$corpus/big.bin" "$single/big.bin" 2>/dev/null || cp -- "$corpus/big.bin" "$single/big.bin"
    "$bin" sums --quiet "$single" || die "fixturekit sums $single failed"
  fi
  [[ $(cat "$single/SHA256SUMS") == "$(grep -E '^[0-9a-f]{64}  big\.bin$' "$corpus/SHA256SUMS")" ]] ||
    die "$single/SHA256SUMS does not match the corpus' line for big.bin; delete $single to rebuild it"
}

# Reads every file once so that both tools read from memory, and says how much of
# the data the page cache holds.
warm_page_cache() {
  local available_kib resident
  available_kib=$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo)
  if ((available_kib * 1024 < total_bytes * 3 / 2)); then
    echo "warning: only $((available_kib / 1024)) MiB of memory available: the data may not stay in the page cache" >&2
  fi
  find "$corpus" -type f -exec cat -- {} + >/dev/null
  if command -v fincore >/dev/null; then
    resident=$(find "$corpus" -type f -exec fincore --bytes --noheadings --raw --output RES -- {} + |
      awk '{ sum += $1 } END { print sum + 0 }')
    echo "page cache: warmed with cat; $((resident / mib)) of $((total_bytes / mib)) MiB of the corpus resident (fincore)"
    if ((resident < total_bytes)); then
      echo "warning: the page cache does not hold all the data: part of it will be read from the disk" >&2
    else
      echo "page cache: both tools read from memory"
    fi
  else
    echo "page cache: warmed with cat (fincore not installed to confirm): both tools read from memory"
  fi
}

machine_facts
echo
prepare_corpus
prepare_single
warm_page_cache
echo

# 1. The ~2 GiB folder, both tools in one hyperfine run.
echo "--- ${#paths[@]} files, $((total_bytes / mib)) MiB: sha256sum -c vs fixturekit verify"
run_hyperfine verify-corpus "$warmup" "$runs" \
  -n "(cd $corpus && sha256sum -c --quiet SHA256SUMS)" "(cd $(quote "$corpus") && sha256sum -c --quiet SHA256SUMS)" \
  -n "$bin_shown verify --quiet $corpus" "$(quote "$bin") verify --quiet $(quote "$corpus")"
echo

# 2. One 1 GiB file, both tools in one hyperfine run.
echo "--- one file, $((big_bytes / mib)) MiB: openssl dgst -sha256 vs fixturekit verify"
run_hyperfine verify-single "$warmup" "$runs" \
  -n "openssl dgst -sha256 $single/big.bin" "openssl dgst -sha256 $(quote "$single/big.bin")" \
  -n "$bin_shown verify --quiet $single" "$(quote "$bin") verify --quiet $(quote "$single")"
echo

# 3. Peak RSS of fixturekit verify on the ~2 GiB folder, in KiB (GNU time's %M).
echo "--- peak memory: /usr/bin/time -f %M $bin_shown verify --quiet $corpus ($rss_runs runs)"
: >"$results/verify-rss.txt"
for ((i = 1; i <= rss_runs; i++)); do
  /usr/bin/time -f '%M' -a -o "$results/verify-rss.txt" "$bin" verify --quiet "$corpus" ||
    die "fixturekit verify $corpus failed under /usr/bin/time"
done
peak_rss_kib=$(sort -n "$results/verify-rss.txt" | tail -n 1)
echo "max RSS per run (KiB): $(paste -sd' ' "$results/verify-rss.txt")"
echo

# The figures and the verdicts.
sha256sum_s=$(mean_of "$results/verify-corpus.csv" 1)
sha256sum_sd=$(stddev_of "$results/verify-corpus.csv" 1)
corpus_s=$(mean_of "$results/verify-corpus.csv" 2)
corpus_sd=$(stddev_of "$results/verify-corpus.csv" 2)
openssl_s=$(mean_of "$results/verify-single.csv" 1)
openssl_sd=$(stddev_of "$results/verify-single.csv" 1)
single_s=$(mean_of "$results/verify-single.csv" 2)
single_sd=$(stddev_of "$results/verify-single.csv" 2)

speedup=$(ratio "$sha256sum_s" "$corpus_s")
throughput_ratio=$(awk -v a="$openssl_s" -v b="$single_s" 'BEGIN { printf "%.3f", a / b }')
peak_rss_mib=$(awk -v k="$peak_rss_kib" 'BEGIN { printf "%.1f", k / 1024 }')
speedup_verdict=$(verdict "$speedup" ">=" "$min_speedup_vs_sha256sum")
throughput_verdict=$(verdict "$throughput_ratio" ">=" "$min_throughput_vs_openssl")
rss_verdict=$(verdict "$peak_rss_kib" "<" "$((max_rss_mib * 1024))")

# "MEAN ± SD s, N MB/s" for BYTES hashed in MEAN seconds (MB = 10^6 bytes).
figure() {
  awk -v mean="$1" -v sd="$2" -v bytes="$3" \
    'BEGIN { printf "%8.3f s ± %.3f s  %7.0f MB/s", mean, sd, bytes / mean / 1e6 }'
}

{
  echo "summary (mean of $runs interleaved rounds after $warmup warm-up round, data in the page cache; MB = 10^6 bytes):"
  echo "  ${#paths[@]} files, $((total_bytes / mib)) MiB ($total_bytes bytes):"
  echo "    sha256sum -c        $(figure "$sha256sum_s" "$sha256sum_sd" "$total_bytes")"
  echo "    fixturekit verify   $(figure "$corpus_s" "$corpus_sd" "$total_bytes")"
  echo "  one file, $((big_bytes / mib)) MiB:"
  echo "    openssl dgst        $(figure "$openssl_s" "$openssl_sd" "$big_bytes")"
  echo "    fixturekit verify   $(figure "$single_s" "$single_sd" "$big_bytes")"
  echo "  fixturekit verify peak RSS on the $((total_bytes / mib)) MiB folder: $peak_rss_kib KiB = $peak_rss_mib MiB (largest of $rss_runs runs)"
  echo
  echo "requirements:"
  printf '  %s  fixturekit verify vs sha256sum -c, %s MiB folder: %sx faster (required >= %sx)\n' \
    "$speedup_verdict" "$((total_bytes / mib))" "$speedup" "$min_speedup_vs_sha256sum"
  printf '  %s  fixturekit verify vs openssl dgst, %s MiB file: %sx its throughput (required >= %sx)\n' \
    "$throughput_verdict" "$((big_bytes / mib))" "$throughput_ratio" "$min_throughput_vs_openssl"
  printf '  %s  fixturekit verify peak RSS, %s MiB folder: %s MiB (required < %s MiB)\n' \
    "$rss_verdict" "$((total_bytes / mib))" "$peak_rss_mib" "$max_rss_mib"
} | tee "$results/verify-summary.txt"

[[ $speedup_verdict == PASS && $throughput_verdict == PASS && $rss_verdict == PASS ]] || exit 1
