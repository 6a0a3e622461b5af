// SPDX-License-Identifier: GPL-2.0
/*
 * xv_xrc_isolation: XRC domains against a hostile local user, through the
 * stock verbs API of whatever libibverbs.so.1 the dynamic linker finds (on
 * xrdma, tools/lib/xverbs via scripts/xrdma-run); guest test
 * tools/testing/guest/xverbs_xrc.sh.  Started as root, the attacker
 * drops to uid/gid 65534 (-u UID).
 *
 *   umount   the attacker, in a user and mount namespace of its own
 *            (unshare(CLONE_NEWUSER | CLONE_NEWNS)), mounts a tmpfs,
 *            creates a file, opens an XRC domain on it (O_CREAT), closes
 *            the file and unmounts: EBUSY while the domain is open (the
 *            domain holds the file's path, so the filesystem cannot go
 *            from under it), the unmount succeeds once the domain is
 *            closed; a lazy unmount (MNT_DETACH) with the domain open,
 *            then its close; a domain left open at exit on a mounted
 *            tmpfs (the namespace goes before the context).  No domain is
 *            left on the device (-r RESOURCES).  Before the fix the first
 *            unmount succeeded and the later close touched the freed
 *            superblock ("Busy inodes after unmount", KASAN).
 *
 *   -d IBDEV  device (xnic0)   -r RESOURCES  the core's debugfs resources
 *   file   -u UID  the attacker's uid and gid (65534)
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <infiniband/verbs.h>
#include "xt.h"
#include "xt_verbs.h"

#define WORKER_SECS	60

/* a check whose failure shows errno */
#define CHECK_ERRNO(c, ...)	xt_ok(!!(c), strerror(errno), __VA_ARGS__)

static const char *dev_name = "xnic0";
static const char *res_path;
static int attacker_uid = 65534;

/* ------------------------------------------------------------ helpers */

/* the count of @type in the core's resources file, or -1 */
static long res_count(const char *type)
{
	char line[128], name[32];
	long n = -1, v;
	FILE *f;

	if (!res_path)
		return -1;
	f = fopen(res_path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%31s %ld", name, &v) == 2 &&
		    !strcmp(name, type) && !strchr(line + strlen(name) + 1, ' ')) {
			n = v;
			break;
		}
	fclose(f);
	return n;
}

static struct ibv_xrcd *xrcd_open(struct ibv_context *ctx, int fd, int oflags)
{
	struct ibv_xrcd_init_attr a = {
		.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
		.fd = fd, .oflags = oflags,
	};

	return ibv_open_xrcd(ctx, &a);
}

/* fork a worker running fn(arg) with its own time limit; its pid */
static pid_t worker(void (*fn)(void *), void *arg)
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		xt_bail(errno, "fork");
	if (!pid) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		alarm(WORKER_SECS);
		fn(arg);
		fflush(NULL);
		_exit(0);
	}
	return pid;
}

static bool reap(pid_t pid, const char *who)
{
	int st;

	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return xt_check(WIFEXITED(st) && !WEXITSTATUS(st),
			"%s ran to completion (status %#x)", who, st);
}

/* this process as the attacker: uid/gid attacker_uid when root */
static void become_attacker(void)
{
	if (getuid() == 0 &&
	    (setgroups(0, NULL) || setgid((gid_t)attacker_uid) ||
	     setuid((uid_t)attacker_uid)))
		xt_bail(errno, "drop to uid %d", attacker_uid);
	/* a changed uid made /proc/self root's: our own again */
	prctl(PR_SET_DUMPABLE, 1);
	xt_note("attacker runs as uid %u gid %u", getuid(), getgid());
}

static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	close(fd);
	return n == (ssize_t)strlen(s) ? 0 : -EIO;
}

/* ------------------------------------------------------------ umount */

static char mnt[64];

/* uid 0 of a new user namespace (the attacker's uid outside), own mounts */
static bool userns_enter(void)
{
	char map[64];
	uid_t uid = getuid();
	gid_t gid = getgid();

	if (!CHECK_ERRNO(!unshare(CLONE_NEWUSER | CLONE_NEWNS),
			 "unshare(CLONE_NEWUSER | CLONE_NEWNS) as uid %u", uid))
		return false;
	snprintf(map, sizeof(map), "0 %u 1", uid);
	if (write_file("/proc/self/setgroups", "deny") ||
	    write_file("/proc/self/uid_map", map))
		xt_bail(errno, "uid_map");
	snprintf(map, sizeof(map), "0 %u 1", gid);
	if (write_file("/proc/self/gid_map", map))
		xt_bail(errno, "gid_map");
	/* our mounts and unmounts stay in this namespace */
	return CHECK_ERRNO(!mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL),
			   "mounts made private in the new namespace");
}

