// SPDX-License-Identifier: GPL-2.0
/*
 * xverbs: devices, contexts, events and the small helpers of libibverbs.
 */
#include <assert.h>
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>
#include "xverbs.h"

/* ------------------------------------------------------------ devices */

static const char *xv_sysfs_path = "/sys";

static void xv_sysfs_path_init(void)
{
	const char *env = getuid() == geteuid() ? getenv("SYSFS_PATH") : NULL;
	char *dup;
	size_t len;

	if (!env)
		return;
	dup = strndup(env, IBV_SYSFS_PATH_MAX);
	if (!dup)
		return;
	len = strlen(dup);
	while (len > 0 && dup[len - 1] == '/')
		dup[--len] = 0;
	xv_sysfs_path = dup;
}

static pthread_mutex_t xv_dev_lock = PTHREAD_MUTEX_INITIALIZER;
static struct xv_device *xv_devices;	/* never freed: contexts point here */

#define XV_MAX_DEVICES	256
#define XV_IB_CLASS	"/sys/class/infiniband"
#define XV_NL_BUF	32768		/* the kernel's largest dump skb */
#define XV_NL_TIMEOUT	2000		/* ms for the whole dump */

/* what one listing found of one class directory uverbsN */
struct xv_found {
	int devnum;
	int ib_index;
	uint64_t node_guid;		/* network byte order */
	char uvname[33];		/* uverbsN */
	char name[IBV_SYSFS_NAME_MAX];
	char ibdev_path[IBV_SYSFS_PATH_MAX];
	struct xv_device *dev;
};

static int xv_read_attr(const char *dir, const char *attr, char *buf,
			size_t len)
{
	char path[512];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, attr);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
	return (int)n;
}

static uint64_t xv_parse_guid(const char *s)
{
	unsigned int a, b, c, d;
	uint64_t g;

	if (sscanf(s, "%x:%x:%x:%x", &a, &b, &c, &d) != 4)
		return 0;
	g = (uint64_t)a << 48 | (uint64_t)b << 32 | (uint64_t)c << 16 | d;
	return htobe64(g);
}

/*
 * Class directory uverbsN: its device's names and node GUID.  ibdev_path
 * is ib_core's directory of the device when ib_core has one of that name
 * with the same node GUID (xrdma_ib registered it), else ours.
 */
static bool xv_scan_one(const char *uvname, struct xv_found *f)
{
	char dir[256], buf[128];
	int devnum, len;

	if (strncmp(uvname, "uverbs", 6) || !isdigit((unsigned char)uvname[6]) ||
	    sscanf(uvname, "uverbs%d%n", &devnum, &len) != 1 ||
	    uvname[len] || len >= (int)sizeof(f->uvname))
		return false;
	snprintf(dir, sizeof(dir), "%s/%s", XV_SYSFS_CLASS, uvname);
	if (xv_read_attr(dir, "ibdev", buf, sizeof(buf)) <= 0 || !buf[0] ||
	    strlen(buf) >= sizeof(f->name))
		return false;
	memset(f, 0, sizeof(*f));
	f->devnum = devnum;
	f->ib_index = -1;
	strcpy(f->uvname, uvname);
	strcpy(f->name, buf);
	if (xv_read_attr(dir, "node_guid", buf, sizeof(buf)) > 0)
		f->node_guid = xv_parse_guid(buf);
	snprintf(f->ibdev_path, sizeof(f->ibdev_path), "%s/%s", XV_IB_CLASS,
		 f->name);
	if (!f->node_guid ||
	    xv_read_attr(f->ibdev_path, "node_guid", buf, sizeof(buf)) <= 0 ||
	    xv_parse_guid(buf) != f->node_guid)
		snprintf(f->ibdev_path, sizeof(f->ibdev_path), "%s", dir);
	return true;
}

/*
 * One RDMA_NLDEV_CMD_GET message: its device's index goes to idx[i] of the
 * device found with the same name and node GUID, if any.
 */
