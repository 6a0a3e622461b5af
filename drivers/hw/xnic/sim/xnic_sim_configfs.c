// SPDX-License-Identifier: GPL-2.0
/*
 * xnic_sim: faults on demand, the users' interface (Documentation/
 * faults.rst).  configfs, as nvmet's targets: a rule is an object a
 * privileged user creates (mkdir), configures (its attributes) and
 * removes (rmdir), with no ioctl and no netlink family of our own.
 *
 *   /sys/kernel/config/xnic_sim/<index>/     a device (the model's index)
 *       link       "up" or "down": take the port down, bring it up
 *       flap_ms    the link goes down and up every flap_ms; 0 stops
 *       port       RO: "active" or "down" (a cabled peer's link counts)
 *       injected   RO: faults injected on the device
 *       qp_error   WO: "QPN [fatal|req|access]": the QP to ERR, an event
 *       cq_error   WO: "CQN": the CQ overruns (CQ_ERR)
 *       srq_limit  WO: "SRQN": an armed SRQ reports its limit
 *       fatal      WO: "1": the device fails (DEVICE_FATAL)
 *       rules/<name>/                         a rule (mkdir, rmdir)
 *           type qp opcode status command cmd_status delay_us rate
 *           every count after_ms for_ms seed enable, and RO matched,
 *           injected
 *
 * Only CAP_NET_ADMIN or CAP_SYS_ADMIN may change anything; a rule's files
 * are its creator's alone to read (mode 0600: its QP numbers are other
 * users' business).  While any rule exists configfs holds the module.
 */
#include <linux/capability.h>
#include <linux/configfs.h>
#include <linux/ctype.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "xnic_sim.h"

/* rules per device: each is a few hundred bytes of kernel memory */
#define XNIC_SIM_CFS_MAX_RULES	64

struct xnic_sim_cfs_dev {
	struct config_group group;
	struct config_group rules;
	struct xnic_sim_dev *dev;
	u32 nrules;		/* under the subsystem's su_mutex */
};

struct xnic_sim_cfs_rule {
	struct config_item item;
	struct xnic_sim_cfs_dev *cd;
	struct xnic_sim_fault_rule *rule;
};

static struct xnic_sim_cfs_dev *xnic_sim_cfs_devs[XNIC_SIM_MAX_DEV];

static bool xnic_sim_cfs_capable(void)
{
	return capable(CAP_NET_ADMIN) || capable(CAP_SYS_ADMIN);
}

static struct xnic_sim_cfs_dev *to_cfs_dev(struct config_item *item)
{
	return container_of(to_config_group(item), struct xnic_sim_cfs_dev,
			    group);
}

static struct xnic_sim_fault_rule *to_rule(struct config_item *item)
{
	return container_of(item, struct xnic_sim_cfs_rule, item)->rule;
}

/* @buf without its trailing newline equals @s */
static bool xnic_sim_cfs_is(const char *buf, const char *s)
{
	return sysfs_streq(buf, s);
}

/* the index of @buf in @names (NULL entries skipped), or -EINVAL */
static int xnic_sim_cfs_pick(const char *buf, const char *const *names,
			     int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (names[i] && xnic_sim_cfs_is(buf, names[i]))
			return i;
	return -EINVAL;
}

#define XNIC_SIM_CFS_ATTR(_pfx, _name, _mode)				\
static struct configfs_attribute _pfx##attr_##_name = {			\
	.ca_name = __stringify(_name),					\
	.ca_mode = (_mode),						\
	.ca_owner = THIS_MODULE,					\
	.show = _pfx##_name##_show,					\
	.store = _pfx##_name##_store,					\
}

#define XNIC_SIM_CFS_ATTR_RO(_pfx, _name, _mode)			\
static struct configfs_attribute _pfx##attr_##_name = {			\
	.ca_name = __stringify(_name),					\
	.ca_mode = (_mode),						\
	.ca_owner = THIS_MODULE,					\
	.show = _pfx##_name##_show,					\
}

/* ------------------------------------------------------------------ */
/* A device                                                            */

static ssize_t xnic_sim_cfs_dev_link_show(struct config_item *item,
					  char *page)
{
	return sysfs_emit(page, "%s\n",
			  xnic_sim_fault_link_up(to_cfs_dev(item)->dev) ?
			  "up" : "down");
}