/* a tmpfs on mnt, a file on it and a domain of that file, the file closed */
static struct ibv_xrcd *tmpfs_domain(struct ibv_context *ctx, bool unlinked)
{
	char path[96];
	struct ibv_xrcd *xrcd;
	int fd;

	if (mount("xv_xrc", mnt, "tmpfs", 0, "size=64k")) {
		xt_fail(strerror(errno), "tmpfs mounted on %s", mnt);
		return NULL;
	}
	snprintf(path, sizeof(path), "%s/domain", mnt);
	fd = open(path, O_RDWR | O_CREAT, 0600);
	if (fd < 0)
		xt_bail(errno, "%s created", path);
	xrcd = xrcd_open(ctx, fd, O_CREAT);
	CHECK_ERRNO(xrcd, "a domain opened on a file of the tmpfs");
	close(fd);
	if (unlinked && unlink(path))
		xt_bail(errno, "%s unlinked", path);
	return xrcd;
}

static void umount_attacker(void *unused)
{
	struct ibv_context *ctx;
	struct ibv_xrcd *xrcd;

	(void)unused;
	xt_subtest = "umount";
	become_attacker();
	if (!userns_enter())
		return;
	ctx = xt_open_device(dev_name, NULL, 0);
	if (!ctx)
		xt_bail(errno, "%s opened", dev_name);

	/* the sequence */
	xrcd = tmpfs_domain(ctx, false);
	if (xrcd) {
		errno = 0;
		CHECK_ERRNO(umount(mnt) && errno == EBUSY,
			    "umount with the domain open: EBUSY");
		CHECK_ERRNO(!ibv_close_xrcd(xrcd), "the domain closed");
	}
	CHECK_ERRNO(!umount(mnt), "umount once the domain is closed");

	/* the file unlinked too: only the domain names it */
	xrcd = tmpfs_domain(ctx, true);
	if (xrcd) {
		errno = 0;
		CHECK_ERRNO(umount(mnt) && errno == EBUSY,
			    "umount with the domain of an unlinked file open: EBUSY");
		CHECK_ERRNO(!ibv_close_xrcd(xrcd), "the domain closed");
	}
	CHECK_ERRNO(!umount(mnt), "umount once the domain is closed");

	/* lazy: the mount goes from the tree, the filesystem stays */
	xrcd = tmpfs_domain(ctx, true);
	CHECK_ERRNO(!umount2(mnt, MNT_DETACH),
		    "lazy umount with the domain open");
	if (xrcd)
		CHECK_ERRNO(!ibv_close_xrcd(xrcd),
			    "the domain of the detached filesystem closed");

	/* left open, mounted, at exit: the namespace goes first */
	xrcd = tmpfs_domain(ctx, false);
	xt_check(xrcd, "a domain left open at exit");
	/* ctx not closed either */
}

static void t_umount(void)
{
	long x0 = res_count("xrcd");
	const char *knob = "/proc/sys/kernel/unprivileged_userns_clone";
	char v[16] = "";
	pid_t pid;

	/* Debian's switch (its default is 1): the attack needs it on */
	if (!xt_read_line(knob, v, sizeof(v)) && strcmp(v, "1")) {
		xt_note("%s is %s: set to 1", knob, v);
		if (write_file(knob, "1"))
			xt_bail(errno, "%s set", knob);
	}
	snprintf(mnt, sizeof(mnt), "/xv_xrc.XXXXXX");
	if (!mkdtemp(mnt) || chmod(mnt, 0755))
		xt_bail(errno, "mount point %s", mnt);
	pid = worker(umount_attacker, NULL);
	reap(pid, "the attacker");
	if (x0 >= 0)
		CHECK_EQ(res_count("xrcd"), x0,
			 "no domain left on the device after the attacker");
	/* unmounted here too: the attacker's mounts were its own */
	CHECK_ERRNO(!rmdir(mnt), "the mount point is an empty directory");
}

/* ------------------------------------------------------------ main */

static const struct xt_subtest tests[] = {
	XT_SUBTEST(umount, 0, "a domain keeps its file's mount busy"),
};

static struct xt_suite suite = {
	.tests = tests, .n = ARRAY_SIZE(tests), .timeout = 120,
};

int main(int argc, char **argv)
{
	const struct xt_opt opts[] = {
		{ .c = 'd', .arg = "IBDEV", .str = &dev_name },
		{ .c = 'r', .arg = "RESOURCES", .str = &res_path },
		{ .c = 'u', .arg = "UID", .num = &attacker_uid, .min = 1 },
	};
	int ret;

	ret = xt_main(&suite, opts, ARRAY_SIZE(opts), &argc, &argv,
		      "xv_xrc_isolation");
	if (ret >= 0)
		return ret;
	xt_show_library();
	xt_run(&suite, argc, argv);
	return xt_done();
}
