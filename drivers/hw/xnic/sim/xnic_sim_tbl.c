// SPDX-License-Identifier: GPL-2.0
/*
 * xnic_sim: object tables, number -> object (QPs, CQs, SRQs, MRs): two
 * levels of chunks, O(1) lock-free lookup, one writer (the owner's
 * engine).  Why not an xarray: see struct xnic_sim_tbl (xnic_sim.h).
 */
#include <linux/slab.h>
#include <linux/mm.h>
#include "xnic_sim.h"

/**
 * xnic_sim_tbl_init - an empty table
 * @t: the table
 * @max: most objects it may hold
 */
int xnic_sim_tbl_init(struct xnic_sim_tbl *t, u32 max)
{
	t->top = kvcalloc(XNIC_SIM_TBL_TOP, sizeof(*t->top), GFP_KERNEL);
	if (!t->top)
		return -ENOMEM;
	t->count = 0;
	t->max = max;
	return 0;
}

/**
 * xnic_sim_tbl_destroy - free a table's memory (not its objects)
 * @t: the table; no reader may use it any more
 */
void xnic_sim_tbl_destroy(struct xnic_sim_tbl *t)
{
	u32 i;

	if (!t->top)
		return;
	for (i = 0; i < XNIC_SIM_TBL_TOP; i++)
		kvfree(t->top[i]);
	kvfree(t->top);
	t->top = NULL;
}

/**
 * xnic_sim_tbl_insert - publish an object under a number
 * @t: the table
 * @idx: the number
 * @p: the object, initialised (readers may see it at once)
 *
 * Return: 0, -EINVAL (number too large), -ENOSPC (table full), -EEXIST,
 * -ENOMEM.
 */
int xnic_sim_tbl_insert(struct xnic_sim_tbl *t, u32 idx, void *p)
{
	struct xnic_sim_tbl_chunk *c;
	u32 lo = idx & (XNIC_SIM_TBL_CHUNK - 1);

	if (idx >= (1U << XNIC_SIM_IDX_BITS) || !p)
		return -EINVAL;
	c = t->top[idx >> XNIC_SIM_TBL_SHIFT];
	if (c && c->ent[lo])
		return -EEXIST;
	if (t->count >= t->max)
		return -ENOSPC;
	if (!c) {
		c = kvzalloc(sizeof(*c), GFP_KERNEL);
		if (!c)
			return -ENOMEM;
		/* the zeroed chunk before readers can find it */
		smp_store_release(&t->top[idx >> XNIC_SIM_TBL_SHIFT], c);
	}
	/* the initialised object before readers can find it */
	smp_store_release(&c->ent[lo], p);
	c->used++;
	t->count++;
	return 0;
}

/**
 * xnic_sim_tbl_erase - unpublish the object of a number
 * @t: the table
 * @idx: the number
 * @empty: set to a chunk this emptied (else left alone); the caller frees
 *	   it with xnic_sim_tbl_free_chunk() once no reader can use it
 *
 * Return: the object, or NULL.
 */
void *xnic_sim_tbl_erase(struct xnic_sim_tbl *t, u32 idx,
			 struct xnic_sim_tbl_chunk **empty)
{
	struct xnic_sim_tbl_chunk *c;
	u32 lo = idx & (XNIC_SIM_TBL_CHUNK - 1);
	void *p;

	if (idx >= (1U << XNIC_SIM_IDX_BITS))
		return NULL;
	c = t->top[idx >> XNIC_SIM_TBL_SHIFT];
	if (!c || !c->ent[lo])
		return NULL;
	p = c->ent[lo];
	WRITE_ONCE(c->ent[lo], NULL);
	t->count--;
	if (!--c->used) {
		WRITE_ONCE(t->top[idx >> XNIC_SIM_TBL_SHIFT], NULL);
		*empty = c;
	}
	return p;
}

/**
 * xnic_sim_tbl_next - the first object at or after a number
 * @t: the table
 * @idx: where to start; set to the object's number
 *
 * Return: the object, or NULL if there is none.
 */
