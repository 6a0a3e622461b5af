// SPDX-License-Identifier: GPL-2.0
/*
 * uverbs_test: every command's success path and its error cases
 * (Documentation/uverbs.rst, "Commands").
 */
#include <endian.h>
#include <linux/capability.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>
#include "ut.h"

#define BAD_HANDLE 0xfffff0u

/* a page that is not mapped: map one and unmap it */
static void *unmapped_page(void)
{
	void *p = map_pages(1, PROT_READ);

	if (p)
		munmap(p, ut_pagesz);
	return p;
}

static int count_of(int type)
{
	int c[R_NUM];

	if (res_counts(c))
		return -1;
	return c[type];
}

static int sysfs_read(const char *attr, char *buf, size_t len)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/xrdma/%s/%s", ut_uvname,
		 attr);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	if (!fgets(buf, len, f))
		buf[0] = 0;
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

/* ------------------------------------------------------------- sysfs */

void t_sysfs(void)
{
	char buf[128], want[128];
	unsigned long long g;
	struct stat st;
	int ret;

	ret = sysfs_read("ibdev", buf, sizeof(buf));
	CHECK(!ret && !strcmp(buf, ut_devname), "ibdev is %s", ut_devname);
	ret = sysfs_read("abi_version", buf, sizeof(buf));
	CHECK(!ret && atoi(buf) == XRDMA_ABI_VERSION && buf[0] != 0,
	      "abi_version is %d (got '%s')", XRDMA_ABI_VERSION, buf);
	g = be64toh(ut_dattr.node_guid);
	snprintf(want, sizeof(want), "%04llx:%04llx:%04llx:%04llx",
		 g >> 48, (g >> 32) & 0xffff, (g >> 16) & 0xffff, g & 0xffff);
	ret = sysfs_read("node_guid", buf, sizeof(buf));
	CHECK(!ret && !strcmp(buf, want),
	      "node_guid '%s' matches QUERY_DEVICE '%s'", buf, want);
	ret = sysfs_read("vendor_id", buf, sizeof(buf));
	CHECK(!ret && !strncmp(buf, "0x", 2) &&
	      strtoul(buf, NULL, 16) == ut_dattr.vendor_id,
	      "vendor_id '%s' is 0x-hex of QUERY_DEVICE's 0x%x", buf,
	      ut_dattr.vendor_id);
	ret = sysfs_read("vendor_part_id", buf, sizeof(buf));
	CHECK(!ret && buf[0] && strtoul(buf, NULL, 10) == ut_dattr.vendor_part_id,
	      "vendor_part_id '%s' is decimal of %u", buf,
	      ut_dattr.vendor_part_id);
	ret = sysfs_read("fw_ver", buf, sizeof(buf));
	CHECK(!ret && !strncmp(buf, ut_dattr.fw_ver, sizeof(ut_dattr.fw_ver)),
	      "fw_ver '%s' matches QUERY_DEVICE '%.32s'", buf, ut_dattr.fw_ver);
	ret = sysfs_read("num_ports", buf, sizeof(buf));
	CHECK(!ret && buf[0] && (unsigned int)atoi(buf) == ut_dattr.num_ports,
	      "num_ports '%s' is %u", buf, ut_dattr.num_ports);
	ret = sysfs_read("driver", buf, sizeof(buf));
	CHECK(!ret && buf[0], "driver is non-empty ('%s')", buf);
	ut_note("driver %s fw %s vendor 0x%x:%u", buf, ut_dattr.fw_ver,
		ut_dattr.vendor_id, ut_dattr.vendor_part_id);

	snprintf(want, sizeof(want), "/dev/infiniband/xrdma_%s", ut_uvname);
	ret = stat(want, &st) ? -errno : 0;
	CHECK_RC(ret, 0, "device node %s exists", want);
	if (!ret) {
		CHECK(S_ISCHR(st.st_mode), "%s is a character device", want);
		CHECK_EQ(st.st_mode & 07777, 0666, "%s has mode 0666", want);
		ret = sysfs_read("dev", buf, sizeof(buf));
		snprintf(want, sizeof(want), "%u:%u", major(st.st_rdev),
			 minor(st.st_rdev));
		CHECK(!ret && !strcmp(buf, want),
		      "sysfs dev '%s' is the node's %s", buf, want);
	}
	CHECK(stat("/sys/class/xrdma_device", &st) == 0 &&
	      stat("/sys/class/xrdma", &st) == 0,
	      "classes xrdma and xrdma_device both exist");
}

/* ----------------------------------------------------------- context */

static const struct {
	const char *name;
	unsigned long cmd;
} cmds[] = {
	{ "QUERY_DEVICE", XRDMA_IOC_QUERY_DEVICE },
	{ "QUERY_PORT", XRDMA_IOC_QUERY_PORT },
	{ "QUERY_GID", XRDMA_IOC_QUERY_GID },
	{ "ALLOC_PD", XRDMA_IOC_ALLOC_PD },
	{ "DESTROY", XRDMA_IOC_DESTROY },
	{ "REG_MR", XRDMA_IOC_REG_MR },
	{ "CREATE_CQ", XRDMA_IOC_CREATE_CQ },
	{ "CREATE_QP", XRDMA_IOC_CREATE_QP },
	{ "MODIFY_QP", XRDMA_IOC_MODIFY_QP },
	{ "QUERY_QP", XRDMA_IOC_QUERY_QP },
	{ "CREATE_SRQ", XRDMA_IOC_CREATE_SRQ },
	{ "MODIFY_SRQ", XRDMA_IOC_MODIFY_SRQ },
	{ "QUERY_SRQ", XRDMA_IOC_QUERY_SRQ },
	{ "CREATE_AH", XRDMA_IOC_CREATE_AH },
	{ "CREATE_COMP_CHANNEL", XRDMA_IOC_CREATE_COMP_CHANNEL },
	{ "GET_ASYNC_FD", XRDMA_IOC_GET_ASYNC_FD },
	{ "KICK", XRDMA_IOC_KICK },
};

/* a plausible argument for cmd, as if a context existed */
static void plausible(unsigned long cmd, union xt_cmd *u, void *buf)
{
	memset(u, 0, sizeof(*u));
	switch (cmd) {
	case XRDMA_IOC_QUERY_PORT:
		u->qpo.port_num = 1;
		break;
	case XRDMA_IOC_QUERY_GID:
		u->qg.port_num = 1;
		break;
	case XRDMA_IOC_DESTROY:
		u->d.type = XRDMA_OBJ_PD;
		u->d.handle = 1;
		break;
	case XRDMA_IOC_REG_MR:
		u->mr.pd_handle = 1;
		u->mr.addr = (uintptr_t)buf;
		u->mr.iova = (uintptr_t)buf;
		u->mr.length = ut_pagesz;
		break;
	case XRDMA_IOC_CREATE_CQ:
		u->cq.cqe = 4;
		u->cq.channel_fd = -1;
		break;
	case XRDMA_IOC_CREATE_QP:
		u->qp.pd_handle = 1;
		u->qp.send_cq_handle = 2;
		u->qp.recv_cq_handle = 2;
		u->qp.qp_type = XRDMA_UVERBS_QPT_RC;
		u->qp.cap.max_send_wr = 1;
		break;
	case XRDMA_IOC_CREATE_SRQ:
		u->srq.pd_handle = 1;
		u->srq.max_wr = 1;
		u->srq.max_sge = 1;
		break;
	case XRDMA_IOC_CREATE_AH:
		u->ah.pd_handle = 1;
		ah_attr_default(&u->ah.attr);
		break;
	default:
		break;
	}
}

void t_context(void)
{
	struct xrdma_testdev_ucontext_resp resp;
	struct xrdma_cmd_get_context gc;
	struct xrdma_cmd_query_device qd;
	union xt_cmd u;
	struct ctx c2;
	void *buf = map_pages(1, PROT_READ | PROT_WRITE);
	size_t i;
	int fd, ret;

	fd = dev_open();
	if (!CHECK(fd >= 0, "open %s (%s)", ut_devpath, errname(fd)))
		return;
	for (i = 0; i < ARRAY_SIZE(cmds); i++) {
		plausible(cmds[i].cmd, &u, buf);
		CHECK_RC(xio(fd, cmds[i].cmd, &u), -EINVAL,
			 "%s before GET_CONTEXT", cmds[i].name);
	}
	CHECK_EQ(res_total(), 0, "nothing was created before GET_CONTEXT");

	memset(&gc, 0, sizeof(gc));
	gc.flags = 1;
	CHECK_RC(xio(fd, XRDMA_IOC_GET_CONTEXT, &gc), -EINVAL,
		 "GET_CONTEXT flags 1");
	gc.flags = 0x80000000;
	CHECK_RC(xio(fd, XRDMA_IOC_GET_CONTEXT, &gc), -EINVAL,
		 "GET_CONTEXT flags 0x80000000");
	memset(&gc, 0, sizeof(gc));
	gc.reserved = 1;
	CHECK_RC(xio(fd, XRDMA_IOC_GET_CONTEXT, &gc), -EINVAL,
		 "GET_CONTEXT reserved 1");
	/* the driver response cannot be copied: nothing may remain */
	memset(&gc, 0, sizeof(gc));
	gc.udata.out = (uintptr_t)unmapped_page();
	gc.udata.out_len = sizeof(resp);
	CHECK_RC(xio(fd, XRDMA_IOC_GET_CONTEXT, &gc), -EFAULT,
		 "GET_CONTEXT with an unmapped udata.out");
	memset(&qd, 0, sizeof(qd));
	CHECK_RC(xio(fd, XRDMA_IOC_QUERY_DEVICE, &qd), -EINVAL,
		 "failed GET_CONTEXTs left no context (QUERY_DEVICE)");

	memset(&gc, 0, sizeof(gc));
	memset(&resp, 0xa5, sizeof(resp));
	gc.udata.out = (uintptr_t)&resp;
	gc.udata.out_len = sizeof(resp);
	ret = xio(fd, XRDMA_IOC_GET_CONTEXT, &gc);
	CHECK_RC(ret, 0, "GET_CONTEXT after failed attempts");
	CHECK_EQ(gc.abi_version, XRDMA_ABI_VERSION, "abi_version");
	CHECK(gc.num_comp_vectors >= 1, "num_comp_vectors >= 1 (%u)",
	      gc.num_comp_vectors);
	CHECK(resp.db_size > 0 && resp.db_size != 0xa5a5a5a5,
	      "driver response: db_size %u", resp.db_size);
	CHECK(resp.db_offset % ut_pagesz == 0 &&
	      resp.db_offset != 0xa5a5a5a5a5a5a5a5ull,
	      "driver response: db_offset 0x%llx page aligned",
	      (unsigned long long)resp.db_offset);
	CHECK_RC(xio(fd, XRDMA_IOC_QUERY_DEVICE, &qd), 0,
		 "QUERY_DEVICE after GET_CONTEXT");

	memset(&gc, 0, sizeof(gc));
	CHECK_RC(xio(fd, XRDMA_IOC_GET_CONTEXT, &gc), -EINVAL,
		 "second GET_CONTEXT");
	CHECK_RC(xio(fd, XRDMA_IOC_QUERY_DEVICE, &qd), 0,
		 "the context survives a second GET_CONTEXT");

	/* another open is an independent context */
	ret = ctx_open(&c2);
	CHECK_RC(ret, 0, "a second open + GET_CONTEXT while the first lives");
	if (!ret) {
		uint32_t h1, h2;

		CHECK_RC(alloc_pd(fd, &h1), 0, "ALLOC_PD on context 1");
		CHECK_RC(alloc_pd(c2.fd, &h2), 0, "ALLOC_PD on context 2");
		CHECK_EQ(count_of(R_PD), 2, "two PDs exist");
		ctx_close(&c2);
		CHECK_EQ(count_of(R_PD), 1,
			 "closing context 2 destroyed only its PD");
		CHECK_RC(destroy(fd, XRDMA_OBJ_PD, h1), 0,
			 "context 1's PD still there");
	}
	close(fd);
	munmap(buf, ut_pagesz);
}

/* ------------------------------------------------------------- ioctl */

