// SPDX-License-Identifier: GPL-2.0
/*
 * xverbs: the IBVERBS_PRIVATE_34 symbols of rdma-core 44's libibverbs.so.1.
 *
 * IBVERBS_PRIVATE_34 is the ABI between libibverbs and the rdma-core
 * providers; no application calls it.  It has to exist anyway: perftest
 * (and anything else built against Debian's rdma-core) links the provider
 * libraries libmlx5.so.1 and libefa.so.1 directly, with -z now (BIND_NOW).
 * Those import 62 of these symbols with version IBVERBS_PRIVATE_34,
 * so ld.so refuses to load the program unless the version node and every
 * imported symbol is present -- even though no mlx5 or efa device will
 * ever be opened through xverbs.  Only ibv_query_gid_type() does real
 * work.
 *
 * The prototypes are rdma-core v44's (libibverbs/driver.h, cmd_ioctl.h,
 * cmd_write.h), transcribed in ref/libibverbs-private.h, which the
 * compiler checks each definition here against: a mismatch would corrupt
 * the caller's arguments.  rdma-core's private structures are incomplete
 * types there; the stubs never look inside.
 *
 * Semantics: verbs_register_driver_34() ignores the provider; pointer
 * returning calls return NULL with errno = EOPNOTSUPP; the int commands
 * return the positive errno EOPNOTSUPP (and set errno), as rdma-core's
 * ibv_cmd_*() report failures; ibv_cmd_poll_cq() and
 * ibv_read_ibdev_sysfs_file() return -1 with errno set, like rdma-core;
 * void calls do nothing.
 */
#include "xverbs.h"

/* Stubs: most parameters are unused. */
#pragma GCC diagnostic ignored "-Wunused-parameter"

/* Data symbol ("DO", 1 byte) in rdma-core, not a function. */
bool verbs_allow_disassociate_destroy;

/* rdma-core's ibv_cmd_*() return a positive errno value on failure. */
static int stub_errno(void)
{
	errno = EOPNOTSUPP;
	return errno;
}

static void *stub_null(void)
{
	errno = EOPNOTSUPP;
	return NULL;
}

/* Provider registration and context life cycle (driver.h) */

void verbs_register_driver_34(const struct verbs_device_ops *ops)
{
	/* No rdma-core providers behind xverbs: ignore the registration. */
}

void *_verbs_init_and_alloc_context(struct ibv_device *device, int cmd_fd,
				    size_t alloc_size,
				    struct verbs_context *context_offset,
				    uint32_t driver_id)
{
	return stub_null();
}

void verbs_uninit_context(struct verbs_context *context)
{
}

void verbs_set_ops(struct verbs_context *vctx,
		   const struct verbs_context_ops *ops)
{
}

void verbs_init_cq(struct ibv_cq *cq, struct ibv_context *context,
		   struct ibv_comp_channel *channel, void *cq_context)
{
}

struct ibv_context *verbs_open_device(struct ibv_device *device,
				      void *private_data)
{
	return stub_null();
}

void __verbs_log(struct verbs_context *ctx, uint32_t level, const char *fmt,
		 ...)
{
}

int ibv_query_gid_type(struct ibv_context *context, uint8_t port_num,
		       unsigned int index, enum ibv_gid_type_sysfs *type)
{
	/* ib_core's type of the entry when it has the device, else v2 */
	*type = xv_gid_type(context, port_num, (int)index) ==
		IBV_GID_TYPE_ROCE_V1 ? IBV_GID_TYPE_SYSFS_IB_ROCE_V1 :
				       IBV_GID_TYPE_SYSFS_ROCE_V2;
	return 0;
}

int ibv_read_ibdev_sysfs_file(char *buf, size_t size,
			      struct verbs_sysfs_dev *sysfs_dev,
			      const char *fnfmt, ...)
{
	errno = EOPNOTSUPP;
	return -1;
}

/* ioctl() command buffers (cmd_ioctl.h) */

/*
 * Sizes a caller's on-stack command buffer; the linked buffers are opaque
 * here and execute_ioctl() never merges them, so the own count suffices.
 */
unsigned int __ioctl_final_num_attrs(unsigned int num_attrs,
				     struct ibv_command_buffer *link)
{
	return num_attrs;
}

int execute_ioctl(struct ibv_context *context, struct ibv_command_buffer *cmd)
{
	return stub_errno();
}

