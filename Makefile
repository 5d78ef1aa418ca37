# Every command a person runs. `make demo` and `make test` work on a fresh machine with
# nothing but python3 (3.10+) installed.
PYTHON ?= python3
VENV := .venv
VENV_MINIMUM := .venv-minimum
VENV4 := .venv-datasets4
# Tests never touch the network and never read the user's Hugging Face cache.
OFFLINE := HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 HF_HOME=$(CURDIR)/.cache/hf-test
# Python's bytecode caches are written (into the __pycache__ folders git ignores) even where the
# environment says not to: else every pytest process, each leg's and those the tests start,
# rewrites the asserts of every test file again, half of its collection.
unexport PYTHONDONTWRITEBYTECODE

.PHONY: demo conformance test test-main test-main-processes test-main-rest test-other-legs test-minimum test-datasets4 test-python3.10 test-one fuzz cards cards-check validate bench bench-quick lint clean

# The virtual environments are made with uv (pinned; installed once into .venv-tools by pip): it
# made each in seconds where pip took half a minute, most of a fresh clone's first minute of
# `make test`. --seed gives each its own pip and setuptools, as `python -m venv` does; no module
# is compiled at install, Python compiles what the tests import, once (see above).
UV := .venv-tools/bin/uv
UV_VENV = $(UV) --quiet --no-python-downloads venv --seed --clear --python $(PYTHON)
UV_INSTALL = $(UV) --quiet --no-python-downloads pip install --python
$(UV):
	$(PYTHON) -m venv .venv-tools
	.venv-tools/bin/pip install --quiet uv==0.13.9

# Leg 1: the current datasets (5.x).
$(VENV)/.installed: pyproject.toml setup.py | $(UV)
	$(UV_VENV) $(VENV)
	$(UV_INSTALL) $(VENV)/bin/python -e '.[test]' 'datasets>=5,<6'
	touch $@

# Leg 2, the minimum versions: every lower bound of pyproject.toml (tests/minimum_versions.py),
# datasets 3.6 among them, the last version that runs loading scripts.
$(VENV_MINIMUM)/.installed: pyproject.toml setup.py tests/minimum_versions.py | $(UV)
	$(UV_VENV) $(VENV_MINIMUM)
	$(UV_INSTALL) $(VENV_MINIMUM)/bin/python -e '.[test]' $$($(PYTHON) tests/minimum_versions.py)
	touch $@

# Leg 3: the latest datasets 4.x (no loading scripts; what many users have).
$(VENV4)/.installed: pyproject.toml setup.py | $(UV)
	$(UV_VENV) $(VENV4)
	$(UV_INSTALL) $(VENV4)/bin/python -e '.[test]' 'datasets>=4,<5'
	touch $@

demo: $(VENV)/.installed
	$(VENV)/bin/corpora build --all --dummy --out build

# The three legs side by side (each with its own Hugging Face home; output shown leg by leg): they
# wait on processes, servers and time limits as much as they compute, and one after the other
# took over ten minutes on two cores. Lint among them, so the three venvs are made side by side
# too (one alone leaves a core idle).
test:
	$(MAKE) --no-print-directory -j5 --output-sync=target lint test-main-processes test-main-rest test-minimum test-datasets4

# Each run's temporary folders (pytest's tmp_path) are in a folder of its own under .cache/, emptied
# when it starts: in pytest's shared numbered folders, a run that ended deleted those of the runs
# ended before it (100,000 files), and held the legs still going for tens of seconds.
BASETEMP = --basetemp=$(CURDIR)/.cache/tmp-$@
.cache:
	mkdir -p $@

# The main leg: every test, in two processes side by side (one per core): the tests that start
# processes and servers (most of their time is spent waiting), and the rest. The tests that wait
# most come first in their leg, here and in the minimum one: they wait while the other legs
# compute, and what computes runs last, when the legs ended before have left a core free.
WAITING_MOST := tests/test_push.py tests/test_push_time_limits.py tests/test_push_run_again.py tests/test_downloads.py \
	tests/test_load.py tests/test_export_safety.py tests/test_export_stops.py
# tests/test_caption_contest_ratings_threads.py computes more than it waits (big archives): in the rest,
# measured under load on one run, the processes leg ended 430 s after the rest (1,748 s against 1,318 s).
MAIN_PROCESSES := $(WAITING_MOST) tests/test_install.py tests/test_ci_action.py tests/test_scaffold.py \
	tests/test_add_a_corpus.py tests/test_shared_code_cache.py
test-main: test-main-processes test-main-rest

# The main leg's `corpora convert --reference` tests use the minimum venv's datasets 3.6 as the reference.
test-main-processes: $(VENV)/.installed $(VENV_MINIMUM)/.installed | .cache
	rm -rf .cache/hf-test-processes
	HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 HF_HOME=$(CURDIR)/.cache/hf-test-processes $(VENV)/bin/python -m pytest $(BASETEMP) $(MAIN_PROCESSES)

test-main-rest: $(VENV)/.installed $(VENV_MINIMUM)/.installed | .cache
	rm -rf .cache/hf-test
	$(OFFLINE) $(VENV)/bin/python -m pytest $(BASETEMP) $(addprefix --ignore=,$(MAIN_PROCESSES))

# The quick loop of adding or changing one corpus: its generic tests and its own, about a minute and a half.
test-one: $(VENV)/.installed
	@test -n "$(NAME)" || { echo "usage: make test-one NAME=<corpus>"; exit 2; }
	rm -rf .cache/hf-test-$(NAME)
	HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 HF_HOME=$(CURDIR)/.cache/hf-test-$(NAME) $(VENV)/bin/python -m pytest -q \
		-k $(NAME) tests/test_generic.py tests/test_declared.py tests/test_bad_input.py tests/test_cards.py \
		$(wildcard tests/test_$(NAME).py tests/test_$(NAME)_*.py)
	$(OFFLINE) $(VENV)/bin/python -m pytest -q tests/test_repository.py  # a name shared code uses is refused there

