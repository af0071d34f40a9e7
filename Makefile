# Shelfmark's front door. `make run` and `make test` work on a fresh Debian 12 machine with Swift.
SHELL := /bin/bash
.DEFAULT_GOAL := run

# `make run` serves HTTPS on every network interface (a phone on the school's Wi-Fi needs HTTPS for its
# camera) with Shelfmark's own certificate, and plain HTTP on HTTP_PORT: this computer is served there as
# it is, every other device is sent to HTTPS. `make run TLS=0 HOST=127.0.0.1 PORT=8080` serves plain HTTP only.
HOST ?= 0.0.0.0
TLS ?= 1
PORT ?= $(if $(filter 1,$(TLS)),8443,8080)
HTTP_PORT ?= 8080
SWIFT ?= swift
# Debug builds carry no debug information: on this 2-core machine a fresh build of everything takes
# 19 minutes instead of 27 and the binaries are a third smaller. A debugger session builds by hand
# (`swift build`), which keeps it.
BUILD_FLAGS ?= -debug-info-format none
# Set by `make test` for the goals after its build (`swift build --build-tests` builds every product):
# they skip their own builds, each of which took 15 s to find nothing to do.
BUILT ?=
PG_DIR ?= $(CURDIR)/.tmp/pg-test
PG_PORT ?= 55432

# Debian packages each goal needs; installed only when missing. The imaging libraries (barcode
# decoding, OCR, barcode and QR drawing) and the PDF libraries (cairo, pango, with Noto fonts for Latin, Irish and
# Chinese) are linked into the binary, so every goal needs them.
IMAGING_PACKAGES := libzbar-dev libleptonica-dev libtesseract-dev tesseract-ocr-eng tesseract-ocr-deu tesseract-ocr-gle tesseract-ocr-chi-sim libqrencode-dev libzint-dev zlib1g-dev \
	libcairo2-dev libpango1.0-dev librsvg2-dev fonts-noto-core fonts-noto-cjk
RUN_PACKAGES := ca-certificates $(IMAGING_PACKAGES)
TEST_PACKAGES := postgresql chromium gettext openssl python3-venv poppler-utils libnss3-tools systemd $(IMAGING_PACKAGES)
# Browser tests: Python Playwright in a venv of our own, driving Debian's Chromium (no browser download).
VENV := $(CURDIR)/.tmp/venv
PLAYWRIGHT_VERSION := 1.65.2
# axe-core (bundled by this package) checks every page of the generated walk for WCAG 2.1 AA.
AXE_VERSION := 0.1.8
# Parses the calendar feeds in the browser tests.
ICALENDAR_VERSION := 7.3.2
# A real OpenID Connect provider for the sign-in with the school's accounts (e2e).
OIDC_MOCK_VERSION := 0.3.4
# Draws the fake camera's video frames in the phone checks.
PILLOW_VERSION := 11.3.0
PYSQLITE3_VERSION := 0.5.4.post2
# A real SMTP server (STARTTLS, TLS, AUTH) the reminder tests send to.
AIOSMTPD_VERSION := 1.4.6
BENCH_PACKAGES := wrk time sqlite3 postgresql $(IMAGING_PACKAGES)
BENCH_SCAN_PACKAGES := zbar-tools $(IMAGING_PACKAGES)
# Third-party test material (barcode photos): checked when present next to the project.
CORPUS ?= $(or $(SHELFMARK_CORPUS),$(wildcard $(CURDIR)/../shared/corpora))

define ensure_packages
	@missing=""; for p in $(1); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "Installing Debian packages:$$missing"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing >/dev/null; \
	fi
endef

PHONY_PACKAGE := package test-package
.PHONY: $(PHONY_PACKAGE) run build check test test-venv test-translations test-sqlite test-postgres test-e2e fuzz fuzz-postgres fuzz-ready fuzz-both fuzz-run-sqlite fuzz-run-postgres bench bench-scan isbn-ranges clean help

help:
	@echo "make run    build and start the server on SQLite (data in ./data), print the URL"
	@echo "make test   run the whole suite on SQLite and on a private throwaway PostgreSQL"
	@echo "make check  the quick loop: build, then the Swift suites on SQLite"
	@echo "make fuzz   fuzz the API from its OpenAPI document (schemathesis), a few minutes"
	@echo "make bench  release build, seed 100,000 titles, print search/check-out/read/lookup, import/export and web-import figures"
	@echo "make bench-scan   barcode decode rate and latency on the photo corpus (SHELFMARK_CORPUS)"
	@echo "make package   the Debian package of a release build (dist/)"
	@echo "make test-package   that package installed with apt into a fresh Debian 12, started, removed"
	@echo "make isbn-ranges RANGES=RangeMessage.xml   regenerate the ISBN hyphenation table"

