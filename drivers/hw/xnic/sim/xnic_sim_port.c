// SPDX-License-Identifier: GPL-2.0
/*
 * xnic_sim: ports and cables.  Each device has one port with a GID table
 * of XNIC_GID_TABLE_LEN entries (SET_GID; after reset the default GID made
 * of the node GUID, as ROCE_V1 and ROCE_V2); a port reaches itself and the
 * port it is cabled to (the cable module parameter), and nothing else:
 * GID routing (by any valid table entry) and the network headers a UD
 * receive starts with are here.  The
 * cabled peer's engine is the only other one that can reach a device's
 * objects, so waiting for it to leave its section is what makes freeing
 * them safe (xnic_sim_sect_sync()).
 */
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/delay.h>
#include <xrdma/compat.h>
#include "xnic_sim.h"

/**
 * xnic_sim_gid - a port's GID: fe80::/64 with the node GUID
 * @guid: node GUID (CPU order)
 * @gid: 16 bytes
 */
void xnic_sim_gid(u64 guid, u8 gid[16])
{
	memset(gid, 0, 16);
	gid[0] = 0xfe;
	gid[1] = 0x80;
	put_unaligned_be64(guid, gid + 8);
}

/* The IPv4 header checksum of a 20-byte header (checksum field zero). */
static u16 xnic_sim_ip_csum(const u8 *ip)
{
	u32 sum = 0;
	int i;

	for (i = 0; i < 20; i += 2)
		sum += get_unaligned_be16(ip + i);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (u16)~sum;
}

/**
 * xnic_sim_grh - build the 40-byte GRH a UD receive starts with
 * @grh: 40 bytes
 * @sgid: sender's port GID
 * @dgid: destination GID
 * @paylen: payload bytes
 *
 * IPv6-style: version 6, payload length, next header 0x1b, hop limit 1.
 */
void xnic_sim_grh(u8 *grh, const u8 *sgid, const u8 *dgid, u32 paylen)
{
	put_unaligned_be32(6U << 28, grh);
	put_unaligned_be16((u16)paylen, grh + 4);
	grh[6] = 0x1b;
	grh[7] = 1;
	memcpy(grh + 8, sgid, 16);
	memcpy(grh + 24, dgid, 16);
}

/* Whether a GID is an IPv4-mapped IPv6 address (::ffff:a.b.c.d). */
/**
 * xnic_sim_net_hdr - build the 40 bytes a UD/GSI receive buffer starts with
 * @hdr: 40 bytes
 * @sgid: the sender's GID (its table entry)
 * @sgid_type: that entry's type (XNIC_GID_TYPE_*)
 * @dgid: destination GID
 * @paylen: payload bytes
 * @hop_limit: hop limit (TTL)
 * @tclass: traffic class (TOS)
 *
 * A ROCE_V1 entry, or a ROCE_V2 entry holding an IPv6 address: a GRH
 * (IPv6 header: version 6, traffic class, payload length, next header
 * 0x1b for v1 and 17 (UDP) for v2, hop limit, sgid, dgid).  A ROCE_V2
 * entry holding an IPv4-mapped address: 20 zero bytes, then an IPv4
 * header (ihl 5, total length = 20 + 8 (UDP) + payload, DF, protocol 17,
 * header checksum) with the mapped addresses, as rxe does.
 *
 * Return: the CQE's network type, XNIC_CQE_NET_*.
 */
u8 xnic_sim_net_hdr(u8 *hdr, const u8 *sgid, u8 sgid_type, const u8 *dgid,
		    u32 paylen, u8 hop_limit, u8 tclass)
{
	u8 *ip = hdr + 20;

	if (sgid_type == XNIC_GID_TYPE_ROCE_V1 || !xnic_sim_gid_is_v4(sgid)) {
		xnic_sim_grh(hdr, sgid, dgid, paylen);
		put_unaligned_be32(6U << 28 | (u32)tclass << 20, hdr);
		hdr[7] = hop_limit;
		if (sgid_type == XNIC_GID_TYPE_ROCE_V1)
			return XNIC_CQE_NET_ROCE_V1;
		hdr[6] = 17;
		return XNIC_CQE_NET_IPV6;
	}
	memset(hdr, 0, 40);
	ip[0] = 0x45;
	ip[1] = tclass;
	put_unaligned_be16((u16)(20 + 8 + paylen), ip + 2);
	put_unaligned_be16(0x4000, ip + 6);	/* DF */
	ip[8] = hop_limit;
	ip[9] = 17;
	memcpy(ip + 12, sgid + 12, 4);
	memcpy(ip + 16, dgid + 12, 4);
	put_unaligned_be16(xnic_sim_ip_csum(ip), ip + 10);
	return XNIC_CQE_NET_IPV4;
}