static void xv_nl_dev(const struct nlmsghdr *h, const struct xv_found *f,
		      int n, int *idx)
{
	const struct nlattr *a = (const void *)((const char *)h + NLMSG_HDRLEN);
	size_t rem = h->nlmsg_len - NLMSG_HDRLEN;
	bool have_index = false, have_guid = false;
	const char *name = NULL;
	uint32_t index = 0;
	uint64_t guid = 0;
	int i;

	while (rem >= sizeof(*a) && a->nla_len >= sizeof(*a) &&
	       a->nla_len <= rem) {
		const char *data = (const char *)a + NLA_HDRLEN;
		size_t len = a->nla_len - NLA_HDRLEN;
		size_t step = NLA_ALIGN(a->nla_len);

		switch (a->nla_type & NLA_TYPE_MASK) {
		case RDMA_NLDEV_ATTR_DEV_INDEX:
			if (len == sizeof(index)) {
				memcpy(&index, data, len);
				have_index = true;
			}
			break;
		case RDMA_NLDEV_ATTR_DEV_NAME:
			if (len && memchr(data, 0, len))
				name = data;
			break;
		case RDMA_NLDEV_ATTR_NODE_GUID:	/* host byte order */
			if (len == sizeof(guid)) {
				memcpy(&guid, data, len);
				have_guid = true;
			}
			break;
		}
		if (step >= rem)
			break;
		rem -= step;
		a = (const void *)((const char *)a + step);
	}
	if (!have_index || !have_guid || !name || index > INT32_MAX)
		return;
	for (i = 0; i < n; i++)
		if (!strcmp(f[i].name, name) && be64toh(f[i].node_guid) == guid)
			idx[i] = (int)index;
}

static int64_t xv_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * ib_core's index of every device found, as rdma-core's libibverbs reads
 * it: one RDMA netlink dump of RDMA_NLDEV_CMD_GET, matched by name and
 * node GUID.  All or nothing: a failure, a truncated or an unfinished
 * dump within XV_NL_TIMEOUT leaves every index -1.
 */
static void xv_nl_ib_index(struct xv_found *f, int n)
{
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	struct nlmsghdr req = {
		.nlmsg_len = NLMSG_LENGTH(0),
		.nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV,
					       RDMA_NLDEV_CMD_GET),
		.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP,
		.nlmsg_seq = (uint32_t)xv_now_ms(),
	};
	int64_t end = xv_now_ms() + XV_NL_TIMEOUT;
	int *idx = NULL;
	char *buf = NULL;
	int fd, i;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK,
		    NETLINK_RDMA);
	if (fd < 0)
		return;
	buf = malloc(XV_NL_BUF);
	idx = malloc(n * sizeof(*idx));
	if (!buf || !idx)
		goto out;
	for (i = 0; i < n; i++)
		idx[i] = -1;
	if (sendto(fd, &req, req.nlmsg_len, 0, (struct sockaddr *)&kernel,
		   sizeof(kernel)) != (ssize_t)req.nlmsg_len)
		goto out;
	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		struct sockaddr_nl from;
		socklen_t flen = sizeof(from);
		int64_t left = end - xv_now_ms();
		struct nlmsghdr *h;
		ssize_t len;

		if (left <= 0)
			goto out;
		if (poll(&pfd, 1, (int)left) < 0 && errno != EINTR)
			goto out;
		len = recvfrom(fd, buf, XV_NL_BUF, MSG_TRUNC,
			       (struct sockaddr *)&from, &flen);
		if (len < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			goto out;
		}
		if (len > XV_NL_BUF)
			goto out;	/* truncated */
		if (flen != sizeof(from) || from.nl_pid)
			continue;	/* not the kernel's */
		for (h = (void *)buf; NLMSG_OK(h, len);
		     h = NLMSG_NEXT(h, len)) {
			if (h->nlmsg_seq != req.nlmsg_seq)
				continue;
			if (h->nlmsg_type == NLMSG_ERROR)
				goto out;
			if (h->nlmsg_type == NLMSG_DONE) {
				int err = 0;

				if (h->nlmsg_len >= NLMSG_LENGTH(sizeof(err)))
					memcpy(&err, NLMSG_DATA(h),
					       sizeof(err));
				if (err < 0)
					goto out;
				for (i = 0; i < n; i++)
					f[i].ib_index = idx[i];
				goto out;
			}
			if (h->nlmsg_type == req.nlmsg_type)
				xv_nl_dev(h, f, n, idx);
		}
	}
out:
	free(idx);
	free(buf);
	close(fd);
}

/* the device found, as known from an earlier listing or new */
static struct xv_device *xv_device_of(const struct xv_found *f)
{
	struct xv_device *d;

