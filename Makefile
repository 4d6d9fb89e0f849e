# The commands of the README and docs/development.md. Everything runs from a virtual
# environment in .venv.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# The venv holds the ACP SDK 0.11 (what Jupyter AI's ACP client takes); the bridge's tests also
# run the bridge on 0.12, installed here apart and put first on the bridge's PYTHONPATH.
ACP_SDK_0_12 := build/acp-0.12
# Jupyter AI 3.2 with jupyter-plans[acp] in one environment of its own (its jupyter-server-mcp pins
# mcp below 2, so the [mcp] extra is left out): the persona's tests run there too.
JUPYTER_AI_VENV := build/jupyter-ai-venv
FRONT_END := $(wildcard labextension/package.json labextension/yarn.lock labextension/tsconfig*.json \
  labextension/src/*.ts labextension/src/*/*.ts labextension/style/* labextension/schema/*.json)

.PHONY: demo test lab bench lint docs screenshots chromium agents acp-sdk jupyter-ai-env clean \
  notebooks nbval-copy \
  test-fast test-postgres test-slow test-agents test-browser test-jupyter-ai

# jsonschema imports rfc3987-syntax, where it is installed, for its "iri" format, and that module
# compiles 35 Earley parsers at import: 2.8 s of every Jupyter server's start and of every process
# that imports nbformat, pytest's included (jupyter_server#1559, jsonschema#1428). No Jupyter
# schema uses the format, and jsonschema goes without it when it is missing, so these
# environments do: a JupyterLab starts in 2.7-3.0 s instead of 5.4-5.7.
NO_SLOW_IRI := pip uninstall --quiet --yes rfc3987-syntax

$(STAMP): pyproject.toml $(FRONT_END)
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test,postgres,acp,mcp,lint,docs]'
	$(PY) -m $(NO_SLOW_IRI)
	$(PY) -m pip check
	touch $(STAMP)

# The quickstart notebook, run headlessly; prints the card as text.
demo: $(STAMP)
	$(VENV)/bin/jupyter-plans demo --notebook notebooks/01-quickstart.ipynb

# As root (a container, a VM), JupyterLab needs --allow-root.
lab: $(STAMP)
	$(VENV)/bin/jupyter lab $(if $(filter 0,$(shell id -u)),--allow-root,) notebooks/

# Browser tests use Debian's Chromium; as root, install it where it is missing.
chromium:
	@command -v chromium >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing Debian's chromium for the browser tests"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	  else echo "chromium is missing and this is not root: browser tests will skip"; fi; }

# The ACP agents the real-agent tests run, and the Claude Code and Codex CLIs the real-CLI hook
# tests run (those people install directly), pinned, in JUPYTER_PLANS_AGENTS (default
# ~/.cache/jupyter-plans/agents); a folder already holding its pinned version is kept (CI caches
# that folder).
agents:
	scripts/install-agents.sh

# The SDK 0.12 for the bridge's tests, without its dependencies (the venv's pydantic serves it).
acp-sdk: $(ACP_SDK_0_12)/.installed

$(ACP_SDK_0_12)/.installed: $(STAMP)
	rm -rf $(ACP_SDK_0_12)
	$(PY) -m pip install --quiet --no-deps --target $(ACP_SDK_0_12) 'agent-client-protocol==0.12.1'
	touch $@

# Made again only when pyproject.toml changes; pip check must find no conflict. The
# labextension there is a link to this checkout's build, so the browser test of Jupyter AI's
# chat (tests/e2e/test_jupyter_ai_chat.py) sees the card as it is now.
jupyter-ai-env: $(JUPYTER_AI_VENV)/.installed $(JUPYTER_AI_VENV)/.linked

$(JUPYTER_AI_VENV)/.linked: $(JUPYTER_AI_VENV)/.installed
	$(JUPYTER_AI_VENV)/bin/jupyter-builder develop --overwrite . >/dev/null
	touch $@

$(JUPYTER_AI_VENV)/.installed: pyproject.toml
	rm -rf $(JUPYTER_AI_VENV)
	$(PYTHON) -m venv $(JUPYTER_AI_VENV)
	$(JUPYTER_AI_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(JUPYTER_AI_VENV)/bin/python -m pip install --quiet -e '.[acp]' 'jupyter-ai==3.2.*' \
	  'jupyter-ai-acp-client==0.3.3' pytest
	$(JUPYTER_AI_VENV)/bin/python -m $(NO_SLOW_IRI)
	$(JUPYTER_AI_VENV)/bin/python -m pip check
	touch $@

# nbval runs a fresh copy of notebooks/, so every run starts from an empty plan file.
nbval-copy:
	rm -rf build/nbval && mkdir -p build/nbval && cp notebooks/*.ipynb build/nbval/
	cp scripts/nbval_conftest.py build/nbval/conftest.py

# Lint, the documentation site, and every test: a throwaway PostgreSQL on a free port of
# 127.0.0.1 serves the PostgreSQL half. Every lane runs at once on every core (WORKERS), a
# file's tests on one worker; the run ends with its 15 slowest tests, the long tail to work on.
# The files and the server's data live in memory where /dev/shm has room (scripts/scratch-dir:
# a commit's fsync is 4 ms on disk), but for the reliability suite's, which stay on the disk
# (JUPYTER_PLANS_DISK_TMPDIR: tests/reliability/conftest.py).
test: $(STAMP) lint docs chromium agents acp-sdk jupyter-ai-env nbval-copy
	@scratch="$$(scripts/scratch-dir)" && trap 'rm -rf "$$scratch"' EXIT && \
	echo "the tests' files and the PostgreSQL server's: $$scratch" && \
	JUPYTER_PLANS_DISK_TMPDIR="$${TMPDIR:-/tmp}" TMPDIR="$$scratch" scripts/with-postgres.sh \
	  $(PY) -m pytest -n $(WORKERS) --dist loadfile --durations=15 $(TESTS) $(NBVAL)

# The lanes (tests/lanes.py; docs/development.md): each test is in one, so together they are
# `make test`. TESTS narrows one to a file or a folder: make test-fast TESTS=tests/plan
TESTS ?= tests build/nbval
NBVAL := --nbval --nbval-current-env
# Two workers per core, at most 8: on 2 cores, two workers kept 1.2 of them busy and four keep
# both (62% user, 24% system, 3% idle), so more would only queue (docs/development.md).
WORKERS ?= $(shell n=$$(( 2 * $$(nproc) )); [ $$n -gt 8 ] && n=8; echo $$n)
# No browser, real agent, PostgreSQL or second environment, and no network: on every core, a
# file's tests (a notebook's cells, a module's server) kept on one worker.
test-fast: $(STAMP) acp-sdk nbval-copy
	$(PY) -m pytest --lane fast -n $(WORKERS) --dist loadfile $(TESTS) $(NBVAL)

test-postgres: $(STAMP)
	scripts/with-postgres.sh $(PY) -m pytest --lane postgres $(TESTS) $(NBVAL)

test-slow: $(STAMP)
	scripts/with-postgres.sh $(PY) -m pytest --lane slow $(TESTS) $(NBVAL)

test-agents: $(STAMP) agents
	$(PY) -m pytest --lane real_agents $(TESTS) $(NBVAL)

test-browser: $(STAMP) chromium
	scripts/with-postgres.sh $(PY) -m pytest --lane browser $(TESTS) $(NBVAL)

test-jupyter-ai: $(STAMP) chromium agents jupyter-ai-env
	$(PY) -m pytest --lane jupyter_ai $(TESTS) $(NBVAL)

# After a change to what the card or the agents print: run the notebooks again, keep outputs.
notebooks: $(STAMP)
	$(PY) scripts/run-notebooks.py

# Every picture under docs/, made again in a real JupyterLab and Chromium (never by a test):
# look at each before committing it. PICTURES narrows it: make screenshots PICTURES=card-light
screenshots: $(STAMP) chromium
	$(PY) scripts/screenshots.py $(PICTURES)

bench: $(STAMP)
	$(PY) -m pip install --quiet 'langgraph-checkpoint-sqlite>=3' 'eventsourcing>=9.4'  # the [bench] extra's peers
	JUPYTER_PLANS_PG_MAX_CONNECTIONS=100 scripts/with-postgres.sh $(PY) benchmarks/run.py

# ruff as pinned in the lint extra, over what pyproject.toml's [tool.ruff] includes, and ESLint
# over the front end.
lint: $(STAMP)
	$(VENV)/bin/ruff check
	$(VENV)/bin/ruff format --check
	cd labextension && node_modules/.bin/eslint --max-warnings 0 src demo

# The documentation site from docs/ into build/docs/html: any warning fails it (a page in no
# table of contents, a picture no page shows, a link to a page or heading that is not there, a
# link out that docs/conf.py does not list), then Sphinx's link check, which fetches nothing
# that docs/conf.py lists and fails on anything else it cannot reach.
DOCS_BUILD := build/docs
docs: $(STAMP)
	rm -rf $(DOCS_BUILD)
	$(VENV)/bin/sphinx-build -W --keep-going -n -q -b html -d $(DOCS_BUILD)/doctrees docs $(DOCS_BUILD)/html
	$(VENV)/bin/sphinx-build -W --keep-going -n -q -b linkcheck -d $(DOCS_BUILD)/doctrees docs $(DOCS_BUILD)/linkcheck

clean:
	rm -rf $(VENV) build dist *.egg-info jupyter_plans/static labextension/node_modules
