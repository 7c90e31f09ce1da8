# The front door. A newcomer on a fresh Debian/Ubuntu machine needs two:
#   make demo   installs what it needs, builds in release mode, runs the demo
#   make test   installs what it needs, runs every test that needs no GPU
# Others: make header, make device-bundle, make install PREFIX=/usr/local

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
PREFIX ?= /usr/local
CARGO ?= cargo
CBINDGEN_VERSION := 0.29.4
CBINDGEN := .tools/bin/cbindgen
BUILD := build
RELEASE_LIB := target/release/libseqshim.so
DATA_DIR ?= ../shared/data
ABEA_FIXTURE := $(DATA_DIR)/abea/ecoli_2kb_r94

.PHONY: demo test deps build header check-header cbindgen lint unit-tests nvrtc-check \
        consumers install device-bundle clean fuzz bench-poa bench-wfa2 bench-wfa2-memory bench-wfa-batch \
        bench-gact bench-ec

deps:
	@bash scripts/install-deps.sh

build: deps
	$(CARGO) build --release --locked

## ---------------------------------------------------------------- demo
demo: build
	@mkdir -p $(BUILD)/demo
	@ln -sf ../../$(RELEASE_LIB) $(BUILD)/demo/libseqshim.so.0
	@ln -sf libseqshim.so.0 $(BUILD)/demo/libseqshim.so
	$(CC) -O2 -Wall -Wextra -Werror -Iinclude -Iinclude/boa -o $(BUILD)/demo/seqshim-demo integrations/demo/demo.c \
	    -L$(BUILD)/demo -lseqshim -Wl,-rpath,'$$ORIGIN'
	$(CC) -O2 -Wall -Wextra -Werror -Iinclude -o $(BUILD)/demo/seqshim-abea-demo integrations/demo/abea_demo.c \
	    -L$(BUILD)/demo -lseqshim -lm -Wl,-rpath,'$$ORIGIN'
	$(CC) -O2 -Wall -Wextra -Werror -Iinclude -Iinclude/wfa2lib -o $(BUILD)/demo/seqshim-wfa-demo \
	    integrations/demo/wfa_batch_demo.c -L$(BUILD)/demo -lseqshim -lpthread -Wl,-rpath,'$$ORIGIN'
	$(CC) -O2 -Wall -Wextra -Werror -Iinclude -o $(BUILD)/demo/seqshim-gact-demo integrations/demo/gact_demo.c \
	    -L$(BUILD)/demo -lseqshim -Wl,-rpath,'$$ORIGIN'
	$(CC) -O2 -Wall -Wextra -Werror -Iinclude -o $(BUILD)/demo/seqshim-ec-demo integrations/demo/ec_demo.c \
	    -L$(BUILD)/demo -lseqshim -Wl,-rpath,'$$ORIGIN'
	@echo
	$(BUILD)/demo/seqshim-demo
	@echo
	@if [ -d "$(ABEA_FIXTURE)" ]; then \
	    $(BUILD)/demo/seqshim-abea-demo "$(ABEA_FIXTURE)"; \
	else \
	    echo "(no ABEA fixture at $(ABEA_FIXTURE): synthetic reads)"; \
	    $(BUILD)/demo/seqshim-abea-demo; \
	fi
	@echo
	$(BUILD)/demo/seqshim-wfa-demo
	@echo
	$(BUILD)/demo/seqshim-gact-demo
	@echo
	$(BUILD)/demo/seqshim-ec-demo
	@echo
	@echo "-- WFA2-lib 2.3.3: a client linked to the distribution's libwfa2, then seqshim swapped in --"
	@mkdir -p $(BUILD)/demo/compat
	@ln -sf ../../../$(RELEASE_LIB) $(BUILD)/demo/compat/libwfa2.so.0
	$(CC) -O2 -Wall -Wextra -Werror -I/usr/include/wfa2lib -o $(BUILD)/demo/wfa2-client \
	    integrations/demo/wfa2_client.c -lwfa2 -lm
	$(BUILD)/demo/wfa2-client | tee $(BUILD)/demo/wfa2.upstream.txt
	LD_LIBRARY_PATH=$(BUILD)/demo/compat $(BUILD)/demo/wfa2-client > $(BUILD)/demo/wfa2.seqshim.txt
	diff $(BUILD)/demo/wfa2.upstream.txt $(BUILD)/demo/wfa2.seqshim.txt
	@echo "identical output with seqshim as libwfa2.so.0"

