// SPDX-License-Identifier: GPL-2.0
/*
 * The ioctl dispatcher: owns every command's object lifecycle.
 *
 * Each object's file (cmd_device.c, cmd_mr.c, cmd_cq.c, cmd_qp.c,
 * cmd_srq.c, cmd_ah.c, cmd_event.c) declares its commands in a table of
 * struct xrdma_cmd_def rows (cmd.h), as upstream's uverbs_std_types_*.c
 * declare their methods; xrdma_cmd_tables below collects them.  A row
 * names the command's fixed structure and its sizes, the handles it uses
 * (object type and access: read, write or destroy, as upstream's
 * UVERBS_ACCESS_*) and the type of the object it creates.  The dispatcher
 * checks the size, copies the command in, runs the row's check, looks up
 * and holds the handles, reserves the new handle, calls the handler, and
 * then aborts or publishes the new handle, copies the response and puts
 * the handles.  A handler holds only the verb's own logic.
 *
 * Adding a verb: a row in its object's table and a handler (and a check
 * for what must fail before a handle is looked up).
 */
#include <linux/slab.h>
#include "cmd.h"

static const struct xrdma_cmd_table *const xrdma_cmd_tables[] = {
	&xrdma_device_cmds, &xrdma_mr_cmds, &xrdma_cq_cmds, &xrdma_qp_cmds,
	&xrdma_srq_cmds, &xrdma_ah_cmds, &xrdma_event_cmds,
};

/* Copy the response now (before committing a new object). */
int xrdma_respond(struct xrdma_cmd_ctx *c)
{
	c->responded = true;
	if (copy_to_user(c->uptr, c->buf, min(c->usize, c->ksize)))
		return -EFAULT;
	return 0;
}

#define XRDMA_UDATA_MAX	PAGE_SIZE

/* Check the command's driver-data buffers and describe them in c->udata. */
int xrdma_udata_init(struct xrdma_cmd_ctx *c, const struct xrdma_udata_desc *d)
{
	struct xrdma_udata *udata = &c->udata;

	if (d->in_len > XRDMA_UDATA_MAX || d->out_len > XRDMA_UDATA_MAX)
		return -EINVAL;
	udata->inbuf = u64_to_user_ptr(d->in);
	udata->outbuf = u64_to_user_ptr(d->out);
	udata->inlen = d->in_len;
	udata->outlen = d->out_len;
	udata->uctx = c->ufile->ucontext;
	return 0;
}

static const struct xrdma_cmd_def *xrdma_cmd_find(unsigned int nr)
{
	const struct xrdma_cmd_table *t;
	unsigned int i, j;

	for (i = 0; i < ARRAY_SIZE(xrdma_cmd_tables); i++) {
		t = xrdma_cmd_tables[i];
		for (j = 0; j < t->n; j++)
			if (t->defs[j].nr == nr)
				return &t->defs[j];
	}
	return NULL;
}

static u32 xrdma_cmd_u32(const struct xrdma_cmd_ctx *c, unsigned int off)
{
	return *(const u32 *)((const u8 *)c->buf + off);
}

/* Look up and hold the row's handles in order; the first error wins. */
static int xrdma_cmd_get_attrs(struct xrdma_cmd_ctx *c,
			       const struct xrdma_cmd_def *def)
{
	const struct xrdma_cmd_attr *a;
	struct xrdma_uobj *uobj;
	u32 type, handle;
	int i;

	for (i = 0; i < XRDMA_CMD_MAX_ATTRS; i++) {
		a = &def->attrs[i];
		if (!a->access)
			break;
		if (a->used && !a->used(c->buf))
			continue;
		type = a->type ? a->type : xrdma_cmd_u32(c, a->type_at);
		handle = xrdma_cmd_u32(c, a->handle);
		if (a->access == XRDMA_ACCESS_READ)
			uobj = xrdma_uobj_get(c->ufile, type, handle);
		else
			uobj = xrdma_uobj_get_write(c->ufile, type, handle);
		if (IS_ERR(uobj))
			return PTR_ERR(uobj);
		c->attrs[i] = uobj;
	}
	return 0;
}

