// SPDX-License-Identifier: GPL-2.0
/*
 * xrdma_uverbs: /dev/infiniband/xrdma_uverbsN for every xrdma device.
 *
 * The kernel device is uverbsN of class "xrdma" (/sys/class/xrdma/uverbsN);
 * its node lives where programs look for uverbs nodes, /dev/infiniband,
 * with a prefix that ib_uverbs' uverbsN and rdma_ucm's rdma_cm next to it
 * never take (Documentation/userspace.rst, "Device names").
 *
 * The module is an xrdma client: a char device appears when a device is
 * registered.  When the device goes away while files are open, each file
 * is disassociated: commands in flight finish, every object is destroyed,
 * mappings are zapped, DEVICE_FATAL is queued, the async fd and every
 * completion channel are marked gone (read -EIO once empty, poll EPOLLERR),
 * and later commands get -EIO; the files themselves live on until the
 * process closes them.
 *
 * A file is used by the process that opened it and by every process that
 * imported its context (XRDMA_IOC_IMPORT_CONTEXT, ibv_import_device(): the
 * fd was passed to it, or it is a child); other processes get -EPERM.
 * Each importer has its own async event queue (the events of the objects
 * it created, and every port and device event), so no process is handed
 * another's object pointers.
 */
#include <linux/module.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <xrdma/compat.h>
#include "uverbs.h"

static dev_t xrdma_uverbs_base;
static DEFINE_IDA(xrdma_uverbs_ida);
static struct xrdma_client xrdma_uverbs_client;

static char *xrdma_uverbs_devnode(XRDMA_DEVNODE_CONST struct device *dev,
				  umode_t *mode)
{
	if (mode)
		*mode = 0666;
	return kasprintf(GFP_KERNEL, "infiniband/xrdma_%s", dev_name(dev));
}

static struct class xrdma_uverbs_class = {
	.name = "xrdma",
	.devnode = xrdma_uverbs_devnode,
};

/* ------------------------------------------------------------- sysfs */

static struct xrdma_device *udev_ibdev(struct device *device)
{
	return container_of(device, struct xrdma_uverbs_dev, dev)->ibdev;
}

static ssize_t ibdev_show(struct device *device, struct device_attribute *a,
			  char *buf)
{
	return sysfs_emit(buf, "%s\n", udev_ibdev(device)->name);
}
static DEVICE_ATTR_RO(ibdev);

static ssize_t abi_version_show(struct device *device,
				struct device_attribute *a, char *buf)
{
	return sysfs_emit(buf, "%d\n", XRDMA_ABI_VERSION);
}
static DEVICE_ATTR_RO(abi_version);

static ssize_t node_guid_show(struct device *device,
			      struct device_attribute *a, char *buf)
{
	u64 guid = be64_to_cpu(udev_ibdev(device)->attr.node_guid);

	return sysfs_emit(buf, "%04x:%04x:%04x:%04x\n",
			  (u16)(guid >> 48), (u16)(guid >> 32),
			  (u16)(guid >> 16), (u16)guid);
}
static DEVICE_ATTR_RO(node_guid);

static ssize_t vendor_id_show(struct device *device,
			      struct device_attribute *a, char *buf)
{
	return sysfs_emit(buf, "0x%x\n", udev_ibdev(device)->attr.vendor_id);
}
static DEVICE_ATTR_RO(vendor_id);

static ssize_t vendor_part_id_show(struct device *device,
				   struct device_attribute *a, char *buf)
{
	return sysfs_emit(buf, "%u\n",
			  udev_ibdev(device)->attr.vendor_part_id);
}
static DEVICE_ATTR_RO(vendor_part_id);

static ssize_t fw_ver_show(struct device *device, struct device_attribute *a,
			   char *buf)
{
	return sysfs_emit(buf, "%s\n", udev_ibdev(device)->attr.fw_ver);
}
static DEVICE_ATTR_RO(fw_ver);

static ssize_t num_ports_show(struct device *device,
			      struct device_attribute *a, char *buf)
{
	return sysfs_emit(buf, "%u\n", udev_ibdev(device)->num_ports);
}
static DEVICE_ATTR_RO(num_ports);

