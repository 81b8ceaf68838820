# pams-cpp. `make demo` and `make test` set up a fresh Debian machine, build
# and run; see README.md.

BUILD_DIR ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=

.PHONY: all deps reference configure build test demo bench clean

all: build

deps:
	@scripts/install-deps.sh

reference: deps
	@scripts/setup-reference.sh

configure: deps
	@cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=Release \
	  -DPAMS_REFERENCE_PYTHON=$(CURDIR)/.venv-ref/bin/python $(CMAKE_FLAGS) >/dev/null

build: configure
	@cmake --build $(BUILD_DIR) -j $(JOBS)

test: build reference
	@ctest --test-dir $(BUILD_DIR) --output-on-failure -j $(JOBS)

demo: build
	@scripts/demo.sh $(BUILD_DIR)

bench: build reference
	@scripts/bench.sh $(BUILD_DIR)

clean:
	rm -rf $(BUILD_DIR)