static ssize_t xnic_sim_cfs_dev_link_store(struct config_item *item,
					   const char *page, size_t count)
{
	struct xnic_sim_dev *dev = to_cfs_dev(item)->dev;

	if (!xnic_sim_cfs_capable())
		return -EPERM;
	if (xnic_sim_cfs_is(page, "up"))
		xnic_sim_fault_set_link(dev, true);
	else if (xnic_sim_cfs_is(page, "down"))
		xnic_sim_fault_set_link(dev, false);
	else
		return -EINVAL;
	return count;
}

static ssize_t xnic_sim_cfs_dev_flap_ms_show(struct config_item *item,
					     char *page)
{
	return sysfs_emit(page, "%u\n",
			  READ_ONCE(to_cfs_dev(item)->dev->fault.flap_ms));
}

static ssize_t xnic_sim_cfs_dev_flap_ms_store(struct config_item *item,
					      const char *page, size_t count)
{
	u32 ms;
	int ret;

	if (!xnic_sim_cfs_capable())
		return -EPERM;
	ret = kstrtou32(page, 0, &ms);
	if (ret)
		return ret;
	ret = xnic_sim_fault_set_flap(to_cfs_dev(item)->dev, ms);
	return ret ? ret : count;
}

static ssize_t xnic_sim_cfs_dev_port_show(struct config_item *item,
					  char *page)
{
	return sysfs_emit(page, "%s\n",
			  xnic_sim_port_up(to_cfs_dev(item)->dev) ?
			  "active" : "down");
}

static ssize_t xnic_sim_cfs_dev_injected_show(struct config_item *item,
					      char *page)
{
	struct xnic_sim_dev *dev = to_cfs_dev(item)->dev;

	return sysfs_emit(page, "%lld\n",
			  (long long)atomic64_read(&dev->fault.injected));
}

/* "QPN [fatal|req|access]": the QP goes to ERR with that event */
static ssize_t xnic_sim_cfs_dev_qp_error_store(struct config_item *item,
					       const char *page, size_t count)
{
	static const char *const ev[] = { "fatal", "req", "access" };
	static const u8 type[] = {
		XNIC_EQE_QP_FATAL, XNIC_EQE_QP_REQ_ERR, XNIC_EQE_QP_ACCESS_ERR,
	};
	char buf[32], *p = buf, *num;
	int i = 0, ret;
	u32 qpn;

	if (!xnic_sim_cfs_capable())
		return -EPERM;
	if (strscpy(buf, page, sizeof(buf)) < 0)
		return -EINVAL;
	num = strsep(&p, " \t\n");
	ret = kstrtou32(num, 0, &qpn);
	if (ret)
		return ret;
	p = p ? skip_spaces(p) : NULL;
	if (p && *p) {
		i = xnic_sim_cfs_pick(p, ev, ARRAY_SIZE(ev));
		if (i < 0)
			return i;
	}
	ret = xnic_sim_fault_qp_error(to_cfs_dev(item)->dev, qpn, type[i]);
	return ret ? ret : count;
}

/* A one-shot action of the device on the object numbered in @page. */
static ssize_t xnic_sim_cfs_dev_act(struct config_item *item,
				    const char *page, size_t count,
				    int (*act)(struct xnic_sim_dev *dev, u32 n))
{
	u32 n;
	int ret;

	if (!xnic_sim_cfs_capable())
		return -EPERM;
	ret = kstrtou32(page, 0, &n);
	if (ret)
		return ret;
	ret = act(to_cfs_dev(item)->dev, n);
	return ret ? ret : count;
}

/* "CQN": the CQ overruns */
static ssize_t xnic_sim_cfs_dev_cq_error_store(struct config_item *item,
					       const char *page, size_t count)
{
	return xnic_sim_cfs_dev_act(item, page, count,
				    xnic_sim_fault_cq_error);
}

/* "SRQN": the armed SRQ reports its limit */
static ssize_t xnic_sim_cfs_dev_srq_limit_store(struct config_item *item,
						const char *page, size_t count)
{
	return xnic_sim_cfs_dev_act(item, page, count,
				    xnic_sim_fault_srq_limit);
}