void t_ioctl(void)
{
	struct xrdma_cmd_query_device qd;
	struct xrdma_cmd_alloc_pd *ro;
	struct termios tio;
	struct ctx c;
	char *pg;
	int fd;

	memset(&qd, 0, sizeof(qd));
	fd = dev_open();
	if (CHECK(fd >= 0, "open")) {
		CHECK_RC(xio(fd, _IOWR(XRDMA_IOC_MAGIC, 0x20,
				       struct xrdma_cmd_kick), &qd),
			 -ENOTTY, "unknown nr 0x20 before GET_CONTEXT");
		CHECK_RC(xio(fd, _IOWR(0xe8, 0, struct xrdma_cmd_get_context),
			     &qd), -ENOTTY, "wrong magic before GET_CONTEXT");
		close(fd);
	}
	if (!CHECK_RC(ctx_open(&c), 0, "context"))
		return;
	memset(&qd, 0, sizeof(qd));
	CHECK_RC(xio(c.fd, _IOWR(0xe8, 0x01, struct xrdma_cmd_query_device),
		     &qd), -ENOTTY, "magic 0xe8");
	CHECK_RC(xio(c.fd, _IOWR(0, 0x01, struct xrdma_cmd_query_device), &qd),
		 -ENOTTY, "magic 0");
	CHECK_RC(xio(c.fd, _IOWR(XRDMA_IOC_MAGIC, 0x20, struct xrdma_cmd_kick),
		     &qd), -ENOTTY, "nr 0x20 (reserved, no command yet)");
	CHECK_RC(xio(c.fd, _IOWR(XRDMA_IOC_MAGIC, 0x40, struct xrdma_cmd_kick),
		     &qd), -ENOTTY, "nr 0x40");
	CHECK_RC(xio(c.fd, _IOWR(XRDMA_IOC_MAGIC, 0xff, struct xrdma_cmd_kick),
		     &qd), -ENOTTY, "nr 0xff");
	CHECK_RC(xio(c.fd, _IOC(_IOC_NONE, XRDMA_IOC_MAGIC, 0x01, sizeof(qd)),
		     &qd), -ENOTTY, "QUERY_DEVICE with direction none");
	CHECK_RC(xio(c.fd, _IOR(XRDMA_IOC_MAGIC, 0x01,
				struct xrdma_cmd_query_device), &qd),
		 -ENOTTY, "QUERY_DEVICE with direction read only");
	CHECK_RC(xio(c.fd, _IOW(XRDMA_IOC_MAGIC, 0x01,
				struct xrdma_cmd_query_device), &qd),
		 -ENOTTY, "QUERY_DEVICE with direction write only");
	CHECK_RC(xio(c.fd, _IO(XRDMA_IOC_MAGIC, 0x04), NULL), -ENOTTY,
		 "_IO(magic, ALLOC_PD)");
	CHECK(tcgetattr(c.fd, &tio) < 0 && errno == ENOTTY,
	      "TCGETS -> ENOTTY (not a tty)");

	CHECK_RC(xio(c.fd, XRDMA_IOC_QUERY_DEVICE, NULL), -EFAULT,
		 "QUERY_DEVICE with a NULL argument");
	CHECK_RC(xio(c.fd, XRDMA_IOC_QUERY_DEVICE, unmapped_page()), -EFAULT,
		 "QUERY_DEVICE with an unmapped argument");
	CHECK_RC(xio(c.fd, XRDMA_IOC_ALLOC_PD, NULL), -EFAULT,
		 "ALLOC_PD with a NULL argument");

	/* argument straddling the end of the mapping */
	pg = map_pages(2, PROT_READ | PROT_WRITE);
	if (pg) {
		munmap(pg + ut_pagesz, ut_pagesz);
		memset(pg, 0, ut_pagesz);
		CHECK_RC(xio(c.fd, XRDMA_IOC_QUERY_DEVICE, pg + ut_pagesz - 8),
			 -EFAULT, "argument crossing into an unmapped page");
		/* read-only argument: the response cannot be written back */
		ro = (void *)pg;
		memset(ro, 0, sizeof(*ro));
		mprotect(pg, ut_pagesz, PROT_READ);
		CHECK_RC(xio(c.fd, XRDMA_IOC_QUERY_DEVICE, pg), -EFAULT,
			 "QUERY_DEVICE with a read-only argument");
		CHECK_RC(xio(c.fd, XRDMA_IOC_ALLOC_PD, ro), -EFAULT,
			 "ALLOC_PD with a read-only argument");
		CHECK_EQ(count_of(R_PD), 0,
			 "ALLOC_PD whose response was not copied left no PD");
		munmap(pg, ut_pagesz);
	}
	memset(&qd, 0, sizeof(qd));
	CHECK_RC(xio(c.fd, XRDMA_IOC_QUERY_DEVICE, &qd), 0,
		 "the context still works");
	ctx_close(&c);
}

/* ------------------------------------------------- argument cases */

/*
 * An argument case of a command: one field of @size bytes (4, 2 or 1) set
 * to @value plus, if @limit, the device attribute there (an offset in
 * ut_dattr); @field2, if not 0, zeroed too.  One row, one check.
 */
struct arg_row {
	const char *name;
	size_t field, size, field2;
	size_t limit;
	uint32_t value;
	int err;			/* 0 or -errno */
};

#define QP_CAP(f)	offsetof(struct xrdma_cmd_create_qp, cap.f)
#define DEV(f)		offsetof(struct xrdma_cmd_query_device, f)

static void arg_set(void *cmd, const struct arg_row *r)
{
	uint32_t v = r->value;

	if (r->limit)
		v += *(const uint32_t *)((const char *)&ut_dattr + r->limit);
	if (r->size == sizeof(uint8_t))
		*((uint8_t *)cmd + r->field) = (uint8_t)v;
	else if (r->size == sizeof(uint16_t))
		*(uint16_t *)((char *)cmd + r->field) = (uint16_t)v;
	else
		memcpy((char *)cmd + r->field, &v, sizeof(v));
	if (r->field2)
		memset((char *)cmd + r->field2, 0, sizeof(uint32_t));
}

/*
 * A create command's table rows on a valid command (init makes one on a
 * PD), then a PD handle 0 and a CQ handle as the PD.
 */
static void create_cases(int fd, unsigned long cmd,
			 void (*init)(void *m, uint32_t pd), uint32_t pd,
			 uint32_t cq, const struct arg_row *rows, size_t n)
{
	union xt_cmd m;
	size_t i;

	for (i = 0; i < n; i++) {
		init(&m, pd);
		arg_set(&m, &rows[i]);
		CHECK_RC(ut_create(fd, cmd, &m, NULL), rows[i].err, "%s",
			 rows[i].name);
	}
	init(&m, 0);
	CHECK_RC(ut_create(fd, cmd, &m, NULL), -ENOENT, "PD handle 0");
	init(&m, cq);
	CHECK_RC(ut_create(fd, cmd, &m, NULL), -EINVAL, "CQ handle as PD");
}

/* each row on command cmd, all zeros but the row's field: one check */
static void cmd_cases(int fd, unsigned long cmd, const struct arg_row *rows,
		      size_t n)
{
	union xt_cmd u;
	size_t i;

	for (i = 0; i < n; i++) {
		memset(&u, 0, sizeof(u));
		arg_set(&u, &rows[i]);
		CHECK_RC(xio(fd, cmd, &u), rows[i].err, "%s", rows[i].name);
	}
}

/* ------------------------------------------------------------- query */

#define QDEV(f)	offsetof(struct xrdma_cmd_query_device, f)
#define QPORT(f)	offsetof(struct xrdma_cmd_query_port, f)

static const struct arg_row qdev_cases[] = {
	{ "QUERY_DEVICE comp_mask 1", QDEV(comp_mask), 4, 0, 0, 1, -EINVAL },
	{ "QUERY_DEVICE comp_mask 0x80000000", QDEV(comp_mask), 4, 0, 0,
	  0x80000000, -EINVAL },
	{ "QUERY_DEVICE reserved 1", QDEV(reserved), 4, 0, 0, 1, -EINVAL },
};

static const struct arg_row qport_cases[] = {
	{ "QUERY_PORT 0", QPORT(port_num), 4, 0, 0, 0, -EINVAL },
	{ "QUERY_PORT num_ports + 1", QPORT(port_num), 4, 0, DEV(num_ports), 1,
	  -EINVAL },
	{ "QUERY_PORT 0xffffffff", QPORT(port_num), 4, 0, 0, 0xffffffff,
	  -EINVAL },
};

void t_query(void)
{
	struct xrdma_cmd_query_device qd;
	struct xrdma_cmd_query_port qp;
	struct xrdma_cmd_query_gid qg;
	uint32_t p;
	struct ctx c;

	if (!CHECK_RC(ctx_open(&c), 0, "context"))
		return;
	memset(&qd, 0xa5, sizeof(qd));
	qd.comp_mask = 0;
	qd.reserved = 0;
	CHECK_RC(xio(c.fd, XRDMA_IOC_QUERY_DEVICE, &qd), 0, "QUERY_DEVICE");
	CHECK(qd.num_ports >= 1 && qd.num_ports < 256, "num_ports %u",
	      qd.num_ports);
	CHECK(qd.max_qp > 0 && qd.max_qp_wr > 0 && qd.max_sge > 0 &&
	      qd.max_cq > 0 && qd.max_cqe > 0 && qd.max_pd > 0 &&
	      qd.max_mr > 0 && qd.max_mr_size > 0,
	      "limits non-zero: qp %u qp_wr %u sge %u cq %u cqe %u pd %u mr %u",
	      qd.max_qp, qd.max_qp_wr, qd.max_sge, qd.max_cq, qd.max_cqe,
	      qd.max_pd, qd.max_mr);
	CHECK(qd.page_size_cap & ut_pagesz, "page_size_cap 0x%llx has %ld",
	      (unsigned long long)qd.page_size_cap, ut_pagesz);
	CHECK(memchr(qd.fw_ver, 0, sizeof(qd.fw_ver)),
	      "fw_ver is NUL-terminated");
	CHECK(qd.atomic_cap <= 2, "atomic_cap %u in 0..2", qd.atomic_cap);
	CHECK((qd.device_cap_flags & (XRDMA_DEVICE_CAP_PORT_ACTIVE_EVENT |
				      XRDMA_DEVICE_CAP_CHANGE_PHY_PORT)) ==
	      (XRDMA_DEVICE_CAP_PORT_ACTIVE_EVENT |
	       XRDMA_DEVICE_CAP_CHANGE_PHY_PORT),
	      "device_cap_flags %#x: port events and port changes (every device)",
	      qd.device_cap_flags);
	CHECK(!(qd.device_cap_flags & ~(XRDMA_DEVICE_CAP_MEM_MGT_EXTENSIONS |
					XRDMA_DEVICE_CAP_SRQ_RESIZE |
					XRDMA_DEVICE_CAP_RC_RNR_NAK_GEN |
					XRDMA_DEVICE_CAP_PORT_ACTIVE_EVENT |
					XRDMA_DEVICE_CAP_CHANGE_PHY_PORT |
					XRDMA_DEVICE_CAP_MEM_WINDOW |
					XRDMA_DEVICE_CAP_MEM_WINDOW_TYPE_2B |
					XRDMA_DEVICE_CAP_XRC)),
	      "device_cap_flags %#x: only bits the uapi defines",
	      qd.device_cap_flags);
	CHECK(!!(qd.device_cap_flags & XRDMA_DEVICE_CAP_XRC) == !!qd.max_xrcd,
	      "max_xrcd %u exactly with CAP_XRC (flags %#x)", qd.max_xrcd,
	      qd.device_cap_flags);
	CHECK(!memcmp(&qd, &ut_dattr, sizeof(qd)), "QUERY_DEVICE is stable");

	cmd_cases(c.fd, XRDMA_IOC_QUERY_DEVICE, qdev_cases,
		  ARRAY_SIZE(qdev_cases));

	for (p = 1; p <= ut_dattr.num_ports; p++) {
		memset(&qp, 0, sizeof(qp));
		qp.port_num = p;
		if (!CHECK_RC(xio(c.fd, XRDMA_IOC_QUERY_PORT, &qp), 0,
			      "QUERY_PORT %u", p))
			continue;
		CHECK(qp.state >= 1 && qp.state <= 4, "port %u state %u", p,
		      qp.state);
		CHECK(qp.max_mtu >= 1 && qp.max_mtu <= 5 && qp.active_mtu >= 1 &&
		      qp.active_mtu <= qp.max_mtu,
		      "port %u mtu: max %u active %u", p, qp.max_mtu,
		      qp.active_mtu);
		CHECK(qp.link_layer == 1 || qp.link_layer == 2,
		      "port %u link_layer %u", p, qp.link_layer);
		CHECK(qp.gid_tbl_len >= 1 && qp.pkey_tbl_len >= 1,
		      "port %u gid_tbl_len %u pkey_tbl_len %u", p,
		      qp.gid_tbl_len, qp.pkey_tbl_len);
	}
	cmd_cases(c.fd, XRDMA_IOC_QUERY_PORT, qport_cases,
		  ARRAY_SIZE(qport_cases));

	memset(&qg, 0xa5, sizeof(qg));
	qg.port_num = 1;
	qg.index = 0;
	CHECK_RC(xio(c.fd, XRDMA_IOC_QUERY_GID, &qg), 0, "QUERY_GID 1/0");
	CHECK(!memcmp(qg.gid, ut_gid0, 16), "GID 0 is stable");
	if (ut_pattr.gid_tbl_len > 1) {
		qg.index = ut_pattr.gid_tbl_len - 1;
		CHECK_RC(xio(c.fd, XRDMA_IOC_QUERY_GID, &qg), 0,
			 "QUERY_GID last index %u", qg.index);
	}
	qg.index = ut_pattr.gid_tbl_len;
	CHECK_RC(xio(c.fd, XRDMA_IOC_QUERY_GID, &qg), -EINVAL,
		 "QUERY_GID index gid_tbl_len (%u)", ut_pattr.gid_tbl_len);
	qg.index = 0xffffffff;
	CHECK_RC(xio(c.fd, XRDMA_IOC_QUERY_GID, &qg), -EINVAL,
		 "QUERY_GID index 0xffffffff");
	qg.index = 0;
	qg.port_num = 0;
	CHECK_RC(xio(c.fd, XRDMA_IOC_QUERY_GID, &qg), -EINVAL,
		 "QUERY_GID port 0");
	qg.port_num = ut_dattr.num_ports + 1;
	CHECK_RC(xio(c.fd, XRDMA_IOC_QUERY_GID, &qg), -EINVAL,
		 "QUERY_GID port num_ports + 1");
	ctx_close(&c);
}