## ---------------------------------------------------------------- test
test: deps lint unit-tests check-header nvrtc-check consumers
	@echo
	@echo "make test: all checks passed"

lint:
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --locked --all-targets -- -D warnings

# `cargo test` also runs the fuzz targets (tests/fuzz, SEQSHIM_FUZZ_SECONDS
# each, 15 s by default: about 2.5 minutes for the eight) and the 64-thread
# stress (tests/stress, SEQSHIM_STRESS_SECONDS, 15 s by default).
# SEQSHIM_REQUIRE_ORACLES=1: an oracle binary that deps should have installed
# (Debian's poa) fails the run instead of skipping its tests.
# SEQSHIM_WFA2_PARITY_PAIRS=56: 56 random pairs for each of the 452 WFA2
# configurations, over 20,000 alignments compared with Debian's libwfa2.
# The fuzz run of `make test` starts from a fixed seed, so that every
# machine runs a prefix of the same cases (a slower one fewer of them) and
# a failure in CI reproduces; `make fuzz` seeds from the clock. A case may
# take up to a minute there (a loaded 2-core machine), 20 s in `make fuzz`.
FUZZ_TEST_SEED ?= 20261127
unit-tests:
	SEQSHIM_REQUIRE_ORACLES=1 SEQSHIM_WFA2_PARITY_PAIRS=56 SEQSHIM_FUZZ_SEED=$(FUZZ_TEST_SEED) \
	SEQSHIM_FUZZ_SLOW_CASE=60 $(CARGO) test --locked

# Long fuzz runs: FUZZ_SECONDS per target (all targets, or FUZZ_TARGETS),
# then the stress for STRESS_SECONDS. Failures keep their input under
# target/tmp/fuzz/crashes/; fuzz/README.md says how to replay one.
FUZZ_SECONDS ?= 3600
STRESS_SECONDS ?= 600
FUZZ_TARGETS ?=
fuzz:
	SEQSHIM_FUZZ_SECONDS=$(FUZZ_SECONDS) $(CARGO) test --locked --test fuzz -- $(FUZZ_TARGETS)
	SEQSHIM_STRESS_SECONDS=$(STRESS_SECONDS) $(CARGO) test --locked --test stress

cbindgen: $(CBINDGEN)
$(CBINDGEN):
	$(CARGO) install cbindgen --version $(CBINDGEN_VERSION) --locked --root .tools

header: $(CBINDGEN)
	$(CBINDGEN) --config cbindgen.toml --crate seqshim --output include/seqshim.h --quiet

check-header: $(CBINDGEN)
	@mkdir -p $(BUILD)
	$(CBINDGEN) --config cbindgen.toml --crate seqshim --output $(BUILD)/seqshim.h --quiet
	@diff -u include/seqshim.h $(BUILD)/seqshim.h \
	    || { echo "include/seqshim.h is stale: run 'make header' and commit it"; exit 1; }
	@echo "include/seqshim.h is current"

# Compiles every kernel with NVRTC 12 (sm_70, sm_80, sm_90) and NVRTC 13
# (sm_75, sm_80, sm_90; 13 dropped sm_70), both from PyPI wheels. No GPU needed.
nvrtc-check:
	LD_LIBRARY_PATH="$$(bash scripts/nvrtc-wheels.sh cu12)" SEQSHIM_REQUIRE_NVRTC=1 \
	    SEQSHIM_EXPECT_NVRTC_MAJOR=12 SEQSHIM_NVRTC_ARCHS=70,80,90 \
	    $(CARGO) test --locked --test kernels_compile -- --nocapture
	LD_LIBRARY_PATH="$$(bash scripts/nvrtc-wheels.sh cu13)" SEQSHIM_REQUIRE_NVRTC=1 \
	    SEQSHIM_EXPECT_NVRTC_MAJOR=13 SEQSHIM_NVRTC_ARCHS=75,80,90 \
	    $(CARGO) test --locked --test kernels_compile -- --nocapture

