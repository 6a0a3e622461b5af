// SPDX-License-Identifier: GPL-2.0
/*
 * xverbs: the public calls xnic does not support, with the failure the
 * verbs document for them (Documentation/userspace.rst), and the fork
 * helpers, which have nothing to do: the kernel keeps registered pages
 * with the parent (FOLL_LONGTERM pins) and our mappings are not inherited
 * (VM_DONTCOPY).
 */
#include <errno.h>
#include "xverbs.h"

/* the parameters are the prototypes' */
#pragma GCC diagnostic ignored "-Wunused-parameter"

int ibv_set_ece(struct ibv_qp *qp, struct ibv_ece *ece)
{
	errno = EOPNOTSUPP;
	return EOPNOTSUPP;
}

int ibv_query_ece(struct ibv_qp *qp, struct ibv_ece *ece)
{
	errno = EOPNOTSUPP;
	return EOPNOTSUPP;
}

int ibv_resolve_eth_l2_from_gid(struct ibv_context *ctx,
				struct ibv_ah_attr *attr,
				uint8_t eth_mac[6],
				uint16_t *vid)
{
	return EOPNOTSUPP;
}

struct ibv_dm *ibv_import_dm(struct ibv_context *ctx,
			     uint32_t dm_handle)
{
	errno = EOPNOTSUPP;
	return NULL;
}

void ibv_unimport_dm(struct ibv_dm *dm)
{
}

int ibv_dontfork_range(void *base, size_t size)
{
	return 0;
}

int ibv_dofork_range(void *base, size_t size)
{
	return 0;
}