/* ---------------------------------------------------------------- PD */

void t_pd(void)
{
	struct xrdma_cmd_alloc_pd a;
	uint32_t h1, h2;
	struct ctx c;

	if (!CHECK_RC(ctx_open(&c), 0, "context"))
		return;
	CHECK_RC(alloc_pd(c.fd, &h1), 0, "ALLOC_PD");
	CHECK(h1 != 0, "handle %u is not 0", h1);
	CHECK_EQ(count_of(R_PD), 1, "debugfs counts 1 PD");
	CHECK_EQ(res_pid_lines(getpid()), 1, "debugfs lists it for pid %d",
		 (int)getpid());
	CHECK_RC(alloc_pd(c.fd, &h2), 0, "second ALLOC_PD");
	CHECK(h2 != 0 && h2 != h1, "handles %u and %u differ", h1, h2);
	CHECK_EQ(count_of(R_PD), 2, "debugfs counts 2 PDs");

	memset(&a, 0, sizeof(a));
	a.flags = 1;
	CHECK_RC(xio(c.fd, XRDMA_IOC_ALLOC_PD, &a), -EINVAL, "flags 1");
	a.flags = 0x80000000;
	CHECK_RC(xio(c.fd, XRDMA_IOC_ALLOC_PD, &a), -EINVAL, "flags 0x80000000");
	CHECK_EQ(count_of(R_PD), 2, "failed ALLOC_PDs created nothing");

	CHECK_RC(destroy(c.fd, XRDMA_OBJ_PD, h1), 0, "DESTROY PD 1");
	CHECK_RC(destroy(c.fd, XRDMA_OBJ_PD, h2), 0, "DESTROY PD 2");
	CHECK_EQ(count_of(R_PD), 0, "debugfs counts 0 PDs");
	ctx_close(&c);
}

/* ---------------------------------------------------------------- MR */

static int mr_raw(int fd, uint32_t pd, uint64_t addr, uint64_t len,
		  uint64_t iova, uint32_t access, uint32_t *h)
{
	struct mr mr;
	int ret = reg_mr(fd, pd, (const void *)(uintptr_t)addr, len, iova,
			 access, &mr);

	if (h)
		*h = mr.h;
	else if (!ret)
		destroy(fd, XRDMA_OBJ_MR, mr.h);
	return ret;
}

/* where the address of a REG_MR row is */
enum mr_base {
	MB_BUF,		/* 4 pages, read-write */
	MB_RO,		/* 2 pages, read-only */
	MB_HOLE,	/* an unmapped page */
	MB_ABS,		/* the row's offset is the address */
};

/* a REG_MR argument case: one row, one check */
struct mr_row {
	const char *name;
	enum mr_base base;
	uint64_t off;		/* from the base */
	uint64_t pages, bytes;	/* length: pages * page size + bytes */
	bool iova_abs;		/* iova is the row's; else addr + iova */
	uint64_t iova;
	uint32_t access;
	int err;		/* 0 or -errno */
};

#define IOVA_AT(x)	.iova_abs = true, .iova = (x)
#define KADDR		0xffff888000000000ull
#define TOP_PAGE	0xfffffffffffff000ull

static const struct mr_row mr_cases[] = {
	/* iova */
	{ "iova != addr, same page offset", MB_BUF, 0, 2, 0,
	  IOVA_AT(0x100000000000ull), ACC_LW, 0 },
	{ "unaligned addr (page offset 100), iova offset 100", MB_BUF, 100, 0,
	  1000, IOVA_AT(0x200000000000ull + 100), ACC_LW, 0 },
	{ "iova page offset differs from addr's", MB_BUF, 0, 1, 0,
	  IOVA_AT(0x100000000001ull), ACC_LW, -EINVAL },
	{ "unaligned addr, page-aligned iova", MB_BUF, 100, 0, 1000,
	  .iova = (uint64_t)-100, ACC_LW, -EINVAL },
	/* lengths and address ranges */
	{ "length 0", MB_BUF, 0, 0, 0, .iova = 0, ACC_LW, -EINVAL },
	{ "length 2^64-1 (overflow)", MB_BUF, 0, 0, ~0ull, .iova = 0, ACC_LW,
	  -EINVAL },
	{ "length 2^63", MB_BUF, 0, 0, 1ull << 63, .iova = 0, ACC_LW,
	  -EINVAL },
	{ "addr + length overflows", MB_ABS, TOP_PAGE, 0, 0x2000, .iova = 0,
	  ACC_LW, -EINVAL },
	{ "addr + length == 2^64", MB_ABS, TOP_PAGE, 0, 0x1000, .iova = 0, 0,
	  -EINVAL },
	{ "iova + length overflows", MB_BUF, 0, 0, 0x2000, IOVA_AT(TOP_PAGE),
	  ACC_LW, -EINVAL },
	/* unmapped and read-only memory */
	{ "unmapped memory", MB_HOLE, 0, 1, 0, .iova = 0, ACC_LW, -EFAULT },
	{ "unmapped memory, read access", MB_HOLE, 0, 1, 0, .iova = 0, 0,
	  -EFAULT },
	{ "address 0", MB_ABS, 0, 1, 0, .iova = 0, ACC_LW, -EFAULT },
	{ "kernel address", MB_ABS, KADDR, 1, 0, .iova = 0, 0, -EFAULT },
	{ "read-only memory, LOCAL_WRITE", MB_RO, 0, 2, 0, .iova = 0, ACC_LW,
	  -EFAULT },
	{ "read-only memory, REMOTE_WRITE", MB_RO, 0, 2, 0, .iova = 0,
	  ACC_LW | ACC_RW, -EFAULT },
	{ "read-only memory, REMOTE_ATOMIC", MB_RO, 0, 2, 0, .iova = 0,
	  ACC_LW | ACC_RA, -EFAULT },
	{ "read-only memory, local read only", MB_RO, 0, 2, 0, .iova = 0, 0,
	  0 },
	{ "read-only memory, REMOTE_READ", MB_RO, 0, 2, 0, .iova = 0, ACC_RR,
	  0 },
	/* access flags */
	{ "access 1 << 5", MB_BUF, 0, 1, 0, .iova = 0, 1u << 5, -EINVAL },
	{ "access 1 << 31", MB_BUF, 0, 1, 0, .iova = 0, 1u << 31, -EINVAL },
	{ "REMOTE_WRITE without LOCAL_WRITE", MB_BUF, 0, 1, 0, .iova = 0,
	  ACC_RW, -EINVAL },
	{ "REMOTE_ATOMIC without LOCAL_WRITE", MB_BUF, 0, 1, 0, .iova = 0,
	  ACC_RA, -EINVAL },
	{ "REMOTE_READ alone", MB_BUF, 0, 1, 0, .iova = 0, ACC_RR, 0 },
};

static void mr_case(int fd, uint32_t pd, const struct mr_row *r,
		    const char *buf, const char *ro, const char *hole)
{
	const char *const bases[] = { buf, ro, hole, NULL };
	uint64_t base = (uintptr_t)bases[r->base];
	uint64_t addr = base + r->off;

	uint64_t iova = r->iova_abs ? r->iova : addr + r->iova;

	CHECK_RC(mr_raw(fd, pd, addr, r->pages * ut_pagesz + r->bytes, iova,
			r->access, NULL), r->err, "%s", r->name);
}

void t_mr(void)
{
	const uint32_t all = ACC_LW | ACC_RW | ACC_RR | ACC_RA;
	struct xrdma_cmd_reg_mr *rocmd;
	struct mr m1, m2;
	uint32_t pd, h, stale_pd;
	struct ctx c, c2;
	struct cq cq;
	char *buf, *ro, *hole, *pg;
	uintptr_t a;
	long pin0, pin;
	size_t i;
	int ret;

	if (!CHECK_RC(ctx_open(&c), 0, "context"))
		return;
	if (!CHECK_RC(alloc_pd(c.fd, &pd), 0, "ALLOC_PD"))
		return;
	buf = map_pages(4, PROT_READ | PROT_WRITE);
	ro = map_pages(2, PROT_READ);
	if (!CHECK(buf && ro, "mmap buffers"))
		return;
	a = (uintptr_t)buf;
	pin0 = status_kb("VmPin");
	CHECK(pin0 >= 0, "VmPin readable (%ld kB)", pin0);

	ret = reg_mr(c.fd, pd, buf, 4 * ut_pagesz, a, all, &m1);
	CHECK_RC(ret, 0, "REG_MR 4 pages, all access, iova == addr");
	CHECK(m1.h != 0 && m1.lkey != 0, "handle %u lkey 0x%x rkey 0x%x", m1.h,
	      m1.lkey, m1.rkey);
	CHECK_EQ(count_of(R_MR), 1, "debugfs counts 1 MR");
	pin = status_kb("VmPin");
	CHECK_EQ(pin - pin0, 4 * ut_pagesz / 1024, "VmPin grew by 4 pages");
	ret = reg_mr(c.fd, pd, buf, 4 * ut_pagesz, a, ACC_LW, &m2);
	CHECK_RC(ret, 0, "second REG_MR of the same memory");
	CHECK(m2.h != m1.h && m2.lkey != m1.lkey,
	      "different handle (%u/%u) and lkey (0x%x/0x%x)", m1.h, m2.h,
	      m1.lkey, m2.lkey);
	CHECK_RC(destroy(c.fd, XRDMA_OBJ_MR, m2.h), 0, "DESTROY MR 2");
	CHECK_EQ(status_kb("VmPin") - pin0, 4 * ut_pagesz / 1024,
		 "VmPin back to 4 pages");

	/* the PD is in use */
	CHECK_RC(destroy(c.fd, XRDMA_OBJ_PD, pd), -EBUSY,
		 "DESTROY PD with an MR");
	CHECK_EQ(count_of(R_PD), 1, "refused DESTROY changed nothing");
	CHECK_RC(destroy(c.fd, XRDMA_OBJ_MR, m1.h), 0, "DESTROY MR 1");
	CHECK_EQ(status_kb("VmPin"), pin0, "VmPin back after DEREG");
	CHECK_RC(destroy(c.fd, XRDMA_OBJ_MR, m1.h), -ENOENT,
		 "DESTROY MR twice");

	/* arguments, one row each */
	hole = unmapped_page();
	for (i = 0; i < ARRAY_SIZE(mr_cases); i++)
		mr_case(c.fd, pd, &mr_cases[i], buf, ro, hole);

	CHECK_RC(mr_raw(c.fd, pd, a + ut_pagesz - 8, 16, a + ut_pagesz - 8,
			ACC_LW, &h), 0, "16 bytes across a page boundary");
	CHECK_EQ(status_kb("VmPin") - pin0, 2 * ut_pagesz / 1024,
		 "pinned 2 pages for 16 bytes across a boundary");
	destroy(c.fd, XRDMA_OBJ_MR, h);
	if (ut_dattr.max_mr_size < (1ull << 46))
		CHECK_RC(mr_raw(c.fd, pd, a, ut_dattr.max_mr_size + 1, a, 0,
				NULL), -EINVAL, "length max_mr_size + 1");
	pg = map_pages(3, PROT_READ | PROT_WRITE);
	if (pg) {
		munmap(pg + 2 * ut_pagesz, ut_pagesz);
		CHECK_RC(mr_raw(c.fd, pd, (uintptr_t)pg, 3 * ut_pagesz,
				(uintptr_t)pg, ACC_LW, NULL), -EFAULT,
			 "range whose last page is unmapped");
		CHECK_EQ(status_kb("VmPin"), pin0,
			 "failed REG_MR left nothing pinned");
		munmap(pg, 2 * ut_pagesz);
	}
	CHECK_EQ(count_of(R_MR), 0, "no MR left behind by the failures");
	CHECK_EQ(status_kb("VmPin"), pin0, "nothing pinned");

	/* reserved */
	{
		struct xrdma_cmd_reg_mr m = { 0 };

		m.pd_handle = pd;
		m.addr = a;
		m.iova = a;
		m.length = ut_pagesz;
		m.reserved = 1;
		ret = xio(c.fd, XRDMA_IOC_REG_MR, &m);
		CHECK_RC(ret, -EINVAL, "reserved 1");
		if (!ret)
			destroy(c.fd, XRDMA_OBJ_MR, m.mr_handle);
	}

	/* handles */
	CHECK_RC(mr_raw(c.fd, 0, a, ut_pagesz, a, ACC_LW, NULL), -ENOENT,
		 "PD handle 0");
	CHECK_RC(mr_raw(c.fd, BAD_HANDLE, a, ut_pagesz, a, ACC_LW, NULL),
		 -ENOENT, "PD handle never created");
	if (CHECK_RC(create_cq(c.fd, 4, -1, 0, &cq), 0, "CREATE_CQ")) {
		CHECK_RC(mr_raw(c.fd, cq.h, a, ut_pagesz, a, ACC_LW, NULL),
			 -EINVAL, "CQ handle as PD handle");
		destroy(c.fd, XRDMA_OBJ_CQ, cq.h);
	}
	if (!alloc_pd(c.fd, &stale_pd)) {
		destroy(c.fd, XRDMA_OBJ_PD, stale_pd);
		CHECK_RC(mr_raw(c.fd, stale_pd, a, ut_pagesz, a, ACC_LW, NULL),
			 -ENOENT, "destroyed PD handle");
	}
	if (!ctx_open(&c2)) {
		/* c2 has no objects: c's PD handle means nothing there */
		CHECK_RC(mr_raw(c2.fd, pd, a, ut_pagesz, a, ACC_LW, NULL),
			 -ENOENT, "PD handle of another fd");
		ctx_close(&c2);
	}

	/* the response cannot be copied back: no MR, nothing pinned */
	rocmd = map_pages(1, PROT_READ | PROT_WRITE);
	if (rocmd) {
		memset(rocmd, 0, sizeof(*rocmd));
		rocmd->pd_handle = pd;
		rocmd->addr = a;
		rocmd->iova = a;
		rocmd->length = 2 * ut_pagesz;
		rocmd->access = ACC_LW;
		mprotect(rocmd, ut_pagesz, PROT_READ);
		CHECK_RC(xio(c.fd, XRDMA_IOC_REG_MR, rocmd), -EFAULT,
			 "REG_MR with a read-only argument");
		CHECK_EQ(count_of(R_MR), 0, "... left no MR");
		CHECK_EQ(status_kb("VmPin"), pin0, "... left nothing pinned");
		munmap(rocmd, ut_pagesz);
	}

	/* a bigger one */
	pg = map_pages(64, PROT_READ | PROT_WRITE);
	if (pg) {
		CHECK_RC(mr_raw(c.fd, pd, (uintptr_t)pg, 64 * ut_pagesz,
				(uintptr_t)pg, ACC_LW | ACC_RW, &h), 0,
			 "REG_MR 64 pages");
		CHECK_EQ(status_kb("VmPin") - pin0, 64 * ut_pagesz / 1024,
			 "VmPin grew by 64 pages");
		ctx_close(&c);
		CHECK_EQ(status_kb("VmPin"), pin0,
			 "closing the fd unpinned the live MR");
		munmap(pg, 64 * ut_pagesz);
	} else {
		ctx_close(&c);
	}
	munmap(buf, 4 * ut_pagesz);
	munmap(ro, 2 * ut_pagesz);
}

