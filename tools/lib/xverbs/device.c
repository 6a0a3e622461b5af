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

/* ------------------------------------------------------------ contexts */

/*
 * A child of the process that joined the context (fork) uses it as
 * rdma-core lets it: the kernel answers EPERM to a process that has not
 * joined the file's context, so the child joins it (IMPORT_CONTEXT, which
 * any holder of the fd may issue) on its first command.  The child gets
 * no async event fd of its own here (ibv_import_device gives one).
 */
static bool xv_join_child(struct ibv_context *ctx)
{
	struct xv_context *xctx = to_xctx(ctx);
	struct xrdma_cmd_import_context ic = { 0 };
	struct xnic_ucontext_resp uresp;
	pid_t me = getpid();

	if (!xctx->pid || xctx->pid == me)
		return false;
	ic.udata.out = (uintptr_t)&uresp;
	ic.udata.out_len = sizeof(uresp);
	if (ioctl(ctx->cmd_fd, XRDMA_IOC_IMPORT_CONTEXT, &ic))
		return false;
	xctx->pid = me;
	return true;
}

int xv_ioctl(struct ibv_context *ctx, unsigned long req, void *arg)
{
	if (!ioctl(ctx->cmd_fd, req, arg))
		return 0;
	if (errno != EPERM || !xv_join_child(ctx))
		return errno;
	if (ioctl(ctx->cmd_fd, req, arg))
		return errno;
	return 0;
}

int xv_destroy_obj(struct ibv_context *ctx, uint32_t type, uint32_t handle,
		   struct xrdma_cmd_destroy *out)
{
	struct xrdma_cmd_destroy c = { .type = type, .handle = handle };
	int ret = xv_ioctl(ctx, XRDMA_IOC_DESTROY, &c);

	/* a disassociated device has already destroyed everything */
	if (ret == EIO)
		ret = 0;
	if (out)
		*out = c;
	return ret;
}

/* wait until the application acknowledged every event reported */
void xv_wait_events(pthread_mutex_t *mutex, pthread_cond_t *cond,
		    uint32_t *completed, uint32_t want)
{
	pthread_mutex_lock(mutex);
	while (*completed != want)
		pthread_cond_wait(cond, mutex);
	pthread_mutex_unlock(mutex);
}

/*
 * A context on the command fd @fd of @dev: a new one (GET_CONTEXT), or the
 * fd's existing one joined by this process (@import: IMPORT_CONTEXT, whose
 * structure is GET_CONTEXT's).  The fd is the context's on success only.
 */
struct ibv_context *xv_open_fd(struct xv_device *dev, int fd, bool import)
{
	struct xrdma_cmd_get_context gc = { 0 };
	struct xrdma_cmd_fd afd = { 0 };
	struct xv_context *xctx;
	struct ibv_context *ctx;
	void *db;

	xctx = calloc(1, sizeof(*xctx));
	if (!xctx) {
		errno = ENOMEM;
		return NULL;
	}
	ctx = &xctx->vctx.context;
	ctx->cmd_fd = fd;
	ctx->async_fd = -1;
	ctx->device = &dev->ibdev;
	xctx->dev = dev;
	gc.udata.out = (uintptr_t)&xctx->uresp;
	gc.udata.out_len = sizeof(xctx->uresp);
	static_assert(sizeof(struct xrdma_cmd_get_context) ==
		       sizeof(struct xrdma_cmd_import_context),
		       "IMPORT_CONTEXT has GET_CONTEXT's layout");
	errno = xv_ioctl(ctx, import ? XRDMA_IOC_IMPORT_CONTEXT :
			 XRDMA_IOC_GET_CONTEXT, &gc);
	if (errno)
		goto err_free;
	if (gc.abi_version != XRDMA_ABI_VERSION ||
	    xctx->uresp.abi_version != XNIC_ABI_VERSION) {
		errno = EPROTONOSUPPORT;
		goto err_free;
	}
	ctx->num_comp_vectors = (int)gc.num_comp_vectors;
	db = mmap(NULL, XNIC_DB_PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
		  fd, (off_t)xctx->uresp.db_page_offset);
	if (db == MAP_FAILED)
		goto err_free;
	xctx->db = db;
	errno = xv_ioctl(ctx, XRDMA_IOC_GET_ASYNC_FD, &afd);
	if (errno)
		goto err_unmap;
	ctx->async_fd = afd.fd;
	pthread_mutex_init(&ctx->mutex, NULL);
	pthread_rwlock_init(&xctx->qp_lock, NULL);
	xctx->vctx.sz = sizeof(xctx->vctx);
	ctx->abi_compat = __VERBS_ABI_IS_EXTENDED;
	xv_set_ops(xctx);
	xctx->pid = getpid();
	return ctx;

err_unmap:
	munmap(xctx->db, XNIC_DB_PAGE_SIZE);
err_free:
	free(xctx);
	return NULL;
}

