// SPDX-License-Identifier: GPL-2.0
/*
 * ksmbd_compat.so: LD_PRELOAD shim for ksmbd.mountd of Debian 12's
 * ksmbd-tools 3.4.7 talking to Debian 12's 6.1 ksmbd.
 *
 * The kernel's fix for CVE-2024-26811 ("ksmbd: validate payload size in
 * ipc response", in Debian's 6.1 since 6.1.83) turned a reserved word of
 * struct ksmbd_share_config_response into payload_sz, the length of the
 * path and veto list after the fixed part, and rejects a reply whose
 * payload_sz does not match the message (for a pipe share) or is 0 (for
 * a disk share).  ksmbd-tools set that word only from 3.5.2 on; 3.4.7
 * leaves it 0, so every tree connect, IPC$ included, fails with
 * STATUS_BAD_NETWORK_NAME.  Debian 12 ships exactly that pair.
 *
 * The shim wraps sendmsg(): in a generic netlink message whose attribute
 * is KSMBD_EVENT_SHARE_CONFIG_RESPONSE, it stores the attribute's length
 * past the fixed part into payload_sz, which is what newer ksmbd-tools
 * send.  Nothing else is touched; the offsets are the ABI's (the fixed
 * part is 536 bytes in both layouts, payload_sz at 528 in the new one,
 * inside reserved[] in the old).  A test fixture only.
 */
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include <linux/genetlink.h>

#define KSMBD_EVENT_SHARE_CONFIG_RESPONSE	7
#define SHARE_RESP_FIXED			536
#define SHARE_RESP_PAYLOAD_SZ			528

typedef ssize_t (*sendmsg_fn)(int, const struct msghdr *, int);

static void fix_share_config_response(struct iovec *iov)
{
	unsigned char *p = iov->iov_base;
	size_t len = iov->iov_len, off;
	struct nlmsghdr nlh;

	off = 0;
	while (off + NLMSG_HDRLEN <= len) {
		size_t end, a;

		memcpy(&nlh, p + off, sizeof(nlh));
		if (nlh.nlmsg_len < NLMSG_HDRLEN || off + nlh.nlmsg_len > len)
			return;
		end = off + nlh.nlmsg_len;
		a = off + NLMSG_HDRLEN + GENL_HDRLEN;
		/* ksmbd-tools: genl command = attribute type = event */
		if (a > end || p[off + NLMSG_HDRLEN] !=
			       KSMBD_EVENT_SHARE_CONFIG_RESPONSE) {
			off += NLMSG_ALIGN(nlh.nlmsg_len);
			continue;
		}
		while (a + NLA_HDRLEN <= end) {
			struct nlattr nla;

			memcpy(&nla, p + a, sizeof(nla));
			if (nla.nla_len < NLA_HDRLEN || a + nla.nla_len > end)
				break;
			if ((nla.nla_type & NLA_TYPE_MASK) ==
			    KSMBD_EVENT_SHARE_CONFIG_RESPONSE &&
			    nla.nla_len >= NLA_HDRLEN + SHARE_RESP_FIXED) {
				uint32_t psz = nla.nla_len - NLA_HDRLEN -
					       SHARE_RESP_FIXED;

				memcpy(p + a + NLA_HDRLEN + SHARE_RESP_PAYLOAD_SZ,
				       &psz, sizeof(psz));
			}
			a += NLA_ALIGN(nla.nla_len);
		}
		off += NLMSG_ALIGN(nlh.nlmsg_len);
	}
}

ssize_t sendmsg(int fd, const struct msghdr *msg, int flags)
{
	static sendmsg_fn real;
	int domain = 0;
	socklen_t dl = sizeof(domain);

	if (!real)
		real = (sendmsg_fn)dlsym(RTLD_NEXT, "sendmsg");
	if (!real)
		return -1;
	if (msg && msg->msg_iovlen >= 1 &&
	    !getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &dl) &&
	    domain == AF_NETLINK)
		fix_share_config_response(&msg->msg_iov[0]);
	return real(fd, msg, flags);
}