/* Device, port and context commands */

int ibv_cmd_get_context(struct verbs_context *context,
			struct ibv_get_context *cmd, size_t cmd_size,
			struct ib_uverbs_get_context_resp *resp,
			size_t resp_size)
{
	return stub_errno();
}

int ibv_cmd_query_context(struct ibv_context *ctx,
			  struct ibv_command_buffer *driver)
{
	return stub_errno();
}

int ibv_cmd_query_device_any(struct ibv_context *context,
			     const struct ibv_query_device_ex_input *input,
			     struct ibv_device_attr_ex *attr, size_t attr_size,
			     struct ib_uverbs_ex_query_device_resp *resp,
			     size_t *resp_size)
{
	return stub_errno();
}

int ibv_cmd_query_port(struct ibv_context *context, uint8_t port_num,
		       struct ibv_port_attr *port_attr,
		       struct ibv_query_port *cmd, size_t cmd_size)
{
	return stub_errno();
}

/* PD, XRCD, MR, MW and DM commands */

int ibv_cmd_alloc_pd(struct ibv_context *context, struct ibv_pd *pd,
		     struct ibv_alloc_pd *cmd, size_t cmd_size,
		     struct ib_uverbs_alloc_pd_resp *resp, size_t resp_size)
{
	return stub_errno();
}

int ibv_cmd_dealloc_pd(struct ibv_pd *pd)
{
	return stub_errno();
}

int ibv_cmd_open_xrcd(struct ibv_context *context, struct verbs_xrcd *xrcd,
		      int vxrcd_size, struct ibv_xrcd_init_attr *attr,
		      struct ibv_open_xrcd *cmd, size_t cmd_size,
		      struct ib_uverbs_open_xrcd_resp *resp, size_t resp_size)
{
	return stub_errno();
}

int ibv_cmd_close_xrcd(struct verbs_xrcd *xrcd)
{
	return stub_errno();
}

int ibv_cmd_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
		   uint64_t hca_va, int access, struct verbs_mr *vmr,
		   struct ibv_reg_mr *cmd, size_t cmd_size,
		   struct ib_uverbs_reg_mr_resp *resp, size_t resp_size)
{
	return stub_errno();
}

int ibv_cmd_rereg_mr(struct verbs_mr *vmr, uint32_t flags, void *addr,
		     size_t length, uint64_t hca_va, int access,
		     struct ibv_pd *pd, struct ibv_rereg_mr *cmd, size_t cmd_sz,
		     struct ib_uverbs_rereg_mr_resp *resp, size_t resp_sz)
{
	return stub_errno();
}

int ibv_cmd_dereg_mr(struct verbs_mr *vmr)
{
	return stub_errno();
}

int ibv_cmd_query_mr(struct ibv_pd *pd, struct verbs_mr *vmr,
		     uint32_t mr_handle)
{
	return stub_errno();
}

int ibv_cmd_advise_mr(struct ibv_pd *pd, enum ibv_advise_mr_advice advice,
		      uint32_t flags, struct ibv_sge *sg_list, uint32_t num_sge)
{
	return stub_errno();
}

int ibv_cmd_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset, size_t length,
			  uint64_t iova, int fd, int access,
			  struct verbs_mr *vmr)
{
	return stub_errno();
}

int ibv_cmd_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type,
		     struct ibv_mw *mw, struct ibv_alloc_mw *cmd,
		     size_t cmd_size, struct ib_uverbs_alloc_mw_resp *resp,
		     size_t resp_size)
{
	return stub_errno();
}

int ibv_cmd_dealloc_mw(struct ibv_mw *mw)
{
	return stub_errno();
}

int ibv_cmd_alloc_dm(struct ibv_context *ctx,
		     const struct ibv_alloc_dm_attr *dm_attr,
		     struct verbs_dm *dm, struct ibv_command_buffer *link)
{
	return stub_errno();
}

int ibv_cmd_free_dm(struct verbs_dm *dm)
{
	return stub_errno();
}

int ibv_cmd_reg_dm_mr(struct ibv_pd *pd, struct verbs_dm *dm, uint64_t offset,
		      size_t length, unsigned int access, struct verbs_mr *vmr,
		      struct ibv_command_buffer *link)
{
	return stub_errno();
}

/* CQ commands */

