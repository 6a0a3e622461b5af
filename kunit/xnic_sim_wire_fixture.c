// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit fixture of the port on a wire: see xnic_sim_wire_fixture.h.
 */
#include <kunit/test.h>
#include <linux/slab.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/etherdevice.h>
#include <linux/if_arp.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include <linux/icmpv6.h>
#include <net/ndisc.h>
#include "xnic_sim_wire_fixture.h"

/* the running case's context (KUnit runs one case at a time) */
static struct tw_ctx *tw_cur;

struct tw_ctx *tw_ctx(struct kunit *test)
{
	return tw_cur;
}

struct xnic_sim_dev *tw_sim(struct tw_ctx *c, int i)
{
	return c->td->dev[i].sim;
}

void tw_mac(struct tw_ctx *c, int i, u8 mac[6])
{
	xnic_sim_eth_mac(tw_sim(c, i)->guid, mac);
}

/* Whether @frame is RoCEv2 (IPv4 or IPv6, UDP 4791); no VLAN tag. */
bool tw_is_roce(const u8 *f, u32 len)
{
	u16 proto;

	if (len < ETH_HLEN)
		return false;
	proto = get_unaligned_be16(f + 12);
	if (proto == ETH_P_IP && len >= ETH_HLEN + 28) {
		const struct iphdr *ip = (const void *)(f + ETH_HLEN);
		u32 ihl = ip->ihl * 4;

		return ip->protocol == IPPROTO_UDP &&
		       len >= ETH_HLEN + ihl + 8 &&
		       get_unaligned_be16(f + ETH_HLEN + ihl + 2) ==
		       XNIC_SIM_ROCE_PORT;
	}
	if (proto == ETH_P_IPV6 && len >= ETH_HLEN + 48)
		return f[ETH_HLEN + 6] == IPPROTO_UDP &&
		       get_unaligned_be16(f + ETH_HLEN + 42) ==
		       XNIC_SIM_ROCE_PORT;
	return false;
}

/* Whether @gid is in device @dev's GID table. */
static bool tw_gid_of(struct xnic_sim_dev *dev, const u8 *gid)
{
	unsigned long flags;
	bool found = false;
	int i;

	spin_lock_irqsave(&dev->gid_lock, flags);
	for (i = 0; i < XNIC_GID_TABLE_LEN && !found; i++)
		found = dev->gids[i].valid && !memcmp(dev->gids[i].gid, gid, 16);
	spin_unlock_irqrestore(&dev->gid_lock, flags);
	return found;
}

/*
 * An ARP request or neighbour solicitation from @l->from for an address
 * of the other device: teach the asker the other's MAC (as its answer
 * would).  Return: whether it was one.
 */
static bool tw_answer(struct tw_link *l, const u8 *f, u32 len)
{
	struct xnic_sim_dev *asker = tw_sim(l->c, l->from);
	struct xnic_sim_dev *other = tw_sim(l->c, !l->from);
	u16 proto = get_unaligned_be16(f + 12);
	u8 gid[16] = {}, mac[6];

	if (proto == ETH_P_ARP && len >= ETH_HLEN + 28 &&
	    get_unaligned_be16(f + ETH_HLEN + 6) == ARPOP_REQUEST) {
		gid[10] = 0xff;
		gid[11] = 0xff;
		memcpy(gid + 12, f + ETH_HLEN + 24, 4);
	} else if (proto == ETH_P_IPV6 && len >= ETH_HLEN + 40 + 24 &&
		   f[ETH_HLEN + 6] == IPPROTO_ICMPV6 &&
		   f[ETH_HLEN + 40] == NDISC_NEIGHBOUR_SOLICITATION) {
		memcpy(gid, f + ETH_HLEN + 40 + 8, 16);
	} else {
		return false;
	}
	if (!tw_gid_of(other, gid))
		return false;
	xnic_sim_eth_mac(other->guid, mac);
	xnic_sim_wire_neigh_learn(asker, gid, mac);
	return true;
}

static bool tw_chance(struct tw_link *l, u32 pm)
{
	return pm && prandom_u32_state(&l->rnd) % 1000 < pm;
}

