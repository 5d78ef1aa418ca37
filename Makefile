# Every command a person runs. `make demo` and `make test` work on a fresh machine with
# nothing but python3 (3.10+) installed.
PYTHON ?= python3
VENV := .venv
VENV3 := .venv-datasets3
# Tests never touch the network and never read the user's Hugging Face cache.
OFFLINE := HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 HF_HOME=$(CURDIR)/.cache/hf-test

.PHONY: demo test test-main test-datasets3 test-one cards cards-check validate bench bench-quick lint clean

# Leg 1: the current datasets (5.x).
$(VENV)/.installed: pyproject.toml setup.py
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --upgrade pip
	$(VENV)/bin/pip install --quiet -e '.[test]' 'datasets>=5,<6'
	touch $@

# Leg 2: datasets 3.6, the last version that runs loading scripts, with the Hub client and
# fsspec it was released with.
$(VENV3)/.installed: pyproject.toml setup.py
	$(PYTHON) -m venv $(VENV3)
	$(VENV3)/bin/pip install --quiet --upgrade pip
	$(VENV3)/bin/pip install --quiet -e '.[test]' 'datasets==3.6.0' 'huggingface_hub<1.0'
	touch $@

demo: $(VENV)/.installed
	$(VENV)/bin/corpora build --all --dummy --out build

test: lint test-main test-datasets3

test-main: $(VENV)/.installed
	rm -rf .cache/hf-test
	$(OFFLINE) $(VENV)/bin/python -m pytest

# The quick loop of adding or changing one corpus: its generic tests and its own, about a minute.
test-one: $(VENV)/.installed
	@test -n "$(NAME)" || { echo "usage: make test-one NAME=<corpus>"; exit 2; }
	rm -rf .cache/hf-test-$(NAME)
	HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 HF_HOME=$(CURDIR)/.cache/hf-test-$(NAME) $(VENV)/bin/python -m pytest -q \
		-k $(NAME) tests/test_generic.py tests/test_bad_input.py tests/test_cards.py $(wildcard tests/test_$(NAME).py)

# Leg 2 runs only what can differ between datasets versions (tests/conftest.py deselects the rest).
test-datasets3: $(VENV3)/.installed $(VENV)/.installed
	rm -rf .cache/hf-test
	$(OFFLINE) CORPORA_DATASETS5_PYTHON=$(CURDIR)/$(VENV)/bin/python $(VENV3)/bin/python -m pytest

# The example corpus of the toolkit tests (tests/example_collection) has a card too.
# Every generated file: the cards, the shared modules of each loader folder (from
# src/corpora/loader_shared) and the bad-input tables of docs/bad_input.md.
cards: $(VENV)/.installed
	$(VENV)/bin/corpora card --all
	CORPORA_ROOT=tests/example_collection $(VENV)/bin/corpora card --all
	$(OFFLINE) $(VENV)/bin/python tests/test_bad_input.py

cards-check: $(VENV)/.installed
	$(OFFLINE) $(VENV)/bin/corpora card --all --check
	$(OFFLINE) CORPORA_ROOT=tests/example_collection $(VENV)/bin/corpora card --all --check

validate: $(VENV)/.installed
	$(OFFLINE) $(VENV)/bin/corpora validate

# Every benchmark, bench/<name>.py, at full size (tens of minutes); bench-quick runs
# each at a small scale in a few minutes and prints the same ratios.
bench: $(VENV)/.installed
	$(VENV)/bin/python bench/run.py

bench-quick: $(VENV)/.installed
	$(VENV)/bin/python bench/run.py --quick

lint: $(VENV)/.installed
	$(VENV)/bin/pip install --quiet ruff==0.17.6
	$(VENV)/bin/ruff check src loaders tests bench

clean:
	rm -rf build .cache $(VENV) $(VENV3)