int ibv_cmd_create_cq(struct ibv_context *context, int cqe,
		      struct ibv_comp_channel *channel, int comp_vector,
		      struct ibv_cq *cq, struct ibv_create_cq *cmd,
		      size_t cmd_size, struct ib_uverbs_create_cq_resp *resp,
		      size_t resp_size)
{
	return stub_errno();
}

int ibv_cmd_create_cq_ex(struct ibv_context *context,
			 const struct ibv_cq_init_attr_ex *cq_attr,
			 struct verbs_cq *cq, struct ibv_create_cq_ex *cmd,
			 size_t cmd_size,
			 struct ib_uverbs_ex_create_cq_resp *resp,
			 size_t resp_size, uint32_t cmd_flags)
{
	return stub_errno();
}

/* Like rdma-core, this one returns -1 and sets errno. */

int ibv_cmd_poll_cq(struct ibv_cq *cq, int ne, struct ibv_wc *wc)
{
	errno = EOPNOTSUPP;
	return -1;
}

int ibv_cmd_req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
	return stub_errno();
}

int ibv_cmd_resize_cq(struct ibv_cq *cq, int cqe, struct ibv_resize_cq *cmd,
		      size_t cmd_size, struct ib_uverbs_resize_cq_resp *resp,
		      size_t resp_size)
{
	return stub_errno();
}

int ibv_cmd_destroy_cq(struct ibv_cq *cq)
{
	return stub_errno();
}

int ibv_cmd_modify_cq(struct ibv_cq *cq, struct ibv_modify_cq_attr *attr,
		      struct ibv_modify_cq *cmd, size_t cmd_size)
{
	return stub_errno();
}

/* SRQ commands */

int ibv_cmd_create_srq(struct ibv_pd *pd, struct ibv_srq *srq,
		       struct ibv_srq_init_attr *attr,
		       struct ibv_create_srq *cmd, size_t cmd_size,
		       struct ib_uverbs_create_srq_resp *resp, size_t resp_size)
{
	return stub_errno();
}

int ibv_cmd_create_srq_ex(struct ibv_context *context, struct verbs_srq *srq,
			  struct ibv_srq_init_attr_ex *attr_ex,
			  struct ibv_create_xsrq *cmd, size_t cmd_size,
			  struct ib_uverbs_create_srq_resp *resp,
			  size_t resp_size)
{
	return stub_errno();
}

int ibv_cmd_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr,
		       int srq_attr_mask, struct ibv_modify_srq *cmd,
		       size_t cmd_size)
{
	return stub_errno();
}

int ibv_cmd_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr,
		      struct ibv_query_srq *cmd, size_t cmd_size)
{
	return stub_errno();
}

int ibv_cmd_destroy_srq(struct ibv_srq *srq)
{
	return stub_errno();
}

/* QP commands */

int ibv_cmd_create_qp(struct ibv_pd *pd, struct ibv_qp *qp,
		      struct ibv_qp_init_attr *attr, struct ibv_create_qp *cmd,
		      size_t cmd_size, struct ib_uverbs_create_qp_resp *resp,
		      size_t resp_size)
{
	return stub_errno();
}

int ibv_cmd_create_qp_ex(struct ibv_context *context, struct verbs_qp *qp,
			 struct ibv_qp_init_attr_ex *attr_ex,
			 struct ibv_create_qp *cmd, size_t cmd_size,
			 struct ib_uverbs_create_qp_resp *resp,
			 size_t resp_size)
{
	return stub_errno();
}

int ibv_cmd_create_qp_ex2(struct ibv_context *context, struct verbs_qp *qp,
			  struct ibv_qp_init_attr_ex *qp_attr,
			  struct ibv_create_qp_ex *cmd, size_t cmd_size,
			  struct ib_uverbs_ex_create_qp_resp *resp,
			  size_t resp_size)
{
	return stub_errno();
}

int ibv_cmd_open_qp(struct ibv_context *context, struct verbs_qp *qp,
		    int vqp_sz, struct ibv_qp_open_attr *attr,
		    struct ibv_open_qp *cmd, size_t cmd_size,
		    struct ib_uverbs_create_qp_resp *resp, size_t resp_size)
{
	return stub_errno();
}

int ibv_cmd_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *qp_attr,
		     int attr_mask, struct ibv_qp_init_attr *qp_init_attr,
		     struct ibv_query_qp *cmd, size_t cmd_size)
{
	return stub_errno();
}