static ssize_t driver_show(struct device *device, struct device_attribute *a,
			   char *buf)
{
	return sysfs_emit(buf, "%s\n", udev_ibdev(device)->ops->driver_name);
}
static DEVICE_ATTR_RO(driver);

static struct attribute *xrdma_uverbs_attrs[] = {
	&dev_attr_ibdev.attr,
	&dev_attr_abi_version.attr,
	&dev_attr_node_guid.attr,
	&dev_attr_vendor_id.attr,
	&dev_attr_vendor_part_id.attr,
	&dev_attr_fw_ver.attr,
	&dev_attr_num_ports.attr,
	&dev_attr_driver.attr,
	NULL,
};
ATTRIBUTE_GROUPS(xrdma_uverbs);

/* -------------------------------------------------------------- files */

/* The import entry of @mm, or NULL. */
struct xrdma_uimport *xrdma_ufile_import_find(struct xrdma_ufile *ufile,
					      struct mm_struct *mm)
{
	struct xrdma_uimport *imp, *found = NULL;
	unsigned long flags;

	spin_lock_irqsave(&ufile->imports_lock, flags);
	list_for_each_entry(imp, &ufile->imports, list) {
		if (imp->mm == mm) {
			found = imp;
			break;
		}
	}
	spin_unlock_irqrestore(&ufile->imports_lock, flags);
	return found;
}

/* May the current process use the file: the opener or an importer. */
bool xrdma_ufile_user(struct xrdma_ufile *ufile)
{
	return current->mm == ufile->mm ||
	       xrdma_ufile_import_find(ufile, current->mm);
}

/*
 * The async event queue of the current process (a user of the file, with
 * a context), with a reference; NULL if it has none.
 */
struct xrdma_ev_file *xrdma_ufile_async_get(struct xrdma_ufile *ufile)
{
	struct xrdma_ev_file *ev = NULL;
	struct xrdma_uimport *imp;

	if (current->mm == ufile->mm) {
		ev = ufile->async;
	} else {
		imp = xrdma_ufile_import_find(ufile, current->mm);
		if (imp)
			ev = imp->async;
	}
	if (ev)
		kref_get(&ev->ref);
	return ev;
}

/* Free the import entries; the file is closed: nobody looks them up. */
static void xrdma_ufile_imports_free(struct xrdma_ufile *ufile)
{
	struct xrdma_uimport *imp, *tmp;

	list_for_each_entry_safe(imp, tmp, &ufile->imports, list) {
		list_del(&imp->list);
		xrdma_ev_file_put(imp->async);
		mmdrop(imp->mm);
		kfree(imp);
	}
	ufile->nr_imports = 0;
}

static void xrdma_ufile_release(struct kref *ref)
{
	struct xrdma_ufile *ufile = container_of(ref, struct xrdma_ufile, ref);

	WARN_ON(!list_empty(&ufile->channels));
	xa_destroy(&ufile->handles);
	mutex_destroy(&ufile->channels_lock);
	mmdrop(ufile->mm);
	put_device(&ufile->udev->dev);
	kfree(ufile);
}

void xrdma_ufile_put(struct xrdma_ufile *ufile)
{
	kref_put(&ufile->ref, xrdma_ufile_release);
}

/*
 * Destroy everything the file owns on the device.  With hw_rwsem held for
 * write.  @dev_gone: the device is going away (disassociation), rather than
 * the file being closed.
 */
static void xrdma_ufile_teardown(struct xrdma_ufile *ufile, bool dev_gone)
{
	struct xrdma_uimport *imp;

	if (ufile->closed)
		return;
	ufile->closed = true;
	xrdma_uobj_destroy_all(ufile);
	if (ufile->async) {
		xrdma_unregister_event_handler(&ufile->event_handler);
		if (dev_gone) {
			xrdma_async_queue(ufile->async,
					  XRDMA_UVERBS_EVENT_DEVICE_FATAL, 0, 0,
					  NULL);
			xrdma_ev_file_dev_gone(ufile->async);
			/* no command runs: the list does not change */
			list_for_each_entry(imp, &ufile->imports, list) {
				xrdma_async_queue(imp->async,
						  XRDMA_UVERBS_EVENT_DEVICE_FATAL,
						  0, 0, NULL);
				xrdma_ev_file_dev_gone(imp->async);
			}
		}
	}
	/*
	 * The channel fds may outlive us (device gone or this fd closed):
	 * no event can come any more, their readers must not hang.
	 */
	xrdma_ufile_channels_gone(ufile);
	if (ufile->ucontext)
		xrdma_ucontext_disassociate(ufile->ucontext);
}