struct ibv_context *ibv_open_device(struct ibv_device *device)
{
	struct xv_device *dev = (struct xv_device *)device;
	struct ibv_context *ctx;
	int fd, err;

	fd = open(dev->devnode, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	ctx = xv_open_fd(dev, fd, false);
	if (!ctx) {
		err = errno;
		close(fd);
		errno = err;
	}
	return ctx;
}

int ibv_close_device(struct ibv_context *ctx)
{
	struct xv_context *xctx = to_xctx(ctx);

	munmap(xctx->db, XNIC_DB_PAGE_SIZE);
	if (ctx->async_fd >= 0)
		close(ctx->async_fd);
	/* closing the fd destroys what the application left behind */
	close(ctx->cmd_fd);
	pthread_rwlock_destroy(&xctx->qp_lock);
	pthread_mutex_destroy(&ctx->mutex);
	free(xctx);
	return 0;
}

/* ------------------------------------------------------------ events */

struct ibv_comp_channel *
ibv_create_comp_channel(struct ibv_context *ctx)
{
	struct xrdma_cmd_fd c = { 0 };
	struct ibv_comp_channel *ch;

	ch = calloc(1, sizeof(*ch));
	if (!ch) {
		errno = ENOMEM;
		return NULL;
	}
	errno = xv_ioctl(ctx, XRDMA_IOC_CREATE_COMP_CHANNEL, &c);
	if (errno) {
		free(ch);
		return NULL;
	}
	ch->context = ctx;
	ch->fd = c.fd;
	ch->refcnt = 0;
	return ch;
}

int ibv_destroy_comp_channel(struct ibv_comp_channel *ch)
{
	struct ibv_context *ctx = ch->context;
	int ret = 0;

	pthread_mutex_lock(&ctx->mutex);
	if (ch->refcnt) {
		ret = EBUSY;
	} else {
		close(ch->fd);
		free(ch);
	}
	pthread_mutex_unlock(&ctx->mutex);
	return ret;
}

int ibv_get_cq_event(struct ibv_comp_channel *ch,
		     struct ibv_cq **cq, void **cq_context)
{
	struct xrdma_comp_event ev;
	ssize_t n;

	n = read(ch->fd, &ev, sizeof(ev));
	if (n != (ssize_t)sizeof(ev))
		return -1;
	*cq = (struct ibv_cq *)(uintptr_t)ev.cq_cookie;
	*cq_context = (*cq)->cq_context;
	return 0;
}

void ibv_ack_cq_events(struct ibv_cq *cq, unsigned int nevents)
{
	pthread_mutex_lock(&cq->mutex);
	cq->comp_events_completed += nevents;
	pthread_cond_signal(&cq->cond);
	pthread_mutex_unlock(&cq->mutex);
}

int ibv_get_async_event(struct ibv_context *ctx,
			struct ibv_async_event *event)
{
	struct xrdma_async_event ev;
	ssize_t n;

