# Two set-up commands, both from a fresh clone with nothing pre-installed:
#   make run   creates .venv, installs the package, runs the main job
#   make test  creates .venv, installs the dev extras, runs the whole test suite
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip

.PHONY: run test venv bench clean

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip setuptools wheel

$(VENV)/.installed-run: pyproject.toml | $(VENV)/bin/python
	$(PIP) install --quiet -e .
	touch $@

$(VENV)/.installed-dev: pyproject.toml | $(VENV)/bin/python
	$(PIP) install --quiet -e ".[dev]"
	touch $@

venv: $(VENV)/.installed-dev

run: $(VENV)/.installed-run
	$(VENV)/bin/tardis-envs eval tardis_run_v0

test: $(VENV)/.installed-dev
	$(PY) -m pytest -n 2 --dist loadfile -q

bench: $(VENV)/.installed-run
	$(VENV)/bin/tardis-envs bench

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache
	find . -name __pycache__ -prune -exec rm -rf {} +
