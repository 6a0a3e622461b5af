/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _XRDMA_UVERBS_H
#define _XRDMA_UVERBS_H

#include <linux/cdev.h>
#include <linux/fs.h>
#include <linux/kref.h>
#include <linux/rwsem.h>
#include <linux/wait.h>
#include <xrdma/xrdma_verbs.h>
#include <uapi/xrdma/xrdma-abi.h>

#define XRDMA_UVERBS_MAX_DEVICES	64
#define XRDMA_ASYNC_QUEUE_MAX		256
/* processes other than the opener that may import one file's context */
#define XRDMA_UVERBS_MAX_IMPORTS	16

/* One per xrdma device: the char device /dev/infiniband/xrdma_uverbsN. */
struct xrdma_uverbs_dev {
	struct device dev;		/* memory lifetime, class "xrdma" */
	struct cdev cdev;
	struct xrdma_device *ibdev;	/* valid while registered */
	int devnum;
	struct mutex files_lock;	/* protects files and dead */
	struct list_head files;
	bool dead;
	/* XRC domains shared by file (OPEN_XRCD): struct xrdma_uxrcd */
	struct mutex xrcd_lock;
	struct list_head xrcds;
};

/*
 * An XRC domain opened by a file: its inode names it on this device.  The
 * file's path is held (its mount, dentry and so inode): the filesystem
 * cannot be unmounted (EBUSY; a lazy unmount keeps the superblock until
 * the path is put) while the domain lives.
 */
struct xrdma_uxrcd {
	struct list_head list;		/* in udev->xrcds */
	struct inode *inode;		/* path.dentry's inode */
	struct path path;		/* held */
	struct xrdma_xrcd *xrcd;
	unsigned int handles;		/* in every context of the device */
};

/* Event queue behind a completion channel fd or the async event fd. */
struct xrdma_ev_file {
	struct kref ref;
	spinlock_t lock;		/* protects everything below */
	wait_queue_head_t wait;
	struct list_head events;
	unsigned int count;
	unsigned int dropped;		/* async: overflowed since last read */
	bool is_async;
	bool dev_gone;			/* disassociated: read -EIO when empty */
	struct xrdma_ufile *ufile;	/* owner context (holds a ref) */
	struct list_head ufile_list;	/* comp channel: in ufile->channels */
	/* comp channel: the creator's mm (the file holds it grabbed) */
	struct mm_struct *mm;
};

struct xrdma_ev_entry {
	struct list_head list;		/* in ev_file->events */
	struct list_head obj_list;	/* in the object's list, or empty */
	u32 *counter;			/* incremented when read */
	bool embedded;			/* in its object: never kfree()d */
	union {
		struct xrdma_comp_event comp;
		struct xrdma_async_event async;
	} desc;
};

/* A handle's object. */
struct xrdma_uobj {
	struct xrdma_ufile *ufile;
	u32 handle;
	u32 type;			/* XRDMA_OBJ_* */
	atomic_t usecnt;		/* >0 shared users, -1 being destroyed */
	void *object;
	u64 user_cookie;
	/* the async queue of the creator's process (holds a ref), or NULL */
	struct xrdma_ev_file *async;
	struct xrdma_ev_file *channel;	/* CQ: completion channel or NULL */
	struct list_head comp_list;	/* queued completion events */
	/* CQ: its one completion event; at most one is ever queued */
	struct xrdma_ev_entry comp_ev;
	struct list_head async_list;	/* queued async events */
	u32 comp_events_reported;
	u32 async_events_reported;
	/* XRC SRQ, XRC_RECV QP: the XRCD handle it uses (holds a use) */
	struct xrdma_uobj *xrcd_uobj;
	/* a QP handle from OPEN_QP: the core's handle on the shared QP */
	struct xrdma_qp_open *qp_open;
	/* an XRCD handle: its charge, one XRCD of its holder's (cmd_srq.c) */
	struct xrdma_ucharge xrcd_charge;
};