/* "1": the device fails (DEVICE_FATAL) */
static ssize_t xnic_sim_cfs_dev_fatal_store(struct config_item *item,
					    const char *page, size_t count)
{
	bool on;
	int ret;

	if (!xnic_sim_cfs_capable())
		return -EPERM;
	ret = kstrtobool(page, &on);
	if (ret)
		return ret;
	if (!on)
		return -EINVAL;
	ret = xnic_sim_fault_fatal(to_cfs_dev(item)->dev);
	return ret ? ret : count;
}

#define XNIC_SIM_CFS_ATTR_WO(_pfx, _name)				\
static struct configfs_attribute _pfx##attr_##_name = {			\
	.ca_name = __stringify(_name),					\
	.ca_mode = 0200,						\
	.ca_owner = THIS_MODULE,					\
	.store = _pfx##_name##_store,					\
}

XNIC_SIM_CFS_ATTR(xnic_sim_cfs_dev_, link, 0644);
XNIC_SIM_CFS_ATTR(xnic_sim_cfs_dev_, flap_ms, 0644);
XNIC_SIM_CFS_ATTR_RO(xnic_sim_cfs_dev_, port, 0444);
XNIC_SIM_CFS_ATTR_RO(xnic_sim_cfs_dev_, injected, 0444);
XNIC_SIM_CFS_ATTR_WO(xnic_sim_cfs_dev_, qp_error);
XNIC_SIM_CFS_ATTR_WO(xnic_sim_cfs_dev_, cq_error);
XNIC_SIM_CFS_ATTR_WO(xnic_sim_cfs_dev_, srq_limit);
XNIC_SIM_CFS_ATTR_WO(xnic_sim_cfs_dev_, fatal);

static struct configfs_attribute *xnic_sim_cfs_dev_attrs[] = {
	&xnic_sim_cfs_dev_attr_link,
	&xnic_sim_cfs_dev_attr_flap_ms,
	&xnic_sim_cfs_dev_attr_port,
	&xnic_sim_cfs_dev_attr_injected,
	&xnic_sim_cfs_dev_attr_qp_error,
	&xnic_sim_cfs_dev_attr_cq_error,
	&xnic_sim_cfs_dev_attr_srq_limit,
	&xnic_sim_cfs_dev_attr_fatal,
	NULL,
};

static const struct config_item_type xnic_sim_cfs_dev_type = {
	.ct_attrs = xnic_sim_cfs_dev_attrs,
	.ct_owner = THIS_MODULE,
};

/* ------------------------------------------------------------------ */
/* A rule                                                              */

static ssize_t xnic_sim_cfs_rule_type_show(struct config_item *item,
					   char *page)
{
	return sysfs_emit(page, "%s\n",
			  xnic_sim_fault_type_names[to_rule(item)->type]);
}

static ssize_t xnic_sim_cfs_rule_type_store(struct config_item *item,
					    const char *page, size_t count)
{
	struct xnic_sim_fault_rule *r = to_rule(item);
	int t;

	if (!xnic_sim_cfs_capable())
		return -EPERM;
	t = xnic_sim_cfs_pick(page, xnic_sim_fault_type_names,
			      XNIC_SIM_FAULT_NTYPES);
	if (t < 0)
		return t;
	mutex_lock(&r->dev->fault.lock);
	if (r->enabled) {
		mutex_unlock(&r->dev->fault.lock);
		return -EBUSY;
	}
	WRITE_ONCE(r->type, t);
	mutex_unlock(&r->dev->fault.lock);
	return count;
}

static ssize_t xnic_sim_cfs_rule_qp_show(struct config_item *item,
					 char *page)
{
	u32 qpn = READ_ONCE(to_rule(item)->qpn);

	if (qpn == XNIC_SIM_FAULT_ANY_QP)
		return sysfs_emit(page, "any\n");
	return sysfs_emit(page, "%u\n", qpn);
}

static ssize_t xnic_sim_cfs_rule_qp_store(struct config_item *item,
					  const char *page, size_t count)
{
	u32 qpn = XNIC_SIM_FAULT_ANY_QP;
	int ret;

	if (!xnic_sim_cfs_capable())
		return -EPERM;
	if (!xnic_sim_cfs_is(page, "any")) {
		ret = kstrtou32(page, 0, &qpn);
		if (ret)
			return ret;
		if (qpn >= BIT(24))
			return -EINVAL;
	}
	WRITE_ONCE(to_rule(item)->qpn, qpn);
	return count;
}

