# CourtStudio: the two commands of the README, and a few helpers.
#   make run    set up .venv and reconstruct the bundled sample project into out/sample
#   make test   set up .venv and run the whole test suite
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: setup run test bench specs clean

setup: $(STAMP)

# Re-install when the project's dependency list changes. Nothing here depends on torch yet;
# when the hmr extras land, `pip install torch==2.13.0` must come first (local CPU wheel).
$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

run: setup
	$(BIN)/courtstudio reconstruct --sample -o out/sample

test: setup
	$(BIN)/python -m pytest

bench: setup
	$(BIN)/python bench/calibration_accuracy.py
	$(BIN)/python bench/speed.py

specs:
	$(PYTHON) tools/make_court_specs.py

clean:
	rm -rf $(VENV) out .pytest_cache