build:
	$(call ensure_packages,$(RUN_PACKAGES))
	$(SWIFT) build $(BUILD_FLAGS) --product shelfmark

run: build
	@echo ""
	@echo "  Shelfmark is starting (data: ./data/shelfmark.sqlite). It prints where to open it: on this computer,"
	@echo "  and on a phone on the same network. The first visit sets up your library. API: /api/v1/openapi.json"
	@echo ""
ifeq ($(TLS),1)
	$$($(SWIFT) build --show-bin-path)/shelfmark serve --tls --hostname $(HOST) --port $(PORT) --http-port $(HTTP_PORT)
else
	@echo "  http://$(HOST):$(PORT)"
	$$($(SWIFT) build --show-bin-path)/shelfmark serve --hostname $(HOST) --port $(PORT)
endif

test:
	$(call ensure_packages,$(TEST_PACKAGES))
	$(MAKE) --no-print-directory test-translations
	$(SWIFT) build $(BUILD_FLAGS) --build-tests
	$(MAKE) --no-print-directory test-sqlite
	$(MAKE) --no-print-directory test-postgres
	$(MAKE) --no-print-directory test-e2e BUILT=1
	$(MAKE) --no-print-directory fuzz-both BUILT=1 FUZZ_SQLITE_EXAMPLES=$(FUZZ_TEST_EXAMPLES) FUZZ_PG_EXAMPLES=$(FUZZ_TEST_PG_EXAMPLES) FUZZ_MAX_TIME=900

# The quick loop while working: the build and the Swift suites on SQLite (about two minutes after an
# incremental build); `make test` adds PostgreSQL, the browser walks and the fuzzing.
check:
	$(call ensure_packages,$(RUN_PACKAGES) python3-venv)
	$(SWIFT) build $(BUILD_FLAGS) --build-tests
	$(MAKE) --no-print-directory test-sqlite