static void xrdma_cmd_put_attrs(struct xrdma_cmd_ctx *c,
				const struct xrdma_cmd_def *def)
{
	int i;

	for (i = XRDMA_CMD_MAX_ATTRS - 1; i >= 0; i--) {
		if (!c->attrs[i])
			continue;
		if (def->attrs[i].access == XRDMA_ACCESS_READ)
			xrdma_uobj_put(c->attrs[i]);
		else
			xrdma_uobj_put_write(c->attrs[i]);
	}
}

/*
 * Finish a create: store the handle, copy the response, then publish the
 * handle; if the copy fails, destroy the object again and release the
 * handle.
 */
static int xrdma_cmd_commit(struct xrdma_cmd_ctx *c,
			    const struct xrdma_cmd_def *def)
{
	struct xrdma_uobj *uobj = c->uobj;
	int ret;

	*(u32 *)((u8 *)c->buf + def->new_handle) = uobj->handle;
	ret = xrdma_respond(c);
	if (!ret) {
		xrdma_uobj_commit(uobj);
		return 0;
	}
	/* nothing else can hold a fresh, unpublished object */
	WARN_ON(xrdma_uobj_hw_destroy(uobj));
	xrdma_uobj_finish(uobj, NULL);
	return ret;
}

/* The command's lifecycle, after the copy-in. */
static int xrdma_cmd_run(struct xrdma_cmd_ctx *c,
			 const struct xrdma_cmd_def *def)
{
	int ret;

	if (def->check) {
		ret = def->check(c);
		if (ret)
			goto out;
	}
	ret = xrdma_cmd_get_attrs(c, def);
	if (ret)
		goto put;
	if (def->new_type) {
		c->uobj = xrdma_uobj_alloc(c->ufile, def->new_type, 0);
		if (IS_ERR(c->uobj)) {
			ret = PTR_ERR(c->uobj);
			goto put;
		}
	}
	ret = def->fn(c);
	if (def->new_type) {
		if (ret)
			xrdma_uobj_abort(c->uobj);
		else
			ret = xrdma_cmd_commit(c, def);
	}
put:
	xrdma_cmd_put_attrs(c, def);
out:
	if (c->channel)
		xrdma_ev_file_put(c->channel);
	if (!ret && !c->responded)
		ret = xrdma_respond(c);
	return ret;
}

long xrdma_uverbs_ioctl(struct file *filp, unsigned int cmd,
			unsigned long arg)
{
	struct xrdma_ufile *ufile = filp->private_data;
	const struct xrdma_cmd_def *def;
	union xrdma_cmd_buf buf;
	struct xrdma_cmd_ctx c = {
		.ufile = ufile,
		.uptr = (void __user *)arg,
		.usize = _IOC_SIZE(cmd),
		.buf = &buf,
	};
	unsigned int nr = _IOC_NR(cmd);
	int ret;

	if (_IOC_TYPE(cmd) != XRDMA_IOC_MAGIC ||
	    _IOC_DIR(cmd) != (_IOC_READ | _IOC_WRITE))
		return -ENOTTY;
	def = xrdma_cmd_find(nr);
	if (!def)
		return -ENOTTY;
	if (c.usize < def->min_size)
		return -EINVAL;
	if (c.usize > PAGE_SIZE)
		return -E2BIG;
	/* the opener, an importer, or one about to import */
	if (nr != _IOC_NR(XRDMA_IOC_IMPORT_CONTEXT) && !xrdma_ufile_user(ufile))
		return -EPERM;
	c.ksize = def->size;

	down_read(&ufile->hw_rwsem);
	if (ufile->dead) {
		ret = -EIO;
		goto out;
	}
	c.ibdev = ufile->udev->ibdev;
	/* pairs with the release in xrdma_cmd_get_context() */
	if (!smp_load_acquire(&ufile->ucontext) &&
	    nr != _IOC_NR(XRDMA_IOC_GET_CONTEXT)) {
		ret = -EINVAL;
		goto out;
	}
	ret = copy_struct_from_user(&buf, def->size, c.uptr, c.usize);
	if (ret)
		goto out;
	ret = xrdma_cmd_run(&c, def);
out:
	up_read(&ufile->hw_rwsem);
	return ret;
}