static ssize_t xnic_sim_cfs_rule_opcode_show(struct config_item *item,
					     char *page)
{
	return sysfs_emit(page, "%s\n",
			  xnic_sim_fault_op_names[READ_ONCE(to_rule(item)->op)]);
}

static ssize_t xnic_sim_cfs_rule_opcode_store(struct config_item *item,
					      const char *page, size_t count)
{
	int op;

	if (!xnic_sim_cfs_capable())
		return -EPERM;
	/* "other" is no class a user asks for */
	op = xnic_sim_cfs_pick(page, xnic_sim_fault_op_names,
			       XNIC_SIM_FOP_OTHER);
	if (op < 0)
		return op;
	WRITE_ONCE(to_rule(item)->op, op);
	return count;
}

static ssize_t xnic_sim_cfs_rule_command_show(struct config_item *item,
					      char *page)
{
	return sysfs_emit(page, "%s\n",
			  xnic_sim_fault_cmd_names[READ_ONCE(to_rule(item)->cmd)]);
}

static ssize_t xnic_sim_cfs_rule_command_store(struct config_item *item,
					       const char *page, size_t count)
{
	int cmd;

	if (!xnic_sim_cfs_capable())
		return -EPERM;
	cmd = xnic_sim_cfs_pick(page, xnic_sim_fault_cmd_names,
				XNIC_SIM_FAULT_NCMDS);
	if (cmd < 0)
		return cmd;
	WRITE_ONCE(to_rule(item)->cmd, cmd);
	return count;
}

static ssize_t xnic_sim_cfs_rule_cmd_status_show(struct config_item *item,
						 char *page)
{
	u8 st = READ_ONCE(to_rule(item)->cmd_status);

	return sysfs_emit(page, "%s\n", xnic_sim_fault_cmd_st_names[st]);
}

static ssize_t xnic_sim_cfs_rule_cmd_status_store(struct config_item *item,
						  const char *page,
						  size_t count)
{
	int st;

	if (!xnic_sim_cfs_capable())
		return -EPERM;
	st = xnic_sim_cfs_pick(page, xnic_sim_fault_cmd_st_names,
			       XNIC_SIM_FAULT_NCMD_ST);
	if (st < 0)
		return st;
	WRITE_ONCE(to_rule(item)->cmd_status, st);
	return count;
}

static ssize_t xnic_sim_cfs_rule_status_show(struct config_item *item,
					     char *page)
{
	return sysfs_emit(page, "%s\n",
			  xnic_sim_status_name(READ_ONCE(to_rule(item)->status)));
}

static ssize_t xnic_sim_cfs_rule_status_store(struct config_item *item,
					      const char *page, size_t count)
{
	const char *name;
	u32 st;

	if (!xnic_sim_cfs_capable())
		return -EPERM;
	/* an error a send WR can complete with: not success, not a flush */
	for (st = 1; st < 256; st++) {
		name = xnic_sim_status_name(st);
		if (name && st != XNIC_CQE_WR_FLUSH_ERR &&
		    xnic_sim_cfs_is(page, name)) {
			WRITE_ONCE(to_rule(item)->status, st);
			return count;
		}
	}
	return -EINVAL;
}

/* A u32 field of a rule, and setting it to a value in [@min, @max]. */
static ssize_t xnic_sim_cfs_u32_show(char *page, const u32 *field)
{
	return sysfs_emit(page, "%u\n", READ_ONCE(*field));
}

static ssize_t xnic_sim_cfs_u32_store(const char *page, size_t count,
				      u32 *field, u32 min, u32 max)
{
	u32 v;
	int ret;

	if (!xnic_sim_cfs_capable())
		return -EPERM;
	ret = kstrtou32(page, 0, &v);
	if (ret)
		return ret;
	if (v < min || v > max)
		return -EINVAL;
	WRITE_ONCE(*field, v);
	return count;
}

static ssize_t xnic_sim_cfs_rule_delay_us_show(struct config_item *item,
					       char *page)
{
	return xnic_sim_cfs_u32_show(page, &to_rule(item)->delay_us);
}

