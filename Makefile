# A thin front for CMake. The two commands of the README:
#   make run    install what is missing, build, run the exporter (embedded defaults)
#   make test   install what is missing, build, pass every test
#   make unit   the inner loop: the unit tests alone, no privileges needed
#   make bench  the overhead benchmark (not part of make test)
#   make stress the HTTP front under hostile clients (not part of make test)
#   make chaos  exporters on pins killed at random in every window, ROUNDS rounds (make test: 22)
#   make soak   DURATION seconds (3600) of device, namespace, scrape and reload churn, sampled
#               (make test: a short run)
#   make many-cpu  the 64-CPU guest alone (make test runs it too)
#   make cross ARCH=arm64   the exporter cross-built for arm64 (docs/arm64.md)
BUILD_DIR      ?= build
TEST_BUILD_DIR ?= build/test
JOBS           ?= $(shell nproc)
RUN_ARGS       ?=
BENCH_DIR      ?= build/bench
BENCH_ARGS     ?=
PREFIX         ?= /usr/local
DESTDIR        ?=

FUZZ_SECONDS   ?= 300
DEB_DIR        ?= build/deb
# The Debian architecture to build for: this machine's, or arm64 (cross build) for
# make cross, make deb and make image.
ARCH           ?= $(shell dpkg --print-architecture)

# Where ccache is installed (install-deps installs it), every build of the tree
# goes through it; paths are taken relative to the tree, so another checkout
# of the same sources reuses the objects.
ifneq ($(shell command -v ccache),)
export CMAKE_C_COMPILER_LAUNCHER ?= ccache
export CMAKE_CXX_COMPILER_LAUNCHER ?= ccache
export CCACHE_BASEDIR ?= $(CURDIR)
export CCACHE_NOHASHDIR ?= 1
endif

.PHONY: all deps build cross run test test-build unit tidy format format-check mixin bench stress chaos soak fuzz many-cpu install deb image clean

all: build

deps:
	@bash scripts/install-deps.sh

build: deps
	@cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNETIF_RX_BUILD_TESTS=OFF \
	  -DCMAKE_INSTALL_PREFIX=$(PREFIX) >/dev/null
	@cmake --build $(BUILD_DIR) -j $(JOBS) --target netif_rx_exporter netif_rx_civetweb_tls

# A release build for another architecture (ARCH=arm64) in build/ARCH, with clang and lld against
# Debian's packages of that architecture in a cached sysroot (scripts/arm64-sysroot.sh).
cross: deps
	@bash scripts/cross-build.sh $(ARCH) $(BUILD_DIR)/$(ARCH)

run: build
	$(BUILD_DIR)/netif_rx_exporter $(RUN_ARGS)

# Tests run in a sanitizer build (ASan + UBSan) of the daemon and the tests.
test-build: deps
	@cmake -S . -B $(TEST_BUILD_DIR) -DCMAKE_BUILD_TYPE=Debug -DNETIF_RX_SANITIZE=ON >/dev/null
	@cmake --build $(TEST_BUILD_DIR) -j $(JOBS)

# Installs, builds the sanitizer build, checks the format, then one test more than cores
# (tests/CMakeLists.txt says which tests never overlap); ends with what each part took and fails
# past TEST_CEILING_MINUTES (scripts/test-suite.sh).
TEST_CEILING_MINUTES ?= 45
test:
	@TEST_BUILD_DIR=$(TEST_BUILD_DIR) JOBS=$(JOBS) TEST_CEILING_MINUTES=$(TEST_CEILING_MINUTES) \
	  bash scripts/test-suite.sh

# Regenerates dashboards/*.json and rules/netif_rx_exporter.rules.yml from the jsonnet mixin
# (mixin/); make test fails while they differ from its rendering.
mixin: deps
	@bash mixin/render.sh .

# The unit tests alone, in the same sanitizer build: seconds once built.
unit: deps
	@cmake -S . -B $(TEST_BUILD_DIR) -DCMAKE_BUILD_TYPE=Debug -DNETIF_RX_SANITIZE=ON >/dev/null
	@cmake --build $(TEST_BUILD_DIR) -j $(JOBS) --target unit_tests
	@cd $(TEST_BUILD_DIR) && ctest -L unit -j $(JOBS) --output-on-failure --no-tests=error

# clang-tidy (.clang-tidy) over daemon/, with the test build's compile
# commands; files whose preprocessed text passed before (in any clone) are skipped. make test
# runs it as the ctest clang_tidy (label lint).
tidy: test-build
	@python3 scripts/run-clang-tidy.py --build $(TEST_BUILD_DIR) --jobs $(JOBS) daemon

# Not part of make test: the probe's cost against the bpftrace one-liner and an
# empty program, and the exporter's own costs, in one table (as root), which
# becomes the benchmark table of docs/performance.md.
bench: deps
	@cmake -S . -B $(BENCH_DIR) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNETIF_RX_BUILD_TESTS=OFF -DNETIF_RX_BUILD_BENCH=ON >/dev/null
	@cmake --build $(BENCH_DIR) -j $(JOBS) --target netif_rx_bench
	bash -o pipefail -c '$(BENCH_DIR)/bench/netif_rx_bench $(BENCH_ARGS) | tee $(BENCH_DIR)/table.md'
	@python3 scripts/update-doc-block.py "benchmark table" docs/performance.md $(BENCH_DIR)/table.md

