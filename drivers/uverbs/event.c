// SPDX-License-Identifier: GPL-2.0
/*
 * Completion channels and the async event file.
 *
 * Both are queues of fixed-size records behind an anonymous-inode fd with
 * read/poll.  Events come from any context (the driver's completion path
 * or interrupt), hence GFP_ATOMIC and irq-safe locks.  A CQ has at most one
 * completion event queued (embedded in its uobj: no allocation, never
 * lost): a completion that finds one still unread is coalesced into it,
 * so a channel's queue is bounded by its CQs however often a process
 * re-arms without reading.  The async queue is bounded by
 * XRDMA_ASYNC_QUEUE_MAX; past it, events are counted and reported as one
 * XRDMA_UVERBS_EVENT_OVERFLOW.  An event for an
 * object is also linked to the object, so destroying the object removes
 * its unread events; reading an event counts it in the object's
 * *_events_reported, which DESTROY returns (ibv_ack_cq_events).
 */
#include <linux/anon_inodes.h>
#include <linux/file.h>
#include <linux/moduleparam.h>
#include <linux/poll.h>
#include <linux/sched/clock.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include "uverbs.h"

/*
 * A blocking read of a completion channel first polls its queue for up to
 * this long, as the network stack's busy_read does for a socket: a
 * program that sleeps on CQ events between messages (ibv_rc_pingpong -e,
 * qperf, event-driven servers) then usually finds the next event before
 * it would have gone to sleep, and its CPU is not idle (halted) when the
 * event comes -- waking a halted CPU is most of such a round trip.  Only
 * a reader that would block spins, only while nothing else wants its CPU
 * and no signal is pending; 0 turns it off.
 */
#define XRDMA_EV_POLL_MAX_US	10000
static unsigned int xrdma_ev_poll_us = 50;

static int xrdma_ev_poll_set(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 0, XRDMA_EV_POLL_MAX_US);
}

static const struct kernel_param_ops xrdma_ev_poll_ops = {
	.set = xrdma_ev_poll_set,
	.get = param_get_uint,
};

module_param_cb(ev_poll_us, &xrdma_ev_poll_ops, &xrdma_ev_poll_us, 0644);
MODULE_PARM_DESC(ev_poll_us,
		 "us a blocking read of a completion channel polls before it sleeps (0: never, at most 10000)");

static bool xrdma_ev_ready(struct xrdma_ev_file *ev)
{
	return !list_empty(&ev->events) || READ_ONCE(ev->dropped) ||
	       READ_ONCE(ev->dev_gone);
}

/* Poll @ev for up to ev_poll_us; true once it has something to read. */
static bool xrdma_ev_busy_wait(struct xrdma_ev_file *ev)
{
	unsigned int us = READ_ONCE(xrdma_ev_poll_us);
	u64 end;

	if (!us || ev->is_async)
		return false;
	end = local_clock() + (u64)us * NSEC_PER_USEC;
	while (!xrdma_ev_ready(ev)) {
		if (need_resched() || signal_pending(current) ||
		    local_clock() > end)
			return false;
		cpu_relax();
	}
	return true;
}

static void xrdma_ev_file_release(struct kref *ref)
{
	struct xrdma_ev_file *ev = container_of(ref, struct xrdma_ev_file,
						ref);
	struct xrdma_ev_entry *e, *tmp;

	list_for_each_entry_safe(e, tmp, &ev->events, list) {
		list_del_init(&e->list);
		list_del_init(&e->obj_list);
		if (!e->embedded)
			kfree(e);
	}
	if (ev->ufile) {
		mutex_lock(&ev->ufile->channels_lock);
		list_del(&ev->ufile_list);
		mutex_unlock(&ev->ufile->channels_lock);
		xrdma_ufile_put(ev->ufile);
	}
	kfree(ev);
}

void xrdma_ev_file_put(struct xrdma_ev_file *ev)
{
	kref_put(&ev->ref, xrdma_ev_file_release);
}

/*
 * A completion channel belongs to @ufile and holds a reference on it; it is
 * on ufile->channels until released, so that disassociation can find it.
 * The async file belongs to the context and needs neither.
 */