static int xrdma_uverbs_open(struct inode *inode, struct file *filp)
{
	struct xrdma_uverbs_dev *udev =
		container_of(inode->i_cdev, struct xrdma_uverbs_dev, cdev);
	struct xrdma_ufile *ufile;

	if (!current->mm)
		return -EINVAL;
	ufile = kzalloc(sizeof(*ufile), GFP_KERNEL_ACCOUNT);
	if (!ufile)
		return -ENOMEM;
	kref_init(&ufile->ref);
	ufile->udev = udev;
	ufile->mm = current->mm;
	mmgrab(ufile->mm);
	init_rwsem(&ufile->hw_rwsem);
	mutex_init(&ufile->ctx_mutex);
	xa_init_flags(&ufile->handles, XA_FLAGS_ALLOC1);
	ufile->next_handle = 1;
	mutex_init(&ufile->channels_lock);
	INIT_LIST_HEAD(&ufile->channels);
	spin_lock_init(&ufile->imports_lock);
	INIT_LIST_HEAD(&ufile->imports);

	mutex_lock(&udev->files_lock);
	if (udev->dead) {
		mutex_unlock(&udev->files_lock);
		mmdrop(ufile->mm);
		kfree(ufile);
		return -ENODEV;
	}
	get_device(&udev->dev);
	list_add_tail(&ufile->list, &udev->files);
	mutex_unlock(&udev->files_lock);

	filp->private_data = ufile;
	return nonseekable_open(inode, filp);
}

static int xrdma_uverbs_close(struct inode *inode, struct file *filp)
{
	struct xrdma_ufile *ufile = filp->private_data;
	struct xrdma_uverbs_dev *udev = ufile->udev;

	mutex_lock(&udev->files_lock);
	if (!list_empty(&ufile->list))
		list_del_init(&ufile->list);
	mutex_unlock(&udev->files_lock);

	down_write(&ufile->hw_rwsem);
	xrdma_ufile_teardown(ufile, false);
	up_write(&ufile->hw_rwsem);

	/* no VMA is left (each holds the file): the memory can go */
	if (ufile->ucontext)
		xrdma_free_ucontext(ufile->ucontext);
	if (ufile->async)
		xrdma_ev_file_put(ufile->async);
	xrdma_ufile_imports_free(ufile);
	xrdma_ufile_put(ufile);
	return 0;
}

static int xrdma_uverbs_mmap(struct file *filp, struct vm_area_struct *vma)
{
	struct xrdma_ufile *ufile = filp->private_data;
	struct xrdma_ucontext *uctx;
	int ret;

	if (!xrdma_ufile_user(ufile))
		return -EPERM;
	/*
	 * No hw_rwsem here: we hold the mmap lock, and disassociation zaps
	 * mappings under hw_rwsem.  The context lives as long as the file;
	 * xrdma_ucontext_mmap() refuses once it is being disassociated.
	 */
	/* pairs with the release in xrdma_cmd_get_context() */
	uctx = smp_load_acquire(&ufile->ucontext);
	if (READ_ONCE(ufile->dead))
		ret = -EIO;
	else if (!uctx)
		ret = -EINVAL;
	else
		ret = xrdma_ucontext_mmap(uctx, vma);
	return ret;
}

static const struct file_operations xrdma_uverbs_fops = {
	.owner = THIS_MODULE,
	.open = xrdma_uverbs_open,
	.release = xrdma_uverbs_close,
	.unlocked_ioctl = xrdma_uverbs_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.mmap = xrdma_uverbs_mmap,
};

/* ------------------------------------------------------------- client */

static void xrdma_uverbs_dev_release(struct device *device)
{
	struct xrdma_uverbs_dev *udev =
		container_of(device, struct xrdma_uverbs_dev, dev);

	ida_free(&xrdma_uverbs_ida, udev->devnum);
	/* every file's domains went with its objects */
	WARN_ON(!list_empty(&udev->xrcds));
	mutex_destroy(&udev->xrcd_lock);
	mutex_destroy(&udev->files_lock);
	kfree(udev);
}