/* One per open file of /dev/infiniband/xrdma_uverbsN. */
struct xrdma_ufile {
	struct kref ref;
	struct xrdma_uverbs_dev *udev;
	struct list_head list;		/* in udev->files */
	struct mm_struct *mm;		/* the opener's: others get -EPERM */
	/* ioctls hold it for read; teardown for write */
	struct rw_semaphore hw_rwsem;
	bool dead;			/* disassociated: -EIO */
	bool closed;			/* objects destroyed */
	struct mutex ctx_mutex;		/* GET_CONTEXT, GET_ASYNC_FD */
	struct xrdma_ucontext *ucontext;
	struct xrdma_ev_file *async;
	/* GET_ASYNC_FD answers given / allowed (one per GET/IMPORT_CONTEXT) */
	unsigned int async_fds, async_fds_allowed;
	struct xrdma_event_handler event_handler;
	/*
	 * Processes that imported the context (IMPORT_CONTEXT): added under
	 * ctx_mutex and imports_lock, freed only with the file; read under
	 * imports_lock (any context: the event handlers).
	 */
	spinlock_t imports_lock;
	struct list_head imports;
	unsigned int nr_imports;
	struct xarray handles;
	u32 next_handle;		/* xa_alloc_cyclic(); handles' xa_lock */
	/* completion channels alive (from alloc to release), to mark gone */
	struct mutex channels_lock;
	struct list_head channels;
};

/* A process other than the opener that imported the file's context. */
struct xrdma_uimport {
	struct list_head list;		/* in ufile->imports */
	struct mm_struct *mm;		/* grabbed */
	struct xrdma_ev_file *async;	/* its async event queue */
	unsigned int async_fds, async_fds_allowed;
};

/* main.c */
bool xrdma_ufile_user(struct xrdma_ufile *ufile);
struct xrdma_uimport *xrdma_ufile_import_find(struct xrdma_ufile *ufile,
					      struct mm_struct *mm);
struct xrdma_ev_file *xrdma_ufile_async_get(struct xrdma_ufile *ufile);

/* uobj.c */
struct xrdma_uobj *xrdma_uobj_alloc(struct xrdma_ufile *ufile, u32 type,
				    u64 cookie);
void xrdma_uobj_commit(struct xrdma_uobj *uobj);
void xrdma_uobj_abort(struct xrdma_uobj *uobj);
struct xrdma_uobj *xrdma_uobj_get(struct xrdma_ufile *ufile, u32 type,
				  u32 handle);
void xrdma_uobj_put(struct xrdma_uobj *uobj);
struct xrdma_uobj *xrdma_uobj_get_write(struct xrdma_ufile *ufile, u32 type,
					u32 handle);
void xrdma_uobj_put_write(struct xrdma_uobj *uobj);
void xrdma_uobj_destroy_all(struct xrdma_ufile *ufile);
int xrdma_uobj_hw_destroy(struct xrdma_uobj *uobj);
void xrdma_uobj_finish(struct xrdma_uobj *uobj,
		       struct xrdma_cmd_destroy *resp);
void xrdma_ufile_put(struct xrdma_ufile *ufile);

/* event.c */
extern const struct file_operations xrdma_comp_fops;
struct xrdma_ev_file *xrdma_ev_file_alloc(struct xrdma_ufile *ufile,
					  bool is_async);
void xrdma_ev_file_put(struct xrdma_ev_file *ev);
int xrdma_ev_file_install(struct xrdma_ev_file *ev, int *fd_out,
			  struct file **filp_out);
void xrdma_uverbs_comp_handler(struct xrdma_cq *cq, void *ctx);
void xrdma_obj_event_handler(struct xrdma_event *e, void *ctx);
void xrdma_dev_event_handler(struct xrdma_event_handler *h,
			     struct xrdma_event *e);
void xrdma_async_queue(struct xrdma_ev_file *ev, u32 type, u64 element,
		       u32 handle, struct xrdma_uobj *uobj);
void xrdma_uobj_drop_events(struct xrdma_uobj *uobj);
void xrdma_ev_file_dev_gone(struct xrdma_ev_file *ev);
void xrdma_ufile_channels_gone(struct xrdma_ufile *ufile);

/* cmd_srq.c */
int xrdma_uverbs_close_xrcd(struct xrdma_uobj *uobj);

/* ioctl.c */
long xrdma_uverbs_ioctl(struct file *filp, unsigned int cmd,
			unsigned long arg);

#endif