struct xrdma_ev_file *xrdma_ev_file_alloc(struct xrdma_ufile *ufile,
					  bool is_async)
{
	struct xrdma_ev_file *ev = kzalloc(sizeof(*ev), GFP_KERNEL_ACCOUNT);

	if (!ev)
		return NULL;
	kref_init(&ev->ref);
	spin_lock_init(&ev->lock);
	init_waitqueue_head(&ev->wait);
	INIT_LIST_HEAD(&ev->events);
	ev->is_async = is_async;
	INIT_LIST_HEAD(&ev->ufile_list);
	if (!is_async) {
		kref_get(&ufile->ref);
		ev->ufile = ufile;
		ev->mm = current->mm;
		mutex_lock(&ufile->channels_lock);
		list_add_tail(&ev->ufile_list, &ufile->channels);
		mutex_unlock(&ufile->channels_lock);
	}
	return ev;
}

static ssize_t xrdma_ev_read(struct file *filp, char __user *buf,
			     size_t count, loff_t *pos)
{
	struct xrdma_ev_file *ev = filp->private_data;
	size_t rec = ev->is_async ? sizeof(struct xrdma_async_event) :
				    sizeof(struct xrdma_comp_event);
	union {
		struct xrdma_comp_event comp[16];
		struct xrdma_async_event async[16];
	} out;
	struct xrdma_ev_entry *e;
	size_t n = 0, max;
	int ret;

	if (count < rec)
		return -EINVAL;
	max = min_t(size_t, count / rec, 16);

	spin_lock_irq(&ev->lock);
	while (list_empty(&ev->events) && !ev->dropped) {
		bool gone = ev->dev_gone;

		spin_unlock_irq(&ev->lock);
		if (gone)
			return -EIO;
		if (filp->f_flags & O_NONBLOCK)
			return -EAGAIN;
		if (xrdma_ev_busy_wait(ev)) {
			spin_lock_irq(&ev->lock);
			continue;
		}
		ret = wait_event_interruptible(ev->wait, xrdma_ev_ready(ev));
		if (ret)
			return ret;
		spin_lock_irq(&ev->lock);
	}
	while (n < max && !list_empty(&ev->events)) {
		e = list_first_entry(&ev->events, struct xrdma_ev_entry, list);
		if (ev->is_async)
			out.async[n] = e->desc.async;
		else
			out.comp[n] = e->desc.comp;
		n++;
		list_del_init(&e->list);
		ev->count--;
		if (e->counter) {
			(*e->counter)++;
			list_del_init(&e->obj_list);
		}
		if (!e->embedded)
			kfree(e);
	}
	/* after the queued events: how many were dropped */
	if (n < max && ev->is_async && ev->dropped) {
		memset(&out.async[n], 0, sizeof(out.async[n]));
		out.async[n].event_type = XRDMA_UVERBS_EVENT_OVERFLOW;
		out.async[n].element = ev->dropped;
		ev->dropped = 0;
		n++;
	}
	spin_unlock_irq(&ev->lock);

	if (copy_to_user(buf, &out, n * rec))
		return -EFAULT;
	return n * rec;
}

static __poll_t xrdma_ev_poll(struct file *filp, struct poll_table_struct *wait)
{
	struct xrdma_ev_file *ev = filp->private_data;
	__poll_t mask = 0;

	poll_wait(filp, &ev->wait, wait);
	spin_lock_irq(&ev->lock);
	if (!list_empty(&ev->events) || ev->dropped)
		mask |= EPOLLIN | EPOLLRDNORM;
	if (ev->dev_gone)
		mask |= EPOLLERR;
	spin_unlock_irq(&ev->lock);
	return mask;
}

static int xrdma_ev_close(struct inode *inode, struct file *filp)
{
	xrdma_ev_file_put(filp->private_data);
	return 0;
}

const struct file_operations xrdma_comp_fops = {
	.owner = THIS_MODULE,
	.read = xrdma_ev_read,
	.poll = xrdma_ev_poll,
	.release = xrdma_ev_close,
};

/**
 * xrdma_ev_file_install - make an fd for an event file
 * @ev: the event file; the new file takes a reference
 * @fd_out: reserved fd number
 * @filp_out: the file
 *
 * The caller copies the fd to userspace, then fd_install()s it, or on
 * failure fput()s the file and put_unused_fd()s the number.
 */