# Not part of make test (which runs a short version): the HTTP front under
# silent and slowloris connections (1,000, then 10,000 in a network namespace
# of its own with larger listen queues), then under random basic auth credentials,
# on a release build (as root). Its tables become the stress table of
# docs/performance.md.
STRESS_ARGS ?=
stress: build
	bash -o pipefail -c 'python3 tests/stress/web_stress.py $(BUILD_DIR)/netif_rx_exporter $(STRESS_ARGS) | tee $(BUILD_DIR)/stress.md'
	bash -o pipefail -c 'python3 tests/stress/web_stress.py $(BUILD_DIR)/netif_rx_exporter --silent 10000 --own-netns $(STRESS_ARGS) | tee -a $(BUILD_DIR)/stress.md'
	bash -o pipefail -c 'python3 tests/stress/auth_stress.py $(BUILD_DIR)/netif_rx_exporter $(STRESS_ARGS) | tee -a $(BUILD_DIR)/stress.md'
	@python3 scripts/update-doc-block.py "stress table" docs/performance.md $(BUILD_DIR)/stress.md

# Randomized crash injection (as root): the chaos test of the integration tests with ROUNDS rounds
# (make test runs 22), in the sanitizer build, whose named points hold the exporter inside each
# window (daemon/util/test_hook.h); SEED repeats a run. Prints the table of rounds, losses, double
# counts and decreases by window, which becomes the chaos table of docs/operations.md.
ROUNDS ?= 100
SEED   ?=
chaos: test-build
	bash -o pipefail -c 'NETIF_RX_CHAOS_ROUNDS=$(ROUNDS) NETIF_RX_CHAOS_SEED=$(SEED) \
	  $(TEST_BUILD_DIR)/tests/integration_tests --gtest_filter="ChaosTest.*" | tee $(TEST_BUILD_DIR)/chaos.log'
	@grep -E '^(\||chaos: [0-9]+ rounds in)' $(TEST_BUILD_DIR)/chaos.log > $(TEST_BUILD_DIR)/chaos.md
	@python3 scripts/update-doc-block.py "chaos table" docs/operations.md $(TEST_BUILD_DIR)/chaos.md

# The soak (as root; make test runs a short one): a release build of the exporter for DURATION
# seconds under device churn, namespace churn, 1,000 scrapes a minute and SIGHUP reloads while
# traffic flows, sampled every 10 s into $(BUILD_DIR)/soak/soak.csv and soak.png; checks its goals
# (RSS slope after the warm-up, flat fds and threads, map entries back to the baseline, the
# invariant at every poll, nothing logged at warn or error) and prints the summary table, which
# becomes the soak table of docs/operations.md.
DURATION  ?= 3600
SOAK_ARGS ?=
soak: build
	@mkdir -p $(BUILD_DIR)/soak
	bash -o pipefail -c 'python3 tests/stress/soak.py $(BUILD_DIR)/netif_rx_exporter --duration $(DURATION) \
	  --out $(BUILD_DIR)/soak --assert $(SOAK_ARGS) | tee $(BUILD_DIR)/soak/soak.log'
	@python3 scripts/update-doc-block.py "soak table" docs/operations.md $(BUILD_DIR)/soak/soak.md

# Every libFuzzer harness for FUZZ_SECONDS each (make test runs them for 10 s).
fuzz: deps
	@bash scripts/fuzz.sh $(FUZZ_SECONDS)

# The many-CPU guest of tests/vm/run-many-cpu.sh alone (make test runs it too),
# with the package it runs, through ctest.
many-cpu: test-build
	@bash scripts/build-deb.sh $(TEST_BUILD_DIR)/deb >/dev/null
	ctest --test-dir $(TEST_BUILD_DIR) -R vm_many_cpu --output-on-failure

format:
	@clang-format -i $$(git ls-files '*.cpp' '*.h' '*.c')
	@jsonnetfmt -i $$(git ls-files '*.jsonnet' '*.libsonnet')

format-check: deps
	@bash scripts/check-format.sh

# make install PREFIX=/usr [DESTDIR=/tmp/stage]: binary, unit, /etc/default file,
# example configuration.
install: build
	@DESTDIR="$(DESTDIR)" cmake --install $(BUILD_DIR)

# The Debian package, with dpkg-buildpackage and debhelper (debian/), checked by
# lintian: build/deb/netif-rx-exporter_<version>_<arch>.deb. ARCH=arm64 cross-builds it.
deb: deps
	@bash scripts/build-deb.sh $(DEB_DIR) $(ARCH)

# The OCI image from packaging/container/Containerfile with podman, on a base
# built from Debian's archive (no registry): localhost/netif-rx-exporter:<version>
# and :latest. ARCH=arm64: :<version>-arm64 and :latest-arm64, from the cross build.
image: deps
	@bash scripts/build-image.sh $(ARCH)

clean:
	rm -rf $(BUILD_DIR)
