# `make test` and `make demo` build .venv themselves: a fresh clone needs nothing else.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: test test-all test-browser lint demo bench pages clean

$(STAMP): pyproject.toml setup.py
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

# two processes: the suite's tests are independent, and two cores hold it under ten minutes
test: $(STAMP)
	$(BIN)/pytest -q -n 2

test-all: $(STAMP)
	$(BIN)/pytest -q -n 2 -m ""

# The study page in a real browser: playwright (the browser extra) drives the system's
# Chromium, installed with apt-get when run as root and missing.
test-browser: $(STAMP)
	$(BIN)/pip install --quiet -e '.[dev,browser]'
	@if ! command -v chromium >/dev/null 2>&1 && ! command -v chromium-browser >/dev/null 2>&1; then \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
			(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium) \
				|| echo "could not install chromium: the browser tests will be skipped"; \
		else \
			echo "no chromium: install it (apt-get install chromium) to run the browser tests"; \
		fi; \
	fi
	$(BIN)/pytest -q -m browser

# One page per committed study, in docs/ (acfs report --html).
pages: $(STAMP)
	$(BIN)/acfs report results/simopt --html --page docs/simopt.html
	$(BIN)/acfs report results/main --html --page docs/main.html

lint: $(STAMP)
	$(BIN)/ruff check acfs_cli tests scripts benchmarks

demo: $(STAMP)
	$(BIN)/acfs run configs/quick.yaml

bench: $(STAMP)
	$(BIN)/python benchmarks/bench_oracle.py

clean:
	rm -rf $(VENV) .pytest_cache
