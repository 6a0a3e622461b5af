/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xverbs: the reference declarations of every function (and the one
 * variable) rdma-core 44's libibverbs.so.1 exports that no public header
 * of Debian 12's libibverbs-dev declares: the historical IBVERBS_1.0/1.1
 * symbols other rdma-core libraries use (librdmacm: ibv_get_sysfs_path)
 * and the IBVERBS_PRIVATE_34 provider interface; and, at the end, the one
 * IBVERBS_PRIVATE_34 function rdma-core 56 added.  Everything else the
 * library exports is declared by <infiniband/verbs.h>, included here.
 *
 * Transcribed from rdma-core v44.0's private headers (GPL-2.0 or
 * OpenIB.org BSD), read with
 *   git show v44.0:libibverbs/driver.h   (also cmd_ioctl.h, cmd_write.h,
 *                                         marshall.h)
 * declarations only, in the spelling of the source; the comment before
 * each names its v44 file and line.  Do not "fix" one here to match our
 * code: a definition that disagrees is wrong, and callers built against
 * rdma-core pass the arguments and read the result as declared here.
 *
 * How it is enforced (Makefile): every object of the library is compiled
 * with this header force-included (-include), so each definition in
 * device.c, verbs.c, private.c, ... is compared by the compiler with the
 * declaration here or in <infiniband/verbs.h> -- another return type,
 * parameter type or pointee const-ness is a "conflicting types" error --
 * and -Wmissing-prototypes fails a global definition no header declares.
 * The macros verbs.h defines over exported names (ibv_query_port,
 * ibv_reg_mr, ibv_reg_mr_iova; ibv_get_device_list only with
 * RDMA_STATIC_PROVIDERS) are function-like: verbs.c #undefs them after
 * verbs.h declared the real function, which stays in scope, so the
 * definition is checked against it all the same.  And the build fails
 * when a symbol of libibverbs.map has no declaration here or in verbs.h
 * (ref/gen-refcheck.sh: the address of each, compiled against this header
 * alone).
 *
 * rdma-core's private types: the parameters below are pointers to
 * structures of driver.h (struct verbs_mr, ...), cmd_ioctl.h (struct
 * ibv_command_buffer) and kern-abi.h (the write() command layouts, struct
 * ibv_alloc_pd, ...), which are not installed.  A pointer's ABI does not
 * depend on what it points to, so they are declared incomplete here, at
 * file scope (one type per tag in each translation unit, so a definition
 * naming another tag conflicts); the stubs of private.c never look
 * inside.  The kernel's structures (struct ib_uverbs_*) are complete,
 * from <rdma/ib_user_verbs.h> through verbs.h; struct ib_user_path_rec
 * (<rdma/ib_user_sa.h>) and struct ibv_sa_path_rec (<infiniband/sa.h>)
 * are declared incomplete like the others.  The one enum a parameter
 * points to, enum ibv_gid_type_sysfs, is transcribed whole.
 */
#ifndef XVERBS_REF_LIBIBVERBS_PRIVATE_H
#define XVERBS_REF_LIBIBVERBS_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <infiniband/verbs.h>

/* driver.h: private structures, only pointed to */
struct verbs_counters;
struct verbs_cq;
struct verbs_device_ops;
struct verbs_context_ops;
struct verbs_dm;
struct verbs_flow_action;
struct verbs_mr;
struct verbs_qp;
struct verbs_srq;
struct verbs_sysfs_dev;
struct verbs_xrcd;

/* cmd_ioctl.h */
struct ibv_command_buffer;

/* kern-abi.h: the write() command layouts */
struct ibv_alloc_mw;
struct ibv_alloc_pd;
struct ibv_create_cq;
struct ibv_create_cq_ex;
struct ibv_create_qp;
struct ibv_create_qp_ex;
struct ibv_create_srq;
struct ibv_create_wq;
struct ibv_create_xsrq;
struct ibv_get_context;
struct ibv_modify_cq;
struct ibv_modify_qp;
struct ibv_modify_qp_ex;
struct ibv_modify_srq;
struct ibv_modify_wq;
struct ibv_open_qp;
struct ibv_open_xrcd;
struct ibv_query_port;
struct ibv_query_qp;
struct ibv_query_srq;
struct ibv_reg_mr;
struct ibv_rereg_mr;
struct ibv_resize_cq;

