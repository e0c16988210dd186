# Developer entry point. `make test` is what CI runs (.ci/run) and what the README gives.
PYTHON ?= python3
PYTEST_WORKERS ?= 2

MINUTES ?= 5

.PHONY: install install-test fetch-ucd tables hf-tables cargo-test pytest test bench fuzz clean

install:  ## build the extension (release profile) and install the package
	$(PYTHON) -m pip install -q .

install-test: fetch-ucd  ## install the package with the reference libraries the tests compare against
	$(PYTHON) -m pip install -q ".[test]"

fetch-ucd:  ## the unicodedata2 sdist whose unicodetype_db.h the table generator reads
	$(PYTHON) -m pip install -q "unicodedata2==17.0.1"
	$(PYTHON) scripts/gen_unicode_tables.py --fetch --check

tables: fetch-ucd  ## regenerate src/unicode_tables.rs and python/bertpiece/_strtables.py
	$(PYTHON) scripts/gen_unicode_tables.py

hf-tables:  ## regenerate src/hf_tables.rs (HF tokenizers' character data)
	cargo run -q --release --locked -p gen-hf-tables > src/hf_tables.rs

cargo-test:  ## the Rust core alone, no Python involved
	cargo test --locked

pytest:
	$(PYTHON) -m pytest -n $(PYTEST_WORKERS)

test: install-test cargo-test pytest  ## everything CI runs

fuzz:  ## differential fuzz campaign for MINUTES minutes (tests/fuzz); new failing cases land in tests/fuzz/regressions/
	cd tests && RUST_BACKTRACE=0 $(PYTHON) -m fuzz.campaign --minutes $(MINUTES)

bench:  ## speed against the peers (docs/benchmarks.md); needs ../shared/data/corpus
	$(PYTHON) benches/bench.py --markdown
	cargo bench -p bertpiece-bench-stages

clean:
	rm -rf target .cache dist .pytest_cache .hypothesis
