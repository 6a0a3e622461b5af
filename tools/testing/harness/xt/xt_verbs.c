// SPDX-License-Identifier: GPL-2.0
/*
 * xt_verbs: libibverbs helpers of the test programs (see xt_verbs.h).
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "xt_verbs.h"

struct ibv_context *xt_open_device(const char *name, char *node,
				   size_t len)
{
	struct ibv_context *ctx = NULL;
	struct ibv_device **list;
	int i, n;

	list = ibv_get_device_list(&n);
	if (!list) {
		xt_note("ibv_get_device_list: %s", strerror(errno));
		return NULL;
	}
	for (i = 0; i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			break;
	if (i < n) {
		if (node)
			snprintf(node, len, "/dev/infiniband/%s", list[i]->dev_name);
		ctx = ibv_open_device(list[i]);
	}
	if (!ctx)
		xt_note("cannot open %s (%d devices found): %s", name, n,
			i < n ? strerror(errno) : "not found");
	ibv_free_device_list(list);
	return ctx;
}

static int qp_init(struct ibv_qp *qp, uint8_t port, uint32_t qkey)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.pkey_index = 0,
		.port_num = port,
	};
	int mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;

	if (qp->qp_type == IBV_QPT_UD) {
		a.qkey = qkey;
		mask |= IBV_QP_QKEY;
	} else {
		a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
				    IBV_ACCESS_REMOTE_READ |
				    IBV_ACCESS_REMOTE_ATOMIC;
		mask |= IBV_QP_ACCESS_FLAGS;
	}
	return ibv_modify_qp(qp, &a, mask);
}

int xt_qp_init(struct ibv_qp *qp, uint32_t qkey)
{
	return qp_init(qp, XT_PORT, qkey);
}

int xt_rc_rts(struct ibv_qp *qp, uint32_t dqpn, const union ibv_gid *gid,
	      enum ibv_mtu mtu, const struct xt_rc_opts *o)
{
	static const struct xt_rc_opts dflt = {
		.timeout = 14, .retry_cnt = 7, .rnr_retry = 7,
	};
	struct ibv_qp_attr a;
	uint8_t port;
	int ret;

	if (!o)
		o = &dflt;
	port = o->port ? o->port : XT_PORT;
	ret = qp_init(qp, port, 0);
	if (ret)
		return ret;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = mtu;
	a.dest_qp_num = dqpn;
	a.rq_psn = XT_PSN;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 1;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = *gid;
	a.ah_attr.grh.sgid_index = o->sgid_index;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.port_num = port;
	ret = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV |
			    IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			    IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			    IBV_QP_MIN_RNR_TIMER);
	if (ret)
		return ret;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = o->timeout;
	a.retry_cnt = o->retry_cnt;
	a.rnr_retry = o->rnr_retry;
	a.sq_psn = XT_PSN;
	a.max_rd_atomic = 1;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
			     IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			     IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
}

int xt_ud_rts(struct ibv_qp *qp, uint32_t qkey)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RTR };
	int ret;

	ret = xt_qp_init(qp, qkey);
	if (!ret)
		ret = ibv_modify_qp(qp, &a, IBV_QP_STATE);
	if (!ret) {
		a.qp_state = IBV_QPS_RTS;
		a.sq_psn = XT_PSN;
		ret = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN);
	}
	return ret;
}

int xt_qp_state(struct ibv_qp *qp)
{
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr a;

	if (ibv_query_qp(qp, &a, IBV_QP_STATE, &ia))
		return -1;
	return a.qp_state;
}

bool xt_ep_new(struct xt_ep *e, struct ibv_pd *pd, enum ibv_qp_type type,
	       int cqe, const struct ibv_qp_cap *cap)
{
	struct ibv_qp_init_attr ia = { .qp_type = type, .cap = *cap };

	memset(e, 0, sizeof(*e));
	e->cq = ibv_create_cq(pd->context, cqe, NULL, NULL, 0);
	if (!e->cq) {
		xt_note("ibv_create_cq(%d): %s", cqe, strerror(errno));
		return false;
	}
	ia.send_cq = e->cq;
	ia.recv_cq = e->cq;
	e->qp = ibv_create_qp(pd, &ia);
	if (!e->qp) {
		xt_note("ibv_create_qp: %s", strerror(errno));
		if (ibv_destroy_cq(e->cq))
			xt_note("ibv_destroy_cq failed");
		e->cq = NULL;
		return false;
	}
	e->cap = ia.cap;
	return true;
}

bool xt_buf_new(struct xt_buf *b, struct ibv_pd *pd, size_t len, int access)
{
	b->len = len;
	b->mr = NULL;
	b->p = aligned_alloc(4096, len);
	if (!b->p)
		return false;
	memset(b->p, 0, len);
	b->mr = ibv_reg_mr(pd, b->p, len, access);
	if (!b->mr) {
		xt_note("ibv_reg_mr(%zu, %#x): %s", len, access,
			strerror(errno));
		free(b->p);
		b->p = NULL;
		return false;
	}
	return true;
}

int xt_buf_free(struct xt_buf *b)
{
	int ret = b->mr ? ibv_dereg_mr(b->mr) : 0;

	free(b->p);
	b->p = NULL;
	b->mr = NULL;
	return ret;
}

void xt_relax(unsigned int *spins)
{
	if (++*spins < 1000)
		sched_yield();
	else
		usleep(100);
}

int xt_poll_n(struct ibv_cq *cq, struct ibv_wc *wc, int n, int ms)
{
	uint64_t end = xt_now_ms() + (uint64_t)ms;
	unsigned int spins = 0;
	int got = 0, r;

	while (got < n) {
		r = ibv_poll_cq(cq, n - got, wc + got);
		if (r < 0) {
			xt_note("ibv_poll_cq: %d", r);
			break;
		}
		got += r;
		if (r)
			continue;
		if (xt_now_ms() >= end)
			break;
		xt_relax(&spins);
	}
	return got;
}

bool xt_verbs_opt(int c, const char *arg, const char **dev, int *wait_ms,
		  unsigned int *watchdog)
{
	switch (c) {
	case 'd':
		*dev = arg;
		return true;
	case 't':
		*wait_ms = atoi(arg);
		return true;
	case 'w':
		*watchdog = (unsigned int)atoi(arg);
		return true;
	}
	return false;
}

void xt_watchdog_expired(const char *what)
{
	static const char bail[] = "Bail out! ";
	char msg[160];
	size_t n = sizeof(bail) - 1;

	memcpy(msg, bail, n);
	while (*what && n < sizeof(msg) - 1)
		msg[n++] = *what++;
	msg[n++] = '\n';
	if (write(STDOUT_FILENO, msg, n) < 0)
		_exit(3);
	_exit(2);
}

void xt_show_library(void)
{
	char line[512], *p;
	FILE *f = fopen("/proc/self/maps", "r");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		p = strchr(line, '/');
		if (p && strstr(p, "libibverbs")) {
			p[strcspn(p, "\n")] = 0;
			xt_note("libibverbs: %s", p);
			break;
		}
	}
	fclose(f);
}