static ssize_t xnic_sim_cfs_rule_delay_us_store(struct config_item *item,
						const char *page, size_t count)
{
	return xnic_sim_cfs_u32_store(page, count, &to_rule(item)->delay_us, 1,
				      XNIC_SIM_FAULT_MAX_DELAY_US);
}

static ssize_t xnic_sim_cfs_rule_rate_show(struct config_item *item,
					   char *page)
{
	return xnic_sim_cfs_u32_show(page, &to_rule(item)->rate);
}

static ssize_t xnic_sim_cfs_rule_rate_store(struct config_item *item,
					    const char *page, size_t count)
{
	return xnic_sim_cfs_u32_store(page, count, &to_rule(item)->rate, 0,
				      XNIC_SIM_FAULT_PPM);
}

static ssize_t xnic_sim_cfs_rule_every_show(struct config_item *item,
					    char *page)
{
	return xnic_sim_cfs_u32_show(page, &to_rule(item)->every);
}

static ssize_t xnic_sim_cfs_rule_every_store(struct config_item *item,
					     const char *page, size_t count)
{
	return xnic_sim_cfs_u32_store(page, count, &to_rule(item)->every, 0,
				      U32_MAX);
}

static ssize_t xnic_sim_cfs_rule_count_show(struct config_item *item,
					    char *page)
{
	return xnic_sim_cfs_u32_show(page, &to_rule(item)->count);
}

static ssize_t xnic_sim_cfs_rule_count_store(struct config_item *item,
					     const char *page, size_t count)
{
	return xnic_sim_cfs_u32_store(page, count, &to_rule(item)->count, 0,
				      U32_MAX);
}

static ssize_t xnic_sim_cfs_rule_after_ms_show(struct config_item *item,
					       char *page)
{
	return xnic_sim_cfs_u32_show(page, &to_rule(item)->after_ms);
}

static ssize_t xnic_sim_cfs_rule_after_ms_store(struct config_item *item,
						const char *page, size_t count)
{
	return xnic_sim_cfs_u32_store(page, count, &to_rule(item)->after_ms, 0,
				      XNIC_SIM_FLAP_MAX_MS);
}

static ssize_t xnic_sim_cfs_rule_for_ms_show(struct config_item *item,
					     char *page)
{
	return xnic_sim_cfs_u32_show(page, &to_rule(item)->for_ms);
}

static ssize_t xnic_sim_cfs_rule_for_ms_store(struct config_item *item,
					      const char *page, size_t count)
{
	return xnic_sim_cfs_u32_store(page, count, &to_rule(item)->for_ms, 0,
				      XNIC_SIM_FLAP_MAX_MS);
}

static ssize_t xnic_sim_cfs_rule_seed_show(struct config_item *item,
					   char *page)
{
	return sysfs_emit(page, "%llu\n", READ_ONCE(to_rule(item)->seed));
}

static ssize_t xnic_sim_cfs_rule_seed_store(struct config_item *item,
					    const char *page, size_t count)
{
	u64 v;
	int ret;

	if (!xnic_sim_cfs_capable())
		return -EPERM;
	ret = kstrtou64(page, 0, &v);
	if (ret)
		return ret;
	WRITE_ONCE(to_rule(item)->seed, v);
	return count;
}

static ssize_t xnic_sim_cfs_rule_enable_show(struct config_item *item,
					     char *page)
{
	return sysfs_emit(page, "%d\n", READ_ONCE(to_rule(item)->enabled));
}

static ssize_t xnic_sim_cfs_rule_enable_store(struct config_item *item,
					      const char *page, size_t count)
{
	bool on;
	int ret;

	if (!xnic_sim_cfs_capable())
		return -EPERM;
	ret = kstrtobool(page, &on);
	if (ret)
		return ret;
	ret = xnic_sim_fault_rule_enable(to_rule(item), on);
	return ret ? ret : count;
}

static ssize_t xnic_sim_cfs_rule_matched_show(struct config_item *item,
					      char *page)
{
	u64 m, i;

	xnic_sim_fault_rule_counts(to_rule(item), &m, &i);
	return sysfs_emit(page, "%llu\n", m);
}

static ssize_t xnic_sim_cfs_rule_injected_show(struct config_item *item,
					       char *page)
{
	u64 m, i;

	xnic_sim_fault_rule_counts(to_rule(item), &m, &i);
	return sysfs_emit(page, "%llu\n", i);
}

