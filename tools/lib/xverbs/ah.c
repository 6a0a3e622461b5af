// SPDX-License-Identifier: GPL-2.0
/*
 * xverbs: address handles (ibv_create_ah, ibv_init_ah_from_wc,
 * ibv_create_ah_from_wc, ibv_destroy_ah) and the marshalling helpers of
 * the kernel's structures librdmacm uses.
 */
#include <stdlib.h>
#include <string.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/ib_user_sa.h>
#include "xverbs.h"

/* ------------------------------------------------------------ AH */

/* struct ibv_ah_attr and the uverbs one (create AH, modify/query QP) */
void xv_ah_to_uverbs(const struct ibv_ah_attr *a,
		     struct xrdma_uverbs_ah_attr *u)
{
	memset(u, 0, sizeof(*u));
	memcpy(u->dgid, a->grh.dgid.raw, 16);
	u->flow_label = a->grh.flow_label;
	u->dlid = a->dlid;
	u->sgid_index = a->grh.sgid_index;
	u->hop_limit = a->grh.hop_limit;
	u->traffic_class = a->grh.traffic_class;
	u->sl = a->sl;
	u->port_num = a->port_num;
	u->is_global = a->is_global;
}

void xv_ah_from_uverbs(const struct xrdma_uverbs_ah_attr *u,
		       struct ibv_ah_attr *a)
{
	memset(a, 0, sizeof(*a));
	memcpy(a->grh.dgid.raw, u->dgid, 16);
	a->grh.flow_label = u->flow_label;
	a->grh.sgid_index = u->sgid_index;
	a->grh.hop_limit = u->hop_limit;
	a->grh.traffic_class = u->traffic_class;
	a->dlid = u->dlid;
	a->sl = u->sl;
	a->port_num = u->port_num;
	a->is_global = u->is_global;
}

struct ibv_ah *ibv_create_ah(struct ibv_pd *pd,
			     struct ibv_ah_attr *attr)
{
	struct xrdma_cmd_create_ah c = { 0 };
	struct xv_ah *ah;
	int err;

	ah = calloc(1, sizeof(*ah));
	if (!ah) {
		errno = ENOMEM;
		return NULL;
	}
	c.user_cookie = (uintptr_t)ah;
	c.pd_handle = pd->handle;
	/*
	 * Passed down as it is: the kernel refuses an AH without a GRH on a
	 * RoCE (Ethernet) port, where it would name no destination (EINVAL,
	 * as rdma-core's providers).
	 */
	xv_ah_to_uverbs(attr, &c.attr);
	err = xv_ioctl(pd->context, XRDMA_IOC_CREATE_AH, &c);
	if (err)
		goto err_free;
	memcpy(ah->dgid, c.attr.dgid, 16);
	ah->port_num = attr->port_num;
	if (attr->is_global) {
		ah->sgid_index = attr->grh.sgid_index;
		ah->hop_limit = attr->grh.hop_limit;
		ah->traffic_class = attr->grh.traffic_class;
	}
	ah->ibah.context = pd->context;
	ah->ibah.pd = pd;
	ah->ibah.handle = c.ah_handle;
	return &ah->ibah;

err_free:
	free(ah);
	errno = err;
	return NULL;
}

int ibv_destroy_ah(struct ibv_ah *ah)
{
	int ret = xv_destroy_obj(ah->context, XRDMA_OBJ_AH, ah->handle, NULL);

	if (!ret)
		free(xv_container_of(ah, struct xv_ah, ibah));
	return ret;
}

/*
 * The index of GID raw of type on the port (of any type where ib_core
 * does not say), or -1 (errno)
 */
static int xv_find_gid(struct ibv_context *ctx, uint8_t port,
		       const uint8_t *raw, enum ibv_gid_type type)
{
	struct ibv_port_attr pa;
	union ibv_gid gid;
	int i, t, ret;

	ret = xv_query_port_full(ctx, port, &pa);
	for (i = 0; !ret && i < pa.gid_tbl_len; i++) {
		ret = xv_query_gid(ctx, port, i, &gid);
		if (ret || memcmp(gid.raw, raw, 16))
			continue;
		t = xv_gid_type_sysfs(ctx, port, i);
		if (t < 0 || t == (int)type)
			return i;
	}
	errno = ret ? ret : ENOENT;
	return -1;
}

static void xv_ipv4_mapped(uint8_t *raw, uint32_t addr)
{
	memset(raw, 0, 10);
	raw[10] = 0xff;
	raw[11] = 0xff;
	memcpy(raw + 12, &addr, 4);
}

