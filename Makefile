# `make test` and `make demo` build .venv themselves: a fresh clone needs nothing else.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: test test-all lint demo bench clean

$(STAMP): pyproject.toml setup.py
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

test: $(STAMP)
	$(BIN)/pytest -q

test-all: $(STAMP)
	$(BIN)/pytest -q -m ""

lint: $(STAMP)
	$(BIN)/ruff check acfs_cli tests scripts benchmarks

demo: $(STAMP)
	$(BIN)/acfs run configs/quick.yaml

bench: $(STAMP)
	$(BIN)/python benchmarks/bench_oracle.py

clean:
	rm -rf $(VENV) .pytest_cache
