// SPDX-License-Identifier: GPL-2.0
/*
 * xrdma_core_device: registration, clients, users, events.
 */
#include <linux/delay.h>
#include <linux/kthread.h>
#include "fake_driver.h"
#include "core_priv.h"

static void device_register_names(struct kunit *test)
{
	struct fake_dev *a, *b, *c, *dup;

	a = fake_dev_create(test, "kfake%d");
	b = fake_dev_create(test, "kfake%d");
	KUNIT_EXPECT_STREQ(test, a->ibdev.name, "kfake0");
	KUNIT_EXPECT_STREQ(test, b->ibdev.name, "kfake1");
	KUNIT_EXPECT_STREQ(test, dev_name(&a->ibdev.dev), "kfake0");

	/* the lowest free number is reused once its device is gone */
	fake_dev_destroy(a);
	c = fake_dev_create(test, "kfake%d");
	KUNIT_EXPECT_STREQ(test, c->ibdev.name, "kfake0");

	/* a fixed name cannot be registered twice */
	dup = fake_dev_alloc(test);
	KUNIT_EXPECT_EQ(test, xrdma_register_device(&dup->ibdev, "kfake1",
						    NULL), -EEXIST);
	xrdma_dealloc_device(&dup->ibdev);

	fake_dev_destroy(b);
	fake_dev_destroy(c);
}

/* a device with these operations is refused */
static void device_ops_refused(struct kunit *test,
			       const struct xrdma_device_ops *ops)
{
	struct xrdma_device *dev;

	dev = _xrdma_alloc_device(sizeof(struct fake_dev), ops);
	KUNIT_ASSERT_NOT_NULL(test, dev);
	dev->num_ports = 1;
	KUNIT_EXPECT_EQ(test, xrdma_register_device(dev, "kbad%d", NULL),
			-EINVAL);
	xrdma_dealloc_device(dev);
}

static void device_register_invalid(struct kunit *test)
{
	static struct xrdma_device_ops bad_ops;
	struct fake_dev *fd;
	int ret;

	fd = fake_dev_alloc(test);
	fd->ibdev.num_ports = 0;
	KUNIT_EXPECT_EQ(test, xrdma_register_device(&fd->ibdev, "kbad%d", NULL),
			-EINVAL);
	fd->ibdev.num_ports = XRDMA_MAX_PORTS + 1;
	KUNIT_EXPECT_EQ(test, xrdma_register_device(&fd->ibdev, "kbad%d", NULL),
			-EINVAL);
	xrdma_dealloc_device(&fd->ibdev);

	/* a driver without its mandatory operations is refused */
	bad_ops = fake_ops;
	bad_ops.post_send = NULL;
	device_ops_refused(test, &bad_ops);

	/* object sizes smaller than the core structs are refused */
	bad_ops = fake_ops;
	bad_ops.size_qp = sizeof(struct xrdma_qp) - 1;
	device_ops_refused(test, &bad_ops);

	/* too small a device structure */
	KUNIT_EXPECT_NULL(test, _xrdma_alloc_device(8, &fake_ops));

	/* a port the driver cannot report: its error, nothing registered */
	fd = fake_dev_alloc(test);
	fd->query_port_result = -EIO;
	ret = xrdma_register_device(&fd->ibdev, "kbad%d", NULL);
	KUNIT_EXPECT_EQ(test, ret, -EIO);
	if (!ret)
		xrdma_unregister_device(&fd->ibdev);
	xrdma_dealloc_device(&fd->ibdev);
}

/* Each port's link layer is read at registration, port by port. */
static void device_link_layers(struct kunit *test)
{
	struct fake_dev *fd = fake_dev_alloc(test);
	struct xrdma_port_attr pa;
	int ret;

	fd->ibdev.num_ports = 3;
	fd->ib_ports = BIT(2);
	ret = xrdma_register_device(&fd->ibdev, "kll%d", NULL);
	if (ret)
		xrdma_dealloc_device(&fd->ibdev);
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, fd->ibdev.port_link_layer[0],
			XRDMA_LINK_LAYER_ETHERNET);
	KUNIT_EXPECT_EQ(test, fd->ibdev.port_link_layer[1],
			XRDMA_LINK_LAYER_INFINIBAND);
	KUNIT_EXPECT_EQ(test, fd->ibdev.port_link_layer[2],
			XRDMA_LINK_LAYER_ETHERNET);
	KUNIT_EXPECT_EQ(test, xrdma_query_port(&fd->ibdev, 2, &pa), 0);
	KUNIT_EXPECT_EQ(test, pa.link_layer, XRDMA_LINK_LAYER_INFINIBAND);
	fake_dev_destroy(fd);
}

