# surefoot: the two set-up commands of the README are `make demo` and `make test`.
# Both create .venv (Python >= 3.11 and make are all they need) and install what they use.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint typecheck unit bench clean

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/surefoot demo --html demo-report.html

lint: $(STAMP)
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench

typecheck: $(STAMP)
	$(BIN)/mypy

unit: $(STAMP)
	$(BIN)/python -m pytest -q

test: lint typecheck unit

LITELLM_VENV := .bench/litellm-venv

$(LITELLM_VENV)/bin/python:
	$(PY) -m venv $(LITELLM_VENV)
	$(LITELLM_VENV)/bin/python -m pip install -q litellm

# Benchmarks run on demand, never in CI. litellm lives in its own venv: it is only an anchor.
bench: $(STAMP) $(LITELLM_VENV)/bin/python
	$(BIN)/python -m pip install -q -e '.[bench]'
	SUREFOOT_LITELLM_PYTHON=$(LITELLM_VENV)/bin/python $(BIN)/python -m bench $(BENCH)

clean:
	rm -rf $(VENV) .bench build dist src/*.egg-info .mypy_cache .ruff_cache .pytest_cache
