// SPDX-License-Identifier: GPL-2.0
/* the debugfs runner shared with xnic_ulp_test (tools/testing/harness/ktest) */
#include "ktest.c"
