# Developer entry point. `make test` is what CI runs (.ci/run) and what the README gives.
PYTHON ?= python3
PYTEST_WORKERS ?= 2
# The exact versions the tests install (scripts/update_constraints.sh writes it);
# empty for the newest releases (test-latest).
CONSTRAINTS ?= constraints/test.txt
PIP_PINS = $(if $(CONSTRAINTS),-c $(CONSTRAINTS),--upgrade)
# Installs go through uv (from PyPI; pip installs it once, at the version pinned in constraints/test.txt):
# with the ~100 pinned packages already installed, a `pip install` still takes ~4 s of CPU to resolve them,
# uv ~0.5 s; a fresh venv's test tools (test-pythons) 10 s against 0.7 s. pip's find-links setting is kept.
# uv compiles no bytecode at install: the test runs (PYTEST below) write it on first import.
UV = $(PYTHON) -m uv
PIP_INSTALL = $(UV) pip install -q --python "$$($(PYTHON) -c 'import sys; print(sys.executable)')" \
	$(if $(PIP_FIND_LINKS),--find-links $(PIP_FIND_LINKS))
# The supported range's lower end (README, "Supported versions"): what test-oldest pins instead.
OLDEST_PINS ?= transformers==5.23.0

MINUTES ?= 5

.PHONY: uv install install-test test-deps test-latest test-oldest fetch-ucd tables hf-tables cargo-test pytest test test-slow wheel sdist test-pythons bench fuzz clean

install:  ## build the extension (release profile) and install the package
	$(PYTHON) -m pip install -q .

# The package under test: empty builds this checkout, in Cargo.toml's `checkout` profile (the release profile
# without fat LTO: ~100 s on 2 cores instead of ~160, the same code); CI passes the wheel `make wheel` just
# built from it (WHEEL=dist/bertpiece-*.whl), so the suite tests the artifact that ships and the same code is
# not compiled twice. --reinstall-package: the same version may be installed already (and, for the checkout,
# uv's cached build of it may predate the last edit: reinstalling also rebuilds).
WHEEL ?=

uv:  ## uv, the installer the targets below use (installed by pip if missing)
	@$(UV) --version > /dev/null 2>&1 || $(PYTHON) -m pip install -q $(if $(CONSTRAINTS),-c $(CONSTRAINTS)) uv

install-test: uv fetch-ucd  ## install the package with the reference libraries the tests compare against
	$(if $(WHEEL),,MATURIN_PEP517_ARGS="--profile checkout") \
		$(PIP_INSTALL) $(PIP_PINS) "$(if $(WHEEL),$(WHEEL),.)[test]" --reinstall-package bertpiece
	$(PYTHON) scripts/fetch_transformers_tests.py  # transformers' own tokenizer tests, from its sdist, into .cache/
	$(PYTHON) scripts/fetch_test_models.py  # tokenizer models others made (sentencepiece's, whisper's sdists), into .cache/

# What install-test installs but the package itself: CI (.ci/run) installs it while the wheel builds.
test-deps: uv fetch-ucd  ## the reference libraries and test tools alone (pyproject's `test` extra), transformers' tests, others' tokenizer models
	$(PIP_INSTALL) $(PIP_PINS) -r pyproject.toml --extra test
	$(PYTHON) scripts/fetch_transformers_tests.py
	$(PYTHON) scripts/fetch_test_models.py

# No --check here: tests/test_generated.py checks the tables (it needs the sdists this fetches).
fetch-ucd: uv  ## the unicodedata2 sdist whose unicodetype_db.h the table generator reads
	$(PIP_INSTALL) $(PIP_PINS) "unicodedata2==17.0.1"
	$(PYTHON) scripts/gen_unicode_tables.py --fetch

tables: fetch-ucd  ## regenerate src/unicode_tables.rs and python/bertpiece/_strtables.py
	$(PYTHON) scripts/gen_unicode_tables.py

hf-tables:  ## regenerate src/hf_tables.rs (HF tokenizers' character data)
	cargo run -q --release --locked -p gen-hf-tables > src/hf_tables.rs

cargo-test:  ## the Rust core alone, no Python involved
	cargo test --locked

# tests/conftest.py orders the tests so that neither worker idles (long ones first, no lock waits);
# --maxschedchunk: at most 8 tests handed out at a time (by default the first hand-out is a quarter of
# each worker's share, which would give one worker nearly all the long tests). --durations: the 25
# slowest, so every run shows where the time goes.
PYTEST_ARGS ?= -n $(PYTEST_WORKERS) --maxschedchunk 8 --durations=25

# pytest's temporary directories under .cache/, not /tmp; removed when the run passes (make stops at a
# failure, so a failed run's are kept to look at; the next run starts by emptying them).
PYTEST_TMP = $(CURDIR)/.cache/pytest-tmp
# pytest's rewritten test modules are cached in tests/__pycache__ only where Python may write bytecode;
# with PYTHONDONTWRITEBYTECODE set (as in many containers) every worker of every run rewrote and compiled
# all ~120 test modules again (~5 s of CPU each). Empty = unset, for the test runs only.
PYTEST = PYTHONDONTWRITEBYTECODE= $(PYTHON) -m pytest

# scripts/tmp_left_behind.py: the run fails if it left anything in /tmp (BERTPIECE_TMP_CHECK=warn: reported only,
# for a machine where other programs make temporary files meanwhile).
pytest:
	PYTHONDONTWRITEBYTECODE= $(PYTHON) scripts/tmp_left_behind.py -- \
		$(PYTHON) -m pytest $(PYTEST_ARGS) --basetemp=$(PYTEST_TMP) -m "not slow"
	rm -rf $(PYTEST_TMP)

