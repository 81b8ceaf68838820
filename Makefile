# pams-cpp. `make demo` and `make test` set up a fresh Debian machine, build
# and run; see README.md.

BUILD_DIR ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=

.PHONY: all deps reference tensorflow jax torch python keras wheel configure build test demo bench sanitize fuzz ci clean pams-suite docs docs-setup

all: build

deps:
	@scripts/install-deps.sh

reference: deps
	@scripts/setup-reference.sh

tensorflow: deps
	@scripts/setup-tensorflow.sh

# .venv-jax with JAX, for the JAX runner's tests.
jax: deps
	@scripts/setup-jax.sh

# .venv-torch with PyTorch, for the PyTorch runner's tests.
torch: deps
	@scripts/setup-torch.sh

# .venv-py with pams_cpp (and the reference PAMS) installed.
python: deps
	@scripts/setup-python.sh

# .venv-keras: pams_cpp with the newest TensorFlow and numpy 2.x, for Keras
# users (docs/python.md); not part of `make test`.
keras: deps
	@scripts/setup-keras.sh

# dist/pams_cpp-*.whl: a manylinux wheel that carries the libraries it links
# (auditwheel), for machines with no compiler (scripts/build-wheel.sh).
wheel: deps
	@scripts/build-wheel.sh

# The TensorFlow library pams tries by default: where `make tensorflow` puts
# it. The path is spelt out whether .venv-tf exists yet or not, so that every
# target configures the build the same way: `make demo` (no TensorFlow yet)
# then `make test` (which installs it) must not change what configure
# records, or the engine would be compiled again. .venv-tf is made by
# Debian's python3 (scripts/setup-tensorflow.sh), hence its lib/python3.X;
# 3.11 is Debian 12's, for a machine that has no python3 before `make deps`.
PYTHON_VERSION := $(or $(shell /usr/bin/python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null),3.11)
TF_LIB = $(CURDIR)/.venv-tf/lib/python$(PYTHON_VERSION)/site-packages/tensorflow/libtensorflow_cc.so.2

# ccache (scripts/install-deps.sh installs it) keeps compiled objects
# between build folders and clones: build/, build-python/ and the sanitizer
# builds of one checkout, and other worktrees, share what did not change.
# CCACHE_BASEDIR makes the paths it hashes relative to the checkout.
CCACHE := $(shell command -v ccache 2>/dev/null)
export CCACHE_BASEDIR ?= $(CURDIR)
ifneq ($(CCACHE),)
export CMAKE_CXX_COMPILER_LAUNCHER ?= ccache
export CMAKE_C_COMPILER_LAUNCHER ?= ccache
endif

# Sphinx, MyST, Furo (into .venv-py) and Doxygen for `make docs`.
docs-setup: python
	@scripts/setup-docs.sh

# The API reference site: build-docs/html/index.html (the Python API from
# .venv-py's pams_cpp, the C++ API from include/pams/, the guides of docs/),
# built with warnings as errors (scripts/build-docs.sh).
docs: docs-setup
	@scripts/build-docs.sh build-docs

# The interop tests of the Python extension (python/src/interop) build with
# .venv-py's nanobind and embed its Python: on once `make python` made it
# (`make test` does, before it builds); `make demo` on a fresh machine has
# no .venv-py and builds without them.
PYTHON_TESTS = $(if $(wildcard $(CURDIR)/.venv-py/bin/python),ON,OFF)

configure: deps
	@cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=Release \
	  -DPAMS_REFERENCE_PYTHON=$(CURDIR)/.venv-ref/bin/python \
	  -DPAMS_TENSORFLOW_LIBRARY=$(TF_LIB) \
	  -DPAMS_PYTHON=$(CURDIR)/.venv-py/bin/python \
	  -DPAMS_BUILD_PYTHON_TESTS=$(PYTHON_TESTS) $(CMAKE_FLAGS) >/dev/null

build: configure
	@cmake --build $(BUILD_DIR) -j $(JOBS)

test: reference tensorflow jax torch python wheel docs-setup
	@$(MAKE) --no-print-directory build
	@ctest --test-dir $(BUILD_DIR) --output-on-failure -j $(JOBS)

demo: build
	@scripts/demo.sh $(BUILD_DIR)

bench: reference tensorflow python
	@$(MAKE) --no-print-directory build
	@scripts/bench.sh $(BUILD_DIR)

# The test suite under ASan + UBSan, and the threads under TSan.
sanitize: reference tensorflow
	@PAMS_TENSORFLOW_LIBRARY_PATH=$(TF_LIB) scripts/sanitize.sh

# The config fuzzer for FUZZ_SECONDS (default 60).
FUZZ_SECONDS ?= 60
fuzz: deps
	@FUZZ_SECONDS=$(FUZZ_SECONDS) scripts/fuzz.sh

# PAMS's own test suite (not in this repository: PAMS_SRC is a checkout of
# PAMS's repository, branch masanori/prallel-1) on pams_cpp and on PAMS
# 0.3.0, with both pass counts; without PAMS_SRC it says what to fetch.
PAMS_SRC ?=
pams-suite: python
	@.venv-py/bin/python scripts/pams_suite.py "$(PAMS_SRC)"

# What CI runs (.ci/run): the tests, the sanitizer jobs, a minute of fuzzing.
ci: test
	@$(MAKE) --no-print-directory sanitize
	@$(MAKE) --no-print-directory fuzz

clean:
	rm -rf $(BUILD_DIR) build-asan build-tsan build-fuzz build-python build-wheel build-docs dist
