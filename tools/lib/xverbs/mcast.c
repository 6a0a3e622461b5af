// SPDX-License-Identifier: GPL-2.0
/*
 * xverbs: UD multicast -- ibv_attach_mcast/ibv_detach_mcast (and their
 * ibv_cmd_* forms, which providers call), one ioctl each.  The kernel
 * checks everything (a UD QP, a multicast GID, the device's limits) and
 * keeps the QP's groups: attaching again is 0, detaching a group the QP
 * is not attached to is EINVAL, destroying the QP detaches it.  As
 * rdma-core's providers, the calls return 0 or an errno value, errno
 * set too.
 */
#include <errno.h>
#include <string.h>
#include "xverbs.h"

static int xv_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
		    uint16_t lid, unsigned long req)
{
	struct xrdma_cmd_mcast c;
	int ret;

	if (!qp || !gid)
		return errno = EINVAL;
	memset(&c, 0, sizeof(c));
	memcpy(c.gid, gid->raw, sizeof(c.gid));
	c.qp_handle = qp->handle;
	c.lid = lid;
	ret = xv_ioctl(qp->context, req, &c);
	if (ret)
		errno = ret;
	return ret;
}

int ibv_cmd_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
			 uint16_t lid)
{
	return xv_mcast(qp, gid, lid, XRDMA_IOC_ATTACH_MCAST);
}

int ibv_cmd_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
			 uint16_t lid)
{
	return xv_mcast(qp, gid, lid, XRDMA_IOC_DETACH_MCAST);
}

int ibv_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
		     uint16_t lid)
{
	return ibv_cmd_attach_mcast(qp, gid, lid);
}

int ibv_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
		     uint16_t lid)
{
	return ibv_cmd_detach_mcast(qp, gid, lid);
}