int xrdma_ev_file_install(struct xrdma_ev_file *ev, int *fd_out,
			  struct file **filp_out)
{
	struct file *filp;
	int fd;

	fd = get_unused_fd_flags(O_CLOEXEC);
	if (fd < 0)
		return fd;
	kref_get(&ev->ref);
	filp = anon_inode_getfile(ev->is_async ? "[xrdma-async]" :
				  "[xrdma-comp]", &xrdma_comp_fops, ev,
				  O_RDONLY);
	if (IS_ERR(filp)) {
		xrdma_ev_file_put(ev);
		put_unused_fd(fd);
		return PTR_ERR(filp);
	}
	*fd_out = fd;
	*filp_out = filp;
	return 0;
}

void xrdma_uverbs_comp_handler(struct xrdma_cq *cq, void *ctx)
{
	struct xrdma_uobj *uobj = ctx;
	struct xrdma_ev_file *ev = uobj->channel;
	struct xrdma_ev_entry *e = &uobj->comp_ev;
	unsigned long flags;

	if (!ev)
		return;
	spin_lock_irqsave(&ev->lock, flags);
	/* dev_gone: nothing more; queued: this completion coalesces into it */
	if (ev->dev_gone || !list_empty(&e->list)) {
		spin_unlock_irqrestore(&ev->lock, flags);
		return;
	}
	e->desc.comp.cq_cookie = uobj->user_cookie;
	e->desc.comp.cq_handle = uobj->handle;
	e->desc.comp.reserved = 0;
	e->counter = &uobj->comp_events_reported;
	e->embedded = true;
	list_add_tail(&e->list, &ev->events);
	list_add_tail(&e->obj_list, &uobj->comp_list);
	ev->count++;
	spin_unlock_irqrestore(&ev->lock, flags);
	wake_up_interruptible(&ev->wait);
}

void xrdma_async_queue(struct xrdma_ev_file *ev, u32 type, u64 element,
		       u32 handle, struct xrdma_uobj *uobj)
{
	struct xrdma_ev_entry *e = NULL;
	unsigned long flags;

	spin_lock_irqsave(&ev->lock, flags);
	if (ev->dev_gone) {
		spin_unlock_irqrestore(&ev->lock, flags);
		return;
	}
	if (ev->count < XRDMA_ASYNC_QUEUE_MAX)
		e = kmalloc(sizeof(*e), GFP_ATOMIC);
	if (!e) {
		ev->dropped++;
		goto out;
	}
	e->embedded = false;
	e->desc.async.element = element;
	e->desc.async.event_type = type;
	e->desc.async.handle = handle;
	if (uobj) {
		e->counter = &uobj->async_events_reported;
		list_add_tail(&e->obj_list, &uobj->async_list);
	} else {
		e->counter = NULL;
		INIT_LIST_HEAD(&e->obj_list);
	}
	list_add_tail(&e->list, &ev->events);
	ev->count++;
out:
	spin_unlock_irqrestore(&ev->lock, flags);
	wake_up_interruptible(&ev->wait);
}

static u32 xrdma_event_to_uapi(enum xrdma_event_type t)
{
	switch (t) {
	case XRDMA_EVENT_CQ_ERR:
		return XRDMA_UVERBS_EVENT_CQ_ERR;
	case XRDMA_EVENT_QP_FATAL:
		return XRDMA_UVERBS_EVENT_QP_FATAL;
	case XRDMA_EVENT_QP_REQ_ERR:
		return XRDMA_UVERBS_EVENT_QP_REQ_ERR;
	case XRDMA_EVENT_QP_ACCESS_ERR:
		return XRDMA_UVERBS_EVENT_QP_ACCESS_ERR;
	case XRDMA_EVENT_COMM_EST:
		return XRDMA_UVERBS_EVENT_COMM_EST;
	case XRDMA_EVENT_SQ_DRAINED:
		return XRDMA_UVERBS_EVENT_SQ_DRAINED;
	case XRDMA_EVENT_QP_LAST_WQE_REACHED:
		return XRDMA_UVERBS_EVENT_QP_LAST_WQE_REACHED;
	case XRDMA_EVENT_SRQ_ERR:
		return XRDMA_UVERBS_EVENT_SRQ_ERR;
	case XRDMA_EVENT_SRQ_LIMIT_REACHED:
		return XRDMA_UVERBS_EVENT_SRQ_LIMIT_REACHED;
	case XRDMA_EVENT_PORT_ACTIVE:
		return XRDMA_UVERBS_EVENT_PORT_ACTIVE;
	case XRDMA_EVENT_PORT_ERR:
		return XRDMA_UVERBS_EVENT_PORT_ERR;
	case XRDMA_EVENT_DEVICE_FATAL:
		return XRDMA_UVERBS_EVENT_DEVICE_FATAL;
	}
	return XRDMA_UVERBS_EVENT_DEVICE_FATAL;
}

