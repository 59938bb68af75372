# surefoot: the two set-up commands of the README are `make demo` and `make test`.
# Both create .venv (Python >= 3.11 and make are all they need) and install what they use.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# Branch coverage the suite must keep (measured with `make test`; raise it, never lower it).
COVERAGE_MIN ?= 92.5

.PHONY: demo test lint typecheck generate check-generated architecture unit coverage reliability bench clean

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/surefoot demo --html demo-report.html

lint: $(STAMP)
	$(BIN)/ruff check src tests bench scripts
	$(BIN)/ruff format --check src tests bench scripts

# mypy --strict over the package, and over the typing test of the public API (never executed).
typecheck: $(STAMP)
	$(BIN)/mypy
	$(BIN)/mypy --strict tests/typing

# The sync drivers are generated from the async ones, the word model is counted from the
# classifier corpora: rewrite them, or check they are current.
generate: $(STAMP)
	$(BIN)/python scripts/unasync.py
	$(BIN)/python scripts/build_word_model.py

check-generated: $(STAMP)
	$(BIN)/python scripts/unasync.py --check
	$(BIN)/python scripts/build_word_model.py --check

# The import layers and the purity of surefoot.policy (pyproject.toml, [tool.importlinter]).
architecture: $(STAMP)
	$(BIN)/lint-imports

unit: $(STAMP)
	$(BIN)/coverage erase
	$(BIN)/coverage run -m pytest -q
	$(BIN)/coverage report --fail-under=$(COVERAGE_MIN)

# The reliability suite (tests/reliability) runs in every `make test` on CI's budget; this is
# its deeper mode: 20 times the fuzzing examples (see tests/reliability/_budget.py).
reliability: $(STAMP)
	SUREFOOT_RELIABILITY=deep $(BIN)/python -m pytest -q -p no:cacheprovider tests/reliability

coverage: unit
	$(BIN)/coverage html -d coverage-html
	@echo "coverage report: coverage-html/index.html"

test: lint typecheck check-generated architecture unit

LITELLM_VENV := .bench/litellm-venv

$(LITELLM_VENV)/bin/python:
	$(PY) -m venv $(LITELLM_VENV)
	$(LITELLM_VENV)/bin/python -m pip install -q litellm

# Benchmarks run on demand, never in CI. litellm lives in its own venv: it is only an anchor.
bench: $(STAMP) $(LITELLM_VENV)/bin/python
	$(BIN)/python -m pip install -q -e '.[bench]'
	SUREFOOT_LITELLM_PYTHON=$(LITELLM_VENV)/bin/python $(BIN)/python -m bench $(BENCH)

clean:
	rm -rf $(VENV) .bench build dist src/*.egg-info .mypy_cache .ruff_cache .pytest_cache \
		.coverage coverage-html
