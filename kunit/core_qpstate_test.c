// SPDX-License-Identifier: GPL-2.0
/*
 * xrdma_core_qpstate: the QP state table, checked exhaustively against an
 * independent transcription of the InfiniBand QP state transition rules,
 * and xrdma_modify_qp()'s use of it.
 */
#include "fake_driver.h"
#include "core_priv.h"

#define S(x)	XRDMA_QPS_##x
#define A(x)	XRDMA_QP_##x

/*
 * The legal transitions, one row each: from, to, QP type, required and
 * optional attributes (besides STATE).  Anything not listed is illegal.
 */
struct spec_row {
	enum xrdma_qp_state from, to;
	enum xrdma_qp_type type;
	int req, opt;
};

#define RC XRDMA_QPT_RC
#define UC XRDMA_QPT_UC
#define UD XRDMA_QPT_UD
#define GSI XRDMA_QPT_GSI

static const struct spec_row spec[] = {
	/* Reset -> Init */
	{ S(RESET), S(INIT), RC, A(PKEY_INDEX) | A(PORT) | A(ACCESS_FLAGS), 0 },
	{ S(RESET), S(INIT), UC, A(PKEY_INDEX) | A(PORT) | A(ACCESS_FLAGS), 0 },
	{ S(RESET), S(INIT), UD, A(PKEY_INDEX) | A(PORT) | A(QKEY), 0 },
	/* Init -> Init */
	{ S(INIT), S(INIT), RC, 0, A(PKEY_INDEX) | A(PORT) | A(ACCESS_FLAGS) },
	{ S(INIT), S(INIT), UC, 0, A(PKEY_INDEX) | A(PORT) | A(ACCESS_FLAGS) },
	{ S(INIT), S(INIT), UD, 0, A(PKEY_INDEX) | A(PORT) | A(QKEY) },
	/* Init -> RTR */
	{ S(INIT), S(RTR), RC,
	  A(AV) | A(PATH_MTU) | A(DEST_QPN) | A(RQ_PSN) |
	  A(MAX_DEST_RD_ATOMIC) | A(MIN_RNR_TIMER),
	  A(ALT_PATH) | A(ACCESS_FLAGS) | A(PKEY_INDEX) },
	{ S(INIT), S(RTR), UC,
	  A(AV) | A(PATH_MTU) | A(DEST_QPN) | A(RQ_PSN),
	  A(ALT_PATH) | A(ACCESS_FLAGS) | A(PKEY_INDEX) },
	{ S(INIT), S(RTR), UD, 0, A(PKEY_INDEX) | A(QKEY) },
	/* RTR -> RTS */
	{ S(RTR), S(RTS), RC,
	  A(TIMEOUT) | A(RETRY_CNT) | A(RNR_RETRY) | A(SQ_PSN) |
	  A(MAX_QP_RD_ATOMIC),
	  A(CUR_STATE) | A(ALT_PATH) | A(ACCESS_FLAGS) | A(MIN_RNR_TIMER) |
	  A(PATH_MIG_STATE) },
	{ S(RTR), S(RTS), UC, A(SQ_PSN),
	  A(CUR_STATE) | A(ALT_PATH) | A(ACCESS_FLAGS) | A(PATH_MIG_STATE) },
	{ S(RTR), S(RTS), UD, A(SQ_PSN), A(CUR_STATE) | A(QKEY) },
	/* RTS -> RTS */
	{ S(RTS), S(RTS), RC, 0,
	  A(CUR_STATE) | A(ACCESS_FLAGS) | A(ALT_PATH) | A(PATH_MIG_STATE) |
	  A(MIN_RNR_TIMER) },
	{ S(RTS), S(RTS), UC, 0,
	  A(CUR_STATE) | A(ACCESS_FLAGS) | A(ALT_PATH) | A(PATH_MIG_STATE) },
	{ S(RTS), S(RTS), UD, 0, A(CUR_STATE) | A(QKEY) },
	/* RTS -> SQD */
	{ S(RTS), S(SQD), RC, 0, A(EN_SQD_ASYNC_NOTIFY) },
	{ S(RTS), S(SQD), UC, 0, A(EN_SQD_ASYNC_NOTIFY) },
	{ S(RTS), S(SQD), UD, 0, A(EN_SQD_ASYNC_NOTIFY) },
	/* SQD -> RTS */
	{ S(SQD), S(RTS), RC, 0,
	  A(CUR_STATE) | A(ALT_PATH) | A(ACCESS_FLAGS) | A(MIN_RNR_TIMER) |
	  A(PATH_MIG_STATE) },
	{ S(SQD), S(RTS), UC, 0,
	  A(CUR_STATE) | A(ALT_PATH) | A(ACCESS_FLAGS) | A(PATH_MIG_STATE) },
	{ S(SQD), S(RTS), UD, 0, A(CUR_STATE) | A(QKEY) },
	/* SQD -> SQD */
	{ S(SQD), S(SQD), RC, 0,
	  A(PORT) | A(AV) | A(TIMEOUT) | A(RETRY_CNT) | A(RNR_RETRY) |
	  A(MAX_QP_RD_ATOMIC) | A(MAX_DEST_RD_ATOMIC) | A(ALT_PATH) |
	  A(ACCESS_FLAGS) | A(PKEY_INDEX) | A(MIN_RNR_TIMER) |
	  A(PATH_MIG_STATE) },
	{ S(SQD), S(SQD), UC, 0,
	  A(AV) | A(ALT_PATH) | A(ACCESS_FLAGS) | A(PKEY_INDEX) |
	  A(PATH_MIG_STATE) },
	{ S(SQD), S(SQD), UD, 0, A(PKEY_INDEX) | A(QKEY) },
	/* SQE -> RTS: unreliable types only */
	{ S(SQE), S(RTS), UC, 0, A(CUR_STATE) | A(ACCESS_FLAGS) },
	{ S(SQE), S(RTS), UD, 0, A(CUR_STATE) | A(QKEY) },
	/*
	 * GSI (QP1), IBA 10.3.1: like UD, but its port is fixed when it is
	 * created, so no transition takes one.
	 */
	{ S(RESET), S(INIT), GSI, A(PKEY_INDEX) | A(QKEY), 0 },
	{ S(INIT), S(INIT), GSI, 0, A(PKEY_INDEX) | A(QKEY) },
	{ S(INIT), S(RTR), GSI, 0, A(PKEY_INDEX) | A(QKEY) },
	{ S(RTR), S(RTS), GSI, A(SQ_PSN), A(CUR_STATE) | A(QKEY) },
	{ S(RTS), S(RTS), GSI, 0, A(CUR_STATE) | A(QKEY) },
	{ S(RTS), S(SQD), GSI, 0, A(EN_SQD_ASYNC_NOTIFY) },
	{ S(SQD), S(RTS), GSI, 0, A(CUR_STATE) | A(QKEY) },
	{ S(SQD), S(SQD), GSI, 0, A(PKEY_INDEX) | A(QKEY) },
	{ S(SQE), S(RTS), GSI, 0, A(CUR_STATE) | A(QKEY) },
};

