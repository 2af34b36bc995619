# CasinoCache — bakes the provider's catalogue into the snapshots an app ships, and tests it all.
#
# Targets (`make help` prints this):
#   help        this list (the default)
#   deps        check the toolchain and system libraries; say how to install what is missing
#   build       debug build of every module and the CLI
#   snapshot    SOURCE → normalized catalogue → OUT/ (release build; does nothing when unchanged)
#   validate    check OUT/ against its manifest and the schema (every problem, exit 1 if any;
#               with MAX_AGE=7d, exit 2 when it was generated longer ago)
#   inspect     print a summary of OUT/manifest.json
#   preview     OUT/ → .catalog/preview: each edition's first screen offline as static HTML (index.html)
#   keygen      write a signing key pair into KEYS (the private key never goes into the repository)
#   publish     sign OUT/ into the CDN-ready set PUBLISHED (key: KEY=<file>, else $CATALOG_SIGNING_KEY)
#   schema      regenerate docs/snapshot-contract.schema.json, the snapshot contract as a JSON Schema
#   test        all tests, then the pipeline end to end on data/ (validated, gzip -t, deterministic)
#   test-app    the app-side package's tests alone: the loop to run after each change (about a minute)
#   fixtures    re-record the bundles the cache's tests read (Tests/CasinoCacheTests/Fixtures); commit them
#   soak        the no-hang soak of test with SOAK_ROUNDS (1000) rounds per loop: faults, stalls, cancellations,
#               and a CDN that sends without end (a fifth as many child-process updates)
#   apple-check type-check the app side's CryptoKit and Combine branches against Linux stand-ins
#   sample      write a synthetic recording of GAMES games into .catalog/sample-GAMES
#   fuzz        libFuzzer + ASan on every decoder of hostile input, FUZZ_SECONDS each (not part of test)
#   bench       runtime and pipeline benchmarks against same-run floors, and a simulated day (release)
#   bench-check bench, then fail on any row past its ceiling (Benchmarks/Thresholds/*.json)
#   serve       run the provider simulator on http://127.0.0.1:8080 from SOURCE (a recording) or GAMES
#   demo        the seed-000 story against the provider simulator (2–5 s latency): what the user saw, per session
#   format      swift format every Swift file in place (the toolchain's swift-format)
#   lint        swift format lint --strict: any finding fails (make test runs it first)
#   clean       remove build products, .catalog/ and generated OUT/ files
#
# Variables:
#   SOURCE=data/provider      a recorded provider directory, an XML feed file or an http(s) URL
#                             (a URL is fetched into .catalog/fetched first, then built)
#   KIND=auto                 auto | recorded | xml | http
#   OUT=out                   the snapshot directory
#   MAX_AGE=                  make validate's freshness gate: <n>d, <n>h, <n>m or <n>s (none by default)
#   WITHDRAWALS=              the provider's withdrawal list (JSON): make snapshot leaves its games out,
#                             make validate fails a snapshot that still shows one, make publish signs
#                             it with the set (none by default)
#   CONFIG=data/catalog.json  the pipeline configuration
#   SOURCE_DATE_EPOCH=        seconds since 1970 to stamp as generatedAt (default: the fetch time)
#   PUBLISHED=published       the published set's directory (make publish; files are kept, never deleted)
#   KEY=                      the private key file for make publish (default: $CATALOG_SIGNING_KEY)
#   KEY_LIST=                 the signed key list naming KEY (catalog sign-keys), for apps pinning root keys
#   KEYS=.catalog/keys        where make keygen writes the key pair
#   EXPIRES_IN=30d            how long apps accept a published set (<n>d, <n>h, <n>m or <n>s)
#   GAMES=10000               size of `make sample` (and of `make serve` without a recording)
#   PORT=8080                 the port of `make serve`
#   FUZZ_SECONDS=60           how long `make fuzz` runs each target; FUZZ_TARGETS picks targets
#   SOAK_ROUNDS=1000          rounds per loop of `make soak` (make test runs 150)
#   BENCH_SECTIONS=           the sections `make bench` runs (default: all); e.g. `memory` for the
#                             memory hit rows alone, `first-frame`, `sync`, `disk-index`, `runtime`, `pipeline`, `images`, `day`

SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
.DELETE_ON_ERROR:
.DEFAULT_GOAL := help
MAKEFLAGS += --no-builtin-rules

SOURCE ?= data/provider
KIND ?= auto
OUT ?= out
# An explicitly given CONFIG must exist; the default one may be absent (the built-in defaults apply).
ifneq ($(origin CONFIG),undefined)
ifeq ($(wildcard $(CONFIG)),)
$(error CONFIG=$(CONFIG) does not exist; pass an existing pipeline configuration file, or leave CONFIG out for data/catalog.json)
endif
endif
CONFIG ?= data/catalog.json
SOURCE_DATE_EPOCH ?=
GAMES ?= 10000
PUBLISHED ?= published
KEY ?=
KEYS ?= $(WORK)/keys
EXPIRES_IN ?= 30d
SWIFT ?= swift

WORK := .catalog
# The app-side package is the root; the build-time tools (pipeline, CLI, simulator, demo) are the
# package in Tools/, which depends on the root by path.
TOOLS := Tools
RELEASE_CATALOG := $(TOOLS)/.build/release/catalog
DEBUG_CATALOG := $(TOOLS)/.build/debug/catalog
SWIFT_SOURCES := $(shell find Sources $(TOOLS)/Sources -type f \( -name '*.swift' -o -name '*.h' -o -name '*.c' -o -name '*.modulemap' \))
IS_URL := $(filter http://% https://%,$(SOURCE))
SOURCE_FILES := $(if $(IS_URL),,$(shell find $(SOURCE) -type f 2>/dev/null))
NORMALIZED := $(WORK)/normalized.jsonl
FETCHED := $(WORK)/fetched
PARAMS := $(WORK)/params
EPOCH_FLAG := $(if $(SOURCE_DATE_EPOCH),--source-date-epoch $(SOURCE_DATE_EPOCH),)
# Where `catalog snapshot` takes the images it bundles (with bundleImages in CONFIG): a recording's
# images/, else fetched over the network for an http(s) SOURCE (kept in $(WORK)/images for ETags).
IMAGES_FLAG := $(if $(IS_URL),--fetch-images --image-cache $(WORK)/images,$(if $(wildcard $(SOURCE)/images/index.json),--images $(SOURCE)/images,))

# Rewrite the parameter stamp only when the parameters change, so a changed SOURCE, KIND,
# CONFIG or SOURCE_DATE_EPOCH rebuilds the normalized catalogue and an unchanged one does not.
PARAMS_TEXT := $(SOURCE)|$(KIND)|$(CONFIG)|$(SOURCE_DATE_EPOCH)
$(shell mkdir -p $(WORK) && { [ -f $(PARAMS) ] && [ "$$(cat $(PARAMS))" = '$(PARAMS_TEXT)' ] || printf '%s' '$(PARAMS_TEXT)' > $(PARAMS); })

.PHONY: help deps build snapshot validate inspect preview keygen publish schema test test-app tools-build fixtures soak apple-check sample bench bench-check fuzz serve demo format lint clean FORCE

help:
	@sed -n '3,/^$$/p' Makefile | sed 's/^# \{0,1\}//'

# zlib: the SDK's on Apple platforms (nothing to install; never Homebrew's), zlib1g-dev on Linux.
# libxml2 (the tools only): libxml2-dev on Linux, Homebrew's libxml2 and pkg-config on a Mac.
deps:
	@command -v $(SWIFT) >/dev/null || { echo "missing: swift 6 toolchain (https://www.swift.org/install/)"; exit 1; }
	@python3 -c 'import jsonschema, yaml' 2>/dev/null || echo "missing: Python 3 with jsonschema and PyYAML, for make test (pip install jsonschema pyyaml)"
	@[ -n "$${CHROMIUM:-}" ] || command -v chromium >/dev/null || command -v chromium-browser >/dev/null || command -v google-chrome >/dev/null || \
	  echo "missing: Chromium, for make test's preview tests in a headless browser (sudo apt-get install chromium; or set CHROMIUM to a Chrome or Chromium binary)"
	@command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || \
	  echo "missing: nginx, for make test's updater tests against a real CDN (sudo apt-get install nginx-light; brew install nginx)"
	@if [ "$$(uname)" = Darwin ]; then \
	  xcrun --show-sdk-path >/dev/null 2>&1 || { echo "missing: Xcode's command-line tools (xcode-select --install): the SDK brings zlib"; exit 1; }; \
	  { command -v pkg-config >/dev/null && pkg-config --exists libxml-2.0; } || \
	    { echo "missing: libxml2 for the tools; install it with: brew install pkg-config libxml2"; exit 1; }; \
	else \
	  missing=""; \
	  command -v pkg-config >/dev/null || missing="$$missing pkg-config"; \
	  pkg-config --exists zlib 2>/dev/null || missing="$$missing zlib1g-dev"; \
	  pkg-config --exists libxml-2.0 2>/dev/null || missing="$$missing libxml2-dev"; \
	  if [ -n "$$missing" ]; then \
	    echo "missing system packages:$$missing"; \
	    echo "install them with: sudo apt-get install -y$$missing"; \
	    exit 1; \
	  fi; \
	fi

build: deps
	$(SWIFT) build
	$(SWIFT) build --package-path $(TOOLS)

$(RELEASE_CATALOG): Package.swift $(TOOLS)/Package.swift $(SWIFT_SOURCES) | deps
	$(SWIFT) build -c release --package-path $(TOOLS) --product catalog
	@touch $@

# An http(s) SOURCE is fetched into $(FETCHED) first (replaced only by a complete fetch; its ETags
# make the next fetch cheap), then read as the recording it is.
$(NORMALIZED): $(SOURCE_FILES) $(wildcard $(CONFIG)) $(PARAMS) $(RELEASE_CATALOG) $(if $(IS_URL),FORCE,)
	$(if $(IS_URL),$(RELEASE_CATALOG) fetch --base-url '$(SOURCE)' --output $(FETCHED) $(if $(wildcard $(CONFIG)),--config $(CONFIG),))
	$(RELEASE_CATALOG) normalize --source '$(if $(IS_URL),$(FETCHED),$(SOURCE))' --kind $(if $(IS_URL),recorded,$(KIND)) $(if $(wildcard $(CONFIG)),--config $(CONFIG),) $(EPOCH_FLAG) --output $@

$(OUT)/manifest.json: $(NORMALIZED) $(RELEASE_CATALOG) $(WITHDRAWALS)
	$(RELEASE_CATALOG) snapshot --normalized $(NORMALIZED) $(if $(wildcard $(CONFIG)),--config $(CONFIG),) $(IMAGES_FLAG) $(if $(WITHDRAWALS),--withdrawals $(WITHDRAWALS)) --out $(OUT)
	@touch $@

snapshot: $(OUT)/manifest.json

validate: $(RELEASE_CATALOG)
	$(RELEASE_CATALOG) validate $(OUT) $(if $(MAX_AGE),--max-age $(MAX_AGE)) $(if $(WITHDRAWALS),--withdrawals $(WITHDRAWALS))

inspect: $(RELEASE_CATALOG)
	$(RELEASE_CATALOG) inspect $(OUT)

# What ships, to look at: each edition's first screen offline (categories, first-page tiles with their
# bundled thumbnails, what is withheld, sizes and age), self-contained: zip $(PREVIEW) to share it.
PREVIEW := $(WORK)/preview
preview: $(OUT)/manifest.json $(RELEASE_CATALOG)
	$(RELEASE_CATALOG) preview $(OUT) --output $(PREVIEW)
	@echo "open $(PREVIEW)/index.html"

keygen: $(RELEASE_CATALOG)
	$(RELEASE_CATALOG) keygen --output $(KEYS)

# The key comes from KEY or the environment only: a make variable on the command line is no place
# for a secret, and the repository never holds one.
publish: $(OUT)/manifest.json $(RELEASE_CATALOG)
	$(RELEASE_CATALOG) publish --from $(OUT) --to $(PUBLISHED) $(if $(KEY),--key-file $(KEY),) --expires-in $(EXPIRES_IN) $(if $(WITHDRAWALS),--withdrawals $(WITHDRAWALS)) $(if $(KEY_LIST),--key-list $(KEY_LIST))

# The snapshot contract for other clients (Android, web), generated from the Swift types and limits.
SCHEMA := docs/snapshot-contract.schema.json
schema: $(RELEASE_CATALOG)
	$(RELEASE_CATALOG) schema --output $(SCHEMA)

# The bundles the cache's tests read: small snapshot directories the debug `catalog` writes from
# fixed seeds and a fixed SOURCE_DATE_EPOCH (Scripts/record-cache-fixtures.sh), committed so the root
# package tests the cache without building the tools. make test records them again and compares.
FIXTURES := Tests/CasinoCacheTests/Fixtures
fixtures: deps
	$(SWIFT) build --package-path $(TOOLS) --product catalog
	Scripts/record-cache-fixtures.sh $(DEBUG_CATALOG) $(FIXTURES)
	@echo "recorded $(FIXTURES) ($$(find $(FIXTURES) -type f -exec cat {} + | wc -c | tr -d ' ') bytes): commit it"

# Swift Testing starts every test at once. On two cores the jobs of hundreds of tests then queue on
# the cooperative pool's two threads, and a test resumed after an await (or a loopback simulator's
# handler, which runs on the same pool) waited 20-50 s behind them: the time-outs of the full run.
# At most this many tests run at a time (ChildProcessTests shows the wait).
TEST_WIDTH := --experimental-maximum-parallelization-width 6

# Suites in test processes of their own, one after another:
# - the suites that time calls to their deadlines: the others' synchronous work would delay them;
# - the two tests over a transport that blocks for 30 s when stopped: FoundationNetworking runs every
#   session's work on one serial queue, so meanwhile no session of their process moves;
# - the two-process widget test, whose reader keeps a core busy;
# - the CDN suites: FoundationNetworking reads an endless sender on for a while after a cancel (its
#   cancel waits for the work queue the transfer keeps busy).
DEADLINE_SUITES := NoHangSoakTests|BackgroundRefreshTests|SnapshotUpdaterDeadlineTests
STUCK_TESTS := aServerThatNeverAnswersIsCutAtTheBudget|anUpdateOverATransportThatNeverAnswers
BUSY_SUITES := SharedCatalogTwoProcessTests
CDN_SUITES := HostileCDNTests|NginxCDNTests
TOOLS_TEST = $(SWIFT) test --skip-build --package-path $(TOOLS) $(TEST_WIDTH)

test: deps lint
	@echo "== Apple platforms: privacy manifests declare every required-reason API called; the CI files parse"
	python3 Scripts/test_check_privacy_manifests.py
	python3 Scripts/test_bench_check.py
	$(SWIFT) package dump-package > $(WORK)/package.json
	python3 Scripts/check-privacy-manifests.py Sources $(WORK)/package.json
	python3 Scripts/check-apple-ci.py .github/workflows/apple.yml .spi.yml
	@# The app side's tests run while the tools build: the two do not wait for each other.
	$(MAKE) --no-print-directory -j2 -Otarget test-app tools-build
	@echo "== the cache tests' committed bundles are what the pipeline writes today (the debug catalog)"
	Scripts/record-cache-fixtures.sh $(DEBUG_CATALOG) $(WORK)/fixtures
	@diff -r $(WORK)/fixtures $(FIXTURES) || { echo "$(FIXTURES) is out of date: run make fixtures and commit it"; exit 1; }
	@echo "== the tools package"
	$(TOOLS_TEST) --skip '$(DEADLINE_SUITES)|$(BUSY_SUITES)|$(CDN_SUITES)' 2>&1 | tee $(WORK)/swift-test-tools.log
	@echo "== no call can hang: the suites that time deadlines, in a process of their own"
	$(TOOLS_TEST) --filter '$(DEADLINE_SUITES)' --skip '$(STUCK_TESTS)' 2>&1 | tee $(WORK)/swift-test-soak.log
	@echo "== a transport that blocks when stopped: the callers still return by their deadlines"
	$(TOOLS_TEST) --filter '$(STUCK_TESTS)' 2>&1 | tee $(WORK)/swift-test-stuck.log
	@echo "== a widget reads while the app installs: two processes, alone"
	$(TOOLS_TEST) --filter '$(BUSY_SUITES)' 2>&1 | tee $(WORK)/swift-test-busy.log
	@echo "== the updater against a CDN that sends without end, and against nginx"
	$(TOOLS_TEST) --filter '$(CDN_SUITES)' 2>&1 | tee $(WORK)/swift-test-cdn.log
	@echo "== end to end: data/ → $(WORK)/e2e-out (debug build)"
	rm -rf $(WORK)/e2e-out $(WORK)/e2e-again $(WORK)/e2e-feed $(WORK)/e2e-bad
	$(DEBUG_CATALOG) snapshot --source data/provider --config data/catalog.json --out $(WORK)/e2e-out --quiet
	$(DEBUG_CATALOG) validate $(WORK)/e2e-out
	find $(WORK)/e2e-out -name '*.json.gz' -print0 | xargs -0 gzip -t
	$(DEBUG_CATALOG) snapshot --source data/provider --config data/catalog.json --out $(WORK)/e2e-again --quiet
	diff -r $(WORK)/e2e-out $(WORK)/e2e-again
	$(DEBUG_CATALOG) snapshot --source data/feed/acme-feed.xml --config data/catalog.json --out $(WORK)/e2e-feed --quiet
	$(DEBUG_CATALOG) validate $(WORK)/e2e-feed
	@echo "== the published JSON Schema is current, and the snapshots match it (Python's jsonschema)"
	$(DEBUG_CATALOG) schema --output $(WORK)/schema.json
	@cmp -s $(WORK)/schema.json $(SCHEMA) || { echo "$(SCHEMA) is out of date: run make schema and commit it"; exit 1; }
	python3 Scripts/check-schema.py $(SCHEMA) $(WORK)/e2e-out
	python3 Scripts/check-schema.py $(SCHEMA) $(WORK)/e2e-feed
	@echo "== a corrupted copy must fail validation with exit status 1"
	rm -rf $(WORK)/e2e-bad && cp -R $(WORK)/e2e-out $(WORK)/e2e-bad
	printf 'x' >> "$$(find $(WORK)/e2e-bad -name '0.json.gz' | sort | head -n 1)"
	status=0; $(DEBUG_CATALOG) validate $(WORK)/e2e-bad --quiet 2>/dev/null || status=$$?; \
	  [ $$status -eq 1 ] || { echo "validate exited $$status on a corrupted snapshot, expected 1"; exit 1; }
	@echo "end to end: passed"
	@for log in $(WORK)/swift-test.log $(WORK)/swift-test-tools.log $(WORK)/swift-test-soak.log $(WORK)/swift-test-cdn.log; do \
	  grep -E '(Test run with [0-9]+ tests?|Executed [0-9]+ tests?)' $$log | tail -n 2; done

# The app-side package's tests: the fast loop. Only what they need is built (not CatalogSigning's
# swift-crypto, which the tools build compiles).
test-app: deps
	@echo "== the app-side package"
	$(SWIFT) build --product CasinoCachePackageTests
	$(SWIFT) test --skip-build $(TEST_WIDTH) 2>&1 | tee $(WORK)/swift-test.log

tools-build: deps
	$(SWIFT) build --build-tests --package-path $(TOOLS)

# The app side's Apple-only branches, type-checked on Linux: AppleCheck/ builds the app-side sources
# again beside stand-ins named CryptoKit (swift-crypto) and Combine (OpenCombine). Run by CI.
apple-check: deps
	$(SWIFT) build --package-path AppleCheck
	@echo "compiled against a stand-in:"
	@grep -rl '#if canImport(CryptoKit)' Sources --include=*.swift | sed 's|^|  CryptoKit = swift-crypto: |'
	@grep -rl '#if canImport(Combine)' Sources --include=*.swift | sed 's|^|  Combine = OpenCombine:   |'
	@echo "not compiled here (the Darwin branches: os_unfair_lock, F_FULLFSYNC, Darwin's read/write/rename):"
	@grep -rl 'canImport(Darwin)' Sources --include=*.swift | sed 's|^|  |'

# The no-hang soak of make test with more rounds: updates and fetches against the simulator with
# random faults and cancellations, each call held to its deadline, and updates in child processes against a
# CDN that sends without end, each refused at once within its memory (SOAK_SEED repeats a run).
SOAK_ROUNDS ?= 1000
soak: deps
	$(SWIFT) build --build-tests --package-path $(TOOLS)
	SOAK_ROUNDS=$(SOAK_ROUNDS) $(SWIFT) test --skip-build --package-path $(TOOLS) --filter NoHangSoakTests 2>&1 \
	  | tee $(WORK)/swift-test-soak.log | grep -E 'soak|✘|passed after|failed after'
	SOAK_ROUNDS=$(SOAK_ROUNDS) $(SWIFT) test --skip-build --package-path $(TOOLS) --filter HostileCDNTests 2>&1 \
	  | tee $(WORK)/swift-test-soak-cdn.log | grep -E 'hostile CDN loop|catalog update|✘|passed after|failed after'

sample: $(RELEASE_CATALOG)
	$(RELEASE_CATALOG) sample --games $(GAMES) --output $(WORK)/sample-$(GAMES)

# Every Swift file of every package here; `swift format` ships with the toolchain.
FORMATTED := Package.swift Sources Tests $(TOOLS)/Package.swift $(TOOLS)/Sources $(TOOLS)/Tests $(TOOLS)/Examples \
  Benchmarks/Package.swift Benchmarks/Sources Fuzz/Package.swift Fuzz/Sources AppleCheck/Package.swift
format:
	$(SWIFT) format format --in-place --recursive --parallel $(FORMATTED)

lint:
	@$(SWIFT) format --version >/dev/null 2>&1 || { echo "swift format is missing: it ships with Swift 6 toolchains (swift.org/install)"; exit 1; }
	$(SWIFT) format lint --strict --recursive --parallel $(FORMATTED)

clean:
	rm -rf .build $(TOOLS)/.build Benchmarks/.build AppleCheck/.build $(WORK)
	find $(OUT) -mindepth 1 ! -name README.md -exec rm -rf {} + 2>/dev/null || true

FORCE:

BENCH_SECTIONS ?=
# The pipeline rows time the release `catalog`; it is not built when the sections leave them out.
BENCH_NEEDS_CATALOG := $(if $(BENCH_SECTIONS),$(filter pipeline,$(BENCH_SECTIONS)),all)

bench: deps
	$(if $(BENCH_NEEDS_CATALOG),$(SWIFT) build -c release --package-path $(TOOLS) --product catalog)
	$(SWIFT) build -c release --package-path Benchmarks --product cache-bench
	@mkdir -p $(WORK)
	CATALOG=$(CURDIR)/$(RELEASE_CATALOG) Benchmarks/.build/release/cache-bench $(WORK)/benchmarks.json $(BENCH_SECTIONS)

# The ceilings of the sections that ran (all by default); names each row past its ceiling.
bench-check: bench
	python3 Scripts/bench-check.py $(WORK)/benchmarks.json Benchmarks/Thresholds $(BENCH_SECTIONS)

# Each target's corpus starts from data/ and a fresh snapshot of it (and Fuzz/Corpus, inputs that
# once crashed the project); a crash leaves its input in $(WORK)/fuzz/TARGET/ and fails the run.
# swiftc keeps only the last of several -sanitize= flags, and SwiftPM passes --sanitize fuzzer and
# --sanitize address as two: without the combined -Xswiftc flag the Swift code gets ASan but no
# coverage, and libFuzzer fuzzes blind. (--sanitize fuzzer stays for libFuzzer's main at link.)
# The Swift backtracer hangs after a trap under libFuzzer/ASan, hence SWIFT_BACKTRACE=enable=no.
# Leak detection is off (-detect_leaks=0 while fuzzing, ASAN_OPTIONS at exit): LeakSanitizer
# reports data held by Swift globals (the fixtures' seed files) as leaked.
FUZZ_SECONDS ?= 60
ALL_FUZZ_TARGETS := fuzz-gzip fuzz-snapshot fuzz-xml fuzz-provider fuzz-sync fuzz-disk fuzz-index fuzz-player fuzz-validator fuzz-images fuzz-normalized fuzz-withdrawals fuzz-cache-dir
FUZZ_TARGETS ?= $(ALL_FUZZ_TARGETS)
FUZZ := $(WORK)/fuzz
fuzz: deps $(RELEASE_CATALOG)
	$(SWIFT) build -c release --package-path Fuzz --sanitize fuzzer --sanitize address -Xswiftc -sanitize=fuzzer,address
	rm -rf $(FUZZ)/seed-out && $(RELEASE_CATALOG) snapshot --source data/provider --config data/catalog.json \
	  --images data/provider/images --out $(FUZZ)/seed-out --quiet
	@for t in $(ALL_FUZZ_TARGETS); do mkdir -p $(FUZZ)/$$t/corpus; done  # every seed lands, whichever run
	@for t in $(FUZZ_TARGETS); do rm -f $(FUZZ)/$$t/crash-* $(FUZZ)/$$t/timeout-* $(FUZZ)/$$t/oom-* $(FUZZ)/$$t/leak-*; done
	@cp Fuzz/Corpus/snapshot/* $(FUZZ)/fuzz-snapshot/corpus/
	@cp Fuzz/Corpus/provider/* $(FUZZ)/fuzz-provider/corpus/
	@cp Fuzz/Corpus/sync/* $(FUZZ)/fuzz-sync/corpus/
	@cp Fuzz/Corpus/player/* $(FUZZ)/fuzz-player/corpus/
	@cp Fuzz/Corpus/disk/* $(FUZZ)/fuzz-disk/corpus/
	@cp Fuzz/Corpus/disk/* $(FUZZ)/fuzz-cache-dir/corpus/
	@cp Fuzz/Corpus/index/* $(FUZZ)/fuzz-index/corpus/
	@cp Fuzz/Corpus/withdrawals/* $(FUZZ)/fuzz-withdrawals/corpus/
	@find $(FUZZ)/seed-out/index $(FUZZ)/seed-out/index.json -type f -exec cp {} $(FUZZ)/fuzz-index/corpus/ \;
	@find $(FUZZ)/seed-out -type f -exec cp {} $(FUZZ)/fuzz-gzip/corpus/ \;
	@find $(FUZZ)/seed-out -type f -exec cp {} $(FUZZ)/fuzz-snapshot/corpus/ \;
	@find $(FUZZ)/seed-out -type f -exec cp {} $(FUZZ)/fuzz-validator/corpus/ \;
	@find $(FUZZ)/seed-out/images $(FUZZ)/seed-out/manifest.json -type f -exec cp {} $(FUZZ)/fuzz-images/corpus/ \;
	@cp data/feed/*.xml $(FUZZ)/fuzz-xml/corpus/
	@$(RELEASE_CATALOG) normalize --source data/provider --config data/catalog.json --quiet \
	  --output $(FUZZ)/fuzz-normalized/corpus/data.jsonl
	@find data/provider -name '*.json' | while read -r f; do cp "$$f" "$(FUZZ)/fuzz-provider/corpus/$$(echo "$$f" | tr / _)"; done
	@failed=0; for t in $(FUZZ_TARGETS); do \
	  echo "== $$t ($(FUZZ_SECONDS) s)"; \
	  status=0; SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0 FUZZ_SNAPSHOT=$(FUZZ)/seed-out Fuzz/.build/release/$$t \
	    -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=4096 -detect_leaks=0 -print_final_stats=1 \
	    -artifact_prefix=$(FUZZ)/$$t/ $(FUZZ)/$$t/corpus > $(FUZZ)/$$t/log 2>&1 || status=$$?; \
	  runs=$$(grep -Eo 'stat::number_of_executed_units: *[0-9]+' $(FUZZ)/$$t/log | grep -Eo '[0-9]+$$' || echo 0); \
	  crashes=$$(find $(FUZZ)/$$t -maxdepth 1 \( -name 'crash-*' -o -name 'timeout-*' -o -name 'oom-*' -o -name 'leak-*' \) | wc -l); \
	  echo "$$t: $$runs executions, $$crashes crashes, exit $$status (log: $(FUZZ)/$$t/log)"; \
	  [ "$$crashes" -eq 0 ] && [ "$$status" -eq 0 ] || failed=1; \
	done; exit $$failed

demo: deps
	$(SWIFT) build -c release --package-path $(TOOLS) --product catalog-demo
	$(TOOLS)/.build/release/catalog-demo

PORT ?= 8080
serve: deps
	$(SWIFT) build -c release --package-path $(TOOLS) --product catalog-server
	$(TOOLS)/.build/release/catalog-server $(if $(shell test -d '$(SOURCE)' && echo yes),--recording '$(SOURCE)',--games $(GAMES)) --port $(PORT)