/**
 * xnic_sim_gid_reset - the GID table after reset
 * @dev: device
 *
 * Entry 0: the default GID, type ROCE_V1; entry 1: the same, ROCE_V2;
 * the others empty.
 */
void xnic_sim_gid_reset(struct xnic_sim_dev *dev)
{
	unsigned long flags;

	spin_lock_irqsave(&dev->gid_lock, flags);
	memset(dev->gids, 0, sizeof(dev->gids));
	memcpy(dev->gids[0].gid, dev->gid, 16);
	dev->gids[0].type = XNIC_GID_TYPE_ROCE_V1;
	dev->gids[0].valid = true;
	memcpy(dev->gids[1].gid, dev->gid, 16);
	dev->gids[1].type = XNIC_GID_TYPE_ROCE_V2;
	dev->gids[1].valid = true;
	spin_unlock_irqrestore(&dev->gid_lock, flags);
}

/**
 * xnic_sim_set_gid - SET_GID: write or clear one table entry
 * @dev: device
 * @port: 1-based port
 * @index: entry
 * @gid: 16 bytes (ignored when clearing)
 * @type: XNIC_GID_TYPE_*
 * @valid: set (true) or clear the entry
 *
 * Return: 0, or -EINVAL for a bad port, index or type.
 */
int xnic_sim_set_gid(struct xnic_sim_dev *dev, u32 port, u32 index,
		     const u8 *gid, u8 type, bool valid)
{
	struct xnic_sim_gid_entry *e;
	unsigned long flags;

	if (port != 1 || index >= XNIC_GID_TABLE_LEN ||
	    (valid && type != XNIC_GID_TYPE_ROCE_V1 &&
	     type != XNIC_GID_TYPE_ROCE_V2))
		return -EINVAL;
	e = &dev->gids[index];
	spin_lock_irqsave(&dev->gid_lock, flags);
	if (valid) {
		memcpy(e->gid, gid, 16);
		e->type = type;
	} else {
		memset(e->gid, 0, 16);
		e->type = 0;
	}
	e->valid = valid;
	spin_unlock_irqrestore(&dev->gid_lock, flags);
	return 0;
}

/**
 * xnic_sim_sgid - read a source GID table entry
 * @dev: device
 * @index: entry
 * @gid: filled in
 * @type: filled in
 *
 * Return: true if the entry exists and is valid.
 */
bool xnic_sim_sgid(struct xnic_sim_dev *dev, u8 index, u8 gid[16], u8 *type)
{
	unsigned long flags;
	bool valid;

	if (index >= XNIC_GID_TABLE_LEN)
		return false;
	spin_lock_irqsave(&dev->gid_lock, flags);
	valid = dev->gids[index].valid;
	memcpy(gid, dev->gids[index].gid, 16);
	*type = dev->gids[index].type;
	spin_unlock_irqrestore(&dev->gid_lock, flags);
	return valid;
}

/* Whether @gid is a valid entry of @dev's table. */
static bool xnic_sim_has_gid(struct xnic_sim_dev *dev, const u8 *gid)
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

/**
 * xnic_sim_gid_dev - the device a GID reaches from a port
 * @dev: the sending device
 * @gid: destination GID
 *
 * A port reaches itself and the port it is cabled to: the device whose
 * GID table holds @gid, our own port first, then the peer's.
 */
struct xnic_sim_dev *xnic_sim_gid_dev(struct xnic_sim_dev *dev,
				      const u8 *gid)
{
	if (xnic_sim_has_gid(dev, gid))
		return dev;
	if (dev->peer && xnic_sim_has_gid(dev->peer, gid))
		return dev->peer;
	return NULL;
}

/* Bytes of a path MTU code (XNIC_MTU_*); 4096 for any other. */
u32 xnic_sim_mtu_bytes(u8 mtu)
{
	return mtu >= XNIC_MTU_256 && mtu <= XNIC_MTU_4096 ? 128U << mtu : 4096;
}

/* Parse one decimal device number ending at @end. */
static int xnic_sim_parse_num(const char *s, const char *end, int ndev)
{
	int v = 0;

	if (s == end || end - s > 3)
		return -EINVAL;
	for (; s < end; s++) {
		if (*s < '0' || *s > '9')
			return -EINVAL;
		v = v * 10 + (*s - '0');
	}
	return v < ndev ? v : -EINVAL;
}

