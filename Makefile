# fixturekit: `make demo` and `make test` do all the set-up on a fresh Debian machine.
PREFIX ?= /usr/local
SWIFT ?= swift
SWIFT_FLAGS ?=
RELEASE_BIN = .build/release/fixturekit
FUZZ_SECONDS ?= 150
TEST_SHARDS ?= 4
# The project's own targets build without a warning: a new one fails `make build`,
# `make test` and `make torture` (WARNINGS= lets one through while you work).
WARNINGS ?= -Xswiftc -warnings-as-errors

.PHONY: all bootstrap build release test demo bench fuzz torture install clean

all: build

bootstrap:
	@scripts/bootstrap.sh

build: bootstrap
	$(SWIFT) build $(SWIFT_FLAGS) $(WARNINGS)

release: bootstrap
	$(SWIFT) build -c release $(SWIFT_FLAGS)

# The whole suite, on a clean clone: installs what is missing, builds, runs every test
# (the soaks and long kill loops briefly: `make torture` runs them at length; the kept
# fuzz inputs and mutations of the corpus' files are replayed by FuzzRegressionTests,
# while libFuzzer itself, whose instrumented build alone takes longer than the whole
# suite on 2 cores, runs under `make fuzz`).
test: bootstrap
	$(SWIFT) build --build-tests $(SWIFT_FLAGS) $(WARNINGS)
	@# The tests in TEST_SHARDS processes at once (scripts/test.sh says why).
	@SWIFT="$(SWIFT)" SWIFT_FLAGS="$(SWIFT_FLAGS)" scripts/test.sh $(TEST_SHARDS)
	@# The suite must leave the example corpus exactly as committed.
	@for fixture in MigrationFixtures/*/SHA256SUMS; do (cd "$$(dirname "$$fixture")" && sha256sum --quiet --strict -c SHA256SUMS) || exit 1; done
	@echo "example corpus: SHA256SUMS intact"
	@# And its shipped history: every fixture, archive and shipped stage as fixturekit.lock records it.
	@test -f MigrationFixtures/fixturekit.lock && "$$($(SWIFT) build $(SWIFT_FLAGS) $(WARNINGS) --show-bin-path)/fixturekit" verify --quiet MigrationFixtures
	@echo "example corpus: fixturekit.lock intact"

# The main job on the example corpus.
demo: release
	@scripts/demo.sh $(RELEASE_BIN)

bench: release
	@scripts/bootstrap.sh bench
	@bench/run.sh $(RELEASE_BIN)

# kill -9 at random moments of every command that writes, TORTURE_RUNS times each;
# the kill test of `upgrade` at length (TORTURE_KILLS kills of a passing upgrade,
# 2/5 of that of a failing one; the default suite runs 10 and 4); the concurrency soak
# (TORTURE_RUNS captures of each mode; the suite 10); TORTURE_RUNS pairs of concurrent
# upgrades of one store and TORTURE_RUNS SIGTERMs during an upgrade's stage (the suite 4 and 4).
# The scale tests of the data diff on their full sizes (200,000 and 50,000 rows; the suite 40,000 and 10,000).
# The random stores of the anonymizer's accelerations at 1,500 rows (the suite 250), and
# the store the anonymize kill tests anonymize at 6,000 people (the suite 1,500).
TORTURE_RUNS ?= 100
TORTURE_KILLS ?= 500
torture: bootstrap
	$(SWIFT) build $(SWIFT_FLAGS) $(WARNINGS)
	FIXTUREKIT_TORTURE_RUNS=$(TORTURE_RUNS) FIXTUREKIT_TORTURE=$(TORTURE_KILLS) $(SWIFT) test $(SWIFT_FLAGS) $(WARNINGS) --filter 'TortureTests|AnonymizationAccelerationTests|ConcurrencyTests|UpgradeKillTests|UpgradeConcurrencyTests|UpgradeSignalTests|MigrateScaleTests|RowPairingTests'

# Every parser of outside bytes under libFuzzer, FUZZ_SECONDS each.
fuzz: bootstrap
	@scripts/fuzz.sh $(FUZZ_SECONDS)

# The tool, and its manual page generated from the same declarations as its --help.
install: release
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 0755 $(RELEASE_BIN) $(DESTDIR)$(PREFIX)/bin/fixturekit
	$(RELEASE_BIN) generate-manual > .build/fixturekit.1
	install -m 0644 .build/fixturekit.1 $(DESTDIR)$(PREFIX)/share/man/man1/fixturekit.1

clean:
	rm -rf .build