	for (d = xv_devices; d; d = d->next)
		if (d->devnum == f->devnum && d->ib_index == f->ib_index &&
		    d->node_guid == f->node_guid &&
		    !strcmp(d->ibdev.name, f->name) &&
		    !strcmp(d->ibdev.ibdev_path, f->ibdev_path))
			return d;
	d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->devnum = f->devnum;
	d->ib_index = f->ib_index;
	d->node_guid = f->node_guid;
	strcpy(d->ibdev.name, f->name);
	snprintf(d->ibdev.dev_name, sizeof(d->ibdev.dev_name), "xrdma_%s",
		 f->uvname);
	snprintf(d->ibdev.dev_path, sizeof(d->ibdev.dev_path), "%s/%s",
		 XV_SYSFS_CLASS, f->uvname);
	strcpy(d->ibdev.ibdev_path, f->ibdev_path);
	snprintf(d->devnode, sizeof(d->devnode), "/dev/infiniband/xrdma_%s",
		 f->uvname);
	d->ibdev.node_type = IBV_NODE_CA;
	d->ibdev.transport_type = IBV_TRANSPORT_IB;
	d->next = xv_devices;
	xv_devices = d;
	return d;
}

static int xv_found_cmp(const void *a, const void *b)
{
	const struct xv_found *x = a, *y = b;

	return (x->devnum > y->devnum) - (x->devnum < y->devnum);
}

/*
 * The xrdma devices of /sys/class/xrdma, uverbs0 first.  Names, paths and
 * ib_core's index are read now, as rdma-core's library reads them when it
 * lists devices: a list taken before xrdma_ib registered a device shows
 * index -1 and our sysfs directory as ibdev_path, the next one ib_core's.
 */
struct ibv_device **ibv_get_device_list(int *num)
{
	struct ibv_device **list = NULL;
	struct xv_found *found;
	bool ask_ib = false;
	struct dirent *de;
	int n = 0, i, err;
	DIR *dir;

	if (num)
		*num = 0;
	found = calloc(XV_MAX_DEVICES, sizeof(*found));
	if (!found) {
		errno = ENOMEM;
		return NULL;
	}
	dir = opendir(XV_SYSFS_CLASS);
	while (dir && (de = readdir(dir)) && n < XV_MAX_DEVICES)
		if (xv_scan_one(de->d_name, &found[n]))
			n++;
	if (dir)
		closedir(dir);
	qsort(found, n, sizeof(*found), xv_found_cmp);
	/* no ib_core directory of ours: nothing to ask (nor to load) */
	for (i = 0; i < n; i++)
		if (strncmp(found[i].ibdev_path, XV_SYSFS_CLASS "/",
			    strlen(XV_SYSFS_CLASS "/")))
			ask_ib = true;
	if (ask_ib)
		xv_nl_ib_index(found, n);

	pthread_mutex_lock(&xv_dev_lock);
	for (i = 0; i < n; i++) {
		found[i].dev = xv_device_of(&found[i]);
		if (!found[i].dev)
			break;
	}
	pthread_mutex_unlock(&xv_dev_lock);
	err = i < n ? ENOMEM : 0;
	if (!err)
		list = calloc(n + 1, sizeof(*list));
	if (!list) {
		free(found);
		errno = err ? err : ENOMEM;
		return NULL;
	}
	for (i = 0; i < n; i++)
		list[i] = &found[i].dev->ibdev;
	free(found);
	if (num)
		*num = n;
	return list;
}

void ibv_free_device_list(struct ibv_device **list)
{
	free(list);
}

const char *ibv_get_device_name(struct ibv_device *device)
{
	return device->name;
}

__be64 ibv_get_device_guid(struct ibv_device *device)
{
	return ((struct xv_device *)device)->node_guid;
}

/* ib_core's index of the device (RDMA netlink), -1 when it has none */
int ibv_get_device_index(struct ibv_device *device)
{
	return ((struct xv_device *)device)->ib_index;
}

/*
 * rdma-core's: "/sys", or $SYSFS_PATH without trailing slashes when the
 * caller is not set-uid.  Computed once; the string lives as long as the
 * process.
 */
const char *ibv_get_sysfs_path(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, xv_sysfs_path_init);
	return xv_sysfs_path;
}

/*
 * rdma-core's: what "dir/file" holds, without its newline, terminated;
 * -1 when it cannot be read or would not fit with its terminator.
 */
int ibv_read_sysfs_file(const char *dir, const char *file, char *buf,
			size_t size)
{
	char *path;
	ssize_t n;
	int fd;

	if (asprintf(&path, "%s/%s", dir, file) < 0)
		return -1;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	free(path);
	if (fd < 0)
		return -1;
	n = read(fd, buf, size);
	close(fd);
	if (n < 0)
		return -1;
	if (n > 0 && buf[n - 1] == '\n')
		buf[--n] = 0;
	else if ((size_t)n < size)
		buf[n] = 0;
	else
		return -1;	/* no room for the terminator */
	return (int)n;
}
