// SPDX-License-Identifier: GPL-2.0
/* the debugfs runner shared with xrdma_cmtest (tools/testing/harness/ktest) */
#include "ktest.c"