/*
 * The 40 bytes before a UD payload on RoCE: a GRH (RoCE v1, or v2 over
 * IPv6), or 20 undefined bytes and an IPv4 header (v2 over IPv4).  An
 * IPv6 version nibble can be a chance value of those 20 bytes: a valid
 * IPv4 header checksum decides then, as in rdma-core.
 */
static bool xv_hdr_is_ipv4(const struct ibv_grh *grh, const uint8_t *ip4)
{
	uint32_t sum = 0;
	int i;

	if (be32toh(grh->version_tclass_flow) >> 28 != 6)
		return (ip4[0] >> 4) == 4;
	if (ip4[0] != 0x45)
		return false;
	for (i = 0; i < 20; i += 2)
		sum += (uint32_t)ip4[i] << 8 | ip4[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return sum == 0xffff;
}

int ibv_init_ah_from_wc(struct ibv_context *ctx, uint8_t port_num,
			struct ibv_wc *wc, struct ibv_grh *grh,
			struct ibv_ah_attr *ah_attr)
{
	const uint8_t *ip4 = (const uint8_t *)grh + 20;
	enum ibv_gid_type type;
	uint8_t ours[16];
	uint32_t addr;
	int i;

	memset(ah_attr, 0, sizeof(*ah_attr));
	ah_attr->dlid = wc->slid;
	ah_attr->sl = wc->sl;
	ah_attr->src_path_bits = wc->dlid_path_bits;
	ah_attr->port_num = port_num;
	if (!(wc->wc_flags & IBV_WC_GRH))
		return 0;
	ah_attr->is_global = 1;
	ah_attr->grh.flow_label = be32toh(grh->version_tclass_flow) & 0xfffff;
	if (xv_hdr_is_ipv4(grh, ip4)) {
		/* RoCE v2 over IPv4: the GIDs are the addresses, mapped */
		memcpy(&addr, ip4 + 16, 4);		/* daddr */
		if ((be32toh(addr) >> 28) == 0xe) {	/* multicast */
			errno = EINVAL;
			return -1;
		}
		xv_ipv4_mapped(ours, addr);
		memcpy(&addr, ip4 + 12, 4);		/* saddr */
		xv_ipv4_mapped(ah_attr->grh.dgid.raw, addr);
		ah_attr->grh.hop_limit = ip4[8];	/* TTL */
		ah_attr->grh.traffic_class = ip4[1];	/* TOS */
		type = IBV_GID_TYPE_ROCE_V2;
	} else {
		if (grh->dgid.raw[0] == 0xff) {		/* multicast */
			errno = EINVAL;
			return -1;
		}
		if (grh->next_hdr == 17) {		/* UDP */
			type = IBV_GID_TYPE_ROCE_V2;
		} else if (grh->next_hdr == 0x1b) {	/* IB */
			type = IBV_GID_TYPE_ROCE_V1;
		} else {
			errno = EPROTONOSUPPORT;
			return -1;
		}
		memcpy(ours, grh->dgid.raw, 16);
		ah_attr->grh.dgid = grh->sgid;
		ah_attr->grh.hop_limit = grh->hop_limit;
		ah_attr->grh.traffic_class =
			(be32toh(grh->version_tclass_flow) >> 20) & 0xff;
	}
	/* the GID the message was sent to is ours: its index */
	i = xv_find_gid(ctx, port_num, ours, type);
	if (i < 0)
		return -1;
	ah_attr->grh.sgid_index = (uint8_t)i;
	return 0;
}

struct ibv_ah *ibv_create_ah_from_wc(struct ibv_pd *pd,
				     struct ibv_wc *wc,
				     struct ibv_grh *grh,
				     uint8_t port_num)
{
	struct ibv_ah_attr a;

	if (ibv_init_ah_from_wc(pd->context, port_num, wc, grh, &a))
		return NULL;
	return ibv_create_ah(pd, &a);
}

/* ------------------------------------------------------------ marshalling */

/*
 * For librdmacm, which hands the kernel's rdma_cm structures over; the
 * layouts are the kernel's uapi (<rdma/ib_user_verbs.h>, ib_user_sa.h).
 */
void ibv_copy_ah_attr_from_kern(struct ibv_ah_attr *dst,
				struct ib_uverbs_ah_attr *src)
{
	memcpy(dst->grh.dgid.raw, src->grh.dgid, sizeof(dst->grh.dgid));
	dst->grh.flow_label = src->grh.flow_label;
	dst->grh.sgid_index = src->grh.sgid_index;
	dst->grh.hop_limit = src->grh.hop_limit;
	dst->grh.traffic_class = src->grh.traffic_class;
	dst->dlid = src->dlid;
	dst->sl = src->sl;
	dst->src_path_bits = src->src_path_bits;
	dst->static_rate = src->static_rate;
	dst->is_global = src->is_global;
	dst->port_num = src->port_num;
}

void ibv_copy_qp_attr_from_kern(struct ibv_qp_attr *dst,
				struct ib_uverbs_qp_attr *src)
{
	dst->cur_qp_state = src->cur_qp_state;
	dst->path_mtu = src->path_mtu;
	dst->path_mig_state = src->path_mig_state;
	dst->qkey = src->qkey;
	dst->rq_psn = src->rq_psn;
	dst->sq_psn = src->sq_psn;
	dst->dest_qp_num = src->dest_qp_num;
	dst->qp_access_flags = src->qp_access_flags;
	dst->cap.max_send_wr = src->max_send_wr;
	dst->cap.max_recv_wr = src->max_recv_wr;
	dst->cap.max_send_sge = src->max_send_sge;
	dst->cap.max_recv_sge = src->max_recv_sge;
	dst->cap.max_inline_data = src->max_inline_data;
	ibv_copy_ah_attr_from_kern(&dst->ah_attr, &src->ah_attr);
	ibv_copy_ah_attr_from_kern(&dst->alt_ah_attr, &src->alt_ah_attr);
	dst->pkey_index = src->pkey_index;
	dst->alt_pkey_index = src->alt_pkey_index;
	dst->en_sqd_async_notify = src->en_sqd_async_notify;
	dst->sq_draining = src->sq_draining;
	dst->max_rd_atomic = src->max_rd_atomic;
	dst->max_dest_rd_atomic = src->max_dest_rd_atomic;
	dst->min_rnr_timer = src->min_rnr_timer;
	dst->port_num = src->port_num;
	dst->timeout = src->timeout;
	dst->retry_cnt = src->retry_cnt;
	dst->rnr_retry = src->rnr_retry;
	dst->alt_port_num = src->alt_port_num;
	dst->alt_timeout = src->alt_timeout;
}

/* struct ibv_sa_path_rec of <infiniband/sa.h>, which needs no library */
#include <infiniband/sa.h>

void ibv_copy_path_rec_from_kern(struct ibv_sa_path_rec *dst,
				 struct ib_user_path_rec *src)
{
	memcpy(dst->dgid.raw, src->dgid, sizeof(dst->dgid));
	memcpy(dst->sgid.raw, src->sgid, sizeof(dst->sgid));
	dst->dlid = src->dlid;
	dst->slid = src->slid;
	dst->raw_traffic = (int)src->raw_traffic;
	dst->flow_label = src->flow_label;
	dst->hop_limit = src->hop_limit;
	dst->traffic_class = src->traffic_class;
	dst->reversible = (int)src->reversible;
	dst->numb_path = src->numb_path;
	dst->pkey = src->pkey;
	dst->sl = src->sl;
	dst->mtu_selector = src->mtu_selector;
	dst->mtu = src->mtu;
	dst->rate_selector = src->rate_selector;
	dst->rate = src->rate;
	dst->packet_life_time = src->packet_life_time;
	dst->preference = src->preference;
	dst->packet_life_time_selector = src->packet_life_time_selector;
}

void ibv_copy_path_rec_to_kern(struct ib_user_path_rec *dst,
			       struct ibv_sa_path_rec *src)
{
	memcpy(dst->dgid, src->dgid.raw, sizeof(src->dgid));
	memcpy(dst->sgid, src->sgid.raw, sizeof(src->sgid));
	dst->dlid = src->dlid;
	dst->slid = src->slid;
	dst->raw_traffic = (uint32_t)src->raw_traffic;
	dst->flow_label = src->flow_label;
	dst->hop_limit = src->hop_limit;
	dst->traffic_class = src->traffic_class;
	dst->reversible = (uint32_t)src->reversible;
	dst->numb_path = src->numb_path;
	dst->pkey = src->pkey;
	dst->sl = src->sl;
	dst->mtu_selector = src->mtu_selector;
	dst->mtu = src->mtu;
	dst->rate_selector = src->rate_selector;
	dst->rate = src->rate;
	dst->packet_life_time = src->packet_life_time;
	dst->preference = src->preference;
	dst->packet_life_time_selector = src->packet_life_time_selector;
}