void *xnic_sim_tbl_next(const struct xnic_sim_tbl *t, u32 *idx)
{
	u32 i = *idx;

	while (i < (1U << XNIC_SIM_IDX_BITS)) {
		struct xnic_sim_tbl_chunk *c;
		void *p;

		c = READ_ONCE(t->top[i >> XNIC_SIM_TBL_SHIFT]);
		if (!c) {
			i = (i | (XNIC_SIM_TBL_CHUNK - 1)) + 1;
			continue;
		}
		p = READ_ONCE(c->ent[i & (XNIC_SIM_TBL_CHUNK - 1)]);
		if (p) {
			*idx = i;
			return p;
		}
		i++;
	}
	return NULL;
}

/**
 * xnic_sim_tbl_free_chunk - free a chunk xnic_sim_tbl_erase() emptied
 * @c: the chunk, or NULL
 *
 * After an RCU grace period: debugfs walks tables under rcu_read_lock().
 */
void xnic_sim_tbl_free_chunk(struct xnic_sim_tbl_chunk *c)
{
	if (c)
		kvfree_rcu(c, rcu);
}

/* Detach every chunk of a table: it is empty for readers afterwards. */
struct xnic_sim_tbl_chunk **xnic_sim_tbl_take(struct xnic_sim_tbl *t)
{
	struct xnic_sim_tbl_chunk **old = kvcalloc(XNIC_SIM_TBL_TOP,
						   sizeof(*old), GFP_KERNEL);
	u32 i;

	if (!old)
		return NULL;
	for (i = 0; i < XNIC_SIM_TBL_TOP; i++) {
		old[i] = t->top[i];
		WRITE_ONCE(t->top[i], NULL);
	}
	t->count = 0;
	return old;
}

/* Free every object of detached chunks with @fn, then the chunks. */
void xnic_sim_tbl_drop(struct xnic_sim_tbl_chunk **old, void (*fn)(void *p))
{
	u32 i, j;

	for (i = 0; i < XNIC_SIM_TBL_TOP; i++) {
		if (!old[i])
			continue;
		for (j = 0; j < XNIC_SIM_TBL_CHUNK; j++)
			if (old[i]->ent[j])
				fn(old[i]->ent[j]);
		xnic_sim_tbl_free_chunk(old[i]);
	}
	kvfree(old);
}

/**
 * xnic_sim_obj_create - the end of every object-creating command
 * @dev: the device (its engine)
 * @t: the object's table
 * @idx: its number in @t (the command's, checked by nobody else)
 * @type: the object's kind
 * @arg: what @type->init reads (the command, or what it found)
 * @objp: the object, when created (may be NULL)
 *
 * Called once the command's input passed its checks.  The object is in
 * @t, and so visible to every engine, only once @type->init filled it in.
 *
 * Return: XNIC_CMD_OK; XNIC_CMD_BAD_INDEX if @idx is in use,
 * XNIC_CMD_NO_RESOURCES without memory or beyond the table's limit, or
 * what @type->init returned -- with nothing left behind.
 */
u32 xnic_sim_obj_create(struct xnic_sim_dev *dev, struct xnic_sim_tbl *t,
			u32 idx, const struct xnic_sim_obj_type *type,
			const void *arg, void **objp)
{
	void *obj;
	u32 st;

	if (xnic_sim_tbl_get(t, idx))
		return XNIC_CMD_BAD_INDEX;
	obj = kzalloc(type->size, GFP_KERNEL);
	if (!obj)
		return XNIC_CMD_NO_RESOURCES;
	st = type->init(dev, obj, arg);
	if (st == XNIC_CMD_OK)
		st = xnic_sim_errno_status(xnic_sim_tbl_insert(t, idx, obj));
	if (st != XNIC_CMD_OK) {
		if (type->free)
			type->free(obj);
		else
			kfree(obj);
		return st;
	}
	if (objp)
		*objp = obj;
	return XNIC_CMD_OK;
}
