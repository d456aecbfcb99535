# Sluice: `make run` serves SQL on 127.0.0.1:4566; `make test` runs every test.
#
# make test = deps (system packages, .venv) → swift test (unit) → swift build (debug binary for the
#             end-to-end suites) → pytest: e2e clients and the sqllogictest suite, in one run.
SWIFT ?= swift
PYTHON ?= python3
VENV := .venv
STAMP := $(VENV)/.installed
PYTEST_ARGS ?=
SLUICE_ARGS ?=

.PHONY: run build release test unit deps system-deps venv pytest clean-venv bench
# The steps of `test` depend on each other's results (pytest starts the debug binary): never in parallel.
.NOTPARALLEL:

build:
	$(SWIFT) build

release:
	$(SWIFT) build -c release

run: release
	.build/release/sluice serve $(SLUICE_ARGS)

unit:
	$(SWIFT) test

# The benchmarks, with DuckDB (from .venv) as the reference.
bench: release deps
	.build/release/sluice bench scan-agg

# Everything: unit tests, then the debug binary, then the end-to-end and sqllogictest suites.
test: deps unit build pytest

# The Python suites alone, against the already built .build/debug/sluice (or $SLUICE_BIN).
pytest: deps
	$(VENV)/bin/pytest tests $(PYTEST_ARGS)

deps: system-deps venv

system-deps:
	@tests/install-system-deps.sh

venv: $(STAMP)

# Installed once, and again when tests/requirements.txt changes (the stamp records the install).
# A .venv whose interpreter is missing (copied from another machine, say) is made anew.
$(STAMP): tests/requirements.txt
	@$(VENV)/bin/python -c '' 2>/dev/null || $(PYTHON) -m venv --clear $(VENV)
	$(VENV)/bin/python -m pip install --quiet --disable-pip-version-check --no-input -r tests/requirements.txt
	@touch $@

clean-venv:
	rm -rf $(VENV)
