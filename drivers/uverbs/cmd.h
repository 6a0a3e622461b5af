/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The command framework shared by the dispatcher (ioctl.c) and the
 * per-object command files (cmd_*.c).  See Documentation/uverbs.rst,
 * "Internals".
 */
#ifndef _XRDMA_UVERBS_CMD_H
#define _XRDMA_UVERBS_CMD_H

#include <linux/stddef.h>
#include "uverbs.h"

union xrdma_cmd_buf {
	struct xrdma_cmd_get_context get_context;
	struct xrdma_cmd_query_device query_device;
	struct xrdma_cmd_query_port query_port;
	struct xrdma_cmd_query_gid query_gid;
	struct xrdma_cmd_alloc_pd alloc_pd;
	struct xrdma_cmd_destroy destroy;
	struct xrdma_cmd_reg_mr reg_mr;
	struct xrdma_cmd_rereg_mr rereg_mr;
	struct xrdma_cmd_reg_dmabuf_mr reg_dmabuf_mr;
	struct xrdma_cmd_create_cq create_cq;
	struct xrdma_cmd_resize_cq resize_cq;
	struct xrdma_cmd_create_qp create_qp;
	struct xrdma_cmd_modify_qp modify_qp;
	struct xrdma_cmd_query_qp query_qp;
	struct xrdma_cmd_create_srq create_srq;
	struct xrdma_cmd_modify_srq modify_srq;
	struct xrdma_cmd_query_srq query_srq;
	struct xrdma_cmd_create_ah create_ah;
	struct xrdma_cmd_fd fd;
	struct xrdma_cmd_kick kick;
	struct xrdma_cmd_query_clock query_clock;
	struct xrdma_cmd_import_context import_context;
	struct xrdma_cmd_query_object query_object;
	struct xrdma_cmd_mcast mcast;
	struct xrdma_cmd_alloc_mw alloc_mw;
	struct xrdma_cmd_alloc_dm alloc_dm;
	struct xrdma_cmd_reg_dm_mr reg_dm_mr;
	struct xrdma_cmd_open_xrcd open_xrcd;
	struct xrdma_cmd_open_qp open_qp;
};

/* the most handles one command uses */
#define XRDMA_CMD_MAX_ATTRS	5

/* One command in flight. */
struct xrdma_cmd_ctx {
	struct xrdma_ufile *ufile;
	struct xrdma_device *ibdev;
	void __user *uptr;
	size_t usize;		/* size userspace passed */
	size_t ksize;		/* size the kernel knows */
	union xrdma_cmd_buf *buf;
	bool responded;		/* the handler copied the response itself */
	/* filled by the row's check with xrdma_udata_init() */
	struct xrdma_udata udata;
	/*
	 * The row's handles, in row order: held as the row says, or NULL
	 * where the row's "used" test said the command does not use it.  A
	 * handler that keeps a use (xrdma_cmd_keep()) clears its slot.
	 */
	struct xrdma_uobj *attrs[XRDMA_CMD_MAX_ATTRS];
	/* the new object's handle, reserved, for a row with new_type */
	struct xrdma_uobj *uobj;
	/* CREATE_CQ: the channel its check took; put unless handed on */
	struct xrdma_ev_file *channel;
};

/* How a command holds a handle it names (upstream's UVERBS_ACCESS_*). */
enum xrdma_cmd_access {
	XRDMA_ACCESS_READ = 1,	/* shared: xrdma_uobj_get() */
	XRDMA_ACCESS_WRITE,	/* exclusive: xrdma_uobj_get_write() */
	XRDMA_ACCESS_DESTROY,	/* exclusive; the handler destroys it */
};

/* A handle a command names in its fixed structure. */
struct xrdma_cmd_attr {
	u16 handle;		/* offset of its u32 handle in the command */
	u8 type;		/* XRDMA_OBJ_*, or 0: the u32 at type_at */
	u8 access;		/* enum xrdma_cmd_access; 0 ends the row */
	u16 type_at;		/* with type 0: offset of the u32 type */
	/* NULL: always used; else whether this command uses the handle */
	bool (*used)(const union xrdma_cmd_buf *buf);
};