int ibv_cmd_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
		      int attr_mask, struct ibv_modify_qp *cmd, size_t cmd_size)
{
	return stub_errno();
}

int ibv_cmd_modify_qp_ex(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			 int attr_mask, struct ibv_modify_qp_ex *cmd,
			 size_t cmd_size,
			 struct ib_uverbs_ex_modify_qp_resp *resp,
			 size_t resp_size)
{
	return stub_errno();
}

int ibv_cmd_destroy_qp(struct ibv_qp *qp)
{
	return stub_errno();
}

int ibv_cmd_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		      struct ibv_send_wr **bad_wr)
{
	if (bad_wr)
		*bad_wr = wr;
	return stub_errno();
}

int ibv_cmd_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		      struct ibv_recv_wr **bad_wr)
{
	if (bad_wr)
		*bad_wr = wr;
	return stub_errno();
}

int ibv_cmd_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
			  struct ibv_recv_wr **bad_wr)
{
	if (bad_wr)
		*bad_wr = wr;
	return stub_errno();
}

/* AH commands (multicast: mcast.c) */

int ibv_cmd_create_ah(struct ibv_pd *pd, struct ibv_ah *ah,
		      struct ibv_ah_attr *attr,
		      struct ib_uverbs_create_ah_resp *resp, size_t resp_size)
{
	return stub_errno();
}

int ibv_cmd_destroy_ah(struct ibv_ah *ah)
{
	return stub_errno();
}

/* Flow, flow action, WQ, RWQ indirection table and counters commands */

int ibv_cmd_create_flow(struct ibv_qp *qp, struct ibv_flow *flow_id,
			struct ibv_flow_attr *flow_attr, void *ucmd,
			size_t ucmd_size)
{
	return stub_errno();
}

int ibv_cmd_destroy_flow(struct ibv_flow *flow_id)
{
	return stub_errno();
}

int ibv_cmd_create_flow_action_esp(struct ibv_context *ctx,
				   struct ibv_flow_action_esp_attr *attr,
				   struct verbs_flow_action *flow_action,
				   struct ibv_command_buffer *driver)
{
	return stub_errno();
}

int ibv_cmd_modify_flow_action_esp(struct verbs_flow_action *flow_action,
				   struct ibv_flow_action_esp_attr *attr,
				   struct ibv_command_buffer *driver)
{
	return stub_errno();
}

int ibv_cmd_destroy_flow_action(struct verbs_flow_action *action)
{
	return stub_errno();
}

int ibv_cmd_create_wq(struct ibv_context *context,
		      struct ibv_wq_init_attr *wq_init_attr, struct ibv_wq *wq,
		      struct ibv_create_wq *cmd, size_t cmd_size,
		      struct ib_uverbs_ex_create_wq_resp *resp,
		      size_t resp_size)
{
	return stub_errno();
}

int ibv_cmd_modify_wq(struct ibv_wq *wq, struct ibv_wq_attr *attr,
		      struct ibv_modify_wq *cmd, size_t cmd_size)
{
	return stub_errno();
}

int ibv_cmd_destroy_wq(struct ibv_wq *wq)
{
	return stub_errno();
}

int ibv_cmd_create_rwq_ind_table(struct ibv_context *context,
				 struct ibv_rwq_ind_table_init_attr *init_attr,
				 struct ibv_rwq_ind_table *rwq_ind_table,
				 struct ib_uverbs_ex_create_rwq_ind_table_resp *resp,
				 size_t resp_size)
{
	return stub_errno();
}

int ibv_cmd_destroy_rwq_ind_table(struct ibv_rwq_ind_table *rwq_ind_table)
{
	return stub_errno();
}

int ibv_cmd_create_counters(struct ibv_context *context,
			    struct ibv_counters_init_attr *init_attr,
			    struct verbs_counters *vcounters,
			    struct ibv_command_buffer *link)
{
	return stub_errno();
}

int ibv_cmd_destroy_counters(struct verbs_counters *vcounters)
{
	return stub_errno();
}

int ibv_cmd_read_counters(struct verbs_counters *vcounters,
			  uint64_t *counters_value, uint32_t ncounters,
			  uint32_t flags, struct ibv_command_buffer *link)
{
	return stub_errno();
}
