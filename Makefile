# spsweep — the user's one entry point. `make help` lists the targets.
#
# Builds bin/spsweep from C11 + OpenMP, plus the CUDA objects when nvcc is
# found (or CUDA=1); `make CUDA=0` forces a CPU-only build.

SHELL := /bin/bash
.DEFAULT_GOAL := all

CONFIG ?= configs/default.ini
DB     ?= results/results.db
REPORT ?= results/report
BUILD  ?= build

# ---- packages --------------------------------------------------------------
# What the build, the tests and the Slurm cluster test need, and their
# package names for Debian, RHEL and Spack: .ci/deps.sh. `make`, `make test`,
# `make sweep` and `make fetch` check first, the way the build looks (pkg-config
# modules, commands): found anywhere, they build; missing, root with apt-get
# installs them, anyone else is told the names. SKIP_DEPS=1 skips the check
# (libraries given through CFLAGS/LDLIBS instead). Slurm and munge are only
# for tests/test_slurm_cluster.c: `make deps-slurm`, never needed to sweep.
DEPS := bash .ci/deps.sh

# ---- parallel by default ---------------------------------------------------
# `make` alone runs one job per CPU; an explicit -jN (or -j1) wins, and the
# sub-makes share the top one's jobs. Not with clean or deps on the command
# line, whose order matters.
ifeq ($(MAKELEVEL)$(filter -j%,$(MAKEFLAGS))$(filter clean deps deps-slurm,$(MAKECMDGOALS)),0)
  MAKEFLAGS += -j$(shell nproc 2>/dev/null || echo 1)
endif

# ---- toolchain -------------------------------------------------------------
NVCC_FOUND := $(shell command -v nvcc 2>/dev/null || ls /usr/local/cuda/bin/nvcc 2>/dev/null)
ifeq ($(origin CUDA), undefined)
  CUDA := $(if $(NVCC_FOUND),1,0)
endif
NVCC      ?= $(if $(NVCC_FOUND),$(NVCC_FOUND),nvcc)
CUDA_HOME ?= $(abspath $(dir $(NVCC))/..)
# sm_90 machine code for the H100, plus compute_90 PTX the driver can JIT
# for later GPUs.
CUDA_ARCH ?= -gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90

# The CPU the kernels are built for: ARCH=native (the default) is this
# machine's; on a cluster's login node give the compute nodes' (ARCH=icelake-server,
# ARCH=znver3, ARCH=x86-64-v3, ...: gcc's -march names). The flags, with what
# native meant here, go into every sweep's provenance (sweeps.cflags) and
# `spsweep --version`.
ARCH     ?= native
ARCH_IS  := $(if $(filter native,$(ARCH)),$(shell $(CC) -march=native -Q --help=target 2>/dev/null | awk '$$1=="-march=" {print $$2; exit}'))
OPT      ?= -O3 -march=$(ARCH)
PKGS     := sqlite3 inih zlib libxxhash libcurl libarchive libcrypto librsb
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null || echo -lsqlite3 -linih -lz -lxxhash -lcurl -larchive -lcrypto -lrsb)
WARN     := -Wall -Wextra -Werror
CFLAGS   += -DSP_OPT_FLAGS='"$(strip $(OPT) $(SAN))$(if $(ARCH_IS),$(if $(findstring -march=native,$(OPT)), (native = $(ARCH_IS))))"' -std=c11 -D_GNU_SOURCE $(OPT) -g -fopenmp $(WARN) -MMD -MP $(PKG_CFLAGS) $(SAN)
LDLIBS   += $(PKG_LIBS) -fopenmp -lm $(SAN)
NVFLAGS  ?= -O3 -std=c++17 -MMD -MP $(CUDA_ARCH) -Xcompiler -Wall,-Wextra,-Werror,-fPIC -lineinfo

