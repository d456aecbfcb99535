# Sluice: `make demo` runs seed 000's pipeline with its dashboard on http://127.0.0.1:5691/;
# `make run` serves SQL on 127.0.0.1:4566; `make test` runs every test.
#
# make test = deps (system packages, .venv, .venv-seed) → swift test (unit) → swift build (debug binary for the
#             end-to-end suites) → pytest: e2e clients and the sqllogictest suite, in one run.
# make crash-full = the crash-recovery suites at full length (50 random kills each), on a fresh debug binary.
# Every target that runs `swift build` or `swift test` first installs the system packages the build
# links (zlib, snappy, lz4, zstd: tests/install-system-deps.sh, which does nothing when they are there).
SWIFT ?= swift
PYTHON ?= python3
VENV := .venv
STAMP := $(VENV)/.installed
SEED_VENV := .venv-seed
SEED_STAMP := $(SEED_VENV)/.installed
PYTEST_ARGS ?=
SLUICE_ARGS ?=
# Every import must be a declared dependency (the layers' lint checks which ones may be).
SWIFT_CHECKS := --explicit-target-dependency-import-check error

.PHONY: demo run build release test unit deps system-deps venv pytest crash-full clean-venv bench bench-flink \
	kafka-messages kafka-messages-check
# The steps of `test` depend on each other's results (pytest starts the debug binary): never in parallel.
.NOTPARALLEL:

# Every swift build needs the system-library targets' headers (the codecs, librdkafka) first.
build: system-deps
	$(SWIFT) build $(SWIFT_CHECKS)

release: system-deps
	$(SWIFT) build -c release

run: release
	.build/release/sluice serve $(SLUICE_ARGS)

# Seed 000's balloon game end to end: the broker, its source and five views, five Iceberg sinks
# into the built-in catalog, the generator, and the dashboard. DEMO=users|payments for the others.
DEMO ?= balloon
demo: release
	.build/release/sluice demo $(DEMO) $(SLUICE_ARGS)

unit: system-deps kafka-messages-check
	$(SWIFT) test $(SWIFT_CHECKS)

# The Kafka message types generated from Apache Kafka's definitions (dev/kafka-messages/): write
# them again, or check that the files in Sources/ are what the script writes.
kafka-messages:
	$(PYTHON) dev/generate-kafka-messages.py

kafka-messages-check:
	$(PYTHON) dev/generate-kafka-messages.py --check

# The benchmarks, with DuckDB (from .venv) and PostgreSQL (from deps) as references.
bench: release deps
	.build/release/sluice bench scan-agg
	.build/release/sluice bench mv
	.build/release/sluice bench broker
	.build/release/sluice bench json-decode
	.build/release/sluice bench kafka-json
	.build/release/sluice bench tpch
	.build/release/sluice bench copy
	.build/release/sluice bench memory

# Nexmark on Apache Flink beside `sluice bench nexmark`, same events, same machine (by hand, not in
# CI): Flink's runtime comes from PyPI into .venv-flink (Java 17 must be on the machine).
EVENTS ?= 1000000
FLINK_VENV := .venv-flink
bench-flink: release
	@$(FLINK_VENV)/bin/python -c '' 2>/dev/null || $(PYTHON) -m venv --clear $(FLINK_VENV)
	$(FLINK_VENV)/bin/python -m pip install --quiet --disable-pip-version-check --no-input -r benchmarks/flink/requirements.txt
	$(FLINK_VENV)/bin/python benchmarks/flink/nexmark_flink.py --events $(EVENTS)

# Everything: unit tests, then the debug binary, then the end-to-end and sqllogictest suites.
test: deps unit build pytest

# The Python suites alone, against the already built .build/debug/sluice (or $SLUICE_BIN).
pytest: deps
	$(VENV)/bin/pytest tests $(PYTEST_ARGS)

# The full-length crash runs: 50 random kills for the tables' crash test and 50 for the views'
# (by default `make test` runs 10 and 4). The views' 50 rounds take about 300 s on two cores, the
# per-test limit in tests/pytest.ini: this run allows 30 minutes per test.
crash-full: deps build
	SLUICE_CRASH_ROUNDS=50 SLUICE_VIEW_CRASH_ROUNDS=50 $(VENV)/bin/pytest --timeout 1800 tests/e2e/test_crash_recovery.py tests/e2e/test_view_state_recovery.py $(PYTEST_ARGS)

deps: system-deps venv

system-deps:
	@tests/install-system-deps.sh

venv: $(STAMP) $(SEED_STAMP)

# Installed once, and again when tests/requirements.txt changes (the stamp records the install).
# A .venv whose interpreter is missing (copied from another machine, say) is made anew.
$(STAMP): tests/requirements.txt
	@$(VENV)/bin/python -c '' 2>/dev/null || $(PYTHON) -m venv --clear $(VENV)
	$(VENV)/bin/python -m pip install --quiet --disable-pip-version-check --no-input -r tests/requirements.txt
	@touch $@

# Seed scripts (tests/fixtures/seeds/) run unchanged, with the client versions they were written
# for, which can differ from .venv's: seed 001's producer.py imports kafka.errors.NoBrokersAvailable,
# which kafka-python 3 removed, so it runs on kafka-python 2 from this second environment.
$(SEED_STAMP): tests/requirements-seeds.txt
	@$(SEED_VENV)/bin/python -c '' 2>/dev/null || $(PYTHON) -m venv --clear $(SEED_VENV)
	$(SEED_VENV)/bin/python -m pip install --quiet --disable-pip-version-check --no-input -r tests/requirements-seeds.txt
	@touch $@

clean-venv:
	rm -rf $(VENV) $(SEED_VENV)