static int xrdma_uverbs_add(struct xrdma_device *ibdev)
{
	struct xrdma_uverbs_dev *udev;
	int ret;

	if (!ibdev->ops->alloc_ucontext)
		return -EOPNOTSUPP;	/* kernel-only device */
	udev = kzalloc(sizeof(*udev), GFP_KERNEL);
	if (!udev)
		return -ENOMEM;
	ret = ida_alloc_max(&xrdma_uverbs_ida, XRDMA_UVERBS_MAX_DEVICES - 1,
			    GFP_KERNEL);
	if (ret < 0) {
		kfree(udev);
		return ret;
	}
	udev->devnum = ret;
	udev->ibdev = ibdev;
	mutex_init(&udev->files_lock);
	INIT_LIST_HEAD(&udev->files);
	mutex_init(&udev->xrcd_lock);
	INIT_LIST_HEAD(&udev->xrcds);

	device_initialize(&udev->dev);
	udev->dev.class = &xrdma_uverbs_class;
	udev->dev.parent = &ibdev->dev;
	udev->dev.groups = xrdma_uverbs_groups;
	udev->dev.release = xrdma_uverbs_dev_release;
	udev->dev.devt = MKDEV(MAJOR(xrdma_uverbs_base), udev->devnum);
	dev_set_name(&udev->dev, "uverbs%d", udev->devnum);
	cdev_init(&udev->cdev, &xrdma_uverbs_fops);
	udev->cdev.owner = THIS_MODULE;
	ret = cdev_device_add(&udev->cdev, &udev->dev);
	if (ret) {
		put_device(&udev->dev);
		return ret;
	}
	xrdma_set_client_data(ibdev, &xrdma_uverbs_client, udev);
	return 0;
}

static void xrdma_uverbs_remove(struct xrdma_device *ibdev, void *data)
{
	struct xrdma_uverbs_dev *udev = data;
	struct xrdma_ufile *ufile;

	/* no new opens, no new files in the list */
	cdev_device_del(&udev->cdev, &udev->dev);
	mutex_lock(&udev->files_lock);
	udev->dead = true;
	while (!list_empty(&udev->files)) {
		ufile = list_first_entry(&udev->files, struct xrdma_ufile,
					 list);
		list_del_init(&ufile->list);
		kref_get(&ufile->ref);
		mutex_unlock(&udev->files_lock);

		down_write(&ufile->hw_rwsem);
		WRITE_ONCE(ufile->dead, true);
		xrdma_ufile_teardown(ufile, true);
		up_write(&ufile->hw_rwsem);
		xrdma_ufile_put(ufile);

		mutex_lock(&udev->files_lock);
	}
	mutex_unlock(&udev->files_lock);
	put_device(&udev->dev);
}

static struct xrdma_client xrdma_uverbs_client = {
	.name = "uverbs",
	.add = xrdma_uverbs_add,
	.remove = xrdma_uverbs_remove,
};

static int __init xrdma_uverbs_init(void)
{
	int ret;

	ret = alloc_chrdev_region(&xrdma_uverbs_base, 0,
				  XRDMA_UVERBS_MAX_DEVICES, "xrdma_uverbs");
	if (ret)
		return ret;
	ret = class_register(&xrdma_uverbs_class);
	if (ret)
		goto err_region;
	ret = xrdma_register_client(&xrdma_uverbs_client);
	if (ret)
		goto err_class;
	return 0;

err_class:
	class_unregister(&xrdma_uverbs_class);
err_region:
	unregister_chrdev_region(xrdma_uverbs_base, XRDMA_UVERBS_MAX_DEVICES);
	return ret;
}

static void __exit xrdma_uverbs_exit(void)
{
	xrdma_unregister_client(&xrdma_uverbs_client);
	class_unregister(&xrdma_uverbs_class);
	unregister_chrdev_region(xrdma_uverbs_base, XRDMA_UVERBS_MAX_DEVICES);
	ida_destroy(&xrdma_uverbs_ida);
}

module_init(xrdma_uverbs_init);
module_exit(xrdma_uverbs_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("xrdma user verbs: /dev/infiniband/xrdma_uverbsN");
