#!/usr/bin/env bash
# Benchmark of `fixturekit probe` on the example corpus (MigrationFixtures/ of the
# repository: three versions, an SQL stage and a program stage, two paths and a hop),
# against a plain `fixturekit migrate` of the same corpus.
#
#   bench/bench-probe.sh BIN        BIN: the release binary, e.g. .build/release/fixturekit
#
# In one hyperfine run, side by side:
#   (a) `fixturekit probe --jobs 1`: each path's stages once plainly, then under the
#       order, zones (UTC and Pacific/Auckland, and the locales for the program stage),
#       interrupted and size probes, unchecked;
#   (b) `fixturekit migrate --probes --jobs 1`: the matrix with its checks, then the probes;
#   (c) `fixturekit migrate --jobs 1`: the matrix alone;
#   (d) `fixturekit lint`: every stage watched on a copy of each fixture;
#   (e) `fixturekit probe --only size --jobs 1`: the size probe alone (each path's
#       stages on copies grown x1, x2, x4, x8), its share of (a).
# Requirements: (a) under 10 s (the probes' issue); (d) under 1 s (the lint's). (a)
# and (b) against (c), the probes' extra cost over a plain migrate, are reported.
# Temporary folders go to bench/work/probe-tmp. Results go to bench/results/probe-*.
#
# Exit status: 0 the requirement holds, 1 it failed, 2 could not run, 64 usage error.
set -euo pipefail
export LC_ALL=C

readonly max_probe_seconds=10 max_lint_seconds=1

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bench_init bench-probe "$@"
require_tools hyperfine jq

bench_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
config=$(realpath "$bench_dir/../MigrationFixtures/fixturekit.json")
results=$bench_dir/results
export TMPDIR=$bench_dir/work/probe-tmp
mkdir -p "$TMPDIR" "$results"

"$bin" verify --quiet "$(dirname "$config")" || die "the example corpus does not verify"

hyperfine --warmup 1 --runs 5 --export-json "$results/probe-hyperfine.json" \
  --command-name probe "$(quote "$bin") probe --quiet --jobs 1 --config $(quote "$config")" \
  --command-name "migrate --probes" "$(quote "$bin") migrate --quiet --probes --jobs 1 --config $(quote "$config")" \
  --command-name migrate "$(quote "$bin") migrate --quiet --jobs 1 --config $(quote "$config")" \
  --command-name lint "$(quote "$bin") lint --quiet --config $(quote "$config")" \
  --command-name "probe --only size" "$(quote "$bin") probe --quiet --only size --jobs 1 --config $(quote "$config")"

read -r probe withProbes plain lint size < <(jq -r '[.results[].mean] | map(tostring) | join(" ")' "$results/probe-hyperfine.json")
printf 'probe %.3f s, migrate --probes %.3f s, migrate %.3f s: the probes cost %.1fx a plain migrate\n' \
  "$probe" "$withProbes" "$plain" "$(awk -v a="$probe" -v b="$plain" 'BEGIN { print a / b }')" | tee "$results/probe-summary.txt"
printf 'probe --only size %.3f s: %.0f%% of the probes\n' "$size" "$(awk -v a="$size" -v b="$probe" 'BEGIN { print 100 * a / b }')" | tee -a "$results/probe-summary.txt"
leftover=$(find "$TMPDIR" -mindepth 1 | wc -l)
[[ $leftover -eq 0 ]] || { echo "bench-probe: $leftover temporary files left in $TMPDIR" >&2; exit 1; }
status=0
if awk -v a="$probe" -v m="$max_probe_seconds" 'BEGIN { exit !(a < m) }'; then
  printf "  PASS  probe: %.3f s (required < %s s)\n" "$probe" "$max_probe_seconds"
else
  printf "  FAIL  probe: %.3f s (required < %s s)\n" "$probe" "$max_probe_seconds"
  status=1
fi
if awk -v a="$lint" -v m="$max_lint_seconds" 'BEGIN { exit !(a < m) }'; then
  printf "  PASS  lint: %.3f s (required < %s s)\n" "$lint" "$max_lint_seconds"
else
  printf "  FAIL  lint: %.3f s (required < %s s)\n" "$lint" "$max_lint_seconds"
  status=1
fi
exit "$status"
