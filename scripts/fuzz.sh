#!/usr/bin/env bash
# Fuzzes every parser of outside bytes with libFuzzer (Swift's -sanitize=fuzzer,
# with AddressSanitizer): the WAL, database-header and -shm readers (wal), the
# SHA256SUMS and fixturekit.lock readers (sums), the configuration, rules and manifest readers
# (config), the archive reader (archive).
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]      SECONDS per target, default 120
#   scripts/fuzz.sh --build-only               builds the fuzz binary (if a source changed) and stops
#
# Seeds come from the example corpus; inputs that crash are kept in
# Fuzz/regressions/<target>/, which `make test` replays. Exit status: 0 no crash,
# 1 a target crashed (its input is in Fuzz/regressions/), 2 could not build.
set -euo pipefail
cd "$(dirname "$0")/.."
build_only=false
[[ ${1:-} != --build-only ]] || { build_only=true; shift; }
seconds=${1:-120}
shift || true
targets=("$@")
[[ ${#targets[@]} -gt 0 ]] || targets=(wal sums config archive)
binary=.build/fuzz/fixturekit-fuzz
export SWIFT_BACKTRACE=enable=no # the backtracer stalls on each crash otherwise

mkdir -p .build/fuzz/modules
# The library's targets, each below the ones that use it (see Package.swift).
modules=(FixtureKitSystem FixtureKitCrypto FixtureKitSQLite FixtureKitArchiveIO FixtureKitModels FixtureKit)
sources=(Sources/FixtureKit*/ Fuzz/FuzzMain.swift)
if [[ ! -x $binary ]] || [[ -n $(find "${sources[@]}" -name '*.swift' -newer "$binary" | head -1) ]]; then
  echo "fuzz: building $binary" >&2
  flags=(-sanitize=fuzzer,address -parse-as-library -O -wmo -package-name fixturekit
    -I .build/fuzz/modules -I Sources/CSQLite -I Sources/CArchive -I Sources/CCrypto -I Sources/CSystem)
  objects=()
  : > .build/fuzz/build.log
  for module in "${modules[@]}"; do
    mapfile -t files < <(find "Sources/$module" -name '*.swift' | sort)
    swiftc "${flags[@]}" -module-name "$module" -emit-module -emit-module-path ".build/fuzz/modules/$module.swiftmodule" \
      -c "${files[@]}" -o ".build/fuzz/$module.o" 2>> .build/fuzz/build.log || {
        echo "fuzz: the build of $module failed; see .build/fuzz/build.log" >&2
        exit 2
      }
    objects+=(".build/fuzz/$module.o")
  done
  # Linked beside, then renamed: a build cut short leaves no binary that looks up to date.
  swiftc "${flags[@]}" -module-name FuzzMain Fuzz/FuzzMain.swift "${objects[@]}" \
    -lsqlite3 -larchive -lcrypto -o "$binary.partial" 2>> .build/fuzz/build.log || {
      echo "fuzz: the build failed; see .build/fuzz/build.log" >&2
      exit 2
    }
  mv -f "$binary.partial" "$binary"
fi
! $build_only || exit 0

seed() { # TARGET FILE...: copies the files into the target's working corpus
  local corpus=.build/fuzz/corpus/$1 file
  mkdir -p "$corpus"
  shift
  for file in "$@"; do cp "$file" "$corpus/${file//\//_}"; done
}
seed wal MigrationFixtures/2.0.0/App.sqlite-wal MigrationFixtures/2.0.0/App.sqlite-shm
head -c 4096 MigrationFixtures/3.0.0/App.sqlite > .build/fuzz/corpus/wal/database-header
seed sums MigrationFixtures/*/SHA256SUMS MigrationFixtures/*.sha256 MigrationFixtures/fixturekit.lock
seed config MigrationFixtures/fixturekit.json MigrationFixtures/anonymize.json MigrationFixtures/*/manifest.json
seed archive MigrationFixtures/App-3.0.0.tar.zst

status=0
for target in "${targets[@]}"; do
  regressions=Fuzz/regressions/$target
  mkdir -p "$regressions"
  echo "fuzz: $target for ${seconds} s" >&2
  if ! FIXTUREKIT_FUZZ_TARGET=$target "$binary" -max_total_time="$seconds" -max_len=262144 -timeout=10 \
      -artifact_prefix="$regressions/" .build/fuzz/corpus/"$target" > ".build/fuzz/$target.log" 2>&1; then
    echo "fuzz: $target crashed; the input is in $regressions/ (log: .build/fuzz/$target.log)" >&2
    status=1
  fi
  grep -E "^#[0-9]+.*DONE|Done [0-9]+ runs" ".build/fuzz/$target.log" | tail -1 >&2 || true
done
exit $status