/* ---------------------------------------------------------------- CQ */

static int cq_raw(int fd, struct xrdma_cmd_create_cq *m, uint32_t *h)
{
	return ut_create(fd, XRDMA_IOC_CREATE_CQ, m, h);
}

static void cq_init(struct xrdma_cmd_create_cq *m, uint32_t cqe)
{
	memset(m, 0, sizeof(*m));
	m->cqe = cqe;
	m->channel_fd = -1;
}

/* a CREATE_CQ argument case: one row, one check */
struct cq_row {
	const char *name;
	uint32_t cqe;		/* with cqe_max: max_cqe + cqe */
	bool cqe_max;
	bool vec_rel;		/* comp_vector num_comp_vectors + vec */
	int vec;
	uint32_t flags, reserved;
	int err;
};

static const struct cq_row cq_cases[] = {
	{ "cqe 0", 0, false, false, 0, 0, 0, -EINVAL },
	{ "cqe max_cqe + 1", 1, true, false, 0, 0, 0, -EINVAL },
	{ "cqe 0xffffffff", 0xffffffff, false, false, 0, 0, 0, -EINVAL },
	{ "comp_vector num_comp_vectors - 1", 4, false, true, -1, 0, 0, 0 },
	{ "comp_vector num_comp_vectors", 4, false, true, 0, 0, 0, -EINVAL },
	{ "flags 1", 4, false, false, 0, 1, 0, -EINVAL },
	{ "flags 0x80000000", 4, false, false, 0, 0x80000000, 0, -EINVAL },
	{ "reserved 1", 4, false, false, 0, 0, 1, -EINVAL },
};

void t_cq(void)
{
	struct xrdma_testdev_create_cq_resp resp;
	struct xrdma_cmd_create_cq m;
	struct cq cq1, cq2;
	struct ctx c, c2;
	int ch, ch2, nullfd;
	size_t i;

	if (!CHECK_RC(ctx_open(&c), 0, "context"))
		return;
	CHECK_RC(create_cq(c.fd, 16, -1, 0x1234, &cq1), 0, "CREATE_CQ 16");
	CHECK(cq1.h != 0, "handle %u", cq1.h);
	CHECK(cq1.cqe >= 16, "actual cqe %u >= 16", cq1.cqe);
	CHECK(cq1.resp.ring_size > 0 && cq1.resp.ring_offset % ut_pagesz == 0,
	      "driver response: ring_size %u, ring_offset 0x%llx aligned",
	      cq1.resp.ring_size, (unsigned long long)cq1.resp.ring_offset);
	CHECK_EQ(count_of(R_CQ), 1, "debugfs counts 1 CQ");
	CHECK_RC(create_cq(c.fd, 1, -1, 0, &cq2), 0, "CREATE_CQ 1");
	CHECK(cq2.cqe >= 1, "actual cqe %u >= 1", cq2.cqe);
	CHECK(cq2.h != cq1.h && cq2.resp.cqn != cq1.resp.cqn &&
	      cq2.resp.token != cq1.resp.token &&
	      cq2.resp.ring_offset != cq1.resp.ring_offset,
	      "two CQs differ in handle, cqn, token and ring offset");
	destroy(c.fd, XRDMA_OBJ_CQ, cq2.h);

	if (ut_dattr.max_cqe <= (1u << 20)) {
		cq_init(&m, ut_dattr.max_cqe);
		CHECK_RC(cq_raw(c.fd, &m, NULL), 0, "cqe max_cqe (%u)",
			 ut_dattr.max_cqe);
	}
	for (i = 0; i < ARRAY_SIZE(cq_cases); i++) {
		const struct cq_row *r = &cq_cases[i];

		cq_init(&m, r->cqe + (r->cqe_max ? ut_dattr.max_cqe : 0));
		if (r->vec_rel)
			m.comp_vector = c.num_comp_vectors + r->vec;
		m.flags = r->flags;
		m.reserved = r->reserved;
		CHECK_RC(cq_raw(c.fd, &m, NULL), r->err, "%s", r->name);
	}

	/* channels */
	ch = new_channel(c.fd);
	if (CHECK(ch >= 0, "CREATE_COMP_CHANNEL (%s)", errname(ch))) {
		cq_init(&m, 4);
		m.channel_fd = ch;
		CHECK_RC(cq_raw(c.fd, &m, NULL), 0, "channel of this context");
	}
	if (!ctx_open(&c2)) {
		ch2 = new_channel(c2.fd);
		cq_init(&m, 4);
		m.channel_fd = ch2;
		CHECK_RC(cq_raw(c.fd, &m, NULL), -EINVAL,
			 "channel of another context");
		close(ch2);
		ctx_close(&c2);
	}
	nullfd = open("/dev/null", O_RDWR | O_CLOEXEC);
	cq_init(&m, 4);
	m.channel_fd = nullfd;
	CHECK_RC(cq_raw(c.fd, &m, NULL), -EINVAL, "channel_fd is /dev/null");
	m.channel_fd = c.fd;
	CHECK_RC(cq_raw(c.fd, &m, NULL), -EINVAL,
		 "channel_fd is the uverbs fd itself");
	close(nullfd);
	m.channel_fd = nullfd;	/* now closed */
	CHECK_RC(cq_raw(c.fd, &m, NULL), -EBADF, "channel_fd not open");
	m.channel_fd = 100000;
	CHECK_RC(cq_raw(c.fd, &m, NULL), -EBADF, "channel_fd 100000");

	/* the driver response cannot be copied: no CQ may remain */
	cq_init(&m, 4);
	m.udata.out = (uintptr_t)unmapped_page();
	m.udata.out_len = sizeof(resp);
	CHECK_RC(cq_raw(c.fd, &m, NULL), -EFAULT, "unmapped udata.out");
	CHECK_EQ(count_of(R_CQ), 1, "... left no CQ");

	CHECK_RC(destroy(c.fd, XRDMA_OBJ_CQ, cq1.h), 0, "DESTROY CQ");
	CHECK_EQ(count_of(R_CQ), 0, "debugfs counts 0 CQs");
	if (ch >= 0)
		close(ch);
	ctx_close(&c);
}

/* ---------------------------------------------------------------- QP */

static void qp_init(struct xrdma_cmd_create_qp *m, uint32_t pd, uint32_t cq,
		    uint32_t type)
{
	*m = (struct xrdma_cmd_create_qp) {
		.pd_handle = pd,
		.send_cq_handle = cq,
		.recv_cq_handle = cq,
		.qp_type = type,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
}

static int qp_raw(int fd, struct xrdma_cmd_create_qp *m, uint32_t *h)
{
	return ut_create(fd, XRDMA_IOC_CREATE_QP, m, h);
}

static uint32_t qp_state(int fd, uint32_t h)
{
	struct xrdma_cmd_query_qp q;

	if (query_qp(fd, h, &q))
		return 0xdead;
	return q.attr.qp_state;
}

static void rc_rtr_attr(struct xrdma_uverbs_qp_attr *a, uint32_t dest)
{
	memset(a, 0, sizeof(*a));
	a->qp_state = QPS_RTR;
	ah_attr_default(&a->ah_attr);
	a->path_mtu = 3;
	a->dest_qp_num = dest;
	a->rq_psn = 0x123;
	a->max_dest_rd_atomic = ut_dattr.max_qp_rd_atom ? 1 : 0;
	a->min_rnr_timer = 12;
}

#define RC_RTR_MASK (QPA_STATE | QPA_AV | QPA_PATH_MTU | QPA_DEST_QPN | \
		     QPA_RQ_PSN | QPA_MAX_DEST_RD | QPA_MIN_RNR)
#define RC_RTS_MASK (QPA_STATE | QPA_TIMEOUT | QPA_RETRY | QPA_RNR_RETRY | \
		     QPA_SQ_PSN | QPA_MAX_RD)
#define RC_INIT_MASK (QPA_STATE | QPA_PKEY | QPA_PORT | QPA_ACCESS)

static void rc_rts_attr(struct xrdma_uverbs_qp_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->qp_state = QPS_RTS;
	a->timeout = 14;
	a->retry_cnt = 7;
	a->rnr_retry = 7;
	a->sq_psn = 0x456;
	a->max_rd_atomic = ut_dattr.max_qp_init_rd_atom ? 1 : 0;
}

static void rc_init_attr(struct xrdma_uverbs_qp_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->qp_state = QPS_INIT;
	a->port_num = 1;
	a->qp_access_flags = ACC_LW | ACC_RW | ACC_RR;
}

/* append " name=got" to bad when got != want */
static void qcmp(char *bad, size_t len, const char *name, unsigned long got,
		 unsigned long want)
{
	size_t l = strlen(bad);

	if (got != want)
		snprintf(bad + l, len - l, " %s=%lu", name, got);
}

/* drive an RC QP from any state back to st (RESET, INIT or RTR) */
static void rc_restore(int fd, struct qp *qp, uint32_t st)
{
	struct xrdma_uverbs_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = QPS_RESET;
	modify_qp(fd, qp->h, QPA_STATE, &a);
	if (st >= QPS_INIT) {
		rc_init_attr(&a);
		modify_qp(fd, qp->h, RC_INIT_MASK, &a);
	}
	if (st >= QPS_RTR) {
		rc_rtr_attr(&a, qp->qpn);
		modify_qp(fd, qp->h, RC_RTR_MASK, &a);
	}
	ut_note("QP put back into state %u (now %u)", st, qp_state(fd, qp->h));
}

/*
 * A MODIFY_QP that must fail with -EINVAL and change nothing; if it
 * wrongly succeeds, the QP is put back so that later checks stay precise.
 */
static void qp_neg(int fd, struct qp *qp, uint32_t mask,
		   const struct xrdma_uverbs_qp_attr *a, uint32_t st,
		   const char *name)
{
	CHECK_RC(modify_qp(fd, qp->h, mask, a), -EINVAL, "%s", name);
	if (qp_state(fd, qp->h) != st)
		rc_restore(fd, qp, st);
}

/*
 * A controlled Q_Key (bit 31) needs CAP_NET_RAW: a process without it gets
 * EPERM and changes nothing; with it the Q_Key is set.
 */
static int qkey_child(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2];
	struct xrdma_uverbs_qp_attr a;
	struct xrdma_cmd_query_qp q;
	uint32_t pd;
	struct cq cq;
	struct qp ud;
	struct ctx c;

	if (syscall(SYS_capget, &hdr, data))
		return 10;
	data[0].effective &= ~(1u << CAP_NET_RAW);
	data[0].permitted &= ~(1u << CAP_NET_RAW);
	if (syscall(SYS_capset, &hdr, data))
		return 11;
	if (ctx_open(&c) || alloc_pd(c.fd, &pd) ||
	    create_cq(c.fd, 4, -1, 0, &cq) ||
	    create_qp(c.fd, pd, cq.h, cq.h, 0, XRDMA_UVERBS_QPT_UD, 0, &ud))
		return 12;
	memset(&a, 0, sizeof(a));
	a.qp_state = QPS_INIT;
	a.port_num = 1;
	a.qkey = 0x80010000;
	if (modify_qp(c.fd, ud.h, QPA_STATE | QPA_PKEY | QPA_PORT | QPA_QKEY,
		      &a) != -EPERM)
		return 1;	/* controlled Q_Key accepted */
	if (query_qp(c.fd, ud.h, &q) || q.attr.qp_state != QPS_RESET)
		return 2;	/* the refused MODIFY changed the QP */
	a.qkey = 0x10000;
	if (modify_qp(c.fd, ud.h, QPA_STATE | QPA_PKEY | QPA_PORT | QPA_QKEY,
		      &a))
		return 3;	/* an ordinary Q_Key refused */
	return 0;
}

