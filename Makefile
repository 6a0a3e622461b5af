# SPDX-License-Identifier: GPL-2.0
#
# xrdma: out-of-tree build and test entry points.  See README.md.

# "deps" (scripts/install-deps.sh: apt-get what is missing, nothing when
# all is there) runs before the targets that run tests, which a fresh
# Debian 12 machine reaches first (make check, CI's .ci/run); the builds
# (make, modules, tools) do not install anything: "make deps" once.
#
# KDIR is looked up when a recipe first uses it, after "deps" may have
# installed the headers, and is exported only when the user gave it: a
# value computed before the headers existed must not reach the scripts
# and sub-makes of "make check".
#
# The kernels the tree builds for are listed in scripts/kernels.sh: the
# running kernel's build tree if it is one of them, else the newest such
# /usr/src/linux-headers-*-amd64; installed headers of other kernels are
# skipped with a message.  Looked up once, when first used.
#
# KVER=<release> (e.g. 6.12.118+deb12-amd64) picks one installed kernel for
# everything: the build (its /lib/modules/KVER/build), and the Debian
# kernel that make demo, guest-test, bench and fuzz boot (XRDMA_KVER).
KDIR_DEFAULT = $(eval KDIR_DEFAULT := $(shell $(CURDIR)/scripts/kernels.sh kdir))$(KDIR_DEFAULT)
ifneq ($(KVER),)
KDIR ?= /lib/modules/$(KVER)/build
export XRDMA_KVER := $(KVER)
endif
KDIR ?= $(KDIR_DEFAULT)

XRDMA_CONFIG := CONFIG_XRDMA_CORE=m CONFIG_XRDMA_UVERBS=m CONFIG_XRDMA_TESTDEV=m \
		CONFIG_XRDMA_XNIC=m CONFIG_XRDMA_XNIC_SIM=m \
		CONFIG_XRDMA_XNIC_ULP_TEST=m CONFIG_XRDMA_IB=m CONFIG_XRDMA_CMTEST=m
KBUILD = $(MAKE) -C $(KDIR) M=$(CURDIR) $(XRDMA_CONFIG)
NEED_KDIR = @$(CURDIR)/scripts/kernels.sh check "$(KDIR)"

# the library and the userspace test programs the guest tests run
TOOL_DIRS := tools/lib/xverbs tools/testing/uverbs tools/testing/hw/xnic \
	     tools/testing/bench tools/testing/lib/xverbs tools/testing/ulp/comm \
	     tools/testing/ulp/wire

.PHONY: tools all modules modules_install install clean deps sparse checkpatch \
	kunit guest-test check demo bench help fuzz uninstall install-modules \
	install-user uninstall-user dkms-source deb

# make install / uninstall: the modules (kbuild's modules_install into
# $(INSTALL_MOD_PATH)/lib/modules/KVER/$(INSTALL_MOD_DIR), unsigned, then
# depmod),
# and the user part under $(DESTDIR)$(PREFIX): the library in a private
# directory (lib/xrdma, never over the system's libibverbs), xrdma-run in
# bin (it finds the library there), xrdma-fault in sbin, their man pages
# (man1, man8), the udev rule for /dev/infiniband/xrdma_uverbsN, and
# modules-load.d/modprobe.d examples in share/doc/xrdma.  Only the
# stack's own modules: no test fixtures.
PREFIX ?= /usr/local
DESTDIR ?=
INSTALL_MOD_DIR ?= extra/xrdma
UDEVRULESDIR ?= /etc/udev/rules.d
XRDMA_VERSION := $(shell cat VERSION)
XRDMA_DIST_CONFIG := CONFIG_XRDMA_CORE=m CONFIG_XRDMA_UVERBS=m \
		CONFIG_XRDMA_XNIC=m CONFIG_XRDMA_XNIC_SIM=m CONFIG_XRDMA_IB=m

all: modules tools

tools:
	@set -e; for d in $(TOOL_DIRS); do $(MAKE) -C $$d; done

