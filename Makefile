# The quick start: `make run` (the board against the simulator) and `make test`.
# Each creates the virtual environment in .venv on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test system-test lint bench clean

$(STAMP): pyproject.toml
	@$(PYTHON) -m venv $(VENV) || { echo "make: cannot create $(VENV): on Debian or Ubuntu install python3-venv first (sudo apt install python3-venv)" >&2; rm -rf $(VENV); exit 1; }
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/magboard run --sim

# The suite in two processes (pytest-xdist), a test file each at a time: most tests wait on
# daemons, browsers and engines, so two keep a 2-core machine busy (about half the time).
test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/python -m pytest -n 2 --dist loadfile

# ruff, and mypy on the type hints (the first steps of `make test`).
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy

# The real stack in a Debian virtual machine (QEMU): the installed service under systemd, a
# kernel GPIO chip, the real hardware libraries. Needs root; see docs/testing.md.
system-test: $(STAMP)
	$(BIN)/python -m pytest -m system tests/system

bench: $(STAMP)
	for b in bench/*.py; do $(BIN)/python $$b || exit 1; done

clean:
	rm -rf $(VENV) build *.egg-info
