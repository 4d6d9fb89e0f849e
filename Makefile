# The README's commands. Everything runs from a virtual environment in .venv.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test bench lint clean

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/jupyter-plans demo

test: $(STAMP)
	$(PY) -m pytest

bench: $(STAMP)
	$(PY) benchmarks/run.py

lint: $(STAMP)
	$(PY) -m pip install --quiet ruff
	$(VENV)/bin/ruff check jupyter_plans tests benchmarks
	$(VENV)/bin/ruff format --check jupyter_plans tests benchmarks

clean:
	rm -rf $(VENV) build dist *.egg-info
