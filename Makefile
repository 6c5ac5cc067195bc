# Two set-up commands, both from a fresh clone with nothing pre-installed:
#   make run   creates .venv, installs the package with the training extra, runs the main job:
#              5 minutes of AlphaZero-style self-play on TARDIS Run, starting from the shipped
#              az:baseline network, then a round robin of the trained agent (the run's last
#              network, where its annealed step size ends), ppo:baseline, the heuristic and the
#              random agent
#   make test  creates .venv, installs the dev extras, runs the linters and the whole test suite
#   make docs  builds the documentation site into site/ (--strict) and checks it in headless Chromium
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip

.PHONY: run test lint venv bench docs clean

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip setuptools wheel

$(VENV)/.installed-run: pyproject.toml | $(VENV)/bin/python
	$(PIP) install -e ".[train]"
	touch $@

$(VENV)/.installed-dev: pyproject.toml | $(VENV)/bin/python
	$(PIP) install -e ".[dev]"
	touch $@

$(VENV)/.installed-core: pyproject.toml | $(VENV)/bin/python
	$(PIP) install -e .
	touch $@

venv: $(VENV)/.installed-dev

RUN_DIR := runs/main-$(shell date +%Y%m%d-%H%M%S)
TRAIN_MINUTES ?= 5

run: $(VENV)/.installed-run
	$(VENV)/bin/tardis-envs train tardis_run_v0 --algo az --config configs/tardis_run/az_expectation_finetune.yaml --init-from baseline --minutes $(TRAIN_MINUTES) --run-dir $(RUN_DIR)
	$(VENV)/bin/tardis-envs eval tardis_run_v0 --agents az:$(RUN_DIR)/checkpoints/last.zip,ppo:baseline,heuristic,random --games 2000 --out $(RUN_DIR)/eval

# pip installs the extras and the linters run on one core while the suite's kernels compile
# beside them (tests/precompile.py needs only the core dependencies); pytest then loads them
test: $(VENV)/.installed-core
	PYTHONPATH=. $(PY) -m tests.precompile & precompile=$$!; \
	if $(MAKE) --no-print-directory lint; then \
		wait $$precompile || echo "the kernel precompile failed: pytest compiles the kernels itself"; \
	else kill $$precompile; wait $$precompile; exit 1; fi
	$(PY) -m pytest -n 2 --dist loadfile -q --durations=30

lint: $(VENV)/.installed-dev
	$(VENV)/bin/ruff check tardis_envs agents benchmarks tests
	$(VENV)/bin/ruff format --check tardis_envs agents benchmarks tests
	$(VENV)/bin/mypy

docs: $(VENV)/.installed-dev
	$(PY) -m tardis_envs.docs_site

bench: $(VENV)/.installed-run
	$(VENV)/bin/tardis-envs bench

clean:
	rm -rf $(VENV) build site *.egg-info .pytest_cache
	find . -name __pycache__ -prune -exec rm -rf {} +
