# SPDX-License-Identifier: GPL-2.0
#
# xrdma: out-of-tree build and test entry points.  See README.md.

# KDIR is looked up when a recipe first uses it, after "deps" may have
# installed the headers, and is exported only when the user gave it: a
# value computed before the headers existed must not reach the scripts
# and sub-makes of "make check".
ifneq ($(wildcard /lib/modules/$(shell uname -r)/build),)
KDIR_DEFAULT = /lib/modules/$(shell uname -r)/build
else
KDIR_DEFAULT = $(shell ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | \
		 sort -V | tail -1)
endif
KDIR ?= $(KDIR_DEFAULT)

XRDMA_CONFIG := CONFIG_XRDMA_CORE=m CONFIG_XRDMA_UVERBS=m CONFIG_XRDMA_TESTDEV=m \
		CONFIG_XRDMA_XNIC=m CONFIG_XRDMA_XNIC_SIM=m \
		CONFIG_XRDMA_XNIC_ULP_TEST=m
KBUILD = $(MAKE) -C $(KDIR) M=$(CURDIR) $(XRDMA_CONFIG)

.PHONY: tools all modules modules_install install clean deps sparse checkpatch \
	kunit guest-test check demo bench help fuzz

all: modules tools

# userspace test programs the guest tests run
tools: deps
	$(MAKE) -C tools/lib/xverbs
	$(MAKE) -C tools/testing/uverbs
	$(MAKE) -C tools/testing/xnic
	$(MAKE) -C tools/testing/bench
	$(MAKE) -C tools/testing/xverbs
	$(MAKE) -C tools/testing/isolation
	$(MAKE) -C tools/testing/fuzz

deps:
	@scripts/install-deps.sh

modules: deps
	$(KBUILD) modules

modules_install install: modules
	$(KBUILD) modules_install

clean:
	$(KBUILD) clean
	$(MAKE) -C tools/lib/xverbs clean
	$(MAKE) -C tools/testing/uverbs clean
	$(MAKE) -C tools/testing/xnic clean
	$(MAKE) -C tools/testing/bench clean
	$(MAKE) -C tools/testing/xverbs clean
	$(MAKE) -C tools/testing/isolation clean
	$(MAKE) -C tools/testing/fuzz clean
	# keep build/check: make check runs make clean and logs there
	find build -mindepth 1 -maxdepth 1 ! -name check -exec rm -rf {} + 2>/dev/null || true

sparse: deps
	scripts/sparse.sh

checkpatch: deps
	scripts/checkpatch.sh

kunit: deps
	scripts/kunit.sh

guest-test: deps
	scripts/guest-test.sh

check: deps
	scripts/check.sh

demo: deps
	scripts/demo.sh

bench: deps
	scripts/bench.sh

# make fuzz SECONDS=S [SEED=N] [ITERATIONS=N] [FUZZ_SKIP=a,b]
# [FUZZ_DISJOINT_MRS=1]: only the
# ABI fuzzer (tools/testing/guest/uverbs_fuzz.sh) in a guest, for S seconds
# (default 300) with seed N (default: a random one, printed), on a kernel
# command line that makes the slab and page allocators catch use after
# free and overruns (FUZZ_KERNEL_DEBUG= for none).
SECONDS ?= 300
FUZZ_SEED = $(or $(SEED),$(shell od -An -N4 -tu4 /dev/urandom | tr -d ' '))
FUZZ_KERNEL_DEBUG ?= slub_debug=FZPU page_poison=1
fuzz: deps
	XRDMA_TEST_TIMEOUT=$$(($(SECONDS) + 200)) \
	XRDMA_APPEND="$(FUZZ_KERNEL_DEBUG) xrdma.env.XRDMA_FUZZ_SEED=$(FUZZ_SEED) \
		xrdma.env.XRDMA_FUZZ_SECONDS=$(SECONDS) \
		$(if $(ITERATIONS),xrdma.env.XRDMA_FUZZ_ITERATIONS=$(ITERATIONS)) \
		$(if $(FUZZ_SKIP),xrdma.env.XRDMA_FUZZ_SKIP=$(FUZZ_SKIP)) \
		$(if $(FUZZ_DISJOINT_MRS),xrdma.env.XRDMA_FUZZ_DISJOINT_MRS=$(FUZZ_DISJOINT_MRS)) \
		$${XRDMA_APPEND:-}" \
	scripts/guest-test.sh uverbs_fuzz

help:
	@echo "make [KDIR=...]     build the modules"
	@echo "make demo           load the stack in a QEMU guest and show it"
	@echo "make check          everything CI runs (build, sparse, KUnit, guest)"
	@echo "make bench          xnic against rxe in a guest (build/bench/latest)"
	@echo "make sparse|checkpatch|kunit|guest-test   one stage of check"
	@echo "make fuzz SECONDS=S [SEED=N]   the ABI fuzzer alone in a guest"