/* Deliver @skb to the other device; consumes it. */
static void tw_deliver(struct tw_link *l, struct sk_buff *skb)
{
	l->delivered++;
	xnic_sim_wire_inject(tw_sim(l->c, !l->from), skb);
}

/* The fake wire's transmit (xnic_sim_wire_tx_fn), the sender's engine. */
static void tw_tx(void *ctx, struct xnic_sim_dev *dev, struct sk_buff *skb)
{
	struct tw_link *l = ctx;
	struct sk_buff *dup = NULL, *held = NULL;
	bool faults;

	spin_lock_bh(&l->lock);
	l->frames++;
	if (l->capture) {
		struct sk_buff *copy = NULL;

		if (skb_queue_len(&l->cap) < TW_CAP_MAX)
			copy = skb_copy(skb, GFP_ATOMIC);
		if (copy)
			__skb_queue_tail(&l->cap, copy);
		else
			l->cap_missed++;
	}
	if (skb->len >= ETH_HLEN && tw_answer(l, skb->data, skb->len))
		l->answered++;
	faults = !l->filter || l->filter(skb->data, skb->len);
	if (l->cut || (faults && (l->drop_n || tw_chance(l, l->drop_pm)))) {
		if (!l->cut && l->drop_n)
			l->drop_n--;
		l->dropped++;
		spin_unlock_bh(&l->lock);
		kfree_skb(skb);
		return;
	}
	if (faults && (l->corrupt_n || tw_chance(l, l->corrupt_pm)) &&
	    skb->len > ETH_HLEN + 5) {
		if (l->corrupt_n)
			l->corrupt_n--;
		/* a byte the ICRC covers (BTH or payload of a RoCE frame) */
		skb->data[skb->len - 5] ^= 0xff;
		l->corrupted++;
	}
	if (faults && (l->dup_n || tw_chance(l, l->dup_pm))) {
		if (l->dup_n)
			l->dup_n--;
		dup = skb_copy(skb, GFP_ATOMIC);
		if (dup)
			l->duplicated++;
	}
	if (faults && !l->held && (l->reorder_n || tw_chance(l, l->reorder_pm))) {
		if (l->reorder_n)
			l->reorder_n--;
		l->held = skb;
		l->reordered++;
		skb = NULL;
	} else if (l->held) {
		held = l->held;
		l->held = NULL;
	}
	spin_unlock_bh(&l->lock);
	if (skb)
		tw_deliver(l, skb);
	if (dup)
		tw_deliver(l, dup);
	if (held)
		tw_deliver(l, held);
}

void tw_drop_next(struct tw_ctx *c, int from, u32 n)
{
	spin_lock_bh(&c->link[from].lock);
	c->link[from].drop_n = n;
	spin_unlock_bh(&c->link[from].lock);
}

void tw_corrupt_next(struct tw_ctx *c, int from, u32 n)
{
	spin_lock_bh(&c->link[from].lock);
	c->link[from].corrupt_n = n;
	spin_unlock_bh(&c->link[from].lock);
}

void tw_dup_next(struct tw_ctx *c, int from, u32 n)
{
	spin_lock_bh(&c->link[from].lock);
	c->link[from].dup_n = n;
	spin_unlock_bh(&c->link[from].lock);
}

void tw_reorder_next(struct tw_ctx *c, int from, u32 n)
{
	spin_lock_bh(&c->link[from].lock);
	c->link[from].reorder_n = n;
	spin_unlock_bh(&c->link[from].lock);
}

void tw_rates(struct tw_ctx *c, int from, u32 drop, u32 corrupt, u32 dup,
	      u32 reorder, u64 seed)
{
	struct tw_link *l = &c->link[from];

	spin_lock_bh(&l->lock);
	prandom_seed_state(&l->rnd, seed);
	l->drop_pm = drop;
	l->corrupt_pm = corrupt;
	l->dup_pm = dup;
	l->reorder_pm = reorder;
	spin_unlock_bh(&l->lock);
}

