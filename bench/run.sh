#!/usr/bin/env bash
# Runs every benchmark of bench/ against one fixturekit binary.
#
#   bench/run.sh BIN        BIN: the release binary (`make bench` passes .build/release/fixturekit)
#
# A benchmark is a script bench/bench-NAME.sh taking BIN as its only argument; they
# run in name order. Each keeps its working data under bench/work/ and its results
# under bench/results/; its output is also logged to bench/results/bench-NAME.log.
# Every benchmark runs even when an earlier one fails.
#
# Exit status: 0 every benchmark passed, 1 a requirement failed, 2 a benchmark could
# not run, 64 usage error (the worst of all benchmarks' statuses).
set -euo pipefail
export LC_ALL=C # bytewise name order for the glob below, `.` as the decimal point

if [[ $# -ne 1 ]]; then
  echo "usage: bench/run.sh BIN" >&2
  exit 64
fi
bin=$1
if [[ ! -x "$bin" || -d "$bin" ]]; then
  echo "bench: $bin: not an executable file; build it first with \`make release\`" >&2
  exit 2
fi

bench_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mkdir -p "$bench_dir/work" "$bench_dir/results"

shopt -s nullglob
benchmarks=("$bench_dir"/bench-*.sh)
if [[ ${#benchmarks[@]} -eq 0 ]]; then
  echo "bench: no bench-*.sh in bench/" >&2
  exit 2
fi

worst=0
failed=()
for benchmark in "${benchmarks[@]}"; do
  name=$(basename "$benchmark" .sh)
  echo "==> $name"
  status=0
  # pipefail: the pipeline's status is the benchmark's, not tee's.
  bash "$benchmark" "$bin" 2>&1 | tee "$bench_dir/results/$name.log" || status=$?
  if [[ $status -ne 0 ]]; then
    failed+=("$name (exit $status)")
    if ((status > worst)); then worst=$status; fi
  fi
  echo
done

if [[ ${#failed[@]} -eq 0 ]]; then
  echo "bench: all ${#benchmarks[@]} benchmark(s) passed"
else
  echo "bench: failed: ${failed[*]}" >&2
fi
exit "$worst"