	for (;;) {
		n = read(ctx->async_fd, &ev, sizeof(ev));
		if (n != (ssize_t)sizeof(ev))
			return -1;
		if (ev.event_type != XRDMA_UVERBS_EVENT_OVERFLOW)
			break;
	}
	event->event_type = (enum ibv_event_type)ev.event_type;
	switch (event->event_type) {
	case IBV_EVENT_CQ_ERR:
		event->element.cq = (struct ibv_cq *)(uintptr_t)ev.element;
		break;
	case IBV_EVENT_QP_FATAL:
	case IBV_EVENT_QP_REQ_ERR:
	case IBV_EVENT_QP_ACCESS_ERR:
	case IBV_EVENT_COMM_EST:
	case IBV_EVENT_SQ_DRAINED:
	case IBV_EVENT_PATH_MIG:
	case IBV_EVENT_PATH_MIG_ERR:
	case IBV_EVENT_QP_LAST_WQE_REACHED:
		event->element.qp = (struct ibv_qp *)(uintptr_t)ev.element;
		break;
	case IBV_EVENT_SRQ_ERR:
	case IBV_EVENT_SRQ_LIMIT_REACHED:
		event->element.srq = (struct ibv_srq *)(uintptr_t)ev.element;
		break;
	case IBV_EVENT_DEVICE_FATAL:
		event->element.port_num = 0;
		break;
	default:
		event->element.port_num = (int)ev.element;
		break;
	}
	return 0;
}

static void xv_ack(pthread_mutex_t *m, pthread_cond_t *c, uint32_t *n)
{
	pthread_mutex_lock(m);
	++*n;
	pthread_cond_signal(c);
	pthread_mutex_unlock(m);
}

void ibv_ack_async_event(struct ibv_async_event *event)
{
	switch (event->event_type) {
	case IBV_EVENT_CQ_ERR: {
		struct ibv_cq *cq = event->element.cq;

		xv_ack(&cq->mutex, &cq->cond, &cq->async_events_completed);
		break;
	}
	case IBV_EVENT_QP_FATAL:
	case IBV_EVENT_QP_REQ_ERR:
	case IBV_EVENT_QP_ACCESS_ERR:
	case IBV_EVENT_COMM_EST:
	case IBV_EVENT_SQ_DRAINED:
	case IBV_EVENT_PATH_MIG:
	case IBV_EVENT_PATH_MIG_ERR:
	case IBV_EVENT_QP_LAST_WQE_REACHED: {
		struct ibv_qp *qp = event->element.qp;

		xv_ack(&qp->mutex, &qp->cond, &qp->events_completed);
		break;
	}
	case IBV_EVENT_SRQ_ERR:
	case IBV_EVENT_SRQ_LIMIT_REACHED: {
		struct ibv_srq *srq = event->element.srq;

		xv_ack(&srq->mutex, &srq->cond, &srq->events_completed);
		break;
	}
	default:
		break;
	}
}

/* ------------------------------------------------------------ fork */

/* nothing to set up: see unsupported.c */
int ibv_fork_init(void)
{
	return 0;
}

enum ibv_fork_status ibv_is_fork_initialized(void)
{
	return IBV_FORK_UNNEEDED;
}

/* ------------------------------------------------------------ strings */

/* names[i], or "unknown" outside the table and in its holes */
static const char *xv_name(const char *const *names, size_t n, int i)
{
	return i >= 0 && (size_t)i < n && names[i] ? names[i] : "unknown";
}

const char *ibv_node_type_str(enum ibv_node_type node_type)
{
	static const char *const names[] = {
		[IBV_NODE_CA] = "InfiniBand channel adapter",
		[IBV_NODE_SWITCH] = "InfiniBand switch",
		[IBV_NODE_ROUTER] = "InfiniBand router",
		[IBV_NODE_RNIC] = "iWARP NIC",
		[IBV_NODE_USNIC] = "usNIC",
		[IBV_NODE_USNIC_UDP] = "usNIC UDP",
		[IBV_NODE_UNSPECIFIED] = "unspecified",
	};

	return xv_name(names, ARRAY_SIZE(names), node_type);
}

const char *ibv_port_state_str(enum ibv_port_state port_state)
{
	static const char *const names[] = {
		[IBV_PORT_NOP] = "no state change (NOP)",
		[IBV_PORT_DOWN] = "down",
		[IBV_PORT_INIT] = "init",
		[IBV_PORT_ARMED] = "armed",
		[IBV_PORT_ACTIVE] = "active",
		[IBV_PORT_ACTIVE_DEFER] = "active defer",
	};

	return xv_name(names, ARRAY_SIZE(names), port_state);
}

const char *ibv_event_type_str(enum ibv_event_type event)
{
	static const char *const names[] = {
		[IBV_EVENT_CQ_ERR] = "CQ error",
		[IBV_EVENT_QP_FATAL] = "local work queue catastrophic error",
		[IBV_EVENT_QP_REQ_ERR] = "invalid request local work queue error",
		[IBV_EVENT_QP_ACCESS_ERR] = "local access violation work queue error",
		[IBV_EVENT_COMM_EST] = "communication established",
		[IBV_EVENT_SQ_DRAINED] = "send queue drained",
		[IBV_EVENT_PATH_MIG] = "path migrated",
		[IBV_EVENT_PATH_MIG_ERR] = "path migration request error",
		[IBV_EVENT_DEVICE_FATAL] = "local catastrophic error",
		[IBV_EVENT_PORT_ACTIVE] = "port active",
		[IBV_EVENT_PORT_ERR] = "port error",
		[IBV_EVENT_LID_CHANGE] = "LID change",
		[IBV_EVENT_PKEY_CHANGE] = "P_Key change",
		[IBV_EVENT_SM_CHANGE] = "SM change",
		[IBV_EVENT_SRQ_ERR] = "SRQ catastrophic error",
		[IBV_EVENT_SRQ_LIMIT_REACHED] = "SRQ limit reached",
		[IBV_EVENT_QP_LAST_WQE_REACHED] = "last WQE reached",
		[IBV_EVENT_CLIENT_REREGISTER] = "client reregistration",
		[IBV_EVENT_GID_CHANGE] = "GID table change",
		[IBV_EVENT_WQ_FATAL] = "WQ fatal",
	};

	return xv_name(names, ARRAY_SIZE(names), event);
}

const char *ibv_wc_status_str(enum ibv_wc_status status)
{
	static const char *const names[] = {
		[IBV_WC_SUCCESS] = "success",
		[IBV_WC_LOC_LEN_ERR] = "local length error",
		[IBV_WC_LOC_QP_OP_ERR] = "local QP operation error",
		[IBV_WC_LOC_EEC_OP_ERR] = "local EE context operation error",
		[IBV_WC_LOC_PROT_ERR] = "local protection error",
		[IBV_WC_WR_FLUSH_ERR] = "Work Request Flushed Error",
		[IBV_WC_MW_BIND_ERR] = "memory management operation error",
		[IBV_WC_BAD_RESP_ERR] = "bad response error",
		[IBV_WC_LOC_ACCESS_ERR] = "local access error",
		[IBV_WC_REM_INV_REQ_ERR] = "remote invalid request error",
		[IBV_WC_REM_ACCESS_ERR] = "remote access error",
		[IBV_WC_REM_OP_ERR] = "remote operation error",
		[IBV_WC_RETRY_EXC_ERR] = "transport retry counter exceeded",
		[IBV_WC_RNR_RETRY_EXC_ERR] = "RNR retry counter exceeded",
		[IBV_WC_LOC_RDD_VIOL_ERR] = "local RDD violation error",
		[IBV_WC_REM_INV_RD_REQ_ERR] = "remote invalid RD request",
		[IBV_WC_REM_ABORT_ERR] = "aborted error",
		[IBV_WC_INV_EECN_ERR] = "invalid EE context number",
		[IBV_WC_INV_EEC_STATE_ERR] = "invalid EE context state",
		[IBV_WC_FATAL_ERR] = "fatal error",
		[IBV_WC_RESP_TIMEOUT_ERR] = "response timeout error",
		[IBV_WC_GENERAL_ERR] = "general error",
		[IBV_WC_TM_ERR] = "TM error",
		[IBV_WC_TM_RNDV_INCOMPLETE] = "TM software rendezvous",
	};

	return xv_name(names, ARRAY_SIZE(names), status);
}

/*
 * rdma-core 56 (v56.1 libibverbs/enum_strs.c:136): declared by its public
 * verbs.h, exported as IBVERBS_PRIVATE_34, so a program built against 56
 * links to it.  Its FLUSH (14) is not in rdma-core 44's enum.  rdma-core
 * returns NULL for 12 and 13, which have no name; "unknown" here, as for
 * any other number without one.
 */
const char *ibv_wr_opcode_str(enum ibv_wr_opcode opcode)
{
	static const char *const names[] = {
		[IBV_WR_RDMA_WRITE] = "rdma-write",
		[IBV_WR_RDMA_WRITE_WITH_IMM] = "rdma-write-with-imm",
		[IBV_WR_SEND] = "send",
		[IBV_WR_SEND_WITH_IMM] = "send-with-imm",
		[IBV_WR_RDMA_READ] = "rdma-read",
		[IBV_WR_ATOMIC_CMP_AND_SWP] = "atomic-cmp-and-swp",
		[IBV_WR_ATOMIC_FETCH_AND_ADD] = "atomic-fetch-and-add",
		[IBV_WR_LOCAL_INV] = "local-inv",
		[IBV_WR_BIND_MW] = "bind-mw",
		[IBV_WR_SEND_WITH_INV] = "send-with-inv",
		[IBV_WR_TSO] = "tso",
		[IBV_WR_DRIVER1] = "driver1",
		[14] = "flush",			/* rdma-core 56's IBV_WR_FLUSH */
		[IBV_WR_ATOMIC_WRITE] = "atomic-write",
	};

	return xv_name(names, ARRAY_SIZE(names), opcode);
}

/* ------------------------------------------------------------ rates */

static const struct {
	enum ibv_rate rate;
	int mult;
	int mbps;
} xv_rates[] = {
	{ IBV_RATE_2_5_GBPS, 1, 2500 },
	{ IBV_RATE_5_GBPS, 2, 5000 },
	{ IBV_RATE_10_GBPS, 4, 10000 },
	{ IBV_RATE_20_GBPS, 8, 20000 },
	{ IBV_RATE_30_GBPS, 12, 30000 },
	{ IBV_RATE_40_GBPS, 16, 40000 },
	{ IBV_RATE_60_GBPS, 24, 60000 },
	{ IBV_RATE_80_GBPS, 32, 80000 },
	{ IBV_RATE_120_GBPS, 48, 120000 },
	{ IBV_RATE_14_GBPS, 0, 14062 },
	{ IBV_RATE_56_GBPS, 0, 56250 },
	{ IBV_RATE_112_GBPS, 0, 112500 },
	{ IBV_RATE_168_GBPS, 0, 168750 },
	{ IBV_RATE_25_GBPS, 10, 25781 },
	{ IBV_RATE_100_GBPS, 40, 103125 },
	{ IBV_RATE_200_GBPS, 80, 206250 },
	{ IBV_RATE_300_GBPS, 120, 309375 },
	{ IBV_RATE_28_GBPS, 11, 28125 },
	{ IBV_RATE_50_GBPS, 20, 53125 },
	{ IBV_RATE_400_GBPS, 160, 425000 },
	{ IBV_RATE_600_GBPS, 240, 637500 },
};

#define XV_NRATES ARRAY_SIZE(xv_rates)

int ibv_rate_to_mult(enum ibv_rate rate)
{
	size_t i;

	for (i = 0; i < XV_NRATES; i++)
		if (xv_rates[i].rate == rate && xv_rates[i].mult)
			return xv_rates[i].mult;
	return -1;
}

enum ibv_rate mult_to_ibv_rate(int mult)
{
	size_t i;

	for (i = 0; i < XV_NRATES; i++)
		if (xv_rates[i].mult == mult && mult)
			return xv_rates[i].rate;
	return IBV_RATE_MAX;
}

int ibv_rate_to_mbps(enum ibv_rate rate)
{
	size_t i;

	for (i = 0; i < XV_NRATES; i++)
		if (xv_rates[i].rate == rate)
			return xv_rates[i].mbps;
	return -1;
}

enum ibv_rate mbps_to_ibv_rate(int mbps)
{
	size_t i;

	for (i = 0; i < XV_NRATES; i++)
		if (xv_rates[i].mbps == mbps)
			return xv_rates[i].rate;
	return IBV_RATE_MAX;
}
