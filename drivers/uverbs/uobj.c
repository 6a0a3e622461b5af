// SPDX-License-Identifier: GPL-2.0
/*
 * Per-file handle table.
 *
 * Create is two-phase (the dispatcher in ioctl.c drives it):
 * xrdma_uobj_alloc() reserves a handle that lookups do not see, the object
 * is created, the response copied to userspace, then xrdma_uobj_commit()
 * publishes the handle (or xrdma_uobj_abort() releases it).  Each handle
 * has a use count: commands that use an object hold it shared
 * (xrdma_uobj_get()), destroy needs it exclusive and fails with -EBUSY
 * instead of waiting.  Lookups and the use count are under the
 * xarray's lock, so a uobj is freed only after it left the table.
 *
 * Handles are allocated cyclically (1..INT_MAX, never 0): a destroyed
 * handle is not handed out again until the counter wraps, so a stale handle
 * gets -ENOENT rather than silently naming a newer object.
 */
#include <linux/slab.h>
#include "uverbs.h"

struct xrdma_uobj *xrdma_uobj_alloc(struct xrdma_ufile *ufile, u32 type,
				    u64 cookie)
{
	struct xrdma_uobj *uobj;
	int ret;

	uobj = kzalloc(sizeof(*uobj), GFP_KERNEL_ACCOUNT);
	if (!uobj)
		return ERR_PTR(-ENOMEM);
	uobj->ufile = ufile;
	uobj->type = type;
	uobj->user_cookie = cookie;
	INIT_LIST_HEAD(&uobj->comp_list);
	INIT_LIST_HEAD(&uobj->comp_ev.list);
	INIT_LIST_HEAD(&uobj->comp_ev.obj_list);
	INIT_LIST_HEAD(&uobj->async_list);
	/* events of the object go to its creator's process */
	uobj->async = xrdma_ufile_async_get(ufile);
	/*
	 * Cyclic, not lowest free: a destroyed handle stays -ENOENT until the
	 * counter wraps, instead of naming the next object at once.
	 */
	ret = xa_alloc_cyclic(&ufile->handles, &uobj->handle, XA_ZERO_ENTRY,
			      XA_LIMIT(1, INT_MAX), &ufile->next_handle,
			      GFP_KERNEL);
	if (ret < 0) {
		if (uobj->async)
			xrdma_ev_file_put(uobj->async);
		kfree(uobj);
		return ERR_PTR(ret);
	}
	return uobj;
}

void xrdma_uobj_commit(struct xrdma_uobj *uobj)
{
	xa_store(&uobj->ufile->handles, uobj->handle, uobj, GFP_KERNEL);
}

/* Undo a reservation whose object was not created (a CQ's channel goes). */
void xrdma_uobj_abort(struct xrdma_uobj *uobj)
{
	xa_erase(&uobj->ufile->handles, uobj->handle);
	if (uobj->channel)
		xrdma_ev_file_put(uobj->channel);
	if (uobj->async)
		xrdma_ev_file_put(uobj->async);
	kfree(uobj);
}

/*
 * Look a handle up and hold it: shared (a use more, unless it is being
 * destroyed) or exclusive (only if nobody uses it).
 */
static struct xrdma_uobj *xrdma_uobj_lookup(struct xrdma_ufile *ufile,
					    u32 type, u32 handle,
					    bool exclusive)
{
	struct xrdma_uobj *uobj;
	bool busy;

	xa_lock(&ufile->handles);
	uobj = xa_load(&ufile->handles, handle);
	if (!uobj) {
		uobj = ERR_PTR(-ENOENT);
	} else if (uobj->type != type) {
		uobj = ERR_PTR(-EINVAL);
	} else {
		if (exclusive)
			busy = atomic_cmpxchg(&uobj->usecnt, 0, -1) != 0;
		else
			busy = !atomic_inc_unless_negative(&uobj->usecnt);
		if (busy)
			uobj = ERR_PTR(-EBUSY);
	}
	xa_unlock(&ufile->handles);
	return uobj;
}

/**
 * xrdma_uobj_get - look up a handle and hold its object shared
 * @ufile: the file
 * @type: expected XRDMA_OBJ_* type
 * @handle: from userspace
 *
 * Return: the uobj, or ERR_PTR: -ENOENT (no such handle in this file),
 * -EINVAL (another type), -EBUSY (being destroyed).
 */