/**
 * xnic_sim_parse_cable - parse the cable module parameter
 * @s: NULL or "" for the default (device 2k with 2k + 1), "none", or a
 *     comma-separated list of pairs "a-b"
 * @ndev: number of devices
 * @peer: ndev entries: the device each one is cabled to, or -1
 *
 * Return: 0, or -EINVAL (bad syntax, a device out of range, cabled twice
 * or to itself).
 */
int xnic_sim_parse_cable(const char *s, int ndev, int *peer)
{
	int i;

	for (i = 0; i < ndev; i++)
		peer[i] = -1;
	if (!s || !*s || !strcmp(s, "\n")) {
		for (i = 0; i + 1 < ndev; i += 2) {
			peer[i] = i + 1;
			peer[i + 1] = i;
		}
		return 0;
	}
	if (!strcmp(s, "none") || !strcmp(s, "none\n"))
		return 0;
	while (*s && *s != '\n') {
		const char *dash = strchr(s, '-');
		const char *end = s + strcspn(s, ",\n");
		int a, b;

		if (!dash || dash > end)
			return -EINVAL;
		a = xnic_sim_parse_num(s, dash, ndev);
		b = xnic_sim_parse_num(dash + 1, end, ndev);
		if (a < 0 || b < 0 || a == b || peer[a] >= 0 || peer[b] >= 0)
			return -EINVAL;
		peer[a] = b;
		peer[b] = a;
		s = *end == ',' ? end + 1 : end;
	}
	return 0;
}

/**
 * xnic_sim_sect_sync - wait until no other engine uses what we unpublished
 * @dev: the device whose objects were unpublished (its own engine calls)
 *
 * Only the cabled peer's engine can reach @dev's objects (a port reaches
 * itself and its peer); it is waited for if it is inside a section.
 * Never called inside a section.
 */
void xnic_sim_sect_sync(struct xnic_sim_dev *dev)
{
	struct xnic_sim_dev *p = dev->peer;
	unsigned long s;
	int spins = 0;

	smp_mb();	/* the unpublishing before the peer's count is read */
	if (!p)
		return;
	s = READ_ONCE(p->sect);
	if (!(s & 1))
		return;
	while (READ_ONCE(p->sect) == s) {
		if (++spins < 100)
			cpu_relax();
		else
			usleep_range(10, 50);
	}
	smp_mb();	/* the peer's accesses before our frees */
}

/* ------------------------------------------------------------------ */
/* Multicast groups                                                    */

/**
 * xnic_sim_gid_mcast - whether a GID names a multicast group
 * @gid: 16 bytes
 *
 * An IPv6 multicast address (ff00::/8) or an IPv4-mapped one
 * (::ffff:224.0.0.0/100), as rdma_cm makes them.
 */
bool xnic_sim_gid_mcast(const u8 *gid)
{
	return gid[0] == 0xff ||
	       (xnic_sim_gid_is_v4(gid) && (gid[12] & 0xf0) == 0xe0);
}

/* The group of @gid, or NULL; under mcg_lock. */
static struct xnic_sim_mcg *xnic_sim_mcg_find(struct xnic_sim_dev *dev,
					      const u8 *gid)
{
	u32 i;

	for (i = 0; i < dev->n_mcg; i++)
		if (!memcmp(dev->mcg[i].gid, gid, 16))
			return &dev->mcg[i];
	return NULL;
}

/* Index of @qpn in @g, or -1; under mcg_lock. */
static int xnic_sim_mcg_pos(const struct xnic_sim_mcg *g, u32 qpn)
{
	u32 i;

	for (i = 0; i < g->nqp; i++)
		if (g->qpn[i] == qpn)
			return i;
	return -1;
}

/* Take member @pos out of @g, and @g out of the table once empty. */
static void xnic_sim_mcg_remove(struct xnic_sim_dev *dev,
				struct xnic_sim_mcg *g, u32 pos)
{
	g->qpn[pos] = g->qpn[--g->nqp];
	dev->n_mcg_att--;
	if (!g->nqp) {
		*g = dev->mcg[--dev->n_mcg];
		memset(&dev->mcg[dev->n_mcg], 0, sizeof(*g));
	}
}