ifeq ($(CUDA),1)
  CFLAGS  += -DSP_HAVE_CUDA=1
  NVFLAGS += -DSP_HAVE_CUDA=1
  LDLIBS  += -L$(CUDA_HOME)/lib64 -Wl,-rpath,$(CUDA_HOME)/lib64 -lcusparse -lcudart -lstdc++
  CU_SRC  := $(wildcard kernels/*.cu kernels/*/*.cu runner/*.cu runner/*/*.cu)
endif

# spsweep's own commit, baked into the binary for every sweep's provenance
# (runner/exec/provenance.c, `spsweep --version`): HEAD of this source tree and
# whether its files differ from it (untracked, not ignored files count: the
# wildcards below compile them); "unknown" when the tree is no git checkout
# of its own (a tarball, even one unpacked inside another repository).
# `spsweep --version` names the build as `git describe --always --tags
# --abbrev=12` does (the commit alone while there is no tag), with this
# dirty rule's "-dirty"; outside a checkout, SP_VERSION (runner/exec/sweep.h).
# $(BUILD)/version.c is rewritten only when that text changes, so an
# unchanged tree rebuilds nothing.
SRC_DIR     := $(patsubst %/,%,$(dir $(abspath $(firstword $(MAKEFILE_LIST)))))
GIT_TOP     := $(shell git -C '$(SRC_DIR)' rev-parse --show-toplevel 2>/dev/null)
GIT_COMMIT  := $(if $(filter $(realpath $(SRC_DIR)),$(realpath $(GIT_TOP))), \
                 $(shell git -C '$(SRC_DIR)' rev-parse --short=12 HEAD 2>/dev/null))
GIT_DIRTY   := $(if $(strip $(GIT_COMMIT)), \
                 $(if $(shell git -C '$(SRC_DIR)' status --porcelain 2>/dev/null | head -c 1),1,0),-1)
GIT_DESCRIBE := $(if $(strip $(GIT_COMMIT)), \
                 $(shell git -C '$(SRC_DIR)' describe --always --tags --abbrev=12 2>/dev/null)$(if $(filter 1,$(strip $(GIT_DIRTY))),-dirty))
VERSION_C   := $(BUILD)/version.c
VERSION_TEXT := const char sp_build_commit[] = "$(or $(strip $(GIT_COMMIT)),unknown)"; const int sp_build_dirty = $(strip $(GIT_DIRTY)); const char sp_build_describe[] = "$(strip $(GIT_DESCRIBE))";
ifneq ($(VERSION_TEXT),$(shell cat $(VERSION_C) 2>/dev/null))
  $(shell mkdir -p $(BUILD) && echo '$(VERSION_TEXT)' > $(VERSION_C))
endif

# ---- Intel MKL (optional) ----------------------------------------------------
# `make deps-mkl` installs oneMKL's PyPI wheels into MKL_PREFIX (no root, no
# Intel installer). A build finds them there and compiles the MKL kernels in
# (spmv_mkl, transpose_mkl: kernels/mkl.h), as a build finds nvcc; without
# the prefix it builds exactly as before, those kernels "not built".
# MKL=0 leaves MKL out, MKL=1 insists on it.
#
# Threading: MKL's GNU layer is linked by name (libmkl_gnu_thread), not
# libmkl_rt. Its threads are libgomp's, the OpenMP runtime every other
# kernel and the harness use; mkl_rt picks its layer at run time and
# defaults to Intel's (libiomp5), and two OpenMP runtimes in one process
# keep two thread pools spinning against each other. Linked, the layer
# cannot change under an environment variable. --no-as-needed keeps the
# layer and core libraries, whose symbols only MKL itself calls, and libm
# after them, which MKL calls but does not name (a program that uses no
# libm itself, as bench/stream_triad, would drop it); the
# wheels ship versioned names only (libmkl_core.so.3), linked by path, with
# an rpath so the binaries run without LD_LIBRARY_PATH.
MKL_VERSION ?= 2026.2.0
MKL_PREFIX  ?= $(SRC_DIR)/.deps/mkl
MKL_FOUND   := $(wildcard $(MKL_PREFIX)/include/mkl_spblas.h)
ifeq ($(origin MKL), undefined)
  MKL := $(if $(MKL_FOUND),1,0)
