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
# ARGS (each given as `-n NAME COMMAND`; `--prepare` once for all or once per
# command), interleaved: WARMUP + RUNS rounds, each running every command once in
# the order given, the first WARMUP rounds warm-ups. On a machine whose speed
# drifts within minutes, the two sides of a ratio are then measured in the same
# minutes rather than one after the other. Every run of every command must exit 0.
# Exports $results/NAME.json (hyperfine's, every round) and NAME.csv and NAME.md,
# one row per command over the timed rounds: mean, standard deviation, median,
# user and system (means), min, max, as hyperfine's own exports have them.
run_hyperfine() {
  local name=$1 warmup_count=$2 run_count=$3
  shift 3
  local -a prepares=() names=() commands=() arguments=()
  while (($# > 0)); do
    case $1 in
      --prepare) prepares+=("$2") && shift 2 ;;
      -n) names+=("$2") && shift 2 ;;
      -*) die "run_hyperfine $name: option $1 is not supported" ;;
      *) commands+=("$1") && shift ;;
    esac
  done
  ((${#names[@]} == ${#commands[@]})) || die "run_hyperfine $name: give every command a name (-n)"
  ((${#prepares[@]} <= 1 || ${#prepares[@]} == ${#commands[@]})) ||
    die "run_hyperfine $name: give --prepare once or once per command"
  local round index prepare warm=""
  ((${warm_memory_mib:-0} > 0)) && warm="$(warm_memory_command "$warm_memory_mib")"
  for ((round = 0; round < warmup_count + run_count; round++)); do
    for index in "${!commands[@]}"; do
      case ${#prepares[@]} in
        0) prepare="" ;;
        1) prepare=${prepares[0]} ;;
        *) prepare=${prepares[index]} ;;
      esac
      [[ -z $warm ]] || prepare="${prepare:+($prepare) && }$warm"
      [[ -z $prepare ]] || arguments+=(--prepare "$prepare")
      arguments+=(-n "${names[index]}" "${commands[index]}")
    done
  done
  hyperfine --shell=bash --runs 1 --export-json "$results/$name.json" --export-csv "$results/$name-rounds.csv" "${arguments[@]}" ||
    die "hyperfine $name failed: a command exited non-zero (see its output above)"
  summarize_rounds "$results/$name-rounds.csv" "${#commands[@]}" "$warmup_count" "${names[@]}" >"$results/$name.csv" ||
    die "cannot summarize $results/$name-rounds.csv"
  rm -f -- "$results/$name-rounds.csv"
  awk -F, 'NR == 1 { print "| Command | Mean [s] | Min [s] | Max [s] |"; print "|:---|---:|---:|---:|"; next }
    { printf "| `%s` | %.3f ± %.3f | %.3f | %.3f |\n", $1, $2, $3, $7, $8 }' "$results/$name.csv" >"$results/$name.md"
  echo "rounds: $run_count timed after $warmup_count warm-up, each running every command once in order"
  awk -F, 'NR > 1 { printf "  %10.3f s ± %.3f s  (median %.3f, %.3f to %.3f)  %s\n", $2, $3, $4, $7, $8, $1 }' "$results/$name.csv"
}

# warm_memory_command MIB: a command that writes MIB MiB of anonymous memory and
# frees it. This guest's host appears to back memory lazily: the first write to a
# page it has not backed yet (memory never used, or freed and reported back to it)
# costs about ten times a write to a page just freed (a 479 MiB `cp` into such memory
# 1.75 s, into memory just freed 0.17 s), so a command that writes much runs fast
# or slow by whichever command freed memory just before it. A script that sets
# warm_memory_mib has run_hyperfine run this after every command's prepare, so
# that every command starts with that much memory just freed.
warm_memory_command() {
  printf '%s' "python3 -c $(quote "size = $1 << 20; block = bytearray(size); block[::4096] = b'\\x01' * (size // 4096)")"
}

# summarize_rounds CSV COUNT WARMUP NAMES...: hyperfine's CSV of interleaved rounds
# of COUNT commands (one run each) as one row per command over the rounds after
# the first WARMUP, in hyperfine's CSV columns. A command's fields are the last
# seven of its row, so that a comma in its text does not shift them.
summarize_rounds() {
  local csv=$1 count=$2 warmup_count=$3
  shift 3
  printf '%s\n' "$@" | awk -F, -v count="$count" -v warmup="$warmup_count" '
    FILENAME == "-" { name[NR - 1] = $0; next }
    FNR == 1 { next }
    {
      index_ = (FNR - 2) % count
      if (int((FNR - 2) / count) < warmup) next
      n = ++runs[index_]
      time[index_, n] = $(NF - 6); user[index_] += $(NF - 3); system_[index_] += $(NF - 2)
    }
    END {
      print "command,mean,stddev,median,user,system,min,max"
      for (i = 0; i < count; i++) {
        n = runs[i]
        if (n == 0) exit 1
        for (a = 2; a <= n; a++) for (b = a; b > 1 && time[i, b - 1] > time[i, b]; b--) {
          t = time[i, b]; time[i, b] = time[i, b - 1]; time[i, b - 1] = t
        }
        sum = 0; for (a = 1; a <= n; a++) sum += time[i, a]
        mean = sum / n; squares = 0
        for (a = 1; a <= n; a++) squares += (time[i, a] - mean) ^ 2
        median = (n % 2) ? time[i, (n + 1) / 2] : (time[i, n / 2] + time[i, n / 2 + 1]) / 2
        gsub(/,/, ";", name[i])
        printf "%s,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f\n", name[i], mean, (n > 1 ? sqrt(squares / (n - 1)) : 0),
          median, user[i] / n, system_[i] / n, time[i, 1], time[i, n]
      }
    }' - "$csv"
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
