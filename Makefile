# PyPTO developer entry points. `make run` and `make test` each work alone on
# a fresh Debian 12 machine: they set up, build, then run.
SHELL := /bin/bash
VENV := .venv
PY := $(VENV)/bin/python
export PATH := $(CURDIR)/$(VENV)/bin:$(PATH)
JOBS ?= 2

.PHONY: setup build run test test-cpp test-python docs bench clean

setup:
	@scripts/setup.sh

# `pip install -e .` drives the one CMake build (tree: build/) through
# scikit-build-core; the C++ tests are built in the same tree.
build: setup
	@CMAKE_BUILD_PARALLEL_LEVEL=$(JOBS) $(PY) -m pip install --quiet --disable-pip-version-check \
		--no-build-isolation --no-deps -e . \
		-Ccmake.define.PYPTO_WERROR=ON -Ccmake.define.PYPTO_BUILD_TESTS=ON

run: build
	@$(PY) examples/beginner/01_hello_world.py

test: build
	@status=0; \
	$(MAKE) --no-print-directory test-cpp || status=1; \
	$(MAKE) --no-print-directory test-python || status=1; \
	exit $$status

test-cpp:
	@cd build && ctest --output-on-failure -j$(JOBS) --timeout 600

test-python:
	@cd tests/python && ../../$(PY) -m pytest -q -p no:cacheprovider .

# The user manual as HTML in site/. Strict: a broken link, a missing heading or a page outside the navigation
# fails the build; so does an operator catalog that no longer matches the registry.
docs: build
	@$(PY) -m pypto.tools.op_catalog --check
	@$(PY) -m mkdocs build --strict --site-dir site
	@echo "docs: the manual is in site/index.html"

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