struct xrdma_uobj *xrdma_uobj_get(struct xrdma_ufile *ufile, u32 type,
				  u32 handle)
{
	return xrdma_uobj_lookup(ufile, type, handle, false);
}

void xrdma_uobj_put(struct xrdma_uobj *uobj)
{
	atomic_dec(&uobj->usecnt);
}

/**
 * xrdma_uobj_get_write - look up a handle and hold its object exclusively
 * @ufile: the file
 * @type: expected XRDMA_OBJ_* type
 * @handle: from userspace
 *
 * For a command that changes or destroys the object (REREG_MR, DESTROY):
 * no other command uses or destroys it until xrdma_uobj_put_write().
 *
 * Return: the uobj, or ERR_PTR: -ENOENT (no such handle in this file),
 * -EINVAL (another type), -EBUSY (in use by another command or by a
 * dependent object).
 */
struct xrdma_uobj *xrdma_uobj_get_write(struct xrdma_ufile *ufile, u32 type,
					u32 handle)
{
	return xrdma_uobj_lookup(ufile, type, handle, true);
}

void xrdma_uobj_put_write(struct xrdma_uobj *uobj)
{
	atomic_set_release(&uobj->usecnt, 0);
}

int xrdma_uobj_hw_destroy(struct xrdma_uobj *uobj)
{
	switch (uobj->type) {
	case XRDMA_OBJ_PD:
		return xrdma_dealloc_pd(uobj->object);
	case XRDMA_OBJ_CQ:
		return xrdma_destroy_cq(uobj->object);
	case XRDMA_OBJ_QP:
		if (uobj->qp_open)
			return xrdma_close_qp(uobj->qp_open);
		return xrdma_destroy_qp(uobj->object);
	case XRDMA_OBJ_SRQ:
		return xrdma_destroy_srq(uobj->object);
	case XRDMA_OBJ_MR:
		return xrdma_dereg_mr(uobj->object);
	case XRDMA_OBJ_AH:
		return xrdma_destroy_ah(uobj->object);
	case XRDMA_OBJ_MW:
		return xrdma_dealloc_mw(uobj->object);
	case XRDMA_OBJ_DM:
		return xrdma_free_dm(uobj->object);
	case XRDMA_OBJ_XRCD:
		return xrdma_uverbs_close_xrcd(uobj);
	}
	return -EINVAL;
}

/*
 * The object is gone (or a create is undone): forget its events, its
 * channel and its handle, committed or only reserved.
 */
void xrdma_uobj_finish(struct xrdma_uobj *uobj, struct xrdma_cmd_destroy *resp)
{
	xrdma_uobj_drop_events(uobj);
	if (resp) {
		resp->comp_events_reported = uobj->comp_events_reported;
		resp->async_events_reported = uobj->async_events_reported;
	}
	if (uobj->channel)
		xrdma_ev_file_put(uobj->channel);
	if (uobj->async)
		xrdma_ev_file_put(uobj->async);
	/* the XRCD handle may be destroyed now */
	if (uobj->xrcd_uobj)
		xrdma_uobj_put(uobj->xrcd_uobj);
	xa_erase(&uobj->ufile->handles, uobj->handle);
	kfree(uobj);
}

/*
 * Destroy every object of a file in dependency order.  Called with
 * hw_rwsem held for write: no command runs.
 */
void xrdma_uobj_destroy_all(struct xrdma_ufile *ufile)
{
	/*
	 * windows before the MRs they may be bound to; XRC domains after the
	 * QPs and SRQs in them (each holds a use of its XRCD handle)
	 */
	static const u32 order[] = { XRDMA_OBJ_QP, XRDMA_OBJ_SRQ, XRDMA_OBJ_CQ,
				     XRDMA_OBJ_MW, XRDMA_OBJ_MR, XRDMA_OBJ_AH,
				     XRDMA_OBJ_PD, XRDMA_OBJ_DM,
				     XRDMA_OBJ_XRCD };
	struct xrdma_uobj *uobj;
	unsigned long index;
	int i;

	for (i = 0; i < ARRAY_SIZE(order); i++) {
		xa_for_each(&ufile->handles, index, uobj) {
			if (uobj->type != order[i])
				continue;
			if (WARN_ON(xrdma_uobj_hw_destroy(uobj)))
				continue;
			xrdma_uobj_finish(uobj, NULL);
		}
	}
}