/* the QP types the table covers: one parameter of the exhaustive case each */
struct qp_type_row {
	enum xrdma_qp_type type;
	const char *name;
};

static const struct qp_type_row types[] = {
	{ RC, "RC" }, { UC, "UC" }, { UD, "UD" }, { GSI, "GSI" },
};

static void qp_type_desc(const struct qp_type_row *r, char *desc)
{
	strscpy(desc, r->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(qp_type, types, qp_type_desc);

/* Any state -> Reset and any state -> Error, with no attributes. */
static const struct spec_row *spec_find(enum xrdma_qp_state from,
					enum xrdma_qp_state to,
					enum xrdma_qp_type type,
					struct spec_row *scratch)
{
	int i;

	if (to == S(RESET) || to == S(ERR)) {
		*scratch = (struct spec_row){ from, to, type, 0, 0 };
		return scratch;
	}
	for (i = 0; i < ARRAY_SIZE(spec); i++)
		if (spec[i].from == from && spec[i].to == to &&
		    spec[i].type == type)
			return &spec[i];
	return NULL;
}

/* Check one (type, from, to) cell; returns the number of masks tried. */
static int check_cell(struct kunit *test, enum xrdma_qp_type type,
		      enum xrdma_qp_state from, enum xrdma_qp_state to)
{
	const struct spec_row *row;
	struct spec_row scratch;
	int bit, m, base, n = 1;
	bool ok;

	row = spec_find(from, to, type, &scratch);
	base = (row ? row->req : 0) | A(STATE);

	/* the minimal mask decides legality */
	ok = xrdma_modify_qp_is_ok(from, to, type, base);
	KUNIT_EXPECT_EQ_MSG(test, ok, !!row, "type %d %d->%d", type, from, to);
	if (!row)
		return n;

	for (bit = 1; bit < 21; bit++) {
		m = 1 << bit;
		/* each attribute on top: allowed iff required or optional */
		ok = xrdma_modify_qp_is_ok(from, to, type, base | m);
		KUNIT_EXPECT_EQ_MSG(test, ok, !!((row->req | row->opt) & m),
				    "type %d %d->%d attr bit %d", type, from,
				    to, bit);
		n++;
		if (!(row->req & m))
			continue;
		/* each required attribute left out: refused */
		ok = xrdma_modify_qp_is_ok(from, to, type, base & ~m);
		KUNIT_EXPECT_FALSE_MSG(test, ok, "type %d %d->%d without %d",
				       type, from, to, bit);
		n++;
	}
	/* all optional attributes at once */
	ok = xrdma_modify_qp_is_ok(from, to, type, base | row->opt);
	KUNIT_EXPECT_TRUE(test, ok);
	/* a change of state must name the new state */
	ok = xrdma_modify_qp_is_ok(from, to, type, base & ~A(STATE));
	KUNIT_EXPECT_EQ(test, ok, from == to);
	return n + 2;
}

/* every (from, to) cell of one QP type's table, with every mask */
static void qpstate_table_exhaustive(struct kunit *test)
{
	const struct qp_type_row *r = test->param_value;
	enum xrdma_qp_state from, to;
	int checked = 0;

	for (from = 0; from < XRDMA_QPS_NUM; from++) {
		for (to = 0; to < XRDMA_QPS_NUM; to++)
			checked += check_cell(test, r->type, from, to);
	}
	kunit_info(test, "%s: %d combinations checked\n", r->name, checked);
}

static void qpstate_bad_arguments(struct kunit *test)
{
	KUNIT_EXPECT_FALSE(test, xrdma_modify_qp_is_ok(S(RESET), S(RESET), 7,
						       A(STATE)));
	KUNIT_EXPECT_FALSE(test, xrdma_modify_qp_is_ok(S(NUM), S(RESET), RC,
						       A(STATE)));
	KUNIT_EXPECT_FALSE(test, xrdma_modify_qp_is_ok(S(RESET), S(NUM), RC,
						       A(STATE)));
	KUNIT_EXPECT_FALSE(test, xrdma_modify_qp_is_ok(S(RESET), -1, RC,
						       A(STATE)));
	/* unknown mask bits */
	KUNIT_EXPECT_FALSE(test, xrdma_modify_qp_is_ok(S(RESET), S(RESET), RC,
						       A(STATE) | 1 << 21));
	KUNIT_EXPECT_FALSE(test, xrdma_modify_qp_is_ok(S(RESET), S(RESET), RC,
						       A(STATE) | 1 << 30));
}

/* Bring an RC QP to RTS through xrdma_modify_qp(). */
static void rc_to_rts(struct kunit *test, struct xrdma_qp *qp)
{
	struct xrdma_qp_attr a = {};

	a.qp_state = S(INIT);
	a.port_num = 1;
	a.qp_access_flags = XRDMA_ACCESS_REMOTE_WRITE;
	KUNIT_ASSERT_EQ(test, xrdma_modify_qp(qp, &a, A(STATE) | A(PORT) |
					      A(PKEY_INDEX) |
					      A(ACCESS_FLAGS)), 0);
	a.qp_state = S(RTR);
	a.path_mtu = XRDMA_MTU_1024;
	a.dest_qp_num = 5;
	a.rq_psn = 100;
	a.max_dest_rd_atomic = 4;
	a.min_rnr_timer = 12;
	a.ah_attr.port_num = 1;
	a.ah_attr.is_global = 1;
	KUNIT_ASSERT_EQ(test, xrdma_modify_qp(qp, &a, A(STATE) | A(AV) |
					      A(PATH_MTU) | A(DEST_QPN) |
					      A(RQ_PSN) |
					      A(MAX_DEST_RD_ATOMIC) |
					      A(MIN_RNR_TIMER)), 0);
	a.qp_state = S(RTS);
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.sq_psn = 200;
	a.max_rd_atomic = 4;
	KUNIT_ASSERT_EQ(test, xrdma_modify_qp(qp, &a, A(STATE) | A(TIMEOUT) |
					      A(RETRY_CNT) | A(RNR_RETRY) |
					      A(SQ_PSN) |
					      A(MAX_QP_RD_ATOMIC)), 0);
	KUNIT_ASSERT_EQ(test, qp->state, S(RTS));
}

static void qpstate_modify_qp(struct kunit *test)
{
	struct fake_dev *fd = fake_dev_create(test, "kqps%d");
	struct xrdma_qp_attr a = {};
	struct fake_qp_set s;
	struct fake_qp *fqp;
	int calls;

	fake_qp_set_create(test, &fd->ibdev, &s);
	fqp = container_of(s.qp, struct fake_qp, ibqp);

	/* illegal transition: -EINVAL, no state change, driver not called */
	a.qp_state = S(RTS);
	KUNIT_EXPECT_EQ(test, xrdma_modify_qp(s.qp, &a, A(STATE)), -EINVAL);
	KUNIT_EXPECT_EQ(test, s.qp->state, S(RESET));
	KUNIT_EXPECT_EQ(test, fqp->modify_calls, 0);

	/* missing required attribute */
	a.qp_state = S(INIT);
	a.port_num = 1;
	KUNIT_EXPECT_EQ(test, xrdma_modify_qp(s.qp, &a, A(STATE) | A(PORT)),
			-EINVAL);
	/* legal mask, bad values */
	a.port_num = 0;
	KUNIT_EXPECT_EQ(test, xrdma_modify_qp(s.qp, &a, A(STATE) | A(PORT) |
					      A(PKEY_INDEX) |
					      A(ACCESS_FLAGS)), -EINVAL);
	a.port_num = 1;
	a.pkey_index = 1;
	KUNIT_EXPECT_EQ(test, xrdma_modify_qp(s.qp, &a, A(STATE) | A(PORT) |
					      A(PKEY_INDEX) |
					      A(ACCESS_FLAGS)), -EINVAL);
	a.pkey_index = 0;
	a.qp_access_flags = XRDMA_ACCESS_MW_BIND << 1;
	KUNIT_EXPECT_EQ(test, xrdma_modify_qp(s.qp, &a, A(STATE) | A(PORT) |
					      A(PKEY_INDEX) |
					      A(ACCESS_FLAGS)), -EINVAL);
	/* CUR_STATE must match the real state */
	a.qp_access_flags = 0;
	a.cur_qp_state = S(RTS);
	KUNIT_EXPECT_EQ(test, xrdma_modify_qp(s.qp, &a, A(STATE) | A(PORT) |
					      A(PKEY_INDEX) | A(ACCESS_FLAGS) |
					      A(CUR_STATE)), -EINVAL);
	KUNIT_EXPECT_EQ(test, s.qp->state, S(RESET));
	KUNIT_EXPECT_EQ(test, fqp->modify_calls, 0);

	rc_to_rts(test, s.qp);
	calls = fqp->modify_calls;
	KUNIT_EXPECT_EQ(test, calls, 3);

	/* values out of range on RTS->RTS */
	a.min_rnr_timer = 32;
	KUNIT_EXPECT_EQ(test, xrdma_modify_qp(s.qp, &a, A(MIN_RNR_TIMER)),
			-EINVAL);
	a.min_rnr_timer = 31;
	KUNIT_EXPECT_EQ(test, xrdma_modify_qp(s.qp, &a, A(MIN_RNR_TIMER)), 0);

	/* the device moves the QP to ERR; the next modify starts there */
	xrdma_qp_set_error(s.qp);
	a.qp_state = S(RTS);
	KUNIT_EXPECT_EQ(test, xrdma_modify_qp(s.qp, &a, A(STATE)), -EINVAL);
	a.qp_state = S(RESET);
	KUNIT_EXPECT_EQ(test, xrdma_modify_qp(s.qp, &a, A(STATE)), 0);
	KUNIT_EXPECT_EQ(test, s.qp->state, S(RESET));
	KUNIT_EXPECT_EQ(test, xrdma_query_qp(s.qp, &a, 0, NULL), 0);
	KUNIT_EXPECT_EQ(test, a.qp_state, S(RESET));

	fake_qp_set_destroy(test, &s);
	fake_dev_destroy(fd);
}

/* Run @qp (RC, in RTS) through RTS->SQD->SQD->RTS->SQD on @fd. */
static void sqd_transitions(struct kunit *test, struct fake_dev *fd,
			    struct xrdma_qp *qp)
{
	bool sqd = fd->ibdev.attr.device_cap_flags & XRDMA_DEVICE_SQD;
	struct fake_qp *fqp = container_of(qp, struct fake_qp, ibqp);
	int ret = sqd ? 0 : -EINVAL;
	struct xrdma_qp_attr a = {};
	int calls = fqp->modify_calls;

	a.qp_state = S(SQD);
	KUNIT_EXPECT_EQ(test, xrdma_modify_qp(qp, &a, A(STATE)), ret);
	KUNIT_EXPECT_EQ(test, qp->state, sqd ? S(SQD) : S(RTS));
	KUNIT_EXPECT_EQ(test, fqp->modify_calls, calls + sqd);
	if (!sqd) {
		/* nor with the optional attribute */
		a.en_sqd_async_notify = 1;
		KUNIT_EXPECT_EQ(test, xrdma_modify_qp(qp, &a, A(STATE) |
						      A(EN_SQD_ASYNC_NOTIFY)),
				-EINVAL);
		KUNIT_EXPECT_EQ(test, qp->state, S(RTS));
		KUNIT_EXPECT_EQ(test, fqp->modify_calls, calls);
		/* the other transitions out of RTS still work */
		a.qp_state = S(RTS);
		a.min_rnr_timer = 3;
		KUNIT_EXPECT_EQ(test, xrdma_modify_qp(qp, &a, A(STATE) |
						      A(MIN_RNR_TIMER)), 0);
		a.qp_state = S(ERR);
		KUNIT_EXPECT_EQ(test, xrdma_modify_qp(qp, &a, A(STATE)), 0);
		KUNIT_EXPECT_EQ(test, qp->state, S(ERR));
		return;
	}
	/* SQD->SQD, modifying an attribute */
	a.pkey_index = 0;
	KUNIT_EXPECT_EQ(test, xrdma_modify_qp(qp, &a, A(PKEY_INDEX)), 0);
	KUNIT_EXPECT_EQ(test, xrdma_modify_qp(qp, &a, A(STATE)), 0);
	KUNIT_EXPECT_EQ(test, qp->state, S(SQD));
	a.qp_state = S(RTS);
	KUNIT_EXPECT_EQ(test, xrdma_modify_qp(qp, &a, A(STATE)), 0);
	KUNIT_EXPECT_EQ(test, qp->state, S(RTS));
	a.qp_state = S(SQD);
	a.en_sqd_async_notify = 1;
	KUNIT_EXPECT_EQ(test, xrdma_modify_qp(qp, &a, A(STATE) |
					      A(EN_SQD_ASYNC_NOTIFY)), 0);
	KUNIT_EXPECT_EQ(test, qp->state, S(SQD));
	KUNIT_EXPECT_EQ(test, fqp->modify_calls, calls + 5);
}

/* SQD is entered only on a device with XRDMA_DEVICE_SQD. */
static void qpstate_sqd_capability(struct kunit *test)
{
	struct fake_dev *fd;
	struct fake_qp_set s;
	int ret;

	/* the fake device's default attributes lack the capability */
	fd = fake_dev_create(test, "kqpd%d");
	KUNIT_EXPECT_FALSE(test, fd->ibdev.attr.device_cap_flags &
			   XRDMA_DEVICE_SQD);
	fake_qp_set_create(test, &fd->ibdev, &s);
	rc_to_rts(test, s.qp);
	sqd_transitions(test, fd, s.qp);
	fake_qp_set_destroy(test, &s);
	fake_dev_destroy(fd);

	fd = fake_dev_alloc(test);
	fd->ibdev.attr.device_cap_flags |= XRDMA_DEVICE_SQD;
	ret = xrdma_register_device(&fd->ibdev, "kqpd%d", NULL);
	if (ret)
		xrdma_dealloc_device(&fd->ibdev);
	KUNIT_ASSERT_EQ(test, ret, 0);
	fake_qp_set_create(test, &fd->ibdev, &s);
	rc_to_rts(test, s.qp);
	sqd_transitions(test, fd, s.qp);
	fake_qp_set_destroy(test, &s);
	fake_dev_destroy(fd);
}

static void qpstate_attr_values(struct kunit *test)
{
	struct fake_dev *fd = fake_dev_create(test, "kqpv%d");
	struct xrdma_device *dev = &fd->ibdev;
	struct xrdma_qp_attr a = { .port_num = 1 };

	KUNIT_EXPECT_EQ(test, xrdma_check_qp_attr(dev, RC, &a, A(PORT)), 0);
#define BAD(field, val, mask) do {					\
		struct xrdma_qp_attr b = { .field = val };		\
		KUNIT_EXPECT_EQ_MSG(test, xrdma_check_qp_attr(dev, RC, &b, \
				    mask), -EINVAL, #field "=" #val);	\
	} while (0)
	BAD(qp_state, S(NUM), A(STATE));
	BAD(port_num, 2, A(PORT));
	BAD(path_mtu, 0, A(PATH_MTU));
	BAD(path_mtu, 6, A(PATH_MTU));
	BAD(timeout, 32, A(TIMEOUT));
	BAD(retry_cnt, 8, A(RETRY_CNT));
	BAD(rnr_retry, 8, A(RNR_RETRY));
	BAD(rq_psn, 1 << 24, A(RQ_PSN));
	BAD(sq_psn, 1 << 24, A(SQ_PSN));
	BAD(dest_qp_num, 1 << 24, A(DEST_QPN));
	BAD(max_rd_atomic, 17, A(MAX_QP_RD_ATOMIC));
	BAD(max_dest_rd_atomic, 17, A(MAX_DEST_RD_ATOMIC));
	BAD(ah_attr.port_num, 0, A(AV));
#undef BAD
	/* an AV on the (RoCE) port 1 needs a GRH */
	a.ah_attr.port_num = 1;
	KUNIT_EXPECT_EQ(test, xrdma_check_qp_attr(dev, RC, &a, A(AV)), -EINVAL);
	KUNIT_EXPECT_EQ(test, xrdma_check_qp_attr(dev, UC, &a, A(AV)), -EINVAL);
	a.ah_attr.is_global = 1;
	KUNIT_EXPECT_EQ(test, xrdma_check_qp_attr(dev, RC, &a, A(AV)), 0);
	fake_dev_destroy(fd);
}

/* INIT->RTR of RC and UC with the AV's GRH flag 0, then 1; @port the AV's */
static void rtr_grh_case(struct kunit *test, struct fake_qp_set *s,
			 enum xrdma_qp_type type, u8 port, int want)
{
	int rtr = A(STATE) | A(AV) | A(PATH_MTU) | A(DEST_QPN) | A(RQ_PSN) |
		  (type == RC ? A(MAX_DEST_RD_ATOMIC) | A(MIN_RNR_TIMER) : 0);
	struct xrdma_qp_attr a = {};
	struct xrdma_qp *qp;
	struct fake_qp *fqp;
	int calls;

	qp = fake_create_qp(test, s->pd, s->scq, s->rcq, type);
	fqp = container_of(qp, struct fake_qp, ibqp);
	a.qp_state = S(INIT);
	a.port_num = port;
	KUNIT_ASSERT_EQ(test, xrdma_modify_qp(qp, &a, A(STATE) | A(PORT) |
					      A(PKEY_INDEX) |
					      A(ACCESS_FLAGS)), 0);
	calls = fqp->modify_calls;
	a.qp_state = S(RTR);
	a.path_mtu = XRDMA_MTU_1024;
	a.dest_qp_num = 5;
	a.min_rnr_timer = 12;
	a.ah_attr.port_num = port;
	a.ah_attr.dgid.raw[15] = 1;
	a.ah_attr.is_global = 0;
	KUNIT_EXPECT_EQ_MSG(test, xrdma_modify_qp(qp, &a, rtr), want,
			    "type %d port %u, no GRH", type, port);
	if (want) {
		/* refused before the driver: the QP stays in INIT */
		KUNIT_EXPECT_EQ(test, qp->state, S(INIT));
		KUNIT_EXPECT_EQ(test, fqp->modify_calls, calls);
		a.ah_attr.is_global = 1;
		KUNIT_EXPECT_EQ(test, xrdma_modify_qp(qp, &a, rtr), 0);
	}
	KUNIT_EXPECT_EQ(test, qp->state, S(RTR));
	KUNIT_EXPECT_EQ(test, fqp->modify_calls, calls + 1);
	KUNIT_EXPECT_EQ(test, xrdma_destroy_qp(qp), 0);
}

/*
 * RTR of RC and UC: an address vector without a GRH is refused (-EINVAL,
 * no change) on a RoCE port and taken on an InfiniBand one; the AV's port
 * decides.  Port 1 of the device is Ethernet, port 2 InfiniBand.
 */
static void qpstate_rtr_needs_grh(struct kunit *test)
{
	struct fake_dev *fd = fake_dev_alloc(test);
	struct fake_qp_set s;
	int ret;

	fd->ibdev.num_ports = 2;
	fd->ib_ports = BIT(2);
	ret = xrdma_register_device(&fd->ibdev, "kqpgrh%d", NULL);
	if (ret)
		xrdma_dealloc_device(&fd->ibdev);
	KUNIT_ASSERT_EQ(test, ret, 0);
	fake_qp_set_create(test, &fd->ibdev, &s);

	rtr_grh_case(test, &s, RC, 1, -EINVAL);
	rtr_grh_case(test, &s, UC, 1, -EINVAL);
	rtr_grh_case(test, &s, RC, 2, 0);
	rtr_grh_case(test, &s, UC, 2, 0);

	fake_qp_set_destroy(test, &s);
	fake_dev_destroy(fd);
}

/* A GSI QP through xrdma_modify_qp(): the transitions ib_mad makes. */
static void qpstate_gsi_modify(struct kunit *test)
{
	struct fake_dev *fd = fake_dev_create(test, "kqpg%d");
	struct xrdma_qp_init_attr qa = {};
	struct xrdma_qp_attr a = {};
	struct xrdma_cq *cq;
	struct xrdma_pd *pd;
	struct xrdma_qp *qp;

	pd = xrdma_alloc_pd(&fd->ibdev, 0);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pd);
	cq = fake_create_cq(test, &fd->ibdev);
	qa.send_cq = cq;
	qa.recv_cq = cq;
	qa.qp_type = GSI;
	qa.port_num = 1;
	qa.cap.max_send_wr = 4;
	qa.cap.max_recv_wr = 4;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	qp = xrdma_create_qp(pd, &qa);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, qp);

	/* the port is the one it was created on: naming it is refused */
	a.qp_state = S(INIT);
	a.port_num = 1;
	a.qkey = XRDMA_GSI_QKEY;
	KUNIT_EXPECT_EQ(test, xrdma_modify_qp(qp, &a, A(STATE) | A(PORT) |
					      A(PKEY_INDEX) | A(QKEY)),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, xrdma_modify_qp(qp, &a, A(STATE) |
					      A(PKEY_INDEX)), -EINVAL);
	KUNIT_EXPECT_EQ(test, xrdma_modify_qp(qp, &a, A(STATE) |
					      A(PKEY_INDEX) | A(QKEY)), 0);
	a.qp_state = S(RTR);
	KUNIT_EXPECT_EQ(test, xrdma_modify_qp(qp, &a, A(STATE)), 0);
	a.qp_state = S(RTS);
	KUNIT_EXPECT_EQ(test, xrdma_modify_qp(qp, &a, A(STATE)), -EINVAL);
	a.sq_psn = 0;
	KUNIT_EXPECT_EQ(test, xrdma_modify_qp(qp, &a, A(STATE) | A(SQ_PSN)),
			0);
	KUNIT_EXPECT_EQ(test, qp->state, S(RTS));
	KUNIT_EXPECT_EQ(test, qp->port_num, 1);

	KUNIT_EXPECT_EQ(test, xrdma_destroy_qp(qp), 0);
	KUNIT_EXPECT_EQ(test, xrdma_destroy_cq(cq), 0);
	KUNIT_EXPECT_EQ(test, xrdma_dealloc_pd(pd), 0);
	fake_dev_destroy(fd);
}

static struct kunit_case qpstate_cases[] = {
	KUNIT_CASE_PARAM(qpstate_table_exhaustive, qp_type_gen_params),
	KUNIT_CASE(qpstate_bad_arguments),
	KUNIT_CASE(qpstate_modify_qp),
	KUNIT_CASE(qpstate_sqd_capability),
	KUNIT_CASE(qpstate_attr_values),
	KUNIT_CASE(qpstate_rtr_needs_grh),
	KUNIT_CASE(qpstate_gsi_modify),
	{}
};

static struct kunit_suite qpstate_suite = {
	.name = "xrdma_core_qpstate",
	.test_cases = qpstate_cases,
};

kunit_test_suite(qpstate_suite);