# The translation files as gettext's own checker reads them: syntax, header, plural forms, and named
# placeholders ({title}) that exist in the English text (python-brace-format).
test-translations:
	$(call ensure_packages,gettext)
	@echo "== Translation files (msgfmt --check) =="
	@for f in Sources/App/Localization/Translations/*.po Tests/AppTests/Fixtures/*.po; do \
	  msgfmt --check --check-format -o /dev/null "$$f" || exit 1; echo "  $$f"; done

# The Python the Swift suites start servers with (aiosmtpd for the reminder tests).
test-venv:
	@test -x $(VENV)/bin/python || python3 -m venv $(VENV)
	@$(VENV)/bin/python -c "import aiosmtpd" 2>/dev/null || $(VENV)/bin/pip install -q aiosmtpd==$(AIOSMTPD_VERSION)

test-sqlite: test-venv
	@echo "== Test suite on SQLite =="
	SHELFMARK_CORPUS=$(CORPUS) SHELFMARK_TEST_DATABASE_URL= SWIFT=$(SWIFT) scripts/swift-test.sh $(CURDIR)/.tmp/test-sqlite.log

test-postgres: test-venv
	@echo "== Test suite on PostgreSQL (private cluster in $(PG_DIR)) =="
	@url=$$(scripts/pg-test-cluster.sh start $(PG_DIR) $(PG_PORT)) || exit 1; \
	trap 'scripts/pg-test-cluster.sh stop $(PG_DIR)' EXIT; \
	SHELFMARK_CORPUS= SHELFMARK_TEST_DATABASE_URL=$$url SWIFT=$(SWIFT) scripts/swift-test.sh $(CURDIR)/.tmp/test-postgres.log

test-e2e:
	@echo "== Browser tests (Playwright + Chromium, phone viewport; screenshots in .tmp/e2e) =="
	$(call ensure_packages,chromium libnss3-tools)
	@test -x $(VENV)/bin/python || python3 -m venv $(VENV)
	@$(VENV)/bin/python -c "import playwright" 2>/dev/null || $(VENV)/bin/pip install -q playwright==$(PLAYWRIGHT_VERSION)
	@$(VENV)/bin/python -c "import axe_playwright_python" 2>/dev/null || $(VENV)/bin/pip install -q axe-playwright-python==$(AXE_VERSION)
	@$(VENV)/bin/python -c "import icalendar" 2>/dev/null || $(VENV)/bin/pip install -q icalendar==$(ICALENDAR_VERSION)
	@$(VENV)/bin/python -c "import PIL" 2>/dev/null || $(VENV)/bin/pip install -q pillow==$(PILLOW_VERSION)
	@$(VENV)/bin/python -c "import oidc_provider_mock" 2>/dev/null || $(VENV)/bin/pip install -q oidc-provider-mock==$(OIDC_MOCK_VERSION)
	$(if $(BUILT),,$(SWIFT) build $(BUILD_FLAGS) --product shelfmark)
	$(if $(BUILT),,$(SWIFT) build $(BUILD_FLAGS) --product shelfmark-replay)
	E2E_BIN=$$($(SWIFT) build --show-bin-path) E2E_OUT=$(CURDIR)/.tmp/e2e $(VENV)/bin/python Tests/e2e/flows.py
	@echo "== The phone over HTTPS: certificate, installable app, offline shell, live camera, wedge scanner =="
	E2E_BIN=$$($(SWIFT) build --show-bin-path) E2E_OUT=$(CURDIR)/.tmp/e2e $(VENV)/bin/python Tests/e2e/phone.py
	@echo "== Lending without a network: 20,000 titles on the phone, offline lends, sync, conflicts =="
	E2E_BIN=$$($(SWIFT) build --show-bin-path) E2E_OUT=$(CURDIR)/.tmp/e2e $(VENV)/bin/python Tests/e2e/offline.py
	@echo "== A power cut during the nightly backup: kill -9 half-way, the earlier backups intact, the next run whole =="
	E2E_BIN=$$($(SWIFT) build --show-bin-path) $(VENV)/bin/python Tests/e2e/power_cut.py
	@echo "== A full disk: a command says so plainly, the server starts and reads, refuses writes, and writes again once space is freed =="
	E2E_BIN=$$($(SWIFT) build --show-bin-path) $(VENV)/bin/python Tests/e2e/full_disk.py

# The API fuzzed from its own OpenAPI document (schemathesis in the test venv), bounded in time.
SCHEMATHESIS_VERSION := 4.32.5
FUZZ_MAX_TIME ?= 1800
# The two builds, the venv and schemathesis the fuzz runs need.
fuzz-ready:
	@test -x $(VENV)/bin/python || python3 -m venv $(VENV)
	@$(VENV)/bin/python -c "import schemathesis" 2>/dev/null || $(VENV)/bin/pip install -q schemathesis==$(SCHEMATHESIS_VERSION)
	$(if $(BUILT),,$(SWIFT) build $(BUILD_FLAGS) --product shelfmark)
	$(if $(BUILT),,$(SWIFT) build $(BUILD_FLAGS) --product shelfmark-replay)

fuzz: fuzz-ready
	@$(MAKE) --no-print-directory fuzz-run-sqlite FUZZ_BIN_DIR=$$($(SWIFT) build --show-bin-path)

# The same fuzzing against PostgreSQL, on a private cluster made fresh for it.
fuzz-postgres: fuzz-ready
	@$(MAKE) --no-print-directory fuzz-run-postgres FUZZ_BIN_DIR=$$($(SWIFT) build --show-bin-path)

# Both at once, each on its own ports, the output of each shown whole when it ends: each run is mostly
# one Python process and the server answering it, so two share the two cores. `make fuzz` and
# `make fuzz-postgres` alone run the full pass (100 examples an operation); `make test` runs both with
# fewer (same seed, same cases every run), after the coverage phase that tries every operation's
# boundaries in full. See docs/BENCHMARKS.md for their times.
fuzz-both: fuzz-ready
	@$(MAKE) --no-print-directory -j2 --output-sync=recurse fuzz-run-sqlite fuzz-run-postgres FUZZ_BIN_DIR=$$($(SWIFT) build --show-bin-path)

FUZZ_TEST_EXAMPLES ?= 15
FUZZ_TEST_PG_EXAMPLES ?= 10
FUZZ_EXAMPLES ?= 100
FUZZ_SQLITE_EXAMPLES ?= $(FUZZ_EXAMPLES)
FUZZ_PG_EXAMPLES ?= $(FUZZ_EXAMPLES)
PG_FUZZ_PORT ?= 55442

fuzz-run-sqlite:
	@echo "== API fuzzing on SQLite (schemathesis against /api/v1/openapi.json, at most $(FUZZ_MAX_TIME) s) =="
	FUZZ_BIN=$(FUZZ_BIN_DIR) FUZZ_VENV=$(VENV) FUZZ_MAX_TIME=$(FUZZ_MAX_TIME) FUZZ_EXAMPLES=$(FUZZ_SQLITE_EXAMPLES) FUZZ_PORT=18700 \
	  $(VENV)/bin/python Tests/fuzz/run.py

fuzz-run-postgres:
	@echo "== API fuzzing on PostgreSQL (private cluster in $(PG_DIR)-fuzz, at most $(FUZZ_MAX_TIME) s) =="
	@url=$$(scripts/pg-test-cluster.sh start $(PG_DIR)-fuzz $(PG_FUZZ_PORT)) || exit 1; \
	trap 'scripts/pg-test-cluster.sh stop $(PG_DIR)-fuzz' EXIT; \
	FUZZ_DATABASE_URL=$$url FUZZ_BIN=$(FUZZ_BIN_DIR) FUZZ_VENV=$(VENV) FUZZ_MAX_TIME=$(FUZZ_MAX_TIME) FUZZ_PORT=18720 \
	  FUZZ_EXAMPLES=$(FUZZ_PG_EXAMPLES) $(VENV)/bin/python Tests/fuzz/run.py

# The Debian package of a release build: dist/shelfmark_<version>_<arch>.deb (scripts/package-deb.sh).
package:
	$(call ensure_packages,$(RUN_PACKAGES) dpkg-dev binutils)
	$(SWIFT) build -c release --product shelfmark
	scripts/package-deb.sh $$($(SWIFT) build -c release --show-bin-path) dist

# The package installed into a fresh Debian 12 (debootstrap) with apt, started there, removed: slow
# (a release build and a Debian download), so not part of make test.
test-package: package
	$(call ensure_packages,debootstrap)
	python3 Tests/e2e/package.py

bench:
	$(call ensure_packages,$(BENCH_PACKAGES))
	$(MAKE) --no-print-directory test-venv
	@$(VENV)/bin/python -c "import oidc_provider_mock" 2>/dev/null || $(VENV)/bin/pip install -q oidc-provider-mock==$(OIDC_MOCK_VERSION)
	@$(VENV)/bin/python -c "import pysqlite3" 2>/dev/null || $(VENV)/bin/pip install -q pysqlite3-binary==$(PYSQLITE3_VERSION)
	scripts/bench.py
	BENCH_SKIP_BUILD=1 $(VENV)/bin/python scripts/bench-import.py
	BENCH_SKIP_BUILD=1 scripts/bench-size.py
	BENCH_SKIP_BUILD=1 scripts/bench-web-import.py
	scripts/bench-reminders.py
	scripts/bench-print.py
	scripts/bench-stocktake.py
	BENCH_SKIP_BUILD=1 scripts/bench-foreign-keys.py
	BENCH_SKIP_BUILD=1 scripts/bench-pages.py
	BENCH_SKIP_BUILD=1 BENCH_PAGE_TITLES=100000 BENCH_PAGE_REQUESTS=100 scripts/bench-pages.py
	BENCH_SKIP_BUILD=1 BENCH_SKIP_POSTGRES=1 BENCH_PAGE_TITLES=1000000 BENCH_PAGE_REQUESTS=50 scripts/bench-pages.py
	BENCH_SKIP_BUILD=1 scripts/bench-restore.py
	BENCH_SKIP_BUILD=1 scripts/bench-running.py
	BENCH_SKIP_BUILD=1 scripts/bench-reading.py
	BENCH_SKIP_BUILD=1 scripts/bench-signin.py
	BENCH_SKIP_BUILD=1 scripts/bench-reports.py
	BENCH_SKIP_BUILD=1 scripts/bench-school-year.py
	BENCH_SKIP_BUILD=1 scripts/bench-school-sign-in.py

bench-scan:
	$(call ensure_packages,$(BENCH_SCAN_PACKAGES))
	SHELFMARK_CORPUS=$(CORPUS) scripts/bench-scan.py

# Regenerate the ISBN hyphenation table from a newer RangeMessage.xml (https://www.isbn-international.org/range_file_generation).
RANGES ?= ../shared/data/isbn/RangeMessage.xml
isbn-ranges:
	python3 scripts/gen-isbn-ranges.py $(RANGES) > Sources/ShelfmarkCore/Catalog/ISBNRanges.swift

clean:
	rm -rf .build .tmp