/* marshall.h: <infiniband/sa.h>, <rdma/ib_user_sa.h> */
struct ibv_sa_path_rec;
struct ib_user_path_rec;

/* driver.h:130 */
enum ibv_gid_type_sysfs {
	IBV_GID_TYPE_SYSFS_IB_ROCE_V1,
	IBV_GID_TYPE_SYSFS_ROCE_V2,
};

/* ---------------------------------------- IBVERBS_1.0 and IBVERBS_1.1 */

/* driver.h:709 */
const char *ibv_get_sysfs_path(void);

/* driver.h:711 */
int ibv_read_sysfs_file(const char *dir, const char *file,
			char *buf, size_t size);

/* driver.h:689 */
int ibv_dontfork_range(void *base, size_t size);
/* driver.h:690 */
int ibv_dofork_range(void *base, size_t size);

/* marshall.h:45 */
void ibv_copy_qp_attr_from_kern(struct ibv_qp_attr *dst,
				struct ib_uverbs_qp_attr *src);

/* marshall.h:48 */
void ibv_copy_ah_attr_from_kern(struct ibv_ah_attr *dst,
				struct ib_uverbs_ah_attr *src);

/* marshall.h:51 */
void ibv_copy_path_rec_from_kern(struct ibv_sa_path_rec *dst,
				 struct ib_user_path_rec *src);

/* marshall.h:54 */
void ibv_copy_path_rec_to_kern(struct ib_user_path_rec *dst,
			       struct ibv_sa_path_rec *src);

/* ------------------------------------------------- IBVERBS_PRIVATE_34 */

/* driver.h:60 */
void __verbs_log(struct verbs_context *ctx, uint32_t level,
		 const char *fmt, ...);

/*
 * driver.h:468, "void verbs_register_driver(const struct verbs_device_ops
 * *ops);" where driver.h:464-466 make the name verbs_register_driver_
 * ## IBVERBS_PABI_VERSION, which is 34 (CMakeLists.txt:84)
 */
void verbs_register_driver_34(const struct verbs_device_ops *ops);

/* driver.h:484 */
void *_verbs_init_and_alloc_context(struct ibv_device *device, int cmd_fd,
				    size_t alloc_size,
				    struct verbs_context *context_offset,
				    uint32_t driver_id);

/* driver.h:498 */
void verbs_uninit_context(struct verbs_context *context);
/* driver.h:499 */
void verbs_set_ops(struct verbs_context *vctx,
		   const struct verbs_context_ops *ops);

/* driver.h:502 */
void verbs_init_cq(struct ibv_cq *cq, struct ibv_context *context,
		   struct ibv_comp_channel *channel,
		   void *cq_context);

/* driver.h:506 */
struct ibv_context *verbs_open_device(struct ibv_device *device,
				      void *private_data);
/* driver.h:508 */
int ibv_cmd_get_context(struct verbs_context *context,
			struct ibv_get_context *cmd, size_t cmd_size,
			struct ib_uverbs_get_context_resp *resp,
			size_t resp_size);
/* driver.h:511 */
int ibv_cmd_query_context(struct ibv_context *ctx,
			  struct ibv_command_buffer *driver);
/* driver.h:513 */
int ibv_cmd_create_flow_action_esp(struct ibv_context *ctx,
				   struct ibv_flow_action_esp_attr *attr,
				   struct verbs_flow_action *flow_action,
				   struct ibv_command_buffer *driver);
/* driver.h:517 */
int ibv_cmd_modify_flow_action_esp(struct verbs_flow_action *flow_action,
				   struct ibv_flow_action_esp_attr *attr,
				   struct ibv_command_buffer *driver);
/* driver.h:520 */
int ibv_cmd_query_device_any(struct ibv_context *context,
			     const struct ibv_query_device_ex_input *input,
			     struct ibv_device_attr_ex *attr, size_t attr_size,
			     struct ib_uverbs_ex_query_device_resp *resp,
			     size_t *resp_size);
/* driver.h:525 */
int ibv_cmd_query_port(struct ibv_context *context, uint8_t port_num,
		       struct ibv_port_attr *port_attr,
		       struct ibv_query_port *cmd, size_t cmd_size);