endif
# the newest of lib$(1).so or lib$(1).so.N in the prefix
mkl_lib = $(lastword $(sort $(wildcard $(MKL_PREFIX)/lib/lib$(1).so $(MKL_PREFIX)/lib/lib$(1).so.*)))
ifeq ($(MKL),1)
  ifeq ($(filter deps-mkl,$(MAKECMDGOALS)),)
    $(if $(MKL_FOUND),,$(error MKL=1 but no MKL in $(MKL_PREFIX): run `make deps-mkl` first, or give MKL_PREFIX=))
  endif
  CFLAGS += -DSP_HAVE_MKL=1 -isystem $(MKL_PREFIX)/include
  LDLIBS += -Wl,--push-state,--no-as-needed $(call mkl_lib,mkl_intel_lp64) \
            $(call mkl_lib,mkl_gnu_thread) $(call mkl_lib,mkl_core) -lm -Wl,--pop-state \
            -Wl,-rpath,$(MKL_PREFIX)/lib -lgomp -lpthread -ldl
endif

# Everything but the CLI's main() goes into one library that the binary,
# the tests and the benchmarks link.
LIB_SRC  := $(filter-out runner/cli/main.c, \
              $(wildcard core/*.c fetch/*.c kernels/*.c kernels/*/*.c runner/*.c runner/*/*.c db/*.c plots/*.c))
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/obj/%.o) $(CU_SRC:%.cu=$(BUILD)/obj/%.cu.o) \
            $(BUILD)/obj/version.o
LIB      := $(BUILD)/libspsweep.a
BIN      := bin/spsweep
TEST_LIB := tests/testutil.c tests/spmv_cases.c $(wildcard tests/util_*.c)
UNIT_SRC := $(wildcard tests/test_*.c) $(TEST_LIB)
UNIT_BIN := $(BUILD)/tests/unit
GPU_SRC  := $(wildcard tests/gpu/*.c) $(TEST_LIB)
GPU_BIN  := $(BUILD)/tests/gpu
BENCH_SRC := $(wildcard bench/*.c)
BENCH_BIN := $(BENCH_SRC:bench/%.c=$(BUILD)/bench/%)
# the GPU benches' sources (built and run by their scripts on a GPU
# machine): compiled by `make test` too, so every .cu builds in CI
BENCH_CU_OBJ := $(if $(filter 1,$(CUDA)),$(patsubst %.cu,$(BUILD)/obj/%.cu.o,$(wildcard bench/*.cu)))

.PHONY: all help include-graph deps deps-mkl ensure-deps sweep fetch test unit-test python-test gpu-test asan report \
        bench bench-fetch bench-gpu bench-gpu-transpose bench-sort list clean slurm merge docs install

all: $(BIN) ## build bin/spsweep (CUDA objects when nvcc is present; ARCH=native or a gcc -march name)

help: ## list every target
	@echo "spsweep — sparse-kernel benchmarking pipeline"
	@echo
	@grep -hE '^[a-z-]+:.*## ' $(firstword $(MAKEFILE_LIST)) | sort | \
	  awk -F':.*## ' '{printf "  make %-12s %s\n", $$1, $$2}'
	@echo
	@echo "Variables: CONFIG=$(CONFIG) DB=$(DB) REPORT=$(REPORT) CUDA=$(CUDA) (0 forces CPU-only)"
	@echo "  MKL=$(MKL) (1 when $(MKL_PREFIX) holds MKL: make deps-mkl; 0 leaves it out)"
	@echo "  slurm/merge: SHARDS=N PARTITION= TIME= GPUS_PER_TASK= CACHE_DIR= SHARDS_DIR=$(SHARDS_DIR) JOB="

deps: ## as root: install the Debian packages of the build and the tests (apt-get; idempotent)
	@$(DEPS) install build test

deps-mkl: ## optional: Intel oneMKL from PyPI into .deps/mkl (no root); then make builds the MKL kernels
	@bash .ci/deps_mkl.sh '$(MKL_PREFIX)' $(MKL_VERSION)

ensure-deps:
	$(if $(SKIP_DEPS),,@$(DEPS) ensure build $(if $(filter test unit-test asan %/tests/unit %/tests/gpu,$(MAKECMDGOALS)),test))
# (ensure-deps: what the goal needs, the build plus the tests' tools for the
# tests; it runs before anything compiles, as an order-only prerequisite of
# every object that never makes one out of date, once per make)

.PHONY: deps-slurm
deps-slurm: ## as root: Slurm and munge, only for the Slurm cluster test (never for a sweep)
	@$(DEPS) install slurm

sweep: ensure-deps ## run the sweep in CONFIG (default configs/default.ini) into DB
	@$(MAKE) --no-print-directory $(BIN)
	$(BIN) sweep $(CONFIG) --db $(DB)

# `make fetch` alone fetches the matrices of configs/spmv.ini (the default
# sweep config uses generated matrices only).
FETCH_CONFIG := $(if $(filter command line environment,$(origin CONFIG)),$(CONFIG),configs/spmv.ini)
fetch: ensure-deps ## fetch the SuiteSparse matrices of CONFIG (default configs/spmv.ini) into the cache
	@$(MAKE) --no-print-directory $(BIN)
	$(BIN) fetch --config $(FETCH_CONFIG) --db $(DB)

# Scale-out (docs/sweeps.md "Running on a cluster"): SHARDS array tasks, merged
# back with `make merge`. PARTITION, TIME, GPUS_PER_TASK, CPUS_PER_TASK,
# ACCOUNT, QOS, CONSTRAINT, CACHE_DIR and SHARDS_DIR go to `spsweep slurm`;
# NO_SUBMIT=1 writes the scripts only.
SHARDS_DIR ?= results/shards
slurm: ## submit CONFIG as a Slurm job array of SHARDS tasks (PARTITION= TIME= GPUS_PER_TASK=)
	$(if $(SHARDS),,$(error make slurm: give SHARDS=N))
	@$(MAKE) --no-print-directory $(BIN)
	$(BIN) slurm $(CONFIG) --shards $(SHARDS) --out-dir $(SHARDS_DIR)$(if $(PARTITION), --partition $(PARTITION))$(if $(TIME), --time $(TIME))$(if $(GPUS_PER_TASK), --gpus-per-task $(GPUS_PER_TASK))$(if $(CPUS_PER_TASK), --cpus-per-task $(CPUS_PER_TASK))$(if $(ACCOUNT), --account $(ACCOUNT))$(if $(QOS), --qos $(QOS))$(if $(CONSTRAINT), --constraint '$(CONSTRAINT)')$(if $(CACHE_DIR), --cache-dir $(CACHE_DIR))$(if $(NO_SUBMIT), --no-submit)

merge: ## merge the complete shards of SHARDS_DIR into DB; prints how to resubmit the rest
	@$(MAKE) --no-print-directory $(BIN)
	$(BIN) merge --shards $(SHARDS_DIR)$(if $(SHARDS), --expect $(SHARDS))$(if $(JOB), --job $(JOB))$(if $(CACHE_DIR), --cache-dir $(CACHE_DIR)) $(DB)

report: ## charts (PNG + report.pdf + index.html) from DB into REPORT; BASE=old.db adds a change table
	@$(MAKE) --no-print-directory $(BIN)
	$(BIN) report --db $(DB) --out $(REPORT)$(if $(BASE), --base $(BASE))

list: $(BIN) ## list every registered kernel with its axes
	$(BIN) list

# bin/spsweep, its man page and its bash completion (both generated from the
# option tables: `spsweep help --man`, `--completion`) under PREFIX, by
# default ~/.local (no root); DESTDIR for packagers. zsh users load the
# completion with `autoload bashcompinit && bashcompinit`.
PREFIX ?= $(HOME)/.local
install: $(BIN) ## install bin/spsweep, spsweep(1) and bash completion under PREFIX (~/.local)
	install -d '$(DESTDIR)$(PREFIX)/bin' '$(DESTDIR)$(PREFIX)/share/man/man1' \
	  '$(DESTDIR)$(PREFIX)/share/bash-completion/completions'
	install -m 755 $(BIN) '$(DESTDIR)$(PREFIX)/bin/spsweep'
	$(BIN) help --man > '$(DESTDIR)$(PREFIX)/share/man/man1/spsweep.1'
	$(BIN) help --completion > '$(DESTDIR)$(PREFIX)/share/bash-completion/completions/spsweep'
	@echo "installed under $(DESTDIR)$(PREFIX): bin/spsweep, share/man/man1/spsweep.1," \
	  "share/bash-completion/completions/spsweep"

# docs/cli.md is the commands' own help (runner/cli/cli.c prints it from the
# option tables); tests/test_cli.c fails when it is stale.
include-graph: ## the includes between the stages' folders: upward includes and cycles (issue 24's evidence)
	python3 bench/include_graph.py

docs: $(BIN) ## write docs/cli.md from the commands' option tables
	$(BIN) help --markdown > docs/cli.md

# everything is built first (in parallel), then the tests run with the
# machine to themselves: no compiler beside a timed test. The bench programs
# are built too, so a change that breaks one fails here, not on a GPU host.
test: ensure-deps ## build and run the whole test suite (GPU tests skip without a GPU)
	@$(MAKE) --no-print-directory $(UNIT_BIN) $(BIN) $(GPU_BIN) $(BENCH_CU_OBJ) $(BENCH_BIN)
	@$(MAKE) --no-print-directory unit-test
	@$(MAKE) --no-print-directory python-test
	$(GPU_BIN)

unit-test: $(UNIT_BIN) $(BIN)
	$(UNIT_BIN) --jobs 2

# python/spsweep_results.py's own tests: standard library only (the pandas
# ones skip where pandas is not installed); they make databases with $(BIN).
python-test: $(BIN) ## the Python loader's tests (tests/python, python3 -m unittest)
	python3 -m unittest discover -s tests/python

gpu-test: ## on a GPU machine: build, run the GPU tests, compute-sanitizer, a GPU sweep
	@bash tests/gpu/run.sh

asan: ## build CPU-only with AddressSanitizer + UBSan and run the unit tests
	@# the install test (tests/test_cli.c) runs `make install`, which wants the
	@# plain binary: built first, so that test does not build it inside its timeout
	$(MAKE) --no-print-directory all
	$(MAKE) --no-print-directory BUILD=build-asan CUDA=0 OPT=-O1 \
	  SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" \
	  build-asan/tests/unit build-asan/spsweep
	ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp \
	  UBSAN_OPTIONS=print_stacktrace=1 \
	  SPSWEEP_BIN=build-asan/spsweep build-asan/tests/unit --jobs 2

bench: all ## Matrix Market parsing vs fast_matrix_market at 1, 2, 4 .. nproc threads (SIZE=NNZ, WHEELS=DIR offline), binary-cache reload
	@bash bench/run.sh

bench-gpu: ## on a GPU machine: every GPU SpMV kernel vs cuSPARSE on the bench set (bench/RESULTS.md)
	@bash bench/gpu_spmv.sh

bench-sort: ## on a GPU machine: every GPU sort vs CUB, six distributions at 2^28 keys (bench/RESULTS.md)
	@bash bench/gpu_sort.sh

bench-gpu-transpose: ## on a GPU machine: every GPU transposition kernel and the primitives vs cusparseCsr2cscEx2 (bench/RESULTS.md)
	@bash bench/gpu_transpose.sh

bench-fetch: all ## fetch + unpack + parse of a >= 500 MB mirror over loopback, --jobs 1 vs 4
	@bash bench/fetch.sh

clean: ## remove build outputs (keeps results/ and the matrix cache)
	rm -rf build build-asan bin

# Objects depend on the flags they were built with: `make CUDA=0` after a
# CUDA build (or OPT=..., SAN=...) in the same BUILD directory rebuilds
# them instead of linking objects of another configuration together.
FLAGS_STAMP := $(BUILD)/flags.stamp
FLAGS_TEXT  := $(CC) $(CFLAGS) | $(NVCC) $(NVFLAGS) | CUDA=$(CUDA)
ifneq ($(file <$(FLAGS_STAMP)),$(FLAGS_TEXT))
$(shell mkdir -p $(BUILD))
$(file >$(FLAGS_STAMP),$(FLAGS_TEXT))
endif

# ---- rules -----------------------------------------------------------------
# One short line per step; `make V=1` shows the full commands.
Q   := $(if $(V),,@)
say  = $(if $(V),,@echo "  $(1)	$(2)")
$(BUILD)/obj/%.o: %.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(call say,CC,$<)
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/obj/%.cu.o: %.cu $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(call say,NVCC,$<)
	$(Q)$(NVCC) $(NVFLAGS) -c $< -o $@

$(BUILD)/obj/version.o: $(VERSION_C)
	@mkdir -p $(dir $@)
	$(call say,CC,$<)
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

# db/store.c embeds the SQL files with .incbin.
$(BUILD)/obj/db/store.o: db/schema.sql db/views.sql db/migrate_v2.sql db/migrate_v3.sql db/migrate_v4.sql db/migrate_v5.sql db/migrate_v6.sql db/migrate_v7.sql db/migrate_v8.sql db/migrate_v9.sql db/migrate_v10.sql

$(LIB_OBJ) $(BUILD)/obj/runner/cli/main.o $(UNIT_SRC:%.c=$(BUILD)/obj/%.o) \
  $(GPU_SRC:%.c=$(BUILD)/obj/%.o): | ensure-deps

$(LIB): $(LIB_OBJ)
	@mkdir -p $(dir $@)
	$(call say,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

# bin/spsweep is shared by every BUILD directory (`make CUDA=0 BUILD=build-cpu`
# links it too): relink whenever the last link came from another build, so a
# CPU-only binary never stays behind a CUDA build's objects or the reverse.
BIN_FROM := $(dir $(BIN)).built-from
ifneq ($(shell cat $(BIN_FROM) 2>/dev/null),$(BUILD) CUDA=$(CUDA) MKL=$(MKL))
$(BIN): FORCE
endif
.PHONY: FORCE
FORCE:

$(BIN): $(BUILD)/obj/runner/cli/main.o $(LIB)
	@mkdir -p $(dir $@)
	$(call say,LINK,$@)
	$(Q)$(CC) $(filter-out FORCE,$^) -o $@ $(LDLIBS)
	@echo "$(BUILD) CUDA=$(CUDA) MKL=$(MKL)" > $(BIN_FROM)

# the sanitizer build keeps its binary apart from bin/
$(BUILD)/spsweep: $(BUILD)/obj/runner/cli/main.o $(LIB)
	$(call say,LINK,$@)
	$(Q)$(CC) $^ -o $@ $(LDLIBS)

$(UNIT_BIN): $(UNIT_SRC:%.c=$(BUILD)/obj/%.o) $(LIB)
	@mkdir -p $(dir $@)
	$(call say,LINK,$@)
	$(Q)$(CC) $^ -o $@ $(LDLIBS) -lcriterion

$(GPU_BIN): $(GPU_SRC:%.c=$(BUILD)/obj/%.o) $(LIB)
	@mkdir -p $(dir $@)
	$(call say,LINK,$@)
	$(Q)$(CC) $^ -o $@ $(LDLIBS) -lcriterion

$(BUILD)/bench/%: $(BUILD)/obj/bench/%.o $(LIB)
	@mkdir -p $(dir $@)
	$(call say,LINK,$@)
	$(Q)$(CC) $^ -o $@ $(LDLIBS)

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