static void t_qkey_controlled(int fd, uint32_t ud)
{
	struct xrdma_uverbs_qp_attr a;
	struct xrdma_cmd_query_qp q;
	pid_t pid;
	int st = 0, ret;

	fflush(stdout);
	pid = fork();
	if (pid == 0)
		_exit(qkey_child());
	ret = pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) ?
	      WEXITSTATUS(st) : -1;
	CHECK_EQ(ret, 0, "no CAP_NET_RAW: controlled Q_Key EPERM (child step %d)",
		 ret);

	memset(&a, 0, sizeof(a));
	a.qkey = 0x80010000;
	CHECK_RC(modify_qp(fd, ud, QPA_QKEY, &a), 0,
		 "with CAP_NET_RAW: controlled Q_Key 0x80010000");
	ret = query_qp(fd, ud, &q);
	CHECK(!ret && q.attr.qkey == 0x80010000, "QUERY_QP: qkey 0x%x",
	      q.attr.qkey);
	a.qkey = 0x11111111;
	CHECK_RC(modify_qp(fd, ud, QPA_QKEY, &a), 0, "Q_Key back to 0x11111111");
}

#define QA(f)	offsetof(struct xrdma_uverbs_qp_attr, f)

/* RC RESET -> INIT with one attribute out of range */
static const struct arg_row rc_init_cases[] = {
	{ "port 0", QA(port_num), 1, 0, 0, 0, -EINVAL },
	{ "port num_ports + 1", QA(port_num), 1, 0, DEV(num_ports), 1,
	  -EINVAL },
	{ "pkey_index 1", QA(pkey_index), 2, 0, 0, 1, -EINVAL },
	{ "access flags 1 << 5", QA(qp_access_flags), 4, 0, 0, 1u << 5,
	  -EINVAL },
	{ "qp_state 7 (no such state)", QA(qp_state), 4, 0, 0, 7, -EINVAL },
	{ "attr.reserved non-zero", QA(reserved[0]), 1, 0, 0, 1, -EINVAL },
	{ "attr.cap.reserved non-zero", QA(cap.reserved), 4, 0, 0, 1,
	  -EINVAL },
	{ "attr.ah_attr.reserved non-zero", QA(ah_attr.reserved[0]), 1, 0, 0,
	  1, -EINVAL },
};

static void t_qp_modify_rc(int fd, struct qp *qp)
{
	struct xrdma_cmd_modify_qp m;
	struct xrdma_uverbs_qp_attr a;
	struct xrdma_cmd_query_qp q;
	char bad[256];
	size_t i;
	int ret;

	/* RESET -> INIT, negative first: nothing may change */
	rc_rtr_attr(&a, qp->qpn);
	qp_neg(fd, qp, RC_RTR_MASK, &a, QPS_RESET,
	       "RC RESET -> RTR");
	rc_init_attr(&a);
	qp_neg(fd, qp, RC_INIT_MASK & ~QPA_ACCESS, &a, QPS_RESET,
	       "RC RESET -> INIT without ACCESS_FLAGS");
	qp_neg(fd, qp, RC_INIT_MASK | QPA_QKEY, &a, QPS_RESET,
	       "RC RESET -> INIT with QKEY (not allowed)");
	qp_neg(fd, qp, RC_INIT_MASK & ~QPA_STATE, &a, QPS_RESET,
	       "RC INIT attributes without STATE in RESET");
	qp_neg(fd, qp, RC_INIT_MASK | (1u << 21), &a, QPS_RESET,
	       "attr_mask bit 21");
	qp_neg(fd, qp, RC_INIT_MASK | 0x80000000u, &a, QPS_RESET,
	       "attr_mask bit 31");
	for (i = 0; i < ARRAY_SIZE(rc_init_cases); i++) {
		rc_init_attr(&a);
		arg_set(&a, &rc_init_cases[i]);
		qp_neg(fd, qp, RC_INIT_MASK, &a, QPS_RESET,
		       rc_init_cases[i].name);
	}
	memset(&m, 0, sizeof(m));
	m.qp_handle = qp->h;
	m.attr_mask = RC_INIT_MASK;
	rc_init_attr(&m.attr);
	m.reserved = 1;
	CHECK_RC(xio(fd, XRDMA_IOC_MODIFY_QP, &m), -EINVAL, "reserved non-zero");
	CHECK_EQ(qp_state(fd, qp->h), QPS_RESET, "still RESET after failures");

	rc_init_attr(&a);
	CHECK_RC(modify_qp(fd, qp->h, RC_INIT_MASK, &a), 0, "RC RESET -> INIT");
	CHECK_EQ(qp_state(fd, qp->h), QPS_INIT, "QUERY_QP says INIT");
	CHECK_RC(modify_qp(fd, qp->h, QPA_STATE | QPA_ACCESS, &a), 0,
		 "RC INIT -> INIT");

	/* INIT -> RTR */
	rc_rtr_attr(&a, qp->qpn);
	qp_neg(fd, qp, RC_RTR_MASK & ~QPA_DEST_QPN, &a, QPS_INIT,
	       "RC INIT -> RTR without DEST_QPN");
	qp_neg(fd, qp, RC_RTR_MASK | QPA_SQ_PSN, &a, QPS_INIT,
	       "RC INIT -> RTR with SQ_PSN (not allowed)");
	a.path_mtu = 6;
	qp_neg(fd, qp, RC_RTR_MASK, &a, QPS_INIT, "path_mtu 6");
	a.path_mtu = 0;
	qp_neg(fd, qp, RC_RTR_MASK, &a, QPS_INIT, "path_mtu 0");
	rc_rtr_attr(&a, 1u << 24);
	qp_neg(fd, qp, RC_RTR_MASK, &a, QPS_INIT,
	       "dest_qp_num 2^24");
	rc_rtr_attr(&a, qp->qpn);
	a.rq_psn = 1u << 24;
	qp_neg(fd, qp, RC_RTR_MASK, &a, QPS_INIT, "rq_psn 2^24");
	rc_rtr_attr(&a, qp->qpn);
	a.ah_attr.port_num = 0;
	qp_neg(fd, qp, RC_RTR_MASK, &a, QPS_INIT,
	       "ah_attr.port_num 0");
	rc_rtr_attr(&a, qp->qpn);
	a.ah_attr.sgid_index = 16;
	qp_neg(fd, qp, RC_RTR_MASK, &a, QPS_INIT,
	       "ah_attr.sgid_index 16");
	rc_rtr_attr(&a, qp->qpn);
	a.ah_attr.is_global = 0;
	qp_neg(fd, qp, RC_RTR_MASK, &a, QPS_INIT,
	       "ah_attr.is_global 0 on a RoCE port (no GRH)");
	rc_rtr_attr(&a, qp->qpn);
	a.min_rnr_timer = 32;
	qp_neg(fd, qp, RC_RTR_MASK, &a, QPS_INIT,
	       "min_rnr_timer 32");
	rc_rtr_attr(&a, qp->qpn);
	a.max_dest_rd_atomic = ut_dattr.max_qp_rd_atom + 1;
	if (a.max_dest_rd_atomic != 0)
		qp_neg(fd, qp, RC_RTR_MASK, &a, QPS_INIT,
		       "max_dest_rd_atomic max_qp_rd_atom + 1");
	CHECK_EQ(qp_state(fd, qp->h), QPS_INIT, "still INIT after failures");
	rc_rtr_attr(&a, qp->qpn);
	CHECK_RC(modify_qp(fd, qp->h, RC_RTR_MASK, &a), 0, "RC INIT -> RTR");
	CHECK_EQ(qp_state(fd, qp->h), QPS_RTR, "QUERY_QP says RTR");

	/* RTR -> RTS */
	rc_rts_attr(&a);
	a.timeout = 32;
	qp_neg(fd, qp, RC_RTS_MASK, &a, QPS_RTR, "timeout 32");
	rc_rts_attr(&a);
	a.retry_cnt = 8;
	qp_neg(fd, qp, RC_RTS_MASK, &a, QPS_RTR, "retry_cnt 8");
	rc_rts_attr(&a);
	a.rnr_retry = 8;
	qp_neg(fd, qp, RC_RTS_MASK, &a, QPS_RTR, "rnr_retry 8");
	rc_rts_attr(&a);
	a.sq_psn = 1u << 24;
	qp_neg(fd, qp, RC_RTS_MASK, &a, QPS_RTR, "sq_psn 2^24");
	rc_rts_attr(&a);
	a.max_rd_atomic = ut_dattr.max_qp_init_rd_atom + 1;
	if (a.max_rd_atomic != 0)
		qp_neg(fd, qp, RC_RTS_MASK, &a, QPS_RTR,
		       "max_rd_atomic max_qp_init_rd_atom + 1");
	rc_rts_attr(&a);
	a.cur_qp_state = QPS_RTS;
	qp_neg(fd, qp, RC_RTS_MASK | QPA_CUR_STATE, &a, QPS_RTR,
	       "CUR_STATE RTS while in RTR");
	CHECK_EQ(qp_state(fd, qp->h), QPS_RTR, "still RTR after failures");
	rc_rts_attr(&a);
	a.cur_qp_state = QPS_RTR;
	CHECK_RC(modify_qp(fd, qp->h, RC_RTS_MASK | QPA_CUR_STATE, &a), 0,
		 "RC RTR -> RTS (with a correct CUR_STATE)");
	CHECK_EQ(qp_state(fd, qp->h), QPS_RTS, "QUERY_QP says RTS");

	memset(&a, 0, sizeof(a));
	a.min_rnr_timer = 5;
	CHECK_RC(modify_qp(fd, qp->h, QPA_MIN_RNR, &a), 0,
		 "RTS: modify MIN_RNR_TIMER without a state change");
	a.cap.max_send_wr = 4;
	CHECK_RC(modify_qp(fd, qp->h, QPA_CAP, &a), -EINVAL,
		 "QP_CAP (resize not supported)");

	ret = query_qp(fd, qp->h, &q);
	CHECK_RC(ret, 0, "QUERY_QP in RTS");
	if (!ret) {
		bad[0] = 0;
		qcmp(bad, sizeof(bad), "qp_state", q.attr.qp_state, QPS_RTS);
		qcmp(bad, sizeof(bad), "dest_qp_num", q.attr.dest_qp_num,
		     qp->qpn);
		qcmp(bad, sizeof(bad), "path_mtu", q.attr.path_mtu, 3);
		qcmp(bad, sizeof(bad), "rq_psn", q.attr.rq_psn, 0x123);
		qcmp(bad, sizeof(bad), "sq_psn", q.attr.sq_psn, 0x456);
		qcmp(bad, sizeof(bad), "timeout", q.attr.timeout, 14);
		qcmp(bad, sizeof(bad), "retry_cnt", q.attr.retry_cnt, 7);
		qcmp(bad, sizeof(bad), "rnr_retry", q.attr.rnr_retry, 7);
		qcmp(bad, sizeof(bad), "min_rnr_timer", q.attr.min_rnr_timer,
		     5);
		qcmp(bad, sizeof(bad), "port_num", q.attr.port_num, 1);
		qcmp(bad, sizeof(bad), "qp_access_flags", q.attr.qp_access_flags,
		     ACC_LW | ACC_RW | ACC_RR);
		qcmp(bad, sizeof(bad), "ah_attr.port_num", q.attr.ah_attr.port_num,
		     1);
		qcmp(bad, sizeof(bad), "ah_attr.hop_limit", q.attr.ah_attr.hop_limit,
		     64);
		ut_ok(!bad[0], bad, "QUERY_QP returns the attributes set");
		CHECK_EQ(q.qp_type, XRDMA_UVERBS_QPT_RC, "QUERY_QP qp_type RC");
		CHECK(q.init_cap.max_send_wr >= 8 && q.init_cap.max_send_sge >= 1,
		      "QUERY_QP init_cap: send_wr %u send_sge %u",
		      q.init_cap.max_send_wr, q.init_cap.max_send_sge);
	}

	memset(&a, 0, sizeof(a));
	a.qp_state = QPS_ERR;
	CHECK_RC(modify_qp(fd, qp->h, QPA_STATE, &a), 0, "RTS -> ERR");
	CHECK_EQ(qp_state(fd, qp->h), QPS_ERR, "QUERY_QP says ERR");
	a.qp_state = QPS_RTS;
	CHECK_RC(modify_qp(fd, qp->h, QPA_STATE, &a), -EINVAL, "ERR -> RTS");
	a.qp_state = QPS_RESET;
	CHECK_RC(modify_qp(fd, qp->h, QPA_STATE, &a), 0, "ERR -> RESET");
	CHECK_EQ(qp_state(fd, qp->h), QPS_RESET, "QUERY_QP says RESET");
	CHECK_RC(qp_to_rts(fd, qp->h, XRDMA_UVERBS_QPT_RC, qp->qpn), 0,
		 "RC to RTS again after RESET");
}