/* driver.h:529 */
int ibv_cmd_alloc_pd(struct ibv_context *context, struct ibv_pd *pd,
		     struct ibv_alloc_pd *cmd, size_t cmd_size,
		     struct ib_uverbs_alloc_pd_resp *resp, size_t resp_size);
/* driver.h:532 */
int ibv_cmd_dealloc_pd(struct ibv_pd *pd);
/* driver.h:533 */
int ibv_cmd_open_xrcd(struct ibv_context *context, struct verbs_xrcd *xrcd,
		      int vxrcd_size,
		      struct ibv_xrcd_init_attr *attr,
		      struct ibv_open_xrcd *cmd, size_t cmd_size,
		      struct ib_uverbs_open_xrcd_resp *resp, size_t resp_size);
/* driver.h:538 */
int ibv_cmd_close_xrcd(struct verbs_xrcd *xrcd);
/* driver.h:539 */
int ibv_cmd_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
		   uint64_t hca_va, int access,
		   struct verbs_mr *vmr, struct ibv_reg_mr *cmd,
		   size_t cmd_size,
		   struct ib_uverbs_reg_mr_resp *resp, size_t resp_size);
/* driver.h:544 */
int ibv_cmd_rereg_mr(struct verbs_mr *vmr, uint32_t flags, void *addr,
		     size_t length, uint64_t hca_va, int access,
		     struct ibv_pd *pd, struct ibv_rereg_mr *cmd,
		     size_t cmd_sz, struct ib_uverbs_rereg_mr_resp *resp,
		     size_t resp_sz);
/* driver.h:549 */
int ibv_cmd_dereg_mr(struct verbs_mr *vmr);
/* driver.h:550 */
int ibv_cmd_query_mr(struct ibv_pd *pd, struct verbs_mr *vmr,
		     uint32_t mr_handle);
/* driver.h:552 */
int ibv_cmd_advise_mr(struct ibv_pd *pd,
		      enum ibv_advise_mr_advice advice,
		      uint32_t flags,
		      struct ibv_sge *sg_list,
		      uint32_t num_sge);
/* driver.h:557 */
int ibv_cmd_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset, size_t length,
			  uint64_t iova, int fd, int access,
			  struct verbs_mr *vmr);
/* driver.h:560 */
int ibv_cmd_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type,
		     struct ibv_mw *mw, struct ibv_alloc_mw *cmd,
		     size_t cmd_size,
		     struct ib_uverbs_alloc_mw_resp *resp, size_t resp_size);
/* driver.h:564 */
int ibv_cmd_dealloc_mw(struct ibv_mw *mw);
/* driver.h:565 */
int ibv_cmd_create_cq(struct ibv_context *context, int cqe,
		      struct ibv_comp_channel *channel,
		      int comp_vector, struct ibv_cq *cq,
		      struct ibv_create_cq *cmd, size_t cmd_size,
		      struct ib_uverbs_create_cq_resp *resp, size_t resp_size);
/* driver.h:570 */
int ibv_cmd_create_cq_ex(struct ibv_context *context,
			 const struct ibv_cq_init_attr_ex *cq_attr,
			 struct verbs_cq *cq,
			 struct ibv_create_cq_ex *cmd,
			 size_t cmd_size,
			 struct ib_uverbs_ex_create_cq_resp *resp,
			 size_t resp_size,
			 uint32_t cmd_flags);
/* driver.h:578 */
int ibv_cmd_poll_cq(struct ibv_cq *cq, int ne, struct ibv_wc *wc);
/* driver.h:579 */
int ibv_cmd_req_notify_cq(struct ibv_cq *cq, int solicited_only);
/* driver.h:580 */
int ibv_cmd_resize_cq(struct ibv_cq *cq, int cqe,
		      struct ibv_resize_cq *cmd, size_t cmd_size,
		      struct ib_uverbs_resize_cq_resp *resp, size_t resp_size);
/* driver.h:583 */
int ibv_cmd_destroy_cq(struct ibv_cq *cq);
/* driver.h:584 */
int ibv_cmd_modify_cq(struct ibv_cq *cq,
		      struct ibv_modify_cq_attr *attr,
		      struct ibv_modify_cq *cmd,
		      size_t cmd_size);

