// SPDX-License-Identifier: GPL-2.0
/*
 * xv_names: the names of the verbs devices as a program sees them, through
 * whatever libibverbs.so.1 the dynamic linker finds (xrdma's with
 * scripts/xrdma-run, else the system's).  Built against the system's
 * <infiniband/verbs.h>; public API only.  One line per device of
 * ibv_get_device_list():
 *
 *   name=xnic0 dev_name=xrdma_uverbs0 dev_path=/sys/class/xrdma/uverbs0
 *   ibdev_path=/sys/class/infiniband/xnic0 index=1
 *   guid=0258:52ff:fe00:0001 node=char:242:0 [open=ok] [ptr=same]
 *
 * (on one line) where node is what /dev/infiniband/<dev_name> is -- a
 * character device with its major:minor, "other" or "none" -- as UCX
 * looks for it, and guid is ibv_get_device_guid() in sysfs' spelling.
 * Then "devices=N".
 *
 *   -o   also open each device and query it (open=ok or open=<errno name>)
 *   -r   after the first listing, read a line from stdin before each
 *        further one, until end of file; each device line of a further
 *        listing ends with ptr=same (the ibv_device pointer of the previous
 *        listing) or ptr=new
 *
 * Exit status: 0, or 1 when a listing failed.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <infiniband/verbs.h>

static void node_str(const char *dev_name, char *buf, size_t len)
{
	char path[128];
	struct stat st;

	snprintf(path, sizeof(path), "/dev/infiniband/%s", dev_name);
	if (stat(path, &st))
		snprintf(buf, len, "none");
	else if (!S_ISCHR(st.st_mode))
		snprintf(buf, len, "other");
	else
		snprintf(buf, len, "char:%u:%u", major(st.st_rdev),
			 minor(st.st_rdev));
}

static void open_str(struct ibv_device *dev, char *buf, size_t len)
{
	struct ibv_device_attr attr;
	struct ibv_context *ctx;
	int ret;

	ctx = ibv_open_device(dev);
	if (!ctx) {
		snprintf(buf, len, " open=%s", strerrorname_np(errno) ?: "?");
		return;
	}
	ret = ibv_query_device(ctx, &attr);
	snprintf(buf, len, " open=%s", ret ? strerrorname_np(ret) ?: "?" : "ok");
	ibv_close_device(ctx);
}

/* one listing; prev (n_prev entries) is the one before it, or NULL */
static struct ibv_device **list_once(bool do_open, struct ibv_device **prev,
				     int n_prev, int *num)
{
	struct ibv_device **list;
	int i, j, n;

	list = ibv_get_device_list(&n);
	if (!list) {
		printf("ibv_get_device_list: %s\n", strerror(errno));
		return NULL;
	}
	for (i = 0; i < n; i++) {
		struct ibv_device *d = list[i];
		uint64_t g = be64toh(ibv_get_device_guid(d));
		char node[64], op[64] = "", ptr[16] = "";

		node_str(d->dev_name, node, sizeof(node));
		if (do_open)
			open_str(d, op, sizeof(op));
		if (prev) {
			for (j = 0; j < n_prev && prev[j] != d; j++)
				;
			snprintf(ptr, sizeof(ptr), " ptr=%s",
				 j < n_prev ? "same" : "new");
		}
		printf("name=%s dev_name=%s dev_path=%s ibdev_path=%s ",
		       ibv_get_device_name(d), d->dev_name, d->dev_path,
		       d->ibdev_path);
		printf("index=%d guid=%04x:%04x:%04x:%04x node=%s%s%s\n",
		       ibv_get_device_index(d), (unsigned int)(g >> 48),
		       (unsigned int)(g >> 32 & 0xffff),
		       (unsigned int)(g >> 16 & 0xffff),
		       (unsigned int)(g & 0xffff), node, op, ptr);
	}
	printf("devices=%d\n", n);
	fflush(stdout);
	*num = n;
	return list;
}

int main(int argc, char **argv)
{
	bool do_open = false, again = false;
	struct ibv_device **list, **next;
	char line[256];
	int opt, n, m, rc = 0;

	while ((opt = getopt(argc, argv, "or")) != -1) {
		switch (opt) {
		case 'o':
			do_open = true;
			break;
		case 'r':
			again = true;
			break;
		default:
			fprintf(stderr, "usage: %s [-o] [-r]\n", argv[0]);
			return 2;
		}
	}
	list = list_once(do_open, NULL, 0, &n);
	if (!list)
		return 1;
	while (again && fgets(line, sizeof(line), stdin)) {
		next = list_once(do_open, list, n, &m);
		if (!next) {
			rc = 1;
			break;
		}
		/* the earlier pointers stay valid: they are compared first */
		ibv_free_device_list(list);
		list = next;
		n = m;
	}
	ibv_free_device_list(list);
	return rc;
}