# Installs into a scratch prefix with CMake, then builds and runs the two
# consumer projects against it: one with find_package, one with pkg-config.
consumers:
	rm -rf $(BUILD)/prefix $(BUILD)/cmake-consumer
	cmake -S . -B $(BUILD)/cmake -DCMAKE_BUILD_TYPE=Release >/dev/null
	cmake --build $(BUILD)/cmake
	cmake --install $(BUILD)/cmake --prefix $(CURDIR)/$(BUILD)/prefix
	cmake -S integrations/cmake-consumer -B $(BUILD)/cmake-consumer \
	    -DCMAKE_PREFIX_PATH=$(CURDIR)/$(BUILD)/prefix >/dev/null
	cmake --build $(BUILD)/cmake-consumer
	LD_LIBRARY_PATH=$(CURDIR)/$(BUILD)/prefix/lib $(BUILD)/cmake-consumer/cmake_consumer
	LD_LIBRARY_PATH=$(CURDIR)/$(BUILD)/prefix/lib $(BUILD)/cmake-consumer/wfa2_consumer
	test "$$(readlink $(BUILD)/prefix/lib/seqshim/compat/libwfa2.so.0)" = ../../libseqshim.so.0
	$(BUILD)/prefix/bin/seqshim-ec --help >/dev/null
	$(MAKE) -s -C integrations/pkgconfig-consumer clean
	PKG_CONFIG_PATH=$(CURDIR)/$(BUILD)/prefix/lib/pkgconfig $(MAKE) -s -C integrations/pkgconfig-consumer
	LD_LIBRARY_PATH=$(CURDIR)/$(BUILD)/prefix/lib integrations/pkgconfig-consumer/pkgconfig_consumer
	LD_LIBRARY_PATH=$(CURDIR)/$(BUILD)/prefix/lib integrations/pkgconfig-consumer/wfa2_consumer
	$(MAKE) -s -C integrations/pkgconfig-consumer clean

## ---------------------------------------------------------------- benchmarks
# POA windows per second: seqshim (one thread, all cores) vs Debian's poa,
# spoa and abpoa on the same windows. Not part of `make test`.
bench-poa:
	SEQSHIM_BENCH_DEPS=1 bash scripts/install-deps.sh
	$(CARGO) bench --locked --bench poa

## ---------------------------------------------------------------- benchmarks
# Single-thread CPU time per alignment, seqshim vs the distribution's
# libwfa2.so.0, both loaded into one process, on the same pairs.
bench-wfa2: build
	@mkdir -p $(BUILD)/bench
	$(CC) -O2 -Wall -Wextra -Werror -Iinclude/wfa2lib -o $(BUILD)/bench/wfa2_bench benches/wfa2/wfa2_bench.c \
	    -ldl -Wl,--no-as-needed -lm
	$(BUILD)/bench/wfa2_bench "$$(ldconfig -p | awk '/libwfa2\.so\.0 /{print $$NF; exit}')" $(RELEASE_LIB)

# Peak and kept memory and CPU time of one long pair per memory mode, the
# distribution's libwfa2.so.0 against seqshim in its place.
bench-wfa2-memory: build
	@mkdir -p $(BUILD)/bench/compat
	$(CC) -O2 -Wall -Wextra -Werror -I/usr/include/wfa2lib -o $(BUILD)/bench/wfa2_memory \
	    benches/wfa2/wfa2_memory.c -lwfa2 -lm
	ln -sf $(CURDIR)/$(RELEASE_LIB) $(BUILD)/bench/compat/libwfa2.so.0
	sh benches/wfa2/wfa2_memory.sh $(BUILD)/bench/wfa2_memory $(BUILD)/bench/compat

