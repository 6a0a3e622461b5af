// SPDX-License-Identifier: GPL-2.0
/*
 * xt_uverbs: raw uverbs ioctls of the test programs (see xt_uverbs.h).
 */
#include <string.h>
#include "xt_uverbs.h"

int xt_modify_qp(int fd, uint32_t qp, uint32_t mask,
		 const struct xrdma_uverbs_qp_attr *a)
{
	struct xrdma_cmd_modify_qp c = { 0 };

	c.qp_handle = qp;
	c.attr_mask = mask;
	c.attr = *a;
	return xio(fd, XRDMA_IOC_MODIFY_QP, &c);
}

int xt_rc_connect(int fd, uint32_t qp, uint32_t dqpn,
		  const struct xt_rc_path *p, const char **step)
{
	struct xrdma_uverbs_qp_attr a;
	int ret;

	memset(&a, 0, sizeof(a));
	a.qp_state = QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = p->access;
	*step = "RESET->INIT";
	ret = xt_modify_qp(fd, qp, QPA_STATE | QPA_PKEY | QPA_PORT |
			   QPA_ACCESS, &a);
	if (ret)
		return ret;

	memset(&a, 0, sizeof(a));
	a.qp_state = QPS_RTR;
	a.path_mtu = p->mtu;
	a.dest_qp_num = dqpn;
	a.rq_psn = p->psn;
	a.max_dest_rd_atomic = p->max_dest_rd_atomic;
	a.min_rnr_timer = 1;
	memcpy(a.ah_attr.dgid, p->dgid, sizeof(a.ah_attr.dgid));
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.hop_limit = 64;
	*step = "INIT->RTR";
	ret = xt_modify_qp(fd, qp, QPA_STATE | QPA_AV | QPA_PATH_MTU |
			   QPA_DEST_QPN | QPA_RQ_PSN | QPA_MAX_DEST_RD |
			   QPA_MIN_RNR, &a);
	if (ret)
		return ret;

	memset(&a, 0, sizeof(a));
	a.qp_state = QPS_RTS;
	a.sq_psn = p->psn;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = p->max_rd_atomic;
	*step = "RTR->RTS";
	return xt_modify_qp(fd, qp, QPA_STATE | QPA_TIMEOUT | QPA_RETRY |
			    QPA_RNR_RETRY | QPA_SQ_PSN | QPA_MAX_RD, &a);
}