/* QP capability cases of CREATE_QP */
static const struct arg_row qp_cap_cases[] = {
	{ "max_send_wr max_qp_wr + 1", QP_CAP(max_send_wr), 4, 0, DEV(max_qp_wr),
	  1, -EINVAL },
	{ "max_recv_wr max_qp_wr + 1", QP_CAP(max_recv_wr), 4, 0, DEV(max_qp_wr),
	  1, -EINVAL },
	{ "max_send_sge max_sge + 1", QP_CAP(max_send_sge), 4, 0, DEV(max_sge), 1,
	  -EINVAL },
	{ "max_inline_data max_inline_data + 1", QP_CAP(max_inline_data), 4, 0,
	  DEV(max_inline_data), 1, -EINVAL },
	{ "cap.reserved 1", QP_CAP(reserved), 4, 0, 0, 1, -EINVAL },
};

void t_qp(void)
{
	struct xrdma_cmd_create_qp m;
	struct xrdma_uverbs_qp_attr a;
	struct xrdma_cmd_query_qp q;
	struct qp rc, ud, uc, sq;
	uint32_t pd, srq, h, types[] = { 0, 5, 0xffffffff };
	struct cq cq1, cq2, cq3;
	struct ctx c;
	size_t i;
	int ret;

	if (!CHECK_RC(ctx_open(&c), 0, "context"))
		return;
	if (alloc_pd(c.fd, &pd) || create_cq(c.fd, 16, -1, 1, &cq1) ||
	    create_cq(c.fd, 16, -1, 2, &cq2) ||
	    create_srq(c.fd, pd, 16, 1, 0, 3, &srq)) {
		ut_fail("setup", "PD, 2 CQs, SRQ");
		return;
	}

	ret = create_qp(c.fd, pd, cq1.h, cq2.h, 0, XRDMA_UVERBS_QPT_RC, 10, &rc);
	CHECK_RC(ret, 0, "CREATE_QP RC");
	CHECK(rc.h != 0 && rc.qpn >= 2 && rc.qpn < (1u << 24),
	      "handle %u, qpn %u in 2..2^24-1", rc.h, rc.qpn);
	CHECK(rc.cap.max_send_wr >= 16 && rc.cap.max_recv_wr >= 16 &&
	      rc.cap.max_send_sge >= 1 && rc.cap.max_recv_sge >= 1,
	      "actual caps >= requested (send %u/%u recv %u/%u)",
	      rc.cap.max_send_wr, rc.cap.max_send_sge, rc.cap.max_recv_wr,
	      rc.cap.max_recv_sge);
	CHECK_EQ(count_of(R_QP), 1, "debugfs counts 1 QP");
	CHECK_RC(create_qp(c.fd, pd, cq1.h, cq1.h, 0, XRDMA_UVERBS_QPT_UD, 11,
			   &ud), 0, "CREATE_QP UD");
	CHECK_RC(create_qp(c.fd, pd, cq2.h, cq2.h, 0, XRDMA_UVERBS_QPT_UC, 12,
			   &uc), 0, "CREATE_QP UC");
	CHECK(rc.qpn != ud.qpn && ud.qpn != uc.qpn && rc.qpn != uc.qpn,
	      "QPNs differ (%u %u %u)", rc.qpn, ud.qpn, uc.qpn);
	CHECK_RC(create_qp(c.fd, pd, cq1.h, cq2.h, srq, XRDMA_UVERBS_QPT_RC, 13,
			   &sq), 0, "CREATE_QP RC on an SRQ");

	for (i = 0; i < ARRAY_SIZE(types); i++) {
		qp_init(&m, pd, cq1.h, types[i]);
		CHECK_RC(qp_raw(c.fd, &m, NULL), -EOPNOTSUPP, "qp_type %u",
			 types[i]);
	}
	/* 1 is the kernel's GSI QP type: refused outright */
	qp_init(&m, pd, cq1.h, 1);
	CHECK_RC(qp_raw(c.fd, &m, NULL), -EINVAL, "qp_type 1 (GSI)");
	qp_init(&m, pd, cq1.h, XRDMA_UVERBS_QPT_RC);
	m.flags = 1u << 2;
	CHECK_RC(qp_raw(c.fd, &m, NULL), -EINVAL, "flags 1 << 2");
	m.flags = 0x80000000u;
	CHECK_RC(qp_raw(c.fd, &m, NULL), -EINVAL, "flags 1 << 31");
	qp_init(&m, pd, cq1.h, XRDMA_UVERBS_QPT_RC);
	m.flags = XRDMA_UVERBS_CREATE_QP_SQ_SIG_ALL;
	ret = qp_raw(c.fd, &m, &h);
	CHECK_RC(ret, 0, "flags SQ_SIG_ALL");
	if (!ret) {
		CHECK(!query_qp(c.fd, h, &q) && q.sq_sig_all == 1,
		      "QUERY_QP sq_sig_all 1");
		destroy(c.fd, XRDMA_OBJ_QP, h);
	}
	qp_init(&m, pd, cq1.h, XRDMA_UVERBS_QPT_RC);
	m.flags = XRDMA_UVERBS_CREATE_QP_SRQ;
	m.srq_handle = 0;
	CHECK_RC(qp_raw(c.fd, &m, NULL), -ENOENT, "SRQ flag, srq_handle 0");
	m.srq_handle = pd;
	CHECK_RC(qp_raw(c.fd, &m, NULL), -EINVAL, "SRQ flag, PD handle as SRQ");
	qp_init(&m, 0, cq1.h, XRDMA_UVERBS_QPT_RC);
	CHECK_RC(qp_raw(c.fd, &m, NULL), -ENOENT, "PD handle 0");
	qp_init(&m, cq1.h, cq1.h, XRDMA_UVERBS_QPT_RC);
	CHECK_RC(qp_raw(c.fd, &m, NULL), -EINVAL, "CQ handle as PD");
	qp_init(&m, pd, pd, XRDMA_UVERBS_QPT_RC);
	CHECK_RC(qp_raw(c.fd, &m, NULL), -EINVAL, "PD handle as CQs");
	qp_init(&m, pd, cq1.h, XRDMA_UVERBS_QPT_RC);
	m.recv_cq_handle = 0;
	CHECK_RC(qp_raw(c.fd, &m, NULL), -ENOENT, "recv CQ handle 0");
	m.recv_cq_handle = BAD_HANDLE;
	CHECK_RC(qp_raw(c.fd, &m, NULL), -ENOENT, "recv CQ never created");
	if (!create_cq(c.fd, 4, -1, 0, &cq3)) {
		destroy(c.fd, XRDMA_OBJ_CQ, cq3.h);
		qp_init(&m, pd, cq3.h, XRDMA_UVERBS_QPT_RC);
		CHECK_RC(qp_raw(c.fd, &m, NULL), -ENOENT, "destroyed CQ");
	}
	for (i = 0; i < ARRAY_SIZE(qp_cap_cases); i++) {
		const struct arg_row *r = &qp_cap_cases[i];

		qp_init(&m, pd, cq1.h, XRDMA_UVERBS_QPT_RC);
		arg_set(&m, r);
		CHECK_RC(qp_raw(c.fd, &m, NULL), r->err, "%s", r->name);
	}
	/* within the limits any size is valid, 0 included (ib_core, rxe) */
	qp_init(&m, pd, cq1.h, XRDMA_UVERBS_QPT_RC);
	memset(&m.cap, 0, sizeof(m.cap));
	if (CHECK_RC(qp_raw(c.fd, &m, &h), 0, "no send and no receive WRs"))
		CHECK_RC(destroy(c.fd, XRDMA_OBJ_QP, h), 0,
			 "DESTROY the QP with no WRs");
	CHECK_EQ(count_of(R_QP), 4, "failed CREATE_QPs created nothing");

	/* dependencies */
	CHECK_RC(destroy(c.fd, XRDMA_OBJ_CQ, cq1.h), -EBUSY,
		 "DESTROY send CQ of a QP");
	CHECK_RC(destroy(c.fd, XRDMA_OBJ_CQ, cq2.h), -EBUSY,
		 "DESTROY recv CQ of a QP");
	CHECK_RC(destroy(c.fd, XRDMA_OBJ_PD, pd), -EBUSY, "DESTROY PD of a QP");
	CHECK_RC(destroy(c.fd, XRDMA_OBJ_SRQ, srq), -EBUSY,
		 "DESTROY SRQ of a QP");
	CHECK_EQ(res_total(), 1 + 2 + 4 + 1, "refused DESTROYs changed nothing");

	/* state machine */
	t_qp_modify_rc(c.fd, &rc);

	/* UC as RC: an address vector without a GRH on a RoCE port */
	rc_init_attr(&a);
	CHECK_RC(modify_qp(c.fd, uc.h, RC_INIT_MASK, &a), 0, "UC RESET -> INIT");
	rc_rtr_attr(&a, rc.qpn);
	a.ah_attr.is_global = 0;
	CHECK_RC(modify_qp(c.fd, uc.h, QPA_STATE | QPA_AV | QPA_PATH_MTU |
			   QPA_DEST_QPN | QPA_RQ_PSN, &a), -EINVAL,
		 "UC INIT -> RTR, ah_attr.is_global 0 on a RoCE port (no GRH)");
	CHECK_EQ(qp_state(c.fd, uc.h), QPS_INIT, "UC still INIT");
	memset(&a, 0, sizeof(a));
	a.qp_state = QPS_RESET;
	CHECK_RC(modify_qp(c.fd, uc.h, QPA_STATE, &a), 0, "UC INIT -> RESET");
	CHECK_RC(qp_to_rts(c.fd, uc.h, XRDMA_UVERBS_QPT_UC, rc.qpn), 0,
		 "UC RESET -> INIT -> RTR -> RTS");
	CHECK_EQ(qp_state(c.fd, uc.h), QPS_RTS, "UC in RTS");
	memset(&a, 0, sizeof(a));
	a.qp_state = QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = ACC_LW;
	a.qkey = 0x11111111;
	CHECK_RC(modify_qp(c.fd, ud.h, QPA_STATE | QPA_PKEY | QPA_PORT |
			   QPA_ACCESS, &a), -EINVAL,
		 "UD RESET -> INIT with ACCESS_FLAGS instead of QKEY");
	CHECK_RC(qp_to_rts(c.fd, ud.h, XRDMA_UVERBS_QPT_UD, 0), 0,
		 "UD RESET -> INIT -> RTR -> RTS");
	ret = query_qp(c.fd, ud.h, &q);
	CHECK(!ret && q.attr.qp_state == QPS_RTS &&
	      q.qp_type == XRDMA_UVERBS_QPT_UD,
	      "QUERY_QP: UD in RTS (state %u type %u)", q.attr.qp_state,
	      q.qp_type);
	CHECK(!ret && q.attr.qkey == 0x11111111, "QUERY_QP: UD qkey 0x%x",
	      q.attr.qkey);
	t_qkey_controlled(c.fd, ud.h);

	/* QUERY_QP errors */
	CHECK_RC(query_qp(c.fd, 0, &q), -ENOENT, "QUERY_QP handle 0");
	CHECK_RC(query_qp(c.fd, BAD_HANDLE, &q), -ENOENT,
		 "QUERY_QP handle never created");
	CHECK_RC(query_qp(c.fd, pd, &q), -EINVAL, "QUERY_QP of a PD handle");
	memset(&a, 0, sizeof(a));
	CHECK_RC(modify_qp(c.fd, 0, QPA_STATE, &a), -ENOENT,
		 "MODIFY_QP handle 0");
	CHECK_RC(modify_qp(c.fd, cq1.h, QPA_STATE, &a), -EINVAL,
		 "MODIFY_QP of a CQ handle");

	/* a CQ used twice by one QP is released twice */
	CHECK_RC(destroy(c.fd, XRDMA_OBJ_QP, rc.h), 0, "DESTROY RC QP");
	CHECK_RC(destroy(c.fd, XRDMA_OBJ_QP, sq.h), 0, "DESTROY SRQ QP");
	CHECK_RC(destroy(c.fd, XRDMA_OBJ_QP, uc.h), 0, "DESTROY UC QP");
	CHECK_RC(destroy(c.fd, XRDMA_OBJ_CQ, cq1.h), -EBUSY,
		 "DESTROY CQ still send+recv CQ of the UD QP");
	CHECK_RC(destroy(c.fd, XRDMA_OBJ_QP, ud.h), 0, "DESTROY UD QP");
	CHECK_RC(destroy(c.fd, XRDMA_OBJ_QP, ud.h), -ENOENT,
		 "DESTROY UD QP twice");
	CHECK_RC(destroy(c.fd, XRDMA_OBJ_CQ, cq1.h), 0, "DESTROY CQ 1");
	CHECK_RC(destroy(c.fd, XRDMA_OBJ_CQ, cq2.h), 0, "DESTROY CQ 2");
	CHECK_RC(destroy(c.fd, XRDMA_OBJ_SRQ, srq), 0, "DESTROY SRQ");
	CHECK_RC(destroy(c.fd, XRDMA_OBJ_PD, pd), 0, "DESTROY PD");
	CHECK_EQ(res_total(), 0, "all gone");
	ctx_close(&c);
}

/* --------------------------------------------------------------- SRQ */

static void srq_init(void *cmd, uint32_t pd)
{
	struct xrdma_cmd_create_srq *m = cmd;

	memset(m, 0, sizeof(*m));
	m->pd_handle = pd;
	m->max_wr = 16;
	m->max_sge = 1;
}

#define SRQ(f)	offsetof(struct xrdma_cmd_create_srq, f)