/*
 * A row of the command table.  The dispatcher runs, in this order: the
 * size checks, copy-in, @check (everything that must fail before a handle
 * is looked up: flags, reserved fields, udata), the lookup of @attrs in
 * their order, the reservation of a @new_type handle, @fn, and then: on
 * failure the reservation is undone; on success the new handle is stored
 * at @new_handle, the response copied and the handle published (or, if
 * the copy fails, the object destroyed again); last the handles are put
 * and, unless @fn responded itself, the response copied.
 */
struct xrdma_cmd_def {
	unsigned int nr;			/* _IOC_NR() of the ioctl */
	int (*check)(struct xrdma_cmd_ctx *c);	/* NULL: none */
	int (*fn)(struct xrdma_cmd_ctx *c);
	size_t size;		/* current structure */
	size_t min_size;	/* first published structure */
	u8 new_type;		/* XRDMA_OBJ_* it creates, or 0 */
	u16 new_handle;		/* offset of the u32 new handle (out) */
	struct xrdma_cmd_attr attrs[XRDMA_CMD_MAX_ATTRS];
};

/*
 * @cmd is struct xrdma_cmd_NAME and its first published size is
 * XRDMA_CMD_NAME_SIZE_VER0 (tools/testing/uverbs/header-test.sh checks it
 * is not larger): a newer structure only grows at its end.
 */
#define XRDMA_CMD(ioc, cmd, ver0)					\
	.nr = _IOC_NR(ioc), .size = sizeof(cmd), .min_size = ver0

/* the command creates an object of @obj; its handle goes to @fld */
#define XRDMA_CMD_NEW(cmd, obj, fld)					\
	.new_type = obj, .new_handle = offsetof(cmd, fld)

/* a handle at @fld of an @obj object, held with XRDMA_ACCESS_@acc */
#define XRDMA_ATTR(cmd, fld, obj, acc)					\
	{ .handle = offsetof(cmd, fld), .type = obj,			\
	  .access = XRDMA_ACCESS_##acc }

/* the same, used only where @when(buf) is true */
#define XRDMA_ATTR_IF(cmd, fld, obj, acc, when)				\
	{ .handle = offsetof(cmd, fld), .type = obj,			\
	  .access = XRDMA_ACCESS_##acc, .used = when }

/* a handle whose type the command names at @tfld */
#define XRDMA_ATTR_ANY(cmd, fld, tfld, acc)				\
	{ .handle = offsetof(cmd, fld), .type_at = offsetof(cmd, tfld),	\
	  .access = XRDMA_ACCESS_##acc }

/* A file's rows; the dispatcher looks a command up in every table. */
struct xrdma_cmd_table {
	const struct xrdma_cmd_def *defs;
	unsigned int n;
};

extern const struct xrdma_cmd_table xrdma_device_cmds;	/* cmd_device.c */
extern const struct xrdma_cmd_table xrdma_mr_cmds;	/* cmd_mr.c */
extern const struct xrdma_cmd_table xrdma_cq_cmds;	/* cmd_cq.c */
extern const struct xrdma_cmd_table xrdma_qp_cmds;	/* cmd_qp.c */
extern const struct xrdma_cmd_table xrdma_srq_cmds;	/* cmd_srq.c */
extern const struct xrdma_cmd_table xrdma_ah_cmds;	/* cmd_ah.c */
extern const struct xrdma_cmd_table xrdma_event_cmds;	/* cmd_event.c */

/* The object of the row's handle @i (NULL if the command does not use it). */
static inline void *xrdma_cmd_obj(struct xrdma_cmd_ctx *c, unsigned int i)
{
	return c->attrs[i] ? c->attrs[i]->object : NULL;
}

/*
 * Keep the use of the row's handle @i beyond the command (the new object
 * holds it, e.g. its XRCD): the dispatcher no longer puts it.
 */
static inline struct xrdma_uobj *xrdma_cmd_keep(struct xrdma_cmd_ctx *c,
						unsigned int i)
{
	struct xrdma_uobj *uobj = c->attrs[i];

	c->attrs[i] = NULL;
	return uobj;
}

/* ioctl.c */
int xrdma_respond(struct xrdma_cmd_ctx *c);
int xrdma_udata_init(struct xrdma_cmd_ctx *c,
		     const struct xrdma_udata_desc *d);

/* cmd_ah.c */
void xrdma_ah_from_user(struct xrdma_ah_attr *k,
			const struct xrdma_uverbs_ah_attr *u);
void xrdma_ah_to_user(struct xrdma_uverbs_ah_attr *u,
		      const struct xrdma_ah_attr *k);

#endif