struct test_client {
	struct xrdma_client client;
	int adds, removes;
	bool refuse;
	bool make_objects;
	bool registered;
	bool gone_at_remove;	/* xrdma_device_gone() in the last remove */
	void *last_removed_data;
	struct kunit *test;
};

/*
 * The case's client, allocated with kunit_kzalloc so that it outlives a
 * case ended by a failed assertion: the suite's exit then unregisters it.
 */
static struct test_client *the_client;

static int tc_add(struct xrdma_device *dev)
{
	struct test_client *tc = the_client;
	struct xrdma_pd *pd;

	if (tc->refuse)
		return -EOPNOTSUPP;
	tc->adds++;
	if (tc->make_objects) {
		pd = xrdma_alloc_pd(dev, 0);
		if (IS_ERR(pd))
			return PTR_ERR(pd);
		xrdma_set_client_data(dev, &tc->client, pd);
	} else {
		xrdma_set_client_data(dev, &tc->client, dev);
	}
	return 0;
}

static void tc_remove(struct xrdma_device *dev, void *data)
{
	struct test_client *tc = the_client;

	tc->removes++;
	tc->last_removed_data = data;
	tc->gone_at_remove = xrdma_device_gone(dev);
	if (tc->make_objects)
		KUNIT_EXPECT_EQ(tc->test, xrdma_dealloc_pd(data), 0);
}

static struct test_client *tc_new(struct kunit *test)
{
	struct test_client *tc = kunit_kzalloc(test, sizeof(*tc), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, tc);
	tc->client.name = "kunit";
	tc->client.add = tc_add;
	tc->client.remove = tc_remove;
	tc->test = test;
	the_client = tc;
	return tc;
}

static int tc_register(struct test_client *tc)
{
	int ret = xrdma_register_client(&tc->client);

	tc->registered = !ret;
	return ret;
}

static void tc_unregister(struct test_client *tc)
{
	xrdma_unregister_client(&tc->client);
	tc->registered = false;
}

static void device_exit(struct kunit *test)
{
	if (the_client && the_client->registered)
		tc_unregister(the_client);
	the_client = NULL;
}

static void device_clients(struct kunit *test)
{
	struct test_client *tc = tc_new(test);
	struct fake_dev *a, *b;

	a = fake_dev_create(test, "kcl%d");

	/* a client sees devices present when it registers ... */
	KUNIT_ASSERT_EQ(test, tc_register(tc), 0);
	KUNIT_EXPECT_EQ(test, tc->adds, 1);
	KUNIT_EXPECT_PTR_EQ(test, xrdma_get_client_data(&a->ibdev, &tc->client),
			    (void *)&a->ibdev);

	/* ... and devices registered later */
	b = fake_dev_create(test, "kcl%d");
	KUNIT_EXPECT_EQ(test, tc->adds, 2);

	/*
	 * unregistering a device calls remove with the client's data; the
	 * device is gone to everyone from the unregistration's start
	 */
	KUNIT_EXPECT_FALSE(test, xrdma_device_gone(&b->ibdev));
	fake_dev_destroy(b);
	KUNIT_EXPECT_EQ(test, tc->removes, 1);
	KUNIT_EXPECT_PTR_EQ(test, tc->last_removed_data, (void *)&b->ibdev);
	KUNIT_EXPECT_TRUE(test, tc->gone_at_remove);

	/* unregistering the client calls remove for the rest: not gone */
	tc_unregister(tc);
	KUNIT_EXPECT_EQ(test, tc->removes, 2);
	KUNIT_EXPECT_PTR_EQ(test, tc->last_removed_data, (void *)&a->ibdev);
	KUNIT_EXPECT_FALSE(test, tc->gone_at_remove);
	KUNIT_EXPECT_FALSE(test, xrdma_device_gone(&a->ibdev));
	KUNIT_EXPECT_NULL(test, xrdma_get_client_data(&a->ibdev, &tc->client));

	/* a client that refuses a device is not told of its removal */
	tc = tc_new(test);
	tc->refuse = true;
	KUNIT_ASSERT_EQ(test, tc_register(tc), 0);
	KUNIT_EXPECT_NULL(test, xrdma_get_client_data(&a->ibdev, &tc->client));
	fake_dev_destroy(a);
	KUNIT_EXPECT_EQ(test, tc->removes, 0);
	tc_unregister(tc);
}

