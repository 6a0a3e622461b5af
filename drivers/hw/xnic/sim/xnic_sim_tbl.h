/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xnic_sim: object tables (xnic_sim_tbl.c): 24-bit numbers, two levels.
 * Included by xnic_sim.h; nothing here knows the objects it holds.
 */
#ifndef _XNIC_SIM_TBL_H
#define _XNIC_SIM_TBL_H

#include <linux/bits.h>
#include <linux/compiler.h>
#include <linux/rcupdate.h>
#include <linux/types.h>

#define XNIC_SIM_IDX_BITS	24	/* object numbers and MR indexes */

#define XNIC_SIM_TBL_SHIFT	12
#define XNIC_SIM_TBL_CHUNK	BIT(XNIC_SIM_TBL_SHIFT)
#define XNIC_SIM_TBL_TOP	(1U << (XNIC_SIM_IDX_BITS - XNIC_SIM_TBL_SHIFT))

struct xnic_sim_tbl_chunk {
	u32 used;
	struct rcu_head rcu;
	void *ent[XNIC_SIM_TBL_CHUNK];
};

/**
 * struct xnic_sim_tbl - number -> object
 * @top: chunks of XNIC_SIM_TBL_CHUNK entries, allocated when needed
 * @count: objects in the table
 * @max: most objects allowed (the QUERY_CAPS limit)
 *
 * One writer (the owning device's engine thread); readers load entries
 * with READ_ONCE.  An emptied chunk is unpublished by erase and handed to
 * the caller, who frees it (xnic_sim_tbl_free_chunk()) once no reader can
 * hold it.
 *
 * Why not an xarray, and sections rather than SRCU: every WQE looks up
 * objects (its MRs, the responder's QP and MRs, often on the peer
 * device) by numbers the driver and its users chose, so a lookup is two
 * dependent loads with no lock and no read-side section to enter, and a
 * table has one writer, which needs no xa_lock.  What must be waited for
 * before a free is one known reader, the cabled peer's engine, so a
 * destroying command waits for that engine to leave its section (a
 * sequence count, xnic_sim_sect_sync()) -- microseconds -- where
 * synchronize_srcu() would wait for a grace period on every DESTROY and
 * DEREG.  debugfs walks the tables under rcu_read_lock(); emptied chunks
 * and QPs are freed after an RCU grace period for it.
 */
struct xnic_sim_tbl {
	struct xnic_sim_tbl_chunk **top;
	u32 count;
	u32 max;
};

int xnic_sim_tbl_init(struct xnic_sim_tbl *t, u32 max);
void xnic_sim_tbl_destroy(struct xnic_sim_tbl *t);
int xnic_sim_tbl_insert(struct xnic_sim_tbl *t, u32 idx, void *p);
void *xnic_sim_tbl_erase(struct xnic_sim_tbl *t, u32 idx,
			 struct xnic_sim_tbl_chunk **empty);
void *xnic_sim_tbl_next(const struct xnic_sim_tbl *t, u32 *idx);
void xnic_sim_tbl_free_chunk(struct xnic_sim_tbl_chunk *c);
struct xnic_sim_tbl_chunk **xnic_sim_tbl_take(struct xnic_sim_tbl *t);
void xnic_sim_tbl_drop(struct xnic_sim_tbl_chunk **old, void (*fn)(void *p));

struct xnic_sim_dev;

/**
 * struct xnic_sim_obj_type - how a command makes an object of a kind
 * @size: bytes of the object
 * @init: fills in a zeroed object from the command's @arg; returns a
 *	  command status (anything but XNIC_CMD_OK undoes the creation)
 * @free: frees an object that never became visible, init's allocations
 *	  too (NULL: kfree())
 */
struct xnic_sim_obj_type {
	size_t size;
	u32 (*init)(struct xnic_sim_dev *dev, void *obj, const void *arg);
	void (*free)(void *obj);
};

u32 xnic_sim_obj_create(struct xnic_sim_dev *dev, struct xnic_sim_tbl *t,
			u32 idx, const struct xnic_sim_obj_type *type,
			const void *arg, void **objp);

/* Lookup: O(1), lock-free. */
static inline void *xnic_sim_tbl_get(const struct xnic_sim_tbl *t, u32 idx)
{
	struct xnic_sim_tbl_chunk *c;

	if (idx >= (1U << XNIC_SIM_IDX_BITS))
		return NULL;
	c = READ_ONCE(t->top[idx >> XNIC_SIM_TBL_SHIFT]);
	return c ? READ_ONCE(c->ent[idx & (XNIC_SIM_TBL_CHUNK - 1)]) : NULL;
}

#endif /* _XNIC_SIM_TBL_H */