static const struct arg_row srq_cases[] = {
	{ "max_wr 0", SRQ(max_wr), 4, 0, 0, 0, -EINVAL },
	{ "max_wr max_srq_wr + 1", SRQ(max_wr), 4, 0, DEV(max_srq_wr), 1,
	  -EINVAL },
	{ "max_sge 0", SRQ(max_sge), 4, 0, 0, 0, -EINVAL },
	{ "max_sge max_srq_sge + 1", SRQ(max_sge), 4, 0, DEV(max_srq_sge), 1,
	  -EINVAL },
	{ "srq_limit > max_wr", SRQ(srq_limit), 4, 0, 0, 17, -EINVAL },
	{ "reserved 1", SRQ(reserved), 4, 0, 0, 1, -EINVAL },
};

void t_srq(void)
{
	struct xrdma_cmd_create_srq m;
	struct xrdma_cmd_modify_srq ms;
	struct xrdma_cmd_query_srq q;
	uint32_t pd, srq, h;
	struct ctx c;
	struct cq cq;
	int ret;

	if (!ut_open_objs(&c, &pd, &cq, NULL))
		return;
	srq_init(&m, pd);
	m.user_cookie = 77;
	ret = xio(c.fd, XRDMA_IOC_CREATE_SRQ, &m);
	CHECK_RC(ret, 0, "CREATE_SRQ 16 WRs, 1 SGE");
	srq = m.srq_handle;
	CHECK(srq != 0 && m.max_wr >= 16 && m.max_sge >= 1,
	      "handle %u, actual max_wr %u max_sge %u", srq, m.max_wr,
	      m.max_sge);
	CHECK_EQ(count_of(R_SRQ), 1, "debugfs counts 1 SRQ");

	create_cases(c.fd, XRDMA_IOC_CREATE_SRQ, srq_init, pd, cq.h, srq_cases,
		     ARRAY_SIZE(srq_cases));
	CHECK_EQ(count_of(R_SRQ), 1, "failed CREATE_SRQs created nothing");

	memset(&q, 0, sizeof(q));
	q.srq_handle = srq;
	CHECK_RC(xio(c.fd, XRDMA_IOC_QUERY_SRQ, &q), 0, "QUERY_SRQ");
	CHECK(q.max_wr >= 16 && q.max_sge >= 1 && q.srq_limit == 0,
	      "max_wr %u max_sge %u srq_limit %u", q.max_wr, q.max_sge,
	      q.srq_limit);
	q.srq_handle = 0;
	CHECK_RC(xio(c.fd, XRDMA_IOC_QUERY_SRQ, &q), -ENOENT,
		 "QUERY_SRQ handle 0");
	q.srq_handle = pd;
	CHECK_RC(xio(c.fd, XRDMA_IOC_QUERY_SRQ, &q), -EINVAL,
		 "QUERY_SRQ of a PD handle");

	memset(&ms, 0, sizeof(ms));
	ms.srq_handle = srq;
	ms.attr_mask = XRDMA_UVERBS_SRQ_LIMIT;
	ms.srq_limit = 4;
	CHECK_RC(xio(c.fd, XRDMA_IOC_MODIFY_SRQ, &ms), 0, "MODIFY_SRQ limit 4");
	memset(&q, 0, sizeof(q));
	q.srq_handle = srq;
	CHECK(!xio(c.fd, XRDMA_IOC_QUERY_SRQ, &q) && q.srq_limit == 4,
	      "QUERY_SRQ says limit 4 (%u)", q.srq_limit);
	ms.attr_mask = 0;
	CHECK_RC(xio(c.fd, XRDMA_IOC_MODIFY_SRQ, &ms), -EINVAL,
		 "MODIFY_SRQ attr_mask 0");
	ms.attr_mask = 1u << 2;
	CHECK_RC(xio(c.fd, XRDMA_IOC_MODIFY_SRQ, &ms), -EINVAL,
		 "MODIFY_SRQ attr_mask 1 << 2");
	ms.attr_mask = XRDMA_UVERBS_SRQ_MAX_WR;
	ms.max_wr = 32;
	if (ut_dattr.device_cap_flags & XRDMA_DEVICE_CAP_SRQ_RESIZE) {
		CHECK_RC(xio(c.fd, XRDMA_IOC_MODIFY_SRQ, &ms), 0,
			 "MODIFY_SRQ max_wr 32 (SRQ_RESIZE)");
		CHECK(!xio(c.fd, XRDMA_IOC_QUERY_SRQ, &q) && q.max_wr >= 32,
		      "QUERY_SRQ says max_wr %u >= 32", q.max_wr);
		ms.max_wr = 0;
		CHECK_RC(xio(c.fd, XRDMA_IOC_MODIFY_SRQ, &ms), -EINVAL,
			 "MODIFY_SRQ max_wr 0");
	} else {
		CHECK_RC(xio(c.fd, XRDMA_IOC_MODIFY_SRQ, &ms), -EINVAL,
			 "MODIFY_SRQ max_wr without SRQ_RESIZE");
	}
	ms.attr_mask = XRDMA_UVERBS_SRQ_LIMIT;
	ms.srq_handle = BAD_HANDLE;
	CHECK_RC(xio(c.fd, XRDMA_IOC_MODIFY_SRQ, &ms), -ENOENT,
		 "MODIFY_SRQ handle never created");
	ms.srq_handle = cq.h;
	CHECK_RC(xio(c.fd, XRDMA_IOC_MODIFY_SRQ, &ms), -EINVAL,
		 "MODIFY_SRQ of a CQ handle");

	CHECK_RC(destroy(c.fd, XRDMA_OBJ_PD, pd), -EBUSY, "DESTROY PD of an SRQ");
	{
		struct qp qp;

		if (!create_qp(c.fd, pd, cq.h, cq.h, srq, XRDMA_UVERBS_QPT_UD,
			       0, &qp)) {
			CHECK_RC(destroy(c.fd, XRDMA_OBJ_SRQ, srq), -EBUSY,
				 "DESTROY SRQ attached to a QP");
			destroy(c.fd, XRDMA_OBJ_QP, qp.h);
		}
	}
	CHECK_RC(destroy(c.fd, XRDMA_OBJ_SRQ, srq), 0, "DESTROY SRQ");
	CHECK_RC(destroy(c.fd, XRDMA_OBJ_SRQ, srq), -ENOENT, "DESTROY SRQ twice");
	h = srq;
	memset(&q, 0, sizeof(q));
	q.srq_handle = h;
	CHECK_RC(xio(c.fd, XRDMA_IOC_QUERY_SRQ, &q), -ENOENT,
		 "QUERY_SRQ of a destroyed SRQ");
	destroy(c.fd, XRDMA_OBJ_CQ, cq.h);
	CHECK_RC(destroy(c.fd, XRDMA_OBJ_PD, pd), 0, "DESTROY PD");
	ctx_close(&c);
}

/* ---------------------------------------------------------------- AH */

static void ah_init(void *cmd, uint32_t pd)
{
	struct xrdma_cmd_create_ah *m = cmd;

	memset(m, 0, sizeof(*m));
	m->pd_handle = pd;
	ah_attr_default(&m->attr);
}

#define AH(f)	offsetof(struct xrdma_cmd_create_ah, f)

static const struct arg_row ah_cases[] = {
	{ "port 0", AH(attr.port_num), 1, 0, 0, 0, -EINVAL },
	{ "port num_ports + 1", AH(attr.port_num), 1, 0, DEV(num_ports), 1,
	  -EINVAL },
	{ "sgid_index 16", AH(attr.sgid_index), 1, 0, 0, 16, -EINVAL },
	{ "is_global 0 on a RoCE port (no GRH)", AH(attr.is_global), 1, 0, 0,
	  0, -EINVAL },
	{ "reserved 1", AH(reserved), 4, 0, 0, 1, -EINVAL },
	{ "attr.reserved non-zero", AH(attr.reserved[1]), 1, 0, 0, 1, -EINVAL },
};

void t_ah(void)
{
	uint32_t pd, ah;
	struct ctx c;
	struct cq cq;

	if (!ut_open_objs(&c, &pd, &cq, NULL))
		return;
	CHECK_RC(create_ah(c.fd, pd, 5, &ah), 0, "CREATE_AH");
	CHECK(ah != 0, "handle %u", ah);
	CHECK_EQ(count_of(R_AH), 1, "debugfs counts 1 AH");
	create_cases(c.fd, XRDMA_IOC_CREATE_AH, ah_init, pd, cq.h, ah_cases,
		     ARRAY_SIZE(ah_cases));
	CHECK_EQ(count_of(R_AH), 1, "failed CREATE_AHs created nothing");
	CHECK_RC(destroy(c.fd, XRDMA_OBJ_PD, pd), -EBUSY, "DESTROY PD of an AH");
	CHECK_RC(destroy(c.fd, XRDMA_OBJ_AH, ah), 0, "DESTROY AH");
	CHECK_RC(destroy(c.fd, XRDMA_OBJ_AH, ah), -ENOENT, "DESTROY AH twice");
	CHECK_RC(destroy(c.fd, XRDMA_OBJ_PD, pd), 0, "DESTROY PD after its AH");
	destroy(c.fd, XRDMA_OBJ_CQ, cq.h);
	ctx_close(&c);
}

/* ----------------------------------------------------------- DESTROY */

void t_destroy(void)
{
	static const char *const tn[] = { "?", "PD", "CQ", "QP", "SRQ", "MR",
					  "AH" };
	struct xrdma_cmd_destroy d;
	uint32_t pd, pds[50], t, hb;
	struct ctx c, c2;
	struct cq cq;
	struct qp qp;
	int i, j, ok;

	if (!ut_open_objs(&c, &pd, &cq, &qp))
		return;
	CHECK_RC(destroy(c.fd, 0, pd), -EINVAL, "type 0");
	CHECK_RC(destroy(c.fd, 7, pd), -EINVAL, "type 7");
	CHECK_RC(destroy(c.fd, 0xffffffff, pd), -EINVAL, "type 0xffffffff");
	for (t = XRDMA_OBJ_PD; t <= XRDMA_OBJ_AH; t++) {
		CHECK_RC(destroy(c.fd, t, 0), -ENOENT, "%s handle 0", tn[t]);
		CHECK_RC(destroy(c.fd, t, BAD_HANDLE), -ENOENT,
			 "%s handle never created", tn[t]);
		if (t != XRDMA_OBJ_PD)
			CHECK_RC(destroy(c.fd, t, pd), -EINVAL,
				 "PD handle as %s", tn[t]);
	}
	CHECK_RC(destroy(c.fd, XRDMA_OBJ_PD, qp.h), -EINVAL, "QP handle as PD");
	CHECK_EQ(res_total(), 3, "no object was destroyed by the failures");

	/* comp/async events reported: none yet */
	memset(&d, 0xa5, sizeof(d));
	CHECK_RC(destroy_ex(c.fd, XRDMA_OBJ_QP, qp.h, &d), 0, "DESTROY QP");
	CHECK(d.comp_events_reported == 0 && d.async_events_reported == 0,
	      "QP: events reported %u/%u", d.comp_events_reported,
	      d.async_events_reported);
	CHECK_RC(destroy_ex(c.fd, XRDMA_OBJ_CQ, cq.h, &d), 0, "DESTROY CQ");
	CHECK(d.comp_events_reported == 0 && d.async_events_reported == 0,
	      "CQ: events reported %u/%u", d.comp_events_reported,
	      d.async_events_reported);
	CHECK_RC(destroy(c.fd, XRDMA_OBJ_QP, qp.h), -ENOENT, "QP twice");
	CHECK_RC(destroy(c.fd, XRDMA_OBJ_CQ, cq.h), -ENOENT, "CQ twice");
	CHECK_RC(destroy(c.fd, XRDMA_OBJ_PD, pd), 0, "DESTROY PD");
	CHECK_RC(destroy(c.fd, XRDMA_OBJ_PD, pd), -ENOENT, "PD twice");

	/* a destroyed handle is not reused at once: it stays -ENOENT */
	CHECK_RC(alloc_pd(c.fd, &hb), 0, "a new PD after DESTROY PD");
	CHECK(hb != pd, "its handle %u differs from the destroyed %u", hb,
	      pd);
	CHECK_RC(destroy(c.fd, XRDMA_OBJ_PD, pd), -ENOENT,
		 "DESTROY with the old handle: -ENOENT");
	if (!CHECK_RC(create_ah(c.fd, pd, 0, &t), -ENOENT,
		      "CREATE_AH on the old PD handle: -ENOENT"))
		destroy(c.fd, XRDMA_OBJ_AH, t);
	CHECK_RC(destroy(c.fd, XRDMA_OBJ_PD, hb), 0, "DESTROY the new PD");
	ok = 1;
	for (i = 0; i < 50; i++) {
		if (alloc_pd(c.fd, &pds[i]) || pds[i] == 0 || pds[i] == pd ||
		    pds[i] == hb)
			ok = 0;
		for (j = 0; j < i; j++)
			if (pds[j] == pds[i])
				ok = 0;
		if (destroy(c.fd, XRDMA_OBJ_PD, pds[i]))
			ok = 0;
	}
	CHECK(ok, "50 PD create/destroy cycles: 50 new handles");

	/* handles: never 0, unique */
	ok = 1;
	for (i = 0; i < 50; i++) {
		if (alloc_pd(c.fd, &pds[i]) || pds[i] == 0)
			ok = 0;
		for (j = 0; j < i; j++)
			if (pds[j] == pds[i])
				ok = 0;
	}
	CHECK(ok, "50 PDs: handles non-zero and distinct");
	for (i = 0; i < 50; i++)
		destroy(c.fd, XRDMA_OBJ_PD, pds[i]);

	/* another fd's handle */
	if (CHECK_RC(ctx_open(&c2), 0, "second context")) {
		CHECK_RC(alloc_pd(c2.fd, &hb), 0, "ALLOC_PD on context 2");
		CHECK_RC(destroy(c.fd, XRDMA_OBJ_PD, hb), -ENOENT,
			 "DESTROY of another fd's PD (context 1 has none)");
		CHECK_EQ(count_of(R_PD), 1, "context 2's PD survived");
		CHECK_RC(destroy(c2.fd, XRDMA_OBJ_PD, hb), 0,
			 "context 2 destroys its PD");
		ctx_close(&c2);
	}
	ctx_close(&c);
}