# Legs 2 and 3 run only what can differ between versions (tests/conftest.py deselects the rest),
# side by side, each with its own Hugging Face home; their output is shown leg by leg.
test-other-legs:
	$(MAKE) --no-print-directory -j2 --output-sync=target test-minimum test-datasets4

test-minimum: $(VENV_MINIMUM)/.installed $(VENV)/.installed | .cache
	rm -rf .cache/hf-test-minimum
	HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 HF_HOME=$(CURDIR)/.cache/hf-test-minimum CORPORA_TEST_LEG=minimum \
		CORPORA_DATASETS5_PYTHON=$(CURDIR)/$(VENV)/bin/python $(VENV_MINIMUM)/bin/python -m pytest $(BASETEMP) \
		$(WAITING_MOST) $(filter-out $(WAITING_MOST),$(sort $(wildcard tests/test_*.py)))

test-datasets4: $(VENV4)/.installed $(VENV)/.installed | .cache
	rm -rf .cache/hf-test-datasets4
	HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 HF_HOME=$(CURDIR)/.cache/hf-test-datasets4 CORPORA_TEST_LEG=datasets4 \
		CORPORA_DATASETS5_PYTHON=$(CURDIR)/$(VENV)/bin/python $(VENV4)/bin/python -m pytest $(BASETEMP)

# The property tests exploring: fresh random examples (hypothesis profile "explore", tests/conftest.py),
# run after run until FUZZ_SECONDS have passed, stopping at the first failure (hypothesis prints it
# and saves it under .hypothesis/, which the next `make fuzz` tries first; pin it as an @example, or
# a Fuzz's `found`). Run it before resolving any change to a reader. `make test` and CI draw the
# same examples on every run (profile "repeatable") and never explore.
FUZZ_SECONDS ?= 600
fuzz: $(VENV)/.installed
	rm -rf .cache/hf-test-fuzz
	end=$$(( $$(date +%s) + $(FUZZ_SECONDS) )); while [ $$(date +%s) -lt $$end ]; do \
		HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 HF_HOME=$(CURDIR)/.cache/hf-test-fuzz $(VENV)/bin/python -m pytest -q -x \
			-p no:cacheprovider -m hypothesis --hypothesis-profile=explore || exit 1; \
	done

# The main leg on Python 3.10, the oldest Python pyproject.toml allows (not part of `make test`,
# to keep it under ten minutes): `make test-python3.10 PYTHON310=/path/to/python3.10`.
PYTHON310 ?= python3.10
test-python3.10:
	$(PYTHON310) -m venv .venv-python3.10
	.venv-python3.10/bin/pip install --quiet --upgrade pip
	.venv-python3.10/bin/pip install --quiet -e '.[test]' 'datasets>=5,<6'
	rm -rf .cache/hf-test-python3.10
	HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 HF_HOME=$(CURDIR)/.cache/hf-test-python3.10 .venv-python3.10/bin/python -m pytest

# Every generated file: the cards and the bad-input and push tables of docs/bad_input.md.
cards: $(VENV)/.installed
	$(VENV)/bin/corpora card --all
	CORPORA_ROOT=tests/example_collection $(VENV)/bin/corpora card --all
	$(OFFLINE) $(VENV)/bin/python tests/test_bad_input.py
	$(OFFLINE) $(VENV)/bin/python tests/test_push.py

cards-check: $(VENV)/.installed
	$(OFFLINE) $(VENV)/bin/corpora card --all --check
	$(OFFLINE) CORPORA_ROOT=tests/example_collection $(VENV)/bin/corpora card --all --check

validate: $(VENV)/.installed
	$(OFFLINE) $(VENV)/bin/corpora validate --all

# Every benchmark, bench/<name>.py, at full size (tens of minutes); bench-quick runs
# each at a small scale in a few minutes and prints the same ratios.
bench: $(VENV)/.installed
	$(VENV)/bin/python bench/run.py

# `corpora convert --dummy --reference 2.21` over every script folder under LEGACY, and the table of
# what each gave (docs/converting.md): the reference venv is made with uv the first time, cached. Both
# sides get the packages scripts import (svhn: h5py and scipy; wiki_dpr: faiss, which datasets 2.21's
# loader asks for, though only its index needs it).
CONFORMANCE_PACKAGES ?= h5py scipy faiss-cpu
conformance: $(VENV)/.installed | $(UV)
	@test -n "$(LEGACY)" || { echo "usage: make conformance LEGACY=DIR [JOBS=N]"; exit 2; }
	$(UV_INSTALL) $(VENV)/bin/python $(CONFORMANCE_PACKAGES)
	PATH=$(CURDIR)/.venv-tools/bin:$$PATH HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 HF_HOME=$(CURDIR)/.cache/hf-conformance \
		$(VENV)/bin/python -m corpora.convert.conformance $(LEGACY) --jobs $(or $(JOBS),1) \
		$(addprefix --reference-package ,$(CONFORMANCE_PACKAGES))

bench-quick: $(VENV)/.installed
	$(VENV)/bin/python bench/run.py --quick

lint: $(VENV)/.installed
	$(UV_INSTALL) $(VENV)/bin/python ruff==0.17.6
	$(VENV)/bin/ruff check src loaders tests bench

clean:
	rm -rf build .cache $(VENV) $(VENV_MINIMUM) $(VENV4) .venv-python3.10 .venv-tools
