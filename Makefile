# CourtStudio: the two commands of the README, and a few helpers.
#   make run    set up .venv and reconstruct the bundled sample project into out/sample
#   make test   set up .venv and run the whole test suite
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: setup run reconstruct test bench bundle specs clean

setup: $(STAMP)

# Re-install when the project's dependency list changes. torch (for reading PromptHMR results,
# hmr/ only, imported lazily) is pinned to 2.13.0 and installed first: that pin is the local
# CPU wheel; an unpinned torch would pull a multi-GB CUDA build.
TORCH := torch==2.13.0

$(STAMP): pyproject.toml Makefile
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet $(TORCH)
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

run: setup
	$(BIN)/courtstudio gui --sample

reconstruct: setup
	$(BIN)/courtstudio reconstruct --sample -o out/sample

test: setup
	$(BIN)/python -m pytest

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
