# CourtStudio: the two commands of the README, and a few helpers.
#   make run    set up .venv and reconstruct the bundled sample project into out/sample
#   make test   set up .venv, run the gates (make lint) and then the whole test suite
#   make lint   ruff (lint and format), mypy (geometry/) and the import contracts, failing on any
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: setup run reconstruct lint test test-fast bench bundle specs clean lock

setup: $(STAMP)

# Re-install when the project's dependency list changes. torch (for reading PromptHMR results,
# hmr/ only, imported lazily) is pinned to 2.13.0 and installed first: that pin is the local
# CPU wheel; an unpinned torch would pull a multi-GB CUDA build.
TORCH := torch==2.13.0

# Every other package at the version the suite and the benches last ran with (constraints.txt:
# bench records depend on OpenCV's release; `make lock` rewrites it from the installed set).
$(STAMP): pyproject.toml Makefile constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet $(TORCH)
	$(BIN)/pip install --quiet -c constraints.txt -e '.[test]'
	touch $(STAMP)

# After a deliberate upgrade (pip install -U ... in .venv, then the suite and the benches rerun):
# the installed versions become the constraints (the header comment kept; torch stays the
# Makefile's pin).
lock: setup
	{ sed -n '/^#/p;/^#/!q' constraints.txt; $(BIN)/pip freeze --exclude-editable \
	  | grep -v -e '^torch==' -e '^#'; } > constraints.txt.new
	mv constraints.txt.new constraints.txt

run: setup
	$(BIN)/courtstudio gui --sample

reconstruct: setup
	$(BIN)/courtstudio reconstruct --sample -o out/sample

# The gates: lint (ruff check, with import order), format (checked, never rewritten here), types
# (strict on geometry/) and the layer contracts.
lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports --no-cache

# Two workers (the machines have two cores); tests that share a file or a port run in one
# worker through their xdist_group (--dist loadgroup).
# PYTHONDONTWRITEBYTECODE= (empty): byte-compiled modules are kept in __pycache__ (ignored by
# git and by the suite's source-tree check) even where the environment turns that off; without
# them every worker recompiles and re-rewrites ~150 modules at collection (3.6 s CPU each).
PYTEST_WORKERS ?= 2
PYTEST_ENV := QT_QPA_PLATFORM=offscreen PYTHONDONTWRITEBYTECODE=
test: lint
	$(PYTEST_ENV) $(BIN)/python -m pytest -n $(PYTEST_WORKERS) --dist loadgroup

# everything but the tests marked slow, for the edit-test loop (CI runs them all)
test-fast: setup
	$(PYTEST_ENV) $(BIN)/python -m pytest -n $(PYTEST_WORKERS) --dist loadgroup -m "not slow"

bench: setup
	$(BIN)/python bench/calibration_accuracy.py
	$(BIN)/python bench/speed.py
	QT_QPA_PLATFORM=offscreen $(BIN)/python bench/gui_latency.py

# One-folder desktop bundle in dist/CourtStudio (PyInstaller; a few minutes).
bundle: setup
	$(BIN)/pip install --quiet 'pyinstaller>=6.0'
	$(BIN)/pyinstaller app.spec --noconfirm
	QT_QPA_PLATFORM=offscreen dist/CourtStudio/CourtStudio gui --sample --screenshot dist/bundle_check.png

specs:
	$(PYTHON) tools/make_court_specs.py

clean:
	rm -rf $(VENV) out .pytest_cache
