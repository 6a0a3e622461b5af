# SPDX-License-Identifier: GPL-2.0
#
# What the userspace test Makefiles under tools/testing/ share.  A
# Makefile sets PROGS (its programs), LIB (library sources linked into
# each), HDRS (headers they depend on), LDLIBS and CLEAN (more files for
# make clean), then includes this file before its own rules:
#   include $(dir $(lastword $(MAKEFILE_LIST)))RELATIVE/harness/xt/xt.mk
# (RELATIVE: the way up to tools/testing/, e.g. .. or ../..)
# which gives
#   XT_LIB     this directory (the test library: xt.c, xt_uverbs.c, ...)
#   XT_UAPI_H  the uapi headers (uapi/xrdma/*.h), for prerequisites
#   XCFLAGS    always on, whatever CFLAGS the caller gives: warnings as
#              errors, headers from uapi/ and this directory
#   all        the PROGS; a PROG with no rule of its own is built from
#              PROG.c and $(LIB), again when they, $(HDRS) or the uapi
#              headers change
#   clean      removes the PROGS and $(CLEAN)

CC ?= gcc
CFLAGS ?= -O2 -g
LDFLAGS ?=
XT_LIB := $(dir $(abspath $(lastword $(MAKEFILE_LIST))))
XT_UAPI := $(XT_LIB)../../../../uapi
XT_UAPI_H := $(wildcard $(XT_UAPI)/xrdma/*.h)
XCFLAGS := -Wall -Wextra -Werror -std=gnu11 -D_GNU_SOURCE -pthread \
	   -I$(XT_UAPI) -I$(XT_LIB)

.PHONY: all clean

all: $(PROGS)

%: %.c $(LIB) $(HDRS) $(XT_UAPI_H)
	$(CC) $(CFLAGS) $(XCFLAGS) $(LDFLAGS) -o $@ $< $(LIB) $(LDLIBS)

clean:
	rm -f $(PROGS) $(CLEAN)
