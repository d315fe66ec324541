# InferLab — the two commands (`make demo`, `make test`) and developer targets.
# Every target first runs tools/install.sh, which installs only what is missing.

BUILD_DIR ?= build
ASAN_BUILD_DIR ?= build-asan
FUZZ_BUILD_DIR ?= build-fuzz
JOBS ?= $(shell nproc)
CACHE_DIR ?= $(HOME)/.cache/inferlab
FUZZ_SECONDS ?= 600
SOAK_MINUTES ?= 10
export INFERLAB_CACHE := $(CACHE_DIR)

.PHONY: all install build demo test bench asan fuzz soak models conformance-report clean

all: build

install:
	@bash tools/install.sh

build: install
	@cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	@cmake --build $(BUILD_DIR) -j $(JOBS)

models: install
	@/usr/bin/python3 tools/export_models.py --cache-dir $(CACHE_DIR)

demo: build
	@bash tools/demo.sh $(BUILD_DIR)/inferlab

# Tests run $(JOBS) at a time, each with an OpenMP team of its own: idle
# workers must sleep, not spin on a core another test needs.
test: build models
	@cd $(BUILD_DIR) && OMP_WAIT_POLICY=PASSIVE ctest --output-on-failure -j $(JOBS) --timeout 1500

# Long measurements, never part of `make test`: every comparison in
# docs/performance.md, rerun on this machine.
bench: build models
	@bash tools/bench.sh $(BUILD_DIR)

# Every ctest label but `models` (real models take too long under the
# sanitizers), OpenMP's idle workers sleeping as in `test`, so a part's label (serve, pipeline, ...: CMakeLists.txt's
# inferlab_add_part) is included the day its tests/ folder appears.
asan: install
	@cmake -S . -B $(ASAN_BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DCMAKE_CXX_COMPILER=clang++-14 -DCMAKE_C_COMPILER=clang-14 -DINFERLAB_SANITIZE=ON >/dev/null
	@cmake --build $(ASAN_BUILD_DIR) -j $(JOBS)
	@cd $(ASAN_BUILD_DIR) && LSAN_OPTIONS=suppressions=$(CURDIR)/tools/lsan.supp \
	  OMP_WAIT_POLICY=PASSIVE ctest --output-on-failure -j $(JOBS) -LE "^models$$"

fuzz: install
	@cmake -S . -B $(FUZZ_BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DCMAKE_CXX_COMPILER=clang++-14 -DCMAKE_C_COMPILER=clang-14 -DINFERLAB_FUZZ=ON >/dev/null
	@cmake --build $(FUZZ_BUILD_DIR) -j $(JOBS) --target fuzz_model fuzz_infer_request
	@bash tools/run_fuzz.sh $(FUZZ_BUILD_DIR)/fuzz_model $(FUZZ_SECONDS)
	@bash tools/run_fuzz.sh $(FUZZ_BUILD_DIR)/fuzz_infer_request $(FUZZ_SECONDS)

# The server's resident memory under SOAK_MINUTES of steady load (issue 20):
# fails when it grew by 10 MB or more from minute 1. Never part of `make test`.
soak: build
	@/usr/bin/python3 tools/serve/soak.py --inferlab $(BUILD_DIR)/inferlab --minutes $(SOAK_MINUTES)

conformance-report: build
	@$(BUILD_DIR)/conformance_runner --data-dir /usr/share/libonnx-testdata/data \
	  --report docs/conformance.md

clean:
	rm -rf $(BUILD_DIR) $(ASAN_BUILD_DIR) $(FUZZ_BUILD_DIR)
