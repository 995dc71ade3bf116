# shellcheck shell=bash
# Shared by the bench/bench-*.sh scripts: sourced, never run.
#
#   source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
#   bench_init bench-NAME "$@"      # usage, BIN resolved into $bin and $bin_shown
#   require_tools hyperfine sqlite3 # and GNU time, which every benchmark uses

# Says what went wrong, prefixed with the benchmark's name, and exits 2.
die() {
  echo "${bench_name:-bench}: $*" >&2
  exit 2
}

# Checks the command line (one argument, BIN) and resolves BIN: $bin is its
# absolute path, $bin_shown the path as given, for display.
bench_init() {
  bench_name=$1
  shift
  if [[ $# -ne 1 ]]; then
    echo "usage: bench/$bench_name.sh BIN" >&2
    exit 64
  fi
  bin_shown=$1
  case $bin_shown in
    */*) bin=$(realpath -e -- "$bin_shown" 2>/dev/null) || die "$bin_shown: no such file" ;;
    *) bin=$(command -v -- "$bin_shown") || die "$bin_shown: not found in PATH" ;;
  esac
  [[ -x $bin && ! -d $bin ]] || die "$bin_shown: not an executable file"
}

# Exits 2 unless every tool named is on PATH; GNU time is always needed.
require_tools() {
  local tool
  for tool in lscpu realpath "$@"; do
    command -v "$tool" >/dev/null || die "$tool not found; run \`scripts/bootstrap.sh bench\`"
  done
  /usr/bin/time --version 2>&1 | grep -q GNU || die "GNU time not found at /usr/bin/time; run \`scripts/bootstrap.sh bench\`"
}

quote() { printf '%q' "$1"; }

# Mean and standard deviation of row ROW (1-based) of hyperfine's CSV export.
mean_of() { awk -F, -v row="$2" 'NR == row + 1 { print $2 }' "$1"; }
stddev_of() { awk -F, -v row="$2" 'NR == row + 1 { print $3 }' "$1"; }

# A over B, to two decimals: ratios and speed-ups of hyperfine means.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

# run_hyperfine NAME WARMUP RUNS ARGS...: one hyperfine run of the commands in
# ARGS, WARMUP warm-up runs and RUNS timed runs each, exported as
# $results/NAME.{json,md,csv}. Every run of every command must exit 0.
run_hyperfine() {
  local name=$1 warmup_count=$2 run_count=$3
  shift 3
  hyperfine --shell=bash --warmup "$warmup_count" --runs "$run_count" \
    --export-json "$results/$name.json" --export-markdown "$results/$name.md" \
    --export-csv "$results/$name.csv" "$@" ||
    die "hyperfine $name failed: a command exited non-zero (see its output above)"
}

# PASS or FAIL for MEASURED OP LIMIT, OP one of >=, <= and <.
verdict() {
  awk -v measured="$1" -v op="$2" -v limit="$3" 'BEGIN {
    ok = (op == ">=") ? (measured >= limit) : (op == "<=") ? (measured <= limit) : (measured < limit)
    print(ok ? "PASS" : "FAIL") }'
}

size_of() { stat -c %s -- "$1"; }
mib_of() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1048576 }'; }

# The first lines of every benchmark's machine facts.
host_facts() {
  echo "machine:"
  echo "  cpu:           $(lscpu | sed -n 's/^Model name: *//p' | sed -n 1p)"
  echo "  nproc:         $(nproc)"
  echo "  memory:        $(awk '/^MemTotal:/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)"
  echo "  kernel:        $(uname -sr)"
}

# Whether fixturekit and the sqlite3 CLI run the same SQLite library.
sqlite_library_facts() {
  local libsqlite cli_libsqlite
  libsqlite=$(ldd "$bin" 2>/dev/null | awk '/libsqlite3/ { print $3 }')
  cli_libsqlite=$(ldd "$(command -v sqlite3)" 2>/dev/null | awk '/libsqlite3/ { print $3 }')
  if [[ -n $libsqlite && -n $cli_libsqlite && $(realpath -- "$libsqlite") == $(realpath -- "$cli_libsqlite") ]]; then
    echo "the same $(basename "$libsqlite") as the CLI"
  else
    echo "${libsqlite:+$(basename "$libsqlite")}${libsqlite:-its own SQLite}, the CLI ${cli_libsqlite:+$(basename "$cli_libsqlite")}${cli_libsqlite:-its own SQLite}"
  fi
}

# Copies the binary under test into DIR and points $bin at the copy, so that a
# rebuild of BIN while the benchmark runs (other work on the same tree) cannot
# mix two builds into one set of figures. Sets $bin_sha256.
private_binary() {
  local dir=$1
  bin_sha256=$(sha256sum <"$bin" | cut -c1-64)
  mkdir -p -- "$dir"
  cp -- "$bin" "$dir/fixturekit.partial" && mv -f -- "$dir/fixturekit.partial" "$dir/fixturekit" ||
    die "cannot copy $bin_shown to $dir"
  [[ $(sha256sum <"$dir/fixturekit" | cut -c1-64) == "$bin_sha256" ]] || die "$bin_shown changed while it was copied; run again"
  bin=$(realpath -- "$dir/fixturekit")
}

# The load averages, for the record of a run on a shared machine.
load_now() { cut -d' ' -f1-3 /proc/loadavg; }

# What a benchmark of `fixturekit migrate` says of its tools before it runs:
# the machine, sqlite3, hyperfine, the binary and the load. Sets $load_before.
migrate_bench_facts() {
  load_before=$(load_now)
  host_facts
  echo "  sqlite3:       $(sqlite3 --version | cut -d' ' -f1,2) (CLI); fixturekit links $(sqlite_library_facts)"
  echo "  hyperfine:     $(hyperfine --version)"
  echo "  fixturekit:    $("$bin" --version 2>/dev/null | sed -n 1p) ($bin_shown, SHA-256 ${bin_sha256:0:16}…)"
  echo "  load average:  $load_before (before the runs)"
  echo
}