XNIC_SIM_CFS_ATTR(xnic_sim_cfs_rule_, type, 0600);
XNIC_SIM_CFS_ATTR(xnic_sim_cfs_rule_, qp, 0600);
XNIC_SIM_CFS_ATTR(xnic_sim_cfs_rule_, opcode, 0600);
XNIC_SIM_CFS_ATTR(xnic_sim_cfs_rule_, status, 0600);
XNIC_SIM_CFS_ATTR(xnic_sim_cfs_rule_, command, 0600);
XNIC_SIM_CFS_ATTR(xnic_sim_cfs_rule_, cmd_status, 0600);
XNIC_SIM_CFS_ATTR(xnic_sim_cfs_rule_, delay_us, 0600);
XNIC_SIM_CFS_ATTR(xnic_sim_cfs_rule_, rate, 0600);
XNIC_SIM_CFS_ATTR(xnic_sim_cfs_rule_, every, 0600);
XNIC_SIM_CFS_ATTR(xnic_sim_cfs_rule_, count, 0600);
XNIC_SIM_CFS_ATTR(xnic_sim_cfs_rule_, after_ms, 0600);
XNIC_SIM_CFS_ATTR(xnic_sim_cfs_rule_, for_ms, 0600);
XNIC_SIM_CFS_ATTR(xnic_sim_cfs_rule_, seed, 0600);
XNIC_SIM_CFS_ATTR(xnic_sim_cfs_rule_, enable, 0600);
XNIC_SIM_CFS_ATTR_RO(xnic_sim_cfs_rule_, matched, 0400);
XNIC_SIM_CFS_ATTR_RO(xnic_sim_cfs_rule_, injected, 0400);

static struct configfs_attribute *xnic_sim_cfs_rule_attrs[] = {
	&xnic_sim_cfs_rule_attr_type,
	&xnic_sim_cfs_rule_attr_qp,
	&xnic_sim_cfs_rule_attr_opcode,
	&xnic_sim_cfs_rule_attr_status,
	&xnic_sim_cfs_rule_attr_command,
	&xnic_sim_cfs_rule_attr_cmd_status,
	&xnic_sim_cfs_rule_attr_delay_us,
	&xnic_sim_cfs_rule_attr_rate,
	&xnic_sim_cfs_rule_attr_every,
	&xnic_sim_cfs_rule_attr_count,
	&xnic_sim_cfs_rule_attr_after_ms,
	&xnic_sim_cfs_rule_attr_for_ms,
	&xnic_sim_cfs_rule_attr_seed,
	&xnic_sim_cfs_rule_attr_enable,
	&xnic_sim_cfs_rule_attr_matched,
	&xnic_sim_cfs_rule_attr_injected,
	NULL,
};

static void xnic_sim_cfs_rule_release(struct config_item *item)
{
	struct xnic_sim_cfs_rule *cr =
		container_of(item, struct xnic_sim_cfs_rule, item);

	xnic_sim_fault_rule_del(cr->rule);
	kfree(cr);
}

static struct configfs_item_operations xnic_sim_cfs_rule_ops = {
	.release = xnic_sim_cfs_rule_release,
};

static const struct config_item_type xnic_sim_cfs_rule_type = {
	.ct_item_ops = &xnic_sim_cfs_rule_ops,
	.ct_attrs = xnic_sim_cfs_rule_attrs,
	.ct_owner = THIS_MODULE,
};

/* A rule's name: letters, digits, '_', '.', '-'. */
static bool xnic_sim_cfs_name_ok(const char *name)
{
	size_t n = strlen(name), i;

	if (!n || n >= XNIC_SIM_FAULT_NAME_LEN)
		return false;
	for (i = 0; i < n; i++)
		if (!isalnum(name[i]) && !strchr("_.-", name[i]))
			return false;
	return true;
}