/* A client's objects are released by its remove callback during unregister. */
static void device_unregister_with_client_objects(struct kunit *test)
{
	struct test_client *tc = tc_new(test);
	struct fake_dev *fd;

	tc->make_objects = true;
	KUNIT_ASSERT_EQ(test, tc_register(tc), 0);
	fd = fake_dev_create(test, "kobj%d");
	KUNIT_EXPECT_EQ(test, xrdma_res_count(&fd->ibdev, XRDMA_RES_PD), 1U);
	KUNIT_EXPECT_EQ(test, refcount_read(&fd->ibdev.users), 2U);

	xrdma_unregister_device(&fd->ibdev);
	KUNIT_EXPECT_EQ(test, tc->removes, 1);
	KUNIT_EXPECT_EQ(test, xrdma_res_count(&fd->ibdev, XRDMA_RES_PD), 0U);
	KUNIT_EXPECT_EQ(test, atomic_read(&fd->destroys), 1);
	KUNIT_EXPECT_EQ(test, fd->ibdev.state, XRDMA_DEV_UNREGISTERED);
	xrdma_dealloc_device(&fd->ibdev);
	tc_unregister(tc);
}

struct holder {
	struct xrdma_device *dev;
	struct completion got;
	unsigned int hold_ms;
	atomic_t released;
};

static int holder_fn(void *data)
{
	struct holder *h = data;
	bool ok = xrdma_device_try_get(h->dev);

	complete(&h->got);
	if (!ok)
		return -ENODEV;
	msleep(h->hold_ms);
	atomic_set(&h->released, 1);
	xrdma_device_put(h->dev);
	return 0;
}

/*
 * Unregister refuses new users at once and returns only after the last
 * user let go.
 */
static void device_unregister_waits_for_users(struct kunit *test)
{
	struct holder h = { .hold_ms = 200 };
	struct task_struct *t;
	struct fake_dev *fd;

	fd = fake_dev_create(test, "kwait%d");
	h.dev = &fd->ibdev;
	init_completion(&h.got);
	atomic_set(&h.released, 0);
	t = kthread_run(holder_fn, &h, "xrdma-kunit-holder");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	wait_for_completion(&h.got);

	xrdma_unregister_device(&fd->ibdev);
	KUNIT_EXPECT_EQ(test, atomic_read(&h.released), 1);

	/* no new users, no new objects once unregistered */
	KUNIT_EXPECT_FALSE(test, xrdma_device_try_get(&fd->ibdev));
	KUNIT_EXPECT_EQ(test, PTR_ERR(xrdma_alloc_pd(&fd->ibdev, 0)),
			-ENODEV);
	KUNIT_EXPECT_NULL(test, xrdma_device_get_by_name(fd->ibdev.name));
	xrdma_dealloc_device(&fd->ibdev);
}

static void device_get_by_name(struct kunit *test)
{
	struct fake_dev *fd = fake_dev_create(test, "kname%d");
	struct xrdma_device *dev;

	dev = xrdma_device_get_by_name("kname0");
	KUNIT_EXPECT_PTR_EQ(test, dev, &fd->ibdev);
	if (dev)
		xrdma_device_put(dev);
	KUNIT_EXPECT_NULL(test, xrdma_device_get_by_name("kname1"));
	fake_dev_destroy(fd);
	KUNIT_EXPECT_NULL(test, xrdma_device_get_by_name("kname0"));
}

static void device_query(struct kunit *test)
{
	struct fake_dev *fd = fake_dev_create(test, "kq%d");
	struct xrdma_device_attr da;
	struct xrdma_port_attr pa;
	union xrdma_gid gid;

	KUNIT_EXPECT_EQ(test, xrdma_query_device(&fd->ibdev, &da), 0);
	KUNIT_EXPECT_EQ(test, da.max_qp_wr, 256U);
	KUNIT_EXPECT_EQ(test, xrdma_query_port(&fd->ibdev, 1, &pa), 0);
	KUNIT_EXPECT_EQ(test, pa.state, XRDMA_PORT_ACTIVE);
	KUNIT_EXPECT_EQ(test, xrdma_query_port(&fd->ibdev, 0, &pa), -EINVAL);
	KUNIT_EXPECT_EQ(test, xrdma_query_port(&fd->ibdev, 2, &pa), -EINVAL);
	KUNIT_EXPECT_EQ(test, xrdma_query_gid(&fd->ibdev, 1, 3, &gid), 0);
	KUNIT_EXPECT_EQ(test, gid.raw[15], 3);
	KUNIT_EXPECT_EQ(test, xrdma_query_gid(&fd->ibdev, 1, -1, &gid),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, xrdma_query_gid(&fd->ibdev, 1,
					      XRDMA_GID_TABLE_LEN, &gid),
			-EINVAL);
	fake_dev_destroy(fd);
}

