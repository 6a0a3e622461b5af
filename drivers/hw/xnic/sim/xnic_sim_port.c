// SPDX-License-Identifier: GPL-2.0
/*
 * xnic_sim: ports and cables.  Each device has one port, its GID made of
 * the node GUID; a port reaches itself and the port it is cabled to (the
 * cable module parameter), and nothing else: GID routing is here.  The
 * cabled peer's engine is the only other one that can reach a device's
 * objects, so waiting for it to leave its section is what makes freeing
 * them safe (xnic_sim_sect_sync()).
 */
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/delay.h>
#include <asm/unaligned.h>
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

/**
 * xnic_sim_gid_dev - the device a GID reaches from a port
 * @dev: the sending device
 * @gid: destination GID
 *
 * A port reaches itself and the port it is cabled to.
 */
struct xnic_sim_dev *xnic_sim_gid_dev(struct xnic_sim_dev *dev,
				      const u8 *gid)
{
	if (!memcmp(gid, dev->gid, sizeof(dev->gid)))
		return dev;
	if (dev->peer && !memcmp(gid, dev->peer->gid, sizeof(dev->gid)))
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