deps:
	@scripts/install-deps.sh

modules:
	$(NEED_KDIR)
	$(KBUILD) modules

# the test fixtures too (the guest tests' modules); "make install" not
modules_install: modules
	$(KBUILD) modules_install

install: install-modules install-user

# the release the modules are built for (their vermagic): Debian's headers'
# include/config/kernel.release is the upstream version, not the package's
KDIR_KVER = $$(sed -n 's/^\#define UTS_RELEASE "\(.*\)"/\1/p' \
	$(KDIR)/include/generated/utsrelease.h)

install-modules:
	$(NEED_KDIR)
	$(MAKE) -C $(KDIR) M=$(CURDIR) $(XRDMA_DIST_CONFIG) modules
	$(MAKE) -C $(KDIR) M=$(CURDIR) $(XRDMA_DIST_CONFIG) \
		KERNELRELEASE=$(KDIR_KVER) INSTALL_MOD_DIR=$(INSTALL_MOD_DIR) \
		CONFIG_MODULE_SIG_ALL= modules_install
	scripts/install-user.sh depmod "$(INSTALL_MOD_PATH)" "$(KDIR_KVER)"

install-user:
	$(MAKE) -C tools/lib/xverbs
	scripts/install-user.sh install "$(DESTDIR)" "$(PREFIX)" "$(UDEVRULESDIR)"

uninstall: uninstall-user
	$(NEED_KDIR)
	scripts/install-user.sh uninstall-modules "$(INSTALL_MOD_PATH)" \
		"$(KDIR_KVER)" "$(INSTALL_MOD_DIR)"

uninstall-user:
	scripts/install-user.sh uninstall "$(DESTDIR)" "$(PREFIX)" "$(UDEVRULESDIR)"

# the DKMS source tree (/usr/src/xrdma-VERSION, under DESTDIR), then
# "dkms add/build/install -m xrdma -v VERSION"; see Documentation/install.rst
dkms-source:
	scripts/dkms-source.sh "$(DESTDIR)/usr/src/xrdma-$(XRDMA_VERSION)"

# Debian packages in build/deb: xrdma-dkms (the modules' source for DKMS)
# and xrdma (library, xrdma-run, xrdma-fault, man pages, udev rule)
deb:
	scripts/mkdeb.sh build/deb

clean:
	$(KBUILD) clean
	@set -e; for d in $(TOOL_DIRS); do $(MAKE) -C $$d clean; done
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
	tools/testing/bench/bench-host.sh

# make fuzz SECONDS=S [SEED=N] [ITERATIONS=N] [FUZZ_SKIP=a,b]
# [FUZZ_DISJOINT_MRS=1]: only the
# ABI fuzzer (tools/testing/uverbs/uverbs_fuzz.sh) in a guest, for S seconds
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
	@echo "make [KDIR=...]     build the modules, the library and the test programs"
	@echo "     [KVER=...]     ... for that installed kernel, and boot it in demo/guest-test"
	@echo "make deps           install what the build and the tests need (Debian 12, apt-get)"
	@echo "make install        modules (then depmod), library, xrdma-run, xrdma-fault,"
	@echo "                    man pages, udev rule"
	@echo "                    (PREFIX=/usr/local DESTDIR= INSTALL_MOD_PATH=); make uninstall"
	@echo "make deb            Debian packages xrdma-dkms and xrdma in build/deb"
	@echo "make dkms-source    the DKMS source tree (DESTDIR=)/usr/src/xrdma-VERSION"
	@echo "make demo           boot a QEMU guest and show xrdma moving data (xnic next to rxe)"
	@echo "make check          everything CI runs (build, sparse, KUnit, guest)"
	@echo "make bench          xnic against rxe in a guest (build/bench/latest)"
	@echo "make sparse|checkpatch|kunit|guest-test   one stage of check"
	@echo "make fuzz SECONDS=S [SEED=N]   the ABI fuzzer alone in a guest"