struct ev_rec {
	int port_events;
	int qp_events;
	enum xrdma_event_type last;
	void *last_ctx;
	bool gone_seen;		/* xrdma_device_gone() in the last handler */
};

static struct ev_rec *ev_target;

static void ev_dev_record(struct xrdma_event_handler *h, struct xrdma_event *e)
{
	ev_target->port_events++;
	ev_target->last = e->event;
	ev_target->gone_seen = xrdma_device_gone(e->device);
}

static void ev_qp_record(struct xrdma_event *e, void *ctx)
{
	ev_target->qp_events++;
	ev_target->last = e->event;
	ev_target->last_ctx = ctx;
}

static void device_events(struct kunit *test)
{
	struct fake_dev *fd = fake_dev_create(test, "kev%d");
	struct xrdma_event_handler h = { .device = &fd->ibdev,
					 .handler = ev_dev_record };
	struct ev_rec rec = {};
	struct xrdma_event e = { .device = &fd->ibdev };
	struct fake_qp_set s;

	ev_target = &rec;
	xrdma_register_event_handler(&h);
	e.event = XRDMA_EVENT_PORT_ACTIVE;
	e.element.port_num = 1;
	xrdma_dispatch_event(&e);
	KUNIT_EXPECT_EQ(test, rec.port_events, 1);
	KUNIT_EXPECT_EQ(test, rec.last, XRDMA_EVENT_PORT_ACTIVE);

	/* QP events go to the QP's handler, not to the device handlers */
	fake_qp_set_create(test, &fd->ibdev, &s);
	s.qp->event_handler = ev_qp_record;
	s.qp->qp_context = &s;
	e.event = XRDMA_EVENT_QP_FATAL;
	e.element.qp = s.qp;
	xrdma_dispatch_event(&e);
	KUNIT_EXPECT_EQ(test, rec.qp_events, 1);
	KUNIT_EXPECT_EQ(test, rec.port_events, 1);
	KUNIT_EXPECT_PTR_EQ(test, rec.last_ctx, (void *)&s);
	/* neither a port event nor a QP's error is the device's failure */
	KUNIT_EXPECT_FALSE(test, rec.gone_seen);
	KUNIT_EXPECT_FALSE(test, xrdma_device_gone(&fd->ibdev));

	/* DEVICE_FATAL: gone for good, already when the handlers hear it */
	e.event = XRDMA_EVENT_DEVICE_FATAL;
	xrdma_dispatch_event(&e);
	KUNIT_EXPECT_EQ(test, rec.port_events, 2);
	KUNIT_EXPECT_TRUE(test, rec.gone_seen);
	e.event = XRDMA_EVENT_PORT_ACTIVE;
	e.element.port_num = 1;
	xrdma_dispatch_event(&e);
	KUNIT_EXPECT_TRUE(test, xrdma_device_gone(&fd->ibdev));

	xrdma_unregister_event_handler(&h);
	e.event = XRDMA_EVENT_PORT_ERR;
	xrdma_dispatch_event(&e);
	KUNIT_EXPECT_EQ(test, rec.port_events, 3);

	fake_qp_set_destroy(test, &s);
	fake_dev_destroy(fd);
}

static struct kunit_case device_cases[] = {
	KUNIT_CASE(device_register_names),
	KUNIT_CASE(device_register_invalid),
	KUNIT_CASE(device_link_layers),
	KUNIT_CASE(device_clients),
	KUNIT_CASE(device_unregister_with_client_objects),
	KUNIT_CASE(device_unregister_waits_for_users),
	KUNIT_CASE(device_get_by_name),
	KUNIT_CASE(device_query),
	KUNIT_CASE(device_events),
	{}
};

static struct kunit_suite device_suite = {
	.name = "xrdma_core_device",
	.exit = device_exit,
	.test_cases = device_cases,
};

kunit_test_suite(device_suite);