# Batch API (GPU+CPU and CPU only) vs the distribution's libwfa2 on 16
# threads, then 16 threads calling wavefront_align on libwfa2 and with
# seqshim preloaded. WFA_BENCH_SCALE=1 for the full sizes (1 M / 100 k / 10 k).
bench-wfa-batch: build
	@mkdir -p $(BUILD)/bench
	$(CC) -O2 -Wall -Wextra -Werror -Iinclude -Iinclude/wfa2lib -o $(BUILD)/bench/wfa_batch_bench \
	    benches/wfa_batch/wfa_batch_bench.c -ldl -lpthread -Wl,--no-as-needed -lm
	$(CC) -O2 -Wall -Wextra -Werror -Iinclude/wfa2lib -o $(BUILD)/bench/wfa_threads benches/wfa_batch/wfa_threads.c \
	    -lwfa2 -lpthread -Wl,--no-as-needed -lm
	$(BUILD)/bench/wfa_batch_bench "$$(ldconfig -p | awk '/libwfa2\.so\.0 /{print $$NF; exit}')" $(CURDIR)/$(RELEASE_LIB)
	$(BUILD)/bench/wfa_threads 16 100000 150 0.05 none
	LD_PRELOAD=$(CURDIR)/$(RELEASE_LIB) $(BUILD)/bench/wfa_threads 16 100000 150 0.05 none

# GACT tiles (320x320, 15 % divergence) through seqshim on one thread and on
# all cores (batch API) vs parasail's traced Smith-Waterman on the same
# tiles, then whole 10 kb extensions; Darwin's own rates are recorded
# anchors, printed as such. GACT_BENCH_ARGS: tiles, repeats, pairs. Then
# parasail traced on every core over 128, 320 and 511 tiles (the GPU
# benchmark's sides; the device bundle runs it on 16 threads);
# PARASAIL_THREADS_SCALE multiplies its tile counts.
GACT_BENCH_ARGS ?= 256 5 16
PARASAIL_THREADS_SCALE ?= 0.25
bench-gact: build
	@mkdir -p $(BUILD)/bench
	@ln -sf ../../$(RELEASE_LIB) $(BUILD)/bench/libseqshim.so.0
	@ln -sf libseqshim.so.0 $(BUILD)/bench/libseqshim.so
	$(CC) -O2 -Wall -Wextra -Werror -Iinclude -o $(BUILD)/bench/gact_bench benches/gact/gact_bench.c \
	    -L$(BUILD)/bench -lseqshim -lparasail -Wl,-rpath,'$$ORIGIN'
	$(BUILD)/bench/gact_bench $(GACT_BENCH_ARGS)
	$(CC) -O2 -Wall -Wextra -Werror -o $(BUILD)/bench/parasail_threads benches/gact/parasail_threads.c \
	    -lparasail -lpthread
	$(BUILD)/bench/parasail_threads $$(nproc) $(PARASAIL_THREADS_SCALE)

# CUDA-EC quality against the truth and speed (spec 7, 8.4, 8.5): wgsim data
# sets, seqshim-ec exact-v1 and default mode versus Lighter, one thread and
# all threads. EC_SETS=srr6331like,L100_60x,L36_60x adds the largest set.
EC_SETS ?= srr6331like,L100_60x
bench-ec: build
	SEQSHIM_BENCH_DEPS=1 bash scripts/install-deps.sh
	@mkdir -p $(BUILD)/bench/ec
	python3 benches/ec/bench_ec.py --bin target/release/seqshim-ec --work $(BUILD)/bench/ec --sets $(EC_SETS)

## ---------------------------------------------------------------- install
install: deps
	cmake -S . -B $(BUILD)/cmake -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=$(PREFIX) >/dev/null
	cmake --build $(BUILD)/cmake
	cmake --install $(BUILD)/cmake

## ---------------------------------------------------------------- GPU machine
# A self-contained folder for a GPU machine that has CUDA but no Rust:
# stripped library, test and demo programs, fixtures and a runner script.
device-bundle: build
	bash scripts/make-device-bundle.sh

clean:
	$(CARGO) clean
	rm -rf $(BUILD) device-bundle