/* ------------------------------------------------------------- sizes */

/*
 * For every command: the exact size works and the kernel writes nothing
 * past it; smaller than v1 -> EINVAL; larger with a non-zero tail ->
 * E2BIG; larger with a zero tail -> works; a page -> works; more than a
 * page -> E2BIG.  A structure that grew since v1 (sz_ver1()): v1's size
 * works too and nothing past it is written.
 */
struct szcmd {
	const char *name;
	unsigned int nr;
	size_t size;
	enum ut_fd fresh;
};

/* a command's first published size (_SIZE_VER0) where it grew since */
static size_t sz_ver1(const struct szcmd *s)
{
	if (s->nr == _IOC_NR(XRDMA_IOC_QUERY_DEVICE))
		return XRDMA_CMD_QUERY_DEVICE_SIZE_VER0;
	return s->size;
}

static const struct szcmd szcmds[] = {
	{ "GET_CONTEXT", 0x00, sizeof(struct xrdma_cmd_get_context),
	  UT_FD_NOCTX },
	{ "QUERY_DEVICE", 0x01, sizeof(struct xrdma_cmd_query_device),
	  UT_FD_CTX },
	{ "QUERY_PORT", 0x02, sizeof(struct xrdma_cmd_query_port), UT_FD_CTX },
	{ "QUERY_GID", 0x03, sizeof(struct xrdma_cmd_query_gid), UT_FD_CTX },
	{ "ALLOC_PD", 0x04, sizeof(struct xrdma_cmd_alloc_pd), UT_FD_CTX },
	{ "DESTROY", 0x05, sizeof(struct xrdma_cmd_destroy), UT_FD_CTX },
	{ "REG_MR", 0x06, sizeof(struct xrdma_cmd_reg_mr), UT_FD_CTX },
	{ "CREATE_CQ", 0x07, sizeof(struct xrdma_cmd_create_cq), UT_FD_CTX },
	{ "CREATE_QP", 0x09, sizeof(struct xrdma_cmd_create_qp), UT_FD_CTX },
	{ "MODIFY_QP", 0x0a, sizeof(struct xrdma_cmd_modify_qp), UT_FD_CTX },
	{ "QUERY_QP", 0x0b, sizeof(struct xrdma_cmd_query_qp), UT_FD_CTX },
	{ "CREATE_SRQ", 0x0c, sizeof(struct xrdma_cmd_create_srq), UT_FD_CTX },
	{ "MODIFY_SRQ", 0x0d, sizeof(struct xrdma_cmd_modify_srq), UT_FD_CTX },
	{ "QUERY_SRQ", 0x0e, sizeof(struct xrdma_cmd_query_srq), UT_FD_CTX },
	{ "CREATE_AH", 0x0f, sizeof(struct xrdma_cmd_create_ah), UT_FD_CTX },
	{ "CREATE_COMP_CHANNEL", 0x10, sizeof(struct xrdma_cmd_fd), UT_FD_CTX },
	{ "GET_ASYNC_FD", 0x11, sizeof(struct xrdma_cmd_fd), UT_FD_NEWCTX },
	{ "KICK", 0x12, sizeof(struct xrdma_cmd_kick), UT_FD_CTX },
	{ "QUERY_CLOCK", 0x13, sizeof(struct xrdma_cmd_query_clock),
	  UT_FD_CTX },
};

/*
 * One call of command s with encoded size sz; a non-zero tail is written
 * to the last byte of sz when sz is larger than the structure.
 */
static int sz_call(struct ut_fix *e, const struct szcmd *s, size_t sz,
		   int tail, bool guard_check, bool *guard_ok)
{
	static union xt_cmd u;
	int fd = ut_row_fd(e->c.fd, s->fresh), ret;
	size_t i;

	memset(&u, 0, sizeof(u));
	if (fd < 0)
		return -1000;
	ut_cmd_prep(e, fd, s->nr, &u);
	if (sz > s->size)
		memset(u.raw + s->size, 0, sz - s->size);
	if (tail && sz > s->size)
		u.raw[sz - 1] = (char)tail;
	if (guard_check)
		memset(u.raw + sz, 0x5a, 64);
	ret = xio(fd, IOC_SZ(s->nr, sz), &u);
	if (guard_check) {
		*guard_ok = true;
		for (i = 0; i < 64; i++)
			if ((unsigned char)u.raw[sz + i] != 0x5a)
				*guard_ok = false;
	}
	if (!ret)
		ut_cmd_undo(fd, s->nr, &u);
	if (ret && s->nr == 0x05)	/* DESTROY failed: remove the PD */
		destroy(fd, XRDMA_OBJ_PD, u.d.handle);
	if (s->fresh != UT_FD_CTX)
		close(fd);
	return ret;
}

void t_sizes(void)
{
	struct ut_fix e;
	size_t i;
	bool g;
	int ret;

	if (!ut_fix_open(&e))
		return;
	for (i = 0; i < ARRAY_SIZE(szcmds); i++) {
		const struct szcmd *s = &szcmds[i];
		size_t v1 = sz_ver1(s);

		ret = sz_call(&e, s, s->size, 0, true, &g);
		CHECK_RC(ret, 0, "%s with its own size %zu", s->name, s->size);
		CHECK(g, "%s wrote nothing past %zu bytes", s->name, s->size);
		if (v1 < s->size) {
			ret = sz_call(&e, s, v1, 0, true, &g);
			CHECK_RC(ret, 0, "%s with its first size %zu", s->name,
				 v1);
			CHECK(g, "%s wrote nothing past %zu bytes", s->name, v1);
		}
		CHECK_RC(sz_call(&e, s, v1 - 4, 0, false, NULL), -EINVAL,
			 "%s size %zu (4 short)", s->name, v1 - 4);
		CHECK_RC(sz_call(&e, s, 0, 0, false, NULL), -EINVAL,
			 "%s size 0", s->name);
		CHECK_RC(sz_call(&e, s, s->size + 8, 0, false, NULL), 0,
			 "%s size %zu, zero tail", s->name, s->size + 8);
		CHECK_RC(sz_call(&e, s, s->size + 8, 1, false, NULL), -E2BIG,
			 "%s size %zu, non-zero tail", s->name, s->size + 8);
		CHECK_RC(sz_call(&e, s, s->size + 1, 0x80, false, NULL), -E2BIG,
			 "%s size %zu, non-zero byte right after", s->name,
			 s->size + 1);
		CHECK_RC(sz_call(&e, s, ut_pagesz, 0, false, NULL), 0,
			 "%s size %ld (a page), zero tail", s->name, ut_pagesz);
		CHECK_RC(sz_call(&e, s, ut_pagesz + 1, 0, false, NULL), -E2BIG,
			 "%s size %ld (over a page), zero tail", s->name,
			 ut_pagesz + 1);
	}
	ut_fix_close(&e);
}

/* --------------------------------------------------------------- fds */

static const struct arg_row chan_cases[] = {
	{ "CREATE_COMP_CHANNEL flags 1", offsetof(struct xrdma_cmd_fd, flags), 4,
	  0, 0, 1, -EINVAL },
	{ "CREATE_COMP_CHANNEL flags 0x80000000",
	  offsetof(struct xrdma_cmd_fd, flags), 4, 0, 0, 0x80000000, -EINVAL },
};

void t_fds(void)
{
	struct xrdma_cmd_fd f;
	int ch1, ch2, as;
	struct ctx c;

	if (!CHECK_RC(ctx_open(&c), 0, "context"))
		return;
	cmd_cases(c.fd, XRDMA_IOC_CREATE_COMP_CHANNEL, chan_cases,
		  ARRAY_SIZE(chan_cases));
	ch1 = new_channel(c.fd);
	ch2 = new_channel(c.fd);
	CHECK(ch1 >= 0 && ch2 >= 0 && ch1 != ch2,
	      "two CREATE_COMP_CHANNELs: fds %d %d", ch1, ch2);
	CHECK(ch1 >= 0 && (fcntl(ch1, F_GETFD) & FD_CLOEXEC),
	      "channel fd is close-on-exec");

	memset(&f, 0, sizeof(f));
	f.flags = 1;
	CHECK_RC(xio(c.fd, XRDMA_IOC_GET_ASYNC_FD, &f), -EINVAL,
		 "GET_ASYNC_FD flags 1");
	as = get_async_fd(c.fd);
	CHECK(as >= 0, "GET_ASYNC_FD (%s)", errname(as));
	CHECK(as >= 0 && (fcntl(as, F_GETFD) & FD_CLOEXEC),
	      "async fd is close-on-exec");
	CHECK_RC(get_async_fd(c.fd), -EINVAL, "second GET_ASYNC_FD");
	if (as >= 0)
		close(as);
	CHECK_RC(get_async_fd(c.fd), -EINVAL,
		 "GET_ASYNC_FD after closing the first one");
	if (ch1 >= 0)
		close(ch1);
	if (ch2 >= 0)
		close(ch2);
	CHECK(new_channel(c.fd) >= 0, "channels can still be created");
	ctx_close(&c);
}

/* -------------------------------------------------------------- KICK */

void t_kick(void)
{
	struct xrdma_cmd_kick k;
	struct ctx c;
	struct qp qp;
	struct cq cq;
	uint32_t pd;

	if (!ut_open_objs(&c, &pd, &cq, &qp))
		return;
	memset(&k, 0, sizeof(k));
	CHECK_RC(xio(c.fd, XRDMA_IOC_KICK, &k), 0, "KICK the context (qp 0)");
	k.qp_handle = qp.h;
	CHECK_RC(xio(c.fd, XRDMA_IOC_KICK, &k), 0, "KICK a QP");
	k.flags = 1;
	CHECK_RC(xio(c.fd, XRDMA_IOC_KICK, &k), -EINVAL, "KICK flags 1");
	k.flags = 0;
	k.qp_handle = BAD_HANDLE;
	CHECK_RC(xio(c.fd, XRDMA_IOC_KICK, &k), -ENOENT,
		 "KICK a QP never created");
	k.qp_handle = pd;
	CHECK_RC(xio(c.fd, XRDMA_IOC_KICK, &k), -EINVAL, "KICK a PD handle");
	destroy(c.fd, XRDMA_OBJ_QP, qp.h);
	k.qp_handle = qp.h;
	CHECK_RC(xio(c.fd, XRDMA_IOC_KICK, &k), -ENOENT,
		 "KICK a destroyed QP");
	destroy(c.fd, XRDMA_OBJ_CQ, cq.h);
	destroy(c.fd, XRDMA_OBJ_PD, pd);
	ctx_close(&c);
}

/* ------------------------------------------------------- QUERY_CLOCK */

/*
 * The reserved inputs, the first published size; the clock (testdev's and
 * xnic's: 32-bit microseconds) advances over a 10 ms sleep.  A device
 * without read_clock answers EOPNOTSUPP (none of the tested ones).
 */
void t_query_clock(void)
{
	struct xrdma_cmd_query_clock q;
	uint64_t t0;
	struct ctx c;

	if (!CHECK_RC(ctx_open(&c), 0, "context"))
		return;
	memset(&q, 0, sizeof(q));
	q.comp_mask = 1;
	CHECK_RC(xio(c.fd, XRDMA_IOC_QUERY_CLOCK, &q), -EINVAL,
		 "QUERY_CLOCK comp_mask 1");
	q.comp_mask = 0;
	q.reserved = 1;
	CHECK_RC(xio(c.fd, XRDMA_IOC_QUERY_CLOCK, &q), -EINVAL,
		 "QUERY_CLOCK reserved 1");
	q.reserved = 0;
	CHECK_RC(xio(c.fd, _IOWR(XRDMA_IOC_MAGIC, 0x13, struct xrdma_cmd_kick),
		     &q), -EINVAL, "QUERY_CLOCK below its first size");
	CHECK_RC(xio(c.fd, XRDMA_IOC_QUERY_CLOCK, &q), 0, "QUERY_CLOCK on %s",
		 ut_devname);
	t0 = q.clock;
	usleep(10000);
	CHECK_RC(xio(c.fd, XRDMA_IOC_QUERY_CLOCK, &q), 0, "QUERY_CLOCK again");
	CHECK(t0 <= 0xffffffffULL && q.clock <= 0xffffffffULL &&
	      ((q.clock - t0) & 0xffffffffULL) >= 10000,
	      "QUERY_CLOCK: 32-bit microseconds, %llu then %llu",
	      (unsigned long long)t0, (unsigned long long)q.clock);
	ctx_close(&c);
}