/* driver.h:589 */
int ibv_cmd_create_srq(struct ibv_pd *pd,
		       struct ibv_srq *srq, struct ibv_srq_init_attr *attr,
		       struct ibv_create_srq *cmd, size_t cmd_size,
		       struct ib_uverbs_create_srq_resp *resp,
		       size_t resp_size);
/* driver.h:593 */
int ibv_cmd_create_srq_ex(struct ibv_context *context,
			  struct verbs_srq *srq,
			  struct ibv_srq_init_attr_ex *attr_ex,
			  struct ibv_create_xsrq *cmd, size_t cmd_size,
			  struct ib_uverbs_create_srq_resp *resp,
			  size_t resp_size);
/* driver.h:598 */
int ibv_cmd_modify_srq(struct ibv_srq *srq,
		       struct ibv_srq_attr *srq_attr,
		       int srq_attr_mask,
		       struct ibv_modify_srq *cmd, size_t cmd_size);
/* driver.h:602 */
int ibv_cmd_query_srq(struct ibv_srq *srq,
		      struct ibv_srq_attr *srq_attr,
		      struct ibv_query_srq *cmd, size_t cmd_size);
/* driver.h:605 */
int ibv_cmd_destroy_srq(struct ibv_srq *srq);

/* driver.h:607 */
int ibv_cmd_create_qp(struct ibv_pd *pd,
		      struct ibv_qp *qp, struct ibv_qp_init_attr *attr,
		      struct ibv_create_qp *cmd, size_t cmd_size,
		      struct ib_uverbs_create_qp_resp *resp, size_t resp_size);
/* driver.h:611 */
int ibv_cmd_create_qp_ex(struct ibv_context *context,
			 struct verbs_qp *qp,
			 struct ibv_qp_init_attr_ex *attr_ex,
			 struct ibv_create_qp *cmd, size_t cmd_size,
			 struct ib_uverbs_create_qp_resp *resp,
			 size_t resp_size);
/* driver.h:616 */
int ibv_cmd_create_qp_ex2(struct ibv_context *context,
			  struct verbs_qp *qp,
			  struct ibv_qp_init_attr_ex *qp_attr,
			  struct ibv_create_qp_ex *cmd,
			  size_t cmd_size,
			  struct ib_uverbs_ex_create_qp_resp *resp,
			  size_t resp_size);
/* driver.h:623 */
int ibv_cmd_open_qp(struct ibv_context *context,
		    struct verbs_qp *qp,  int vqp_sz,
		    struct ibv_qp_open_attr *attr,
		    struct ibv_open_qp *cmd, size_t cmd_size,
		    struct ib_uverbs_create_qp_resp *resp, size_t resp_size);
/* driver.h:628 */
int ibv_cmd_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *qp_attr,
		     int attr_mask,
		     struct ibv_qp_init_attr *qp_init_attr,
		     struct ibv_query_qp *cmd, size_t cmd_size);
/* driver.h:632 */
int ibv_cmd_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
		      int attr_mask,
		      struct ibv_modify_qp *cmd, size_t cmd_size);
/* driver.h:635 */
int ibv_cmd_modify_qp_ex(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			 int attr_mask, struct ibv_modify_qp_ex *cmd,
			 size_t cmd_size,
			 struct ib_uverbs_ex_modify_qp_resp *resp,
			 size_t resp_size);
/* driver.h:640 */
int ibv_cmd_destroy_qp(struct ibv_qp *qp);
/* driver.h:641 */
int ibv_cmd_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		      struct ibv_send_wr **bad_wr);
/* driver.h:643 */
int ibv_cmd_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		      struct ibv_recv_wr **bad_wr);
/* driver.h:645 */
int ibv_cmd_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
			  struct ibv_recv_wr **bad_wr);
/* driver.h:647 */
int ibv_cmd_create_ah(struct ibv_pd *pd, struct ibv_ah *ah,
		      struct ibv_ah_attr *attr,
		      struct ib_uverbs_create_ah_resp *resp,
		      size_t resp_size);
/* driver.h:651 */
int ibv_cmd_destroy_ah(struct ibv_ah *ah);
/* driver.h:652 */
int ibv_cmd_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
			 uint16_t lid);