/**
 * xnic_sim_mcg_attach - ATTACH_MCAST: QP @qpn joins group @gid
 * @dev: device (its engine)
 * @qpn: a UD QP of @dev (checked by the caller)
 * @gid: the group
 *
 * A QP attached already stays attached once (success).
 * Return: 0, -EINVAL for a GID that is not multicast, -ENOSPC when the
 * group holds XNIC_MCG_MAX_QP QPs, the table XNIC_MCG_MAX groups or the
 * device XNIC_MCG_MAX_ATTACH attachments.
 */
int xnic_sim_mcg_attach(struct xnic_sim_dev *dev, u32 qpn, const u8 *gid)
{
	struct xnic_sim_mcg *g;
	int ret = 0;

	if (!xnic_sim_gid_mcast(gid))
		return -EINVAL;
	spin_lock(&dev->mcg_lock);
	g = xnic_sim_mcg_find(dev, gid);
	if (g && xnic_sim_mcg_pos(g, qpn) >= 0)
		goto out;
	if ((g && g->nqp == XNIC_MCG_MAX_QP) ||
	    (!g && dev->n_mcg == XNIC_MCG_MAX) ||
	    dev->n_mcg_att == XNIC_MCG_MAX_ATTACH) {
		ret = -ENOSPC;
		goto out;
	}
	if (!g) {
		g = &dev->mcg[dev->n_mcg++];
		memcpy(g->gid, gid, 16);
	}
	g->qpn[g->nqp++] = qpn;
	dev->n_mcg_att++;
out:
	spin_unlock(&dev->mcg_lock);
	return ret;
}

/**
 * xnic_sim_mcg_detach - DETACH_MCAST: QP @qpn leaves group @gid
 * @dev: device (its engine)
 * @qpn: the QP
 * @gid: the group
 *
 * Return: 0, or -EINVAL if @qpn is not attached to @gid.
 */
int xnic_sim_mcg_detach(struct xnic_sim_dev *dev, u32 qpn, const u8 *gid)
{
	struct xnic_sim_mcg *g;
	int pos = -1;

	spin_lock(&dev->mcg_lock);
	g = xnic_sim_mcg_find(dev, gid);
	if (g)
		pos = xnic_sim_mcg_pos(g, qpn);
	if (pos >= 0)
		xnic_sim_mcg_remove(dev, g, pos);
	spin_unlock(&dev->mcg_lock);
	return pos >= 0 ? 0 : -EINVAL;
}

/**
 * xnic_sim_mcg_detach_qp - take a QP out of every group (DESTROY_QP)
 * @dev: device (its engine)
 * @qpn: the QP
 */
void xnic_sim_mcg_detach_qp(struct xnic_sim_dev *dev, u32 qpn)
{
	u32 i = 0;
	int pos;

	spin_lock(&dev->mcg_lock);
	while (i < dev->n_mcg) {
		pos = xnic_sim_mcg_pos(&dev->mcg[i], qpn);
		if (pos < 0) {
			i++;
			continue;
		}
		/* an emptied group is replaced by the last: look again */
		xnic_sim_mcg_remove(dev, &dev->mcg[i], pos);
	}
	spin_unlock(&dev->mcg_lock);
}

/**
 * xnic_sim_mcg_members - the QPs of a group, as they are now
 * @dev: device (any engine)
 * @gid: the group
 * @qpn: filled with their numbers
 *
 * A copy: a QP detached after the copy may still get the message in
 * flight; the caller looks each QP up in the table (inside its section),
 * so a destroyed one is not reached.  Return: how many (0: no group).
 */
u32 xnic_sim_mcg_members(struct xnic_sim_dev *dev, const u8 *gid,
			 u32 qpn[XNIC_MCG_MAX_QP])
{
	struct xnic_sim_mcg *g;
	u32 n = 0;

	spin_lock(&dev->mcg_lock);
	g = xnic_sim_mcg_find(dev, gid);
	if (g) {
		n = g->nqp;
		memcpy(qpn, g->qpn, n * sizeof(*qpn));
	}
	spin_unlock(&dev->mcg_lock);
	return n;
}

/**
 * xnic_sim_mcg_reset - no groups (reset, or a device being cleared)
 * @dev: device (its engine, or none running)
 */
void xnic_sim_mcg_reset(struct xnic_sim_dev *dev)
{
	spin_lock(&dev->mcg_lock);
	dev->n_mcg = 0;
	dev->n_mcg_att = 0;
	memset(dev->mcg, 0, sizeof(dev->mcg));
	spin_unlock(&dev->mcg_lock);
}