# `cargo test` (the Rust core alone: compile and run) goes on beside install-test, which builds the package:
# rustc's front end and the link run on one core, so the checkout build leaves the other idle for part of
# its ~100 s. Its output is shown when both are done, before pytest's. (In CI, .ci/run has compiled its
# binaries already.)
test:  ## everything CI runs but the slow tier (the pinned versions of constraints/test.txt)
	@mkdir -p .cache; cargo test --locked > .cache/cargo-test.log 2>&1 & rust=$$!; \
	$(MAKE) --no-print-directory install-test; installed=$$?; \
	wait $$rust; rust=$$?; cat .cache/cargo-test.log; rm -f .cache/cargo-test.log; \
	test $$installed -eq 0 -a $$rust -eq 0
	$(MAKE) --no-print-directory pytest

# In the environment `make install-test` sets up (CI runs it just before `make test`): the tests marked slow,
# on two workers; meanwhile, in a second pytest, the two Ray-cluster tests that start their own clusters
# (marked cluster too; ~60 % of their time is Ray starting and stopping services, not CPU: measured 47 CPU-s
# over 60 s of the two-node test on 2 cores), their output shown when both are done; last, alone, the
# README's Ray block, whose `ray.init()` would join a cluster `ray start` left running on this machine.
# Each pytest collects only the files that hold its tests where it can (collecting the suite costs ~15 s).
CLUSTER_TESTS = tests/test_ray_cluster.py tests/test_integrations.py
test-slow:  ## the slow tier (CI runs it): the rest of the sweeps, transformers' own suites, real Ray clusters
	@mkdir -p .cache; $(PYTEST) -m cluster --basetemp=$(PYTEST_TMP)-cluster $(CLUSTER_TESTS) \
		> .cache/cluster-tests.log 2>&1 & clusters=$$!; \
	$(PYTEST) $(PYTEST_ARGS) --basetemp=$(PYTEST_TMP) -m "slow and not cluster"; slow=$$?; \
	wait $$clusters; cluster=$$?; cat .cache/cluster-tests.log; test $$slow -eq 0 -a $$cluster -eq 0
	rm -rf $(PYTEST_TMP) $(PYTEST_TMP)-cluster .cache/cluster-tests.log
	$(PYTEST) -m cluster --basetemp=$(PYTEST_TMP)-docs tests/test_docs.py
	rm -rf $(PYTEST_TMP)-docs

# Each in a venv of its own under .cache/, so the pinned environment is left as it is.
test-latest:  ## the same suite against the newest releases of everything it tests against (no pins)
	$(PYTHON) -m venv .cache/venv-latest
	$(MAKE) test test-slow PYTHON=$(CURDIR)/.cache/venv-latest/bin/python CONSTRAINTS=

test-oldest:  ## the same suite with the lower end of the supported transformers/tokenizers range
	$(PYTHON) -m venv .cache/venv-oldest
	# constraints/test.txt with the OLDEST_PINS packages' lines replaced
	grep -v -E '^($(subst $(eval) ,|,$(foreach p,$(OLDEST_PINS),$(firstword $(subst ==, ,$(p))))))==' $(CONSTRAINTS) \
		> .cache/constraints-oldest.txt
	printf '%s\n' $(OLDEST_PINS) >> .cache/constraints-oldest.txt
	$(MAKE) test test-slow PYTHON=$(CURDIR)/.cache/venv-oldest/bin/python CONSTRAINTS=.cache/constraints-oldest.txt

# zig (from PyPI's ziglang) links against glibc 2.17 symbols, so no manylinux container is needed.
wheel: uv  ## dist/: the release wheel, manylinux2014 (glibc >= 2.17) abi3 for CPython >= 3.10, checked by auditwheel
	$(PIP_INSTALL) $(PIP_PINS) "maturin>=1.7,<2" "ziglang==0.14.1" "auditwheel>=6"
	rm -f dist/bertpiece-*.whl
	CARGO_ZIGBUILD_ZIG_PATH="$$($(PYTHON) -c 'import os, ziglang; print(os.path.join(os.path.dirname(ziglang.__file__), "zig"))')" \
		$(PYTHON) -m maturin build --release --locked --zig --compatibility manylinux2014 -i $(PYTHON) -o dist
	$(PYTHON) -m auditwheel show dist/bertpiece-*-abi3-manylinux2014_x86_64*.whl > dist/auditwheel.txt
	cat dist/auditwheel.txt
	grep -q '"manylinux_2_17_x86_64"' dist/auditwheel.txt

sdist: uv  ## dist/: the source distribution (pip builds it with a Rust toolchain)
	$(PIP_INSTALL) $(PIP_PINS) "maturin>=1.7,<2"
	rm -f dist/bertpiece-*.tar.gz
	$(PYTHON) -m maturin sdist -o dist

test-pythons: uv  ## the wheel from `make wheel` in a fresh venv of each other Python (3.10, 3.12, 3.13)
	CONSTRAINTS=$(CONSTRAINTS) UV="$(UV)" bash .ci/test-pythons

fuzz:  ## differential fuzz: MINUTES of random calls (new failing cases land in tests/fuzz/regressions/), then MINUTES of the stateful machine
	cd tests && RUST_BACKTRACE=0 $(PYTHON) -m fuzz.campaign --minutes $(MINUTES); options=$$?; \
		RUST_BACKTRACE=0 $(PYTHON) -m fuzz.stateful_campaign --minutes $(MINUTES); stateful=$$?; \
		exit $$(( options || stateful ))

bench:  ## speed against the peers (docs/benchmarks.md); needs ../shared/data/corpus
	$(PYTHON) benches/bench.py --markdown
	cargo bench -p bertpiece-bench-stages

clean:
	rm -rf target .cache dist .pytest_cache .hypothesis