/* driver.h:653 */
int ibv_cmd_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
			 uint16_t lid);

/* driver.h:655 */
int ibv_cmd_create_flow(struct ibv_qp *qp,
			struct ibv_flow *flow_id,
			struct ibv_flow_attr *flow_attr,
			void *ucmd,
			size_t ucmd_size);
/* driver.h:660 */
int ibv_cmd_destroy_flow(struct ibv_flow *flow_id);
/* driver.h:661 */
int ibv_cmd_create_wq(struct ibv_context *context,
		      struct ibv_wq_init_attr *wq_init_attr,
		      struct ibv_wq *wq,
		      struct ibv_create_wq *cmd,
		      size_t cmd_size,
		      struct ib_uverbs_ex_create_wq_resp *resp,
		      size_t resp_size);

/* driver.h:669 */
int ibv_cmd_destroy_flow_action(struct verbs_flow_action *action);
/* driver.h:670 */
int ibv_cmd_modify_wq(struct ibv_wq *wq, struct ibv_wq_attr *attr,
		      struct ibv_modify_wq *cmd, size_t cmd_size);
/* driver.h:672 */
int ibv_cmd_destroy_wq(struct ibv_wq *wq);
/* driver.h:673 */
int ibv_cmd_create_rwq_ind_table(struct ibv_context *context,
				 struct ibv_rwq_ind_table_init_attr *init_attr,
				 struct ibv_rwq_ind_table *rwq_ind_table,
				 struct ib_uverbs_ex_create_rwq_ind_table_resp *resp,
				 size_t resp_size);
/* driver.h:678 */
int ibv_cmd_destroy_rwq_ind_table(struct ibv_rwq_ind_table *rwq_ind_table);
/* driver.h:679 */
int ibv_cmd_create_counters(struct ibv_context *context,
			    struct ibv_counters_init_attr *init_attr,
			    struct verbs_counters *vcounters,
			    struct ibv_command_buffer *link);
/* driver.h:683 */
int ibv_cmd_destroy_counters(struct verbs_counters *vcounters);
/* driver.h:684 */
int ibv_cmd_read_counters(struct verbs_counters *vcounters,
			  uint64_t *counters_value,
			  uint32_t ncounters,
			  uint32_t flags,
			  struct ibv_command_buffer *link);
/* driver.h:691 */
int ibv_cmd_alloc_dm(struct ibv_context *ctx,
		     const struct ibv_alloc_dm_attr *dm_attr,
		     struct verbs_dm *dm,
		     struct ibv_command_buffer *link);
/* driver.h:695 */
int ibv_cmd_free_dm(struct verbs_dm *dm);
/* driver.h:696 */
int ibv_cmd_reg_dm_mr(struct ibv_pd *pd, struct verbs_dm *dm,
		      uint64_t offset, size_t length,
		      unsigned int access, struct verbs_mr *vmr,
		      struct ibv_command_buffer *link);

/*
 * driver.h:714, where it also carries a format(printf, 4, 5) attribute,
 * which is not part of the type (and our stub does not format)
 */
int ibv_read_ibdev_sysfs_file(char *buf, size_t size,
			      struct verbs_sysfs_dev *sysfs_dev,
			      const char *fnfmt, ...);

/* driver.h:724 */
int ibv_query_gid_type(struct ibv_context *context, uint8_t port_num,
		       unsigned int index, enum ibv_gid_type_sysfs *type);

/* cmd_ioctl.h:125 */
unsigned int __ioctl_final_num_attrs(unsigned int num_attrs,
				     struct ibv_command_buffer *link);

/* cmd_ioctl.h:193 */
int execute_ioctl(struct ibv_context *context, struct ibv_command_buffer *cmd);

/* cmd_write.h:321 (a variable, defined in cmd.c:48) */
extern bool verbs_allow_disassociate_destroy;

/*
 * Not rdma-core 44's: rdma-core 56 declares it in its public verbs.h
 * (v56.1 libibverbs/verbs.h:1120) and exports it as IBVERBS_PRIVATE_34
 * (libibverbs.map.in:240), so programs built against 56 call it.
 */
const char *ibv_wr_opcode_str(enum ibv_wr_opcode opcode);

#endif /* XVERBS_REF_LIBIBVERBS_PRIVATE_H */