void tw_filter(struct tw_ctx *c, int from, bool (*filter)(const u8 *, u32))
{
	spin_lock_bh(&c->link[from].lock);
	c->link[from].filter = filter;
	spin_unlock_bh(&c->link[from].lock);
}

void tw_cut(struct tw_ctx *c, int from, bool cut)
{
	spin_lock_bh(&c->link[from].lock);
	c->link[from].cut = cut;
	spin_unlock_bh(&c->link[from].lock);
}

void tw_release(struct tw_ctx *c, int from)
{
	struct tw_link *l = &c->link[from];
	struct sk_buff *held;

	spin_lock_bh(&l->lock);
	held = l->held;
	l->held = NULL;
	spin_unlock_bh(&l->lock);
	if (held)
		tw_deliver(l, held);
}

void tw_capture(struct tw_ctx *c, int from, bool on)
{
	spin_lock_bh(&c->link[from].lock);
	c->link[from].capture = on;
	spin_unlock_bh(&c->link[from].lock);
}

static void tw_skb_free(struct kunit_resource *res)
{
	kfree_skb(res->data);
}

struct sk_buff *tw_captured(struct tw_ctx *c, int from)
{
	struct tw_link *l = &c->link[from];
	struct sk_buff *skb;

	spin_lock_bh(&l->lock);
	skb = __skb_dequeue(&l->cap);
	spin_unlock_bh(&l->lock);
	if (skb)
		kt_defer(c->test, tw_skb_free, skb);
	return skb;
}

u32 tw_captured_count(struct tw_ctx *c, int from)
{
	return skb_queue_len_lockless(&c->link[from].cap);
}

bool tw_wait_frames(struct tw_ctx *c, int from, u64 n, unsigned int ms)
{
	unsigned long end = jiffies + msecs_to_jiffies(ms);
	struct tw_link *l = &c->link[from];

	while (READ_ONCE(l->frames) < n) {
		if (time_after(jiffies, end))
			return false;
		usleep_range(200, 400);
	}
	return true;
}

void tw_neigh(struct tw_ctx *c, int i, const u8 *gid, const u8 *mac)
{
	KUNIT_ASSERT_TRUE(c->test,
			  xnic_sim_wire_neigh_learn(tw_sim(c, i), gid, mac));
}

void tw_inject(struct tw_ctx *c, int i, const void *frame, u32 len)
{
	struct sk_buff *skb = alloc_skb(len, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(c->test, skb);
	skb_put_data(skb, frame, len);
	xnic_sim_wire_inject(tw_sim(c, i), skb);
}

int tw_init(struct kunit *test)
{
	struct tw_ctx *c;
	int ret, i;

	ret = td_init(test);
	if (ret)
		return ret;
	c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	c->test = test;
	c->td = test->priv;
	for (i = 0; i < 2; i++) {
		struct tw_link *l = &c->link[i];

		l->c = c;
		l->from = i;
		spin_lock_init(&l->lock);
		skb_queue_head_init(&l->cap);
		prandom_seed_state(&l->rnd, 1);
		/* no cable: the wire is the only way between them */
		c->td->dev[i].sim->peer = NULL;
	}
	tw_cur = c;
	for (i = 0; i < 2; i++) {
		ret = xnic_sim_wire_attach_fake(c->td->dev[i].sim, tw_tx,
						&c->link[i]);
		if (ret)
			return ret;
	}
	return 0;
}

void tw_exit(struct kunit *test)
{
	struct tw_ctx *c = tw_cur;
	int i;

	if (c) {
		for (i = 0; i < 2; i++)
			if (c->td->dev[i].sim)
				xnic_sim_wire_detach(c->td->dev[i].sim);
		for (i = 0; i < 2; i++) {
			kfree_skb(c->link[i].held);
			c->link[i].held = NULL;
			skb_queue_purge(&c->link[i].cap);
		}
	}
	tw_cur = NULL;
	td_exit(test);
}

struct tw_ctx *tw_ctx_up(struct kunit *test)
{
	td_ctx_up(test);
	return tw_cur;
}