/*
 * QP, CQ and SRQ events: ctx is the object's uobj; they go to the queue of
 * the process that created the object (its cookie is a pointer there).
 */
void xrdma_obj_event_handler(struct xrdma_event *e, void *ctx)
{
	struct xrdma_uobj *uobj = ctx;
	struct xrdma_ev_file *ev = uobj->async;

	if (ev)
		xrdma_async_queue(ev, xrdma_event_to_uapi(e->event),
				  uobj->user_cookie, uobj->handle, uobj);
}

/* Port and device events. */
void xrdma_dev_event_handler(struct xrdma_event_handler *h,
			     struct xrdma_event *e)
{
	struct xrdma_ufile *ufile = container_of(h, struct xrdma_ufile,
						 event_handler);
	u64 element = e->event == XRDMA_EVENT_DEVICE_FATAL ? 0 :
		      e->element.port_num;
	u32 type = xrdma_event_to_uapi(e->event);
	struct xrdma_uimport *imp;
	unsigned long flags;

	if (ufile->async)
		xrdma_async_queue(ufile->async, type, element, 0, NULL);
	/* every process that imported the context sees them too */
	spin_lock_irqsave(&ufile->imports_lock, flags);
	list_for_each_entry(imp, &ufile->imports, list)
		xrdma_async_queue(imp->async, type, element, 0, NULL);
	spin_unlock_irqrestore(&ufile->imports_lock, flags);
}

static void xrdma_drop_list(struct xrdma_ev_file *ev, struct list_head *head)
{
	struct xrdma_ev_entry *e, *tmp;
	unsigned long flags;

	spin_lock_irqsave(&ev->lock, flags);
	list_for_each_entry_safe(e, tmp, head, obj_list) {
		list_del_init(&e->list);
		list_del_init(&e->obj_list);
		ev->count--;
		if (!e->embedded)
			kfree(e);
	}
	spin_unlock_irqrestore(&ev->lock, flags);
}

/* The object is destroyed: its unread events go with it. */
void xrdma_uobj_drop_events(struct xrdma_uobj *uobj)
{
	if (uobj->channel)
		xrdma_drop_list(uobj->channel, &uobj->comp_list);
	if (uobj->async)
		xrdma_drop_list(uobj->async, &uobj->async_list);
}

/*
 * The device is gone: nothing more will be queued.  Readers get what is
 * queued, then -EIO; poll() reports EPOLLERR.  Wakes every waiter.
 */
void xrdma_ev_file_dev_gone(struct xrdma_ev_file *ev)
{
	spin_lock_irq(&ev->lock);
	ev->dev_gone = true;
	spin_unlock_irq(&ev->lock);
	wake_up_interruptible(&ev->wait);
}

/**
 * xrdma_ufile_channels_gone - disassociate every completion channel
 * @ufile: the file being disassociated
 *
 * A channel is on the list from its allocation until its release, which
 * unlinks it under channels_lock before freeing it, so each entry here is
 * valid memory even if its last reference is being dropped.  Lock order:
 * hw_rwsem, channels_lock, then the channel's lock; nothing that delivers
 * events takes channels_lock.
 */
void xrdma_ufile_channels_gone(struct xrdma_ufile *ufile)
{
	struct xrdma_ev_file *ev;

	mutex_lock(&ufile->channels_lock);
	list_for_each_entry(ev, &ufile->channels, ufile_list)
		xrdma_ev_file_dev_gone(ev);
	mutex_unlock(&ufile->channels_lock);
}
