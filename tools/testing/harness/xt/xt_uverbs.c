// SPDX-License-Identifier: GPL-2.0
/*
 * xt_uverbs: raw uverbs ioctls of the test programs (see xt_uverbs.h).
 */
#include <string.h>
#include <sys/mman.h>
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

int xt_umr_new(int fd, uint32_t pd, size_t len, uint8_t fill,
	       uint32_t access, struct xt_umr *m, const char **step)
{
	struct xrdma_cmd_reg_mr r = { 0 };
	uint8_t *p;
	int ret;

	*step = "mmap";
	p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -errno;
	memset(p, fill, len);
	r.pd_handle = pd;
	r.access = access;
	r.addr = uptr(p);
	r.length = len;
	r.iova = uptr(p);
	*step = "REG_MR";
	ret = xio(fd, XRDMA_IOC_REG_MR, &r);
	*m = (struct xt_umr){
		.h = r.mr_handle, .lkey = r.lkey, .rkey = r.rkey, .buf = p,
	};
	return ret;
}

int xt_rc_connect(int fd, uint32_t qp, uint32_t dqpn,
		  const struct xt_rc_path *p, const char **step)
{
	static const char *const names[] = {
		"RESET->INIT", "INIT->RTR", "RTR->RTS",
	};
	static const uint32_t masks[] = {
		QPA_STATE | QPA_PKEY | QPA_PORT | QPA_ACCESS,
		QPA_STATE | QPA_AV | QPA_PATH_MTU | QPA_DEST_QPN | QPA_RQ_PSN |
		QPA_MAX_DEST_RD | QPA_MIN_RNR,
		QPA_STATE | QPA_TIMEOUT | QPA_RETRY | QPA_RNR_RETRY |
		QPA_SQ_PSN | QPA_MAX_RD,
	};
	struct xrdma_uverbs_qp_attr a[3];
	int i, ret;

	memset(a, 0, sizeof(a));
	a[0].qp_state = QPS_INIT;
	a[0].port_num = 1;
	a[0].qp_access_flags = p->access;

	a[1].qp_state = QPS_RTR;
	a[1].path_mtu = p->mtu;
	a[1].dest_qp_num = dqpn;
	a[1].rq_psn = p->psn;
	a[1].max_dest_rd_atomic = p->max_dest_rd_atomic;
	a[1].min_rnr_timer = 1;
	memcpy(a[1].ah_attr.dgid, p->dgid, sizeof(a[1].ah_attr.dgid));
	a[1].ah_attr.is_global = 1;
	a[1].ah_attr.port_num = 1;
	a[1].ah_attr.hop_limit = 64;

	a[2].qp_state = QPS_RTS;
	a[2].sq_psn = p->psn;
	a[2].timeout = 14;
	a[2].retry_cnt = 7;
	a[2].rnr_retry = 7;
	a[2].max_rd_atomic = p->max_rd_atomic;

	for (i = 0; i < 3; i++) {
		*step = names[i];
		ret = xt_modify_qp(fd, qp, masks[i], &a[i]);
		if (ret)
			return ret;
	}
	return 0;
}
