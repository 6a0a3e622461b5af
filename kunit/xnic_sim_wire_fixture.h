/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit fixture of the port on a wire: the two model devices of
 * xnic_sim_dev_fixture.h (engines and the td_* driver), not cabled but
 * joined by a fake wire (xnic_sim_wire_attach_fake()): what one device
 * transmits is injected into the other as its rx_handler would have
 * received it.  Per direction, faults for the next N frames or at a rate
 * (per mille, from a seed), and a capture of the frames.  A suite has
 * .init = tw_init and .exit = tw_exit; a case starts with tw_ctx_up().
 *
 * MAC resolution: default GIDs (link-local EUI-64) give the MAC
 * directly; for other GIDs (e.g. IPv4-mapped ones set with SET_GID) the
 * wire answers the ARP request or neighbour solicitation a device sends
 * for an address in the other device's GID table by teaching the asker
 * the other's MAC, so the requester's retransmission finds it (or call
 * tw_neigh() to teach it beforehand).
 *
 * Frames seen by the wire run in the sending engine's context: the
 * controls may be changed at any time from the test (they take the
 * link's lock).
 */
#ifndef _XRDMA_KUNIT_XNIC_SIM_WIRE_FIXTURE_H
#define _XRDMA_KUNIT_XNIC_SIM_WIRE_FIXTURE_H

#include <linux/skbuff.h>
#include <linux/random.h>
#include "xnic_sim_dev_fixture.h"

/* frames a capture keeps (later ones are counted, not kept) */
#define TW_CAP_MAX	512

/* One direction: the frames device @from transmits, towards the other. */
struct tw_link {
	struct tw_ctx *c;
	int from;
	spinlock_t lock;		/* everything below */
	/* faults of the next N frames, applied in this order */
	u32 drop_n;
	u32 corrupt_n;
	u32 dup_n;
	u32 reorder_n;
	/* faults at a rate, per mille, drawn from @rnd */
	u32 drop_pm;
	u32 corrupt_pm;
	u32 dup_pm;
	u32 reorder_pm;
	struct rnd_state rnd;
	bool cut;			/* every frame dropped */
	/* only frames @filter accepts are subject to the faults (NULL: all) */
	bool (*filter)(const u8 *frame, u32 len);
	struct sk_buff *held;		/* a reordered frame, sent after the next */
	bool capture;
	struct sk_buff_head cap;
	/* counts */
	u64 frames;			/* frames the device transmitted */
	u64 delivered;			/* frames injected into the other */
	u64 dropped;
	u64 corrupted;
	u64 duplicated;
	u64 reordered;
	u64 cap_missed;
	u64 answered;			/* ARP / ND answered by the fixture */
};

struct tw_ctx {
	struct kunit *test;
	struct td_ctx *td;		/* td->dev[0], td->dev[1] */
	struct tw_link link[2];		/* link[i]: what dev[i] transmits */
};

int tw_init(struct kunit *test);
void tw_exit(struct kunit *test);
/* The context of the running case (after tw_init). */
struct tw_ctx *tw_ctx(struct kunit *test);
/* td_ctx_up() both devices (enabled, with their queues); the context. */
struct tw_ctx *tw_ctx_up(struct kunit *test);
/* The model device @i (0, 1). */
struct xnic_sim_dev *tw_sim(struct tw_ctx *c, int i);

/* Faults on the frames device @from transmits: the next @n of them. */
void tw_drop_next(struct tw_ctx *c, int from, u32 n);
void tw_corrupt_next(struct tw_ctx *c, int from, u32 n);
void tw_dup_next(struct tw_ctx *c, int from, u32 n);
void tw_reorder_next(struct tw_ctx *c, int from, u32 n);
/* ... or at rates, per mille, from @seed (all 0: none) */
void tw_rates(struct tw_ctx *c, int from, u32 drop, u32 corrupt, u32 dup,
	      u32 reorder, u64 seed);
/* Only frames @filter accepts get faults (NULL: all); e.g. tw_is_roce */
void tw_filter(struct tw_ctx *c, int from, bool (*filter)(const u8 *, u32));
bool tw_is_roce(const u8 *frame, u32 len);
/* Deliver a held (reordered) frame now, if any. */
void tw_release(struct tw_ctx *c, int from);
/* Cut the wire (true: every frame dropped) or mend it. */
void tw_cut(struct tw_ctx *c, int from, bool cut);

/* Keep copies of the frames @from transmits (as sent, before faults). */
void tw_capture(struct tw_ctx *c, int from, bool on);
/* The oldest captured frame, or NULL; freed after the test. */
struct sk_buff *tw_captured(struct tw_ctx *c, int from);
u32 tw_captured_count(struct tw_ctx *c, int from);
/* Wait until @from transmitted at least @n frames (false: timeout). */
bool tw_wait_frames(struct tw_ctx *c, int from, u64 n, unsigned int ms);

/* Teach device @i that @gid is at @mac. */
void tw_neigh(struct tw_ctx *c, int i, const u8 *gid, const u8 *mac);
/* Device @i receives @frame as from its wire (copied). */
void tw_inject(struct tw_ctx *c, int i, const void *frame, u32 len);
/* The MAC of device @i's port. */
void tw_mac(struct tw_ctx *c, int i, u8 mac[6]);

#endif
