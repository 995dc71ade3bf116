# fixturekit: `make demo` and `make test` do all the set-up on a fresh Debian machine.
PREFIX ?= /usr/local
SWIFT ?= swift
SWIFT_FLAGS ?=
RELEASE_BIN = .build/release/fixturekit

.PHONY: all bootstrap build release test torture demo bench install clean

all: build

bootstrap:
	@scripts/bootstrap.sh

build: bootstrap
	$(SWIFT) build $(SWIFT_FLAGS)

release: bootstrap
	$(SWIFT) build -c release $(SWIFT_FLAGS)

# The whole suite, on a clean clone: installs what is missing, builds, runs every test.
test: bootstrap
	$(SWIFT) build $(SWIFT_FLAGS)
	$(SWIFT) test $(SWIFT_FLAGS)
	@# The suite must leave the example corpus exactly as committed.
	@for fixture in MigrationFixtures/*/SHA256SUMS; do (cd "$$(dirname "$$fixture")" && sha256sum --quiet --strict -c SHA256SUMS) || exit 1; done
	@echo "example corpus: SHA256SUMS intact"

# The kill test of `upgrade` at length: 500 kills of a passing upgrade and 200 of a
# failing one (the default suite runs 50 and 20).
TORTURE_KILLS ?= 500
torture: bootstrap
	$(SWIFT) build $(SWIFT_FLAGS)
	FIXTUREKIT_TORTURE=$(TORTURE_KILLS) $(SWIFT) test $(SWIFT_FLAGS) --filter UpgradeKillTests

# The main job on the example corpus.
demo: release
	@scripts/demo.sh $(RELEASE_BIN)

bench: release
	@scripts/bootstrap.sh bench
	@bench/run.sh $(RELEASE_BIN)

install: release
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 0755 $(RELEASE_BIN) $(DESTDIR)$(PREFIX)/bin/fixturekit

clean:
	rm -rf .build
