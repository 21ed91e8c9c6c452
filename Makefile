# PyPTO developer entry points. `make run` and `make test` each work alone on
# a fresh Debian 12 machine: they set up, build, then run.
SHELL := /bin/bash
VENV := .venv
PY := $(VENV)/bin/python
export PATH := $(CURDIR)/$(VENV)/bin:$(PATH)
JOBS ?= $(shell nproc)
# pytest-xdist workers (-n): one per core. PYTEST_ARGS adds options, e.g. PYTEST_ARGS="-k softmax -x".
PYTEST_WORKERS ?= auto
PYTEST_ARGS ?=
# Every phase prints its wall time (scripts/phase); .ci/run collects them into a table.
PHASE := scripts/phase

.PHONY: setup build run test test-cpp test-python docs bench clean

setup:
	@$(PHASE) setup scripts/setup.sh

# `pip install -e .` drives the one CMake build (tree: build/) through
# scikit-build-core; the C++ tests are built in the same tree.
build: setup
	@CMAKE_BUILD_PARALLEL_LEVEL=$(JOBS) $(PHASE) build $(PY) -m pip install --quiet --disable-pip-version-check \
		--no-build-isolation --no-deps -e . \
		-Ccmake.define.PYPTO_WERROR=ON -Ccmake.define.PYPTO_BUILD_TESTS=ON

run: build
	@$(PY) examples/beginner/01_hello_world.py

test: build
	@status=0; \
	$(MAKE) --no-print-directory test-cpp || status=1; \
	$(MAKE) --no-print-directory test-python || status=1; \
	exit $$status

# JUnit for CI's report: build/ctest-junit.xml.
test-cpp:
	@cd build && ../$(PHASE) ctest ctest --output-on-failure -j$(JOBS) --timeout 600 --output-junit ctest-junit.xml

# On every core (--dist loadgroup keeps each xdist_group, e.g. the MPI jobs, on one worker), the 30 slowest tests
# and every skip listed at the end, and a per-test timeout (pyproject.toml) that ends a hang with a stack dump.
# A hang ends its worker, and --max-worker-restart=0 ends the run there as a failure: xdist 3.8's loadgroup
# scheduler can wait for ever after replacing a crashed worker. The manual's site is built into site/ on the way,
# so `make docs` afterwards has nothing to redo.
test-python:
	@cd tests/python && PYPTO_SITE_DIR=$(CURDIR)/site ../../$(PHASE) pytest ../../$(PY) -m pytest -q -p no:cacheprovider \
		-n $(PYTEST_WORKERS) --dist loadgroup --max-worker-restart=0 --durations=30 -rs $(PYTEST_ARGS) .

# The user manual as HTML in site/. Strict: a broken link, a missing heading or a page outside the navigation
# fails the build; so does an operator catalog that no longer matches the registry. A site `make test` built from
# the same pages and the same build is kept as it is.
docs: build
	@$(PHASE) docs $(PY) scripts/docs_site.py --site-dir site

# Benchmarks print measurements (ratios against a reference in the same run); they assert nothing.
bench: build
	@build/bin/bench_jit_compile
	@build/bin/bench_dispatch
	@$(PY) bench/bench_kernels.py
	@$(PY) bench/bench_mixed_kernels.py
	@$(PY) bench/bench_external_kernels.py
	@$(PY) bench/allreduce_bench.py

clean:
	rm -rf build site