static struct config_item *xnic_sim_cfs_rule_make(struct config_group *group,
						  const char *name)
{
	struct xnic_sim_cfs_dev *cd =
		container_of(group, struct xnic_sim_cfs_dev, rules);
	struct xnic_sim_cfs_rule *cr;

	if (!xnic_sim_cfs_capable())
		return ERR_PTR(-EPERM);
	if (!xnic_sim_cfs_name_ok(name))
		return ERR_PTR(-EINVAL);
	if (cd->nrules >= XNIC_SIM_CFS_MAX_RULES)
		return ERR_PTR(-ENOSPC);
	cr = kzalloc(sizeof(*cr), GFP_KERNEL_ACCOUNT);
	if (!cr)
		return ERR_PTR(-ENOMEM);
	cr->rule = xnic_sim_fault_rule_alloc(cd->dev, name);
	if (!cr->rule) {
		kfree(cr);
		return ERR_PTR(-ENOMEM);
	}
	cr->cd = cd;
	config_item_init_type_name(&cr->item, name, &xnic_sim_cfs_rule_type);
	xnic_sim_fault_rule_add(cr->rule);
	cd->nrules++;
	return &cr->item;
}

static void xnic_sim_cfs_rule_drop(struct config_group *group,
				   struct config_item *item)
{
	struct xnic_sim_cfs_dev *cd =
		container_of(group, struct xnic_sim_cfs_dev, rules);

	/* stops firing now, not when the last reader lets go */
	xnic_sim_fault_rule_enable(to_rule(item), false);
	cd->nrules--;
	config_item_put(item);
}

static struct configfs_group_operations xnic_sim_cfs_rules_ops = {
	.make_item = xnic_sim_cfs_rule_make,
	.drop_item = xnic_sim_cfs_rule_drop,
};

static const struct config_item_type xnic_sim_cfs_rules_type = {
	.ct_group_ops = &xnic_sim_cfs_rules_ops,
	.ct_owner = THIS_MODULE,
};

/* ------------------------------------------------------------------ */
/* The subsystem                                                       */

static const struct config_item_type xnic_sim_cfs_root_type = {
	.ct_owner = THIS_MODULE,
};

static struct configfs_subsystem xnic_sim_cfs_subsys = {
	.su_group = {
		.cg_item = {
			.ci_namebuf = "xnic_sim",
			.ci_type = &xnic_sim_cfs_root_type,
		},
	},
};

/**
 * xnic_sim_configfs_add - a device's directory
 * @dev: the device (started)
 *
 * Return: 0 or a negative errno.
 */
int xnic_sim_configfs_add(struct xnic_sim_dev *dev)
{
	struct xnic_sim_cfs_dev *cd;
	char name[16];
	int ret;

	if (dev->index < 0 || dev->index >= XNIC_SIM_MAX_DEV)
		return -EINVAL;
	cd = kzalloc(sizeof(*cd), GFP_KERNEL);
	if (!cd)
		return -ENOMEM;
	cd->dev = dev;
	snprintf(name, sizeof(name), "%d", dev->index);
	config_group_init_type_name(&cd->group, name, &xnic_sim_cfs_dev_type);
	config_group_init_type_name(&cd->rules, "rules",
				    &xnic_sim_cfs_rules_type);
	configfs_add_default_group(&cd->rules, &cd->group);
	ret = configfs_register_group(&xnic_sim_cfs_subsys.su_group,
				      &cd->group);
	if (ret) {
		kfree(cd);
		return ret;
	}
	xnic_sim_cfs_devs[dev->index] = cd;
	return 0;
}

/**
 * xnic_sim_configfs_del - remove a device's directory
 * @dev: the device
 *
 * It has no rule: configfs holds the module while a rule exists.
 */
void xnic_sim_configfs_del(struct xnic_sim_dev *dev)
{
	struct xnic_sim_cfs_dev *cd;

	if (dev->index < 0 || dev->index >= XNIC_SIM_MAX_DEV)
		return;
	cd = xnic_sim_cfs_devs[dev->index];
	if (!cd)
		return;
	xnic_sim_cfs_devs[dev->index] = NULL;
	configfs_unregister_group(&cd->group);
	kfree(cd);
}

int xnic_sim_configfs_init(void)
{
	config_group_init(&xnic_sim_cfs_subsys.su_group);
	mutex_init(&xnic_sim_cfs_subsys.su_mutex);
	return configfs_register_subsystem(&xnic_sim_cfs_subsys);
}

void xnic_sim_configfs_exit(void)
{
	configfs_unregister_subsystem(&xnic_sim_cfs_subsys);
}
