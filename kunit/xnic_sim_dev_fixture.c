// SPDX-License-Identifier: GPL-2.0
/*
 * The whole device model's KUnit fixture: see xnic_sim_dev_fixture.h.
 */
#include <kunit/test.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/random.h>
#include <linux/io.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/completion.h>
#include "xnic_sim_dev_fixture.h"

u64 td_pa(const void *p)
{
	return virt_to_phys((void *)p);
}

static irqreturn_t td_irq(int irq, void *data)
{
	struct td_dev *d = data;
	u32 mask = (1U << TD_EQ_LOG) - 1;

	WRITE_ONCE(d->irq_cpu, raw_smp_processor_id());
	spin_lock(&d->ev_lock);
	for (;;) {
		struct xnic_eqe *e = &d->eq[d->eq_ci & mask];

		if ((READ_ONCE(e->owner) & 1) !=
		    (((d->eq_ci >> TD_EQ_LOG) & 1) ^ 1))
			break;
		dma_rmb();
		if (e->type < ARRAY_SIZE(d->ev)) {
			d->ev[e->type]++;
			d->ev_data[e->type] = le32_to_cpu(e->data);
		}
		d->eq_ci++;
	}
	d->bus->write32(d->bus, XNIC_REG_EQ_CI, d->eq_ci);
	spin_unlock(&d->ev_lock);
	return IRQ_HANDLED;
}

u32 td_ev(struct td_dev *d, u8 type)
{
	u32 n;

	spin_lock_irq(&d->ev_lock);
	n = d->ev[type];
	spin_unlock_irq(&d->ev_lock);
	return n;
}

/* Wait until event @type was seen more than @n times. */
bool td_wait_ev(struct td_dev *d, u8 type, u32 n)
{
	unsigned long end = jiffies + msecs_to_jiffies(TD_TIMEOUT_MS);

	while (td_ev(d, type) <= n) {
		if (time_after(jiffies, end))
			return false;
		usleep_range(50, 200);
	}
	return true;
}

/* A device counter (debugfs "counters"). */
u64 td_ctr(struct td_dev *d, enum xnic_sim_ctr c)
{
	return kt_sim_ctr(d->sim, c);
}

u32 td_rd(struct td_dev *d, u32 reg)
{
	return d->bus->read32(d->bus, reg);
}

void td_wr(struct td_dev *d, u32 reg, u32 val)
{
	d->bus->write32(d->bus, reg, val);
}

/* Run a command; returns its status (@out: outlen bytes of the body). */
u32 td_cmd_out(struct td_dev *d, u8 op, const void *in, size_t len,
	       void *out, size_t outlen)
{
	struct xnic_cmd *c = &d->cmdq[d->cmd_pi & ((1U << TD_CMDQ_LOG) - 1)];
	unsigned long end = jiffies + msecs_to_jiffies(TD_TIMEOUT_MS);

	memset(c, 0, sizeof(*c));
	c->hdr.opcode = op;
	c->hdr.token = cpu_to_le32(++d->token);
	if (in)
		memcpy(c->raw, in, len);
	d->cmd_pi++;
	wmb();	/* the entry before the producer index */
	td_wr(d, XNIC_REG_CMDQ_PI, d->cmd_pi);
	while (!READ_ONCE(c->hdr.done)) {
		KUNIT_ASSERT_TRUE_MSG(d->test, time_before(jiffies, end),
				      "command 0x%x timed out", op);
		usleep_range(20, 100);
	}
	rmb();	/* the outputs after done */
	if (out)
		memcpy(out, c->raw, min(outlen, sizeof(c->raw)));
	return le32_to_cpu(c->hdr.status);
}

u32 td_cmd(struct td_dev *d, u8 op, const void *in, size_t len)
{
	return td_cmd_out(d, op, in, len, NULL, 0);
}

/* Expect a command to end with @status. */
void td_want(struct td_dev *d, u8 op, const void *in, size_t len,
	     u32 status)
{
	KUNIT_EXPECT_EQ_MSG(d->test, td_cmd(d, op, in, len), status,
			    "command 0x%x", op);
}

void td_cmd_ok(struct td_dev *d, u8 op, const void *in, size_t len)
{
	KUNIT_ASSERT_EQ(d->test, td_cmd(d, op, in, len),
			(u32)XNIC_CMD_OK);
}

void td_reset(struct td_dev *d)
{
	td_wr(d, XNIC_REG_RESET, 1);
	KUNIT_ASSERT_EQ(d->test, td_rd(d, XNIC_REG_STATUS),
			(u32)XNIC_STATUS_READY);
}

/* Reset, set the queues up, enable, check the caps, 3 doorbell pages. */
void td_up(struct td_dev *d)
{
	struct kunit *test = d->test;
	struct xnic_cmd_query_caps_out caps;
	struct xnic_cmd_alloc_db db = {};
	struct xnic_eqe *eq;
	u64 dma;
	int i;

	td_reset(d);
	d->cmd_pi = 0;
	d->cmdq = kt_dma(test, sizeof(struct xnic_cmd) << TD_CMDQ_LOG, &dma);
	td_wr(d, XNIC_REG_CMDQ_BASE_LO, lower_32_bits(dma));
	td_wr(d, XNIC_REG_CMDQ_BASE_HI, upper_32_bits(dma));
	td_wr(d, XNIC_REG_CMDQ_LOG_SIZE, TD_CMDQ_LOG);
	eq = kt_dma(test, sizeof(struct xnic_eqe) << TD_EQ_LOG, &dma);
	spin_lock_irq(&d->ev_lock);
	d->eq = eq;
	d->eq_ci = 0;
	spin_unlock_irq(&d->ev_lock);
	td_wr(d, XNIC_REG_EQ_BASE_LO, lower_32_bits(dma));
	td_wr(d, XNIC_REG_EQ_BASE_HI, upper_32_bits(dma));
	td_wr(d, XNIC_REG_EQ_LOG_SIZE, TD_EQ_LOG);
	KUNIT_ASSERT_EQ(test, td_rd(d, XNIC_REG_EQ_LOG_SIZE), (u32)TD_EQ_LOG);
	td_wr(d, XNIC_REG_INTR_MASK, 0);
	if (!d->irq) {
		KUNIT_ASSERT_EQ(test, d->bus->request_irq(d->bus, td_irq, d), 0);
		d->irq = true;
	}
	td_wr(d, XNIC_REG_ENABLE, 1);
	KUNIT_ASSERT_EQ(test, td_rd(d, XNIC_REG_STATUS),
			(u32)(XNIC_STATUS_READY | XNIC_STATUS_ENABLED));
	/* queue registers are fixed while enabled */
	td_wr(d, XNIC_REG_EQ_LOG_SIZE, 3);
	KUNIT_EXPECT_EQ(test, td_rd(d, XNIC_REG_EQ_LOG_SIZE), (u32)TD_EQ_LOG);

	KUNIT_ASSERT_EQ(test, td_cmd_out(d, XNIC_CMD_QUERY_CAPS, NULL, 0,
					 &caps, sizeof(caps)),
			(u32)XNIC_CMD_OK);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(caps.max_qp), 16384U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(caps.max_sge), 8U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(caps.max_inline), 256U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(caps.num_ports), 1U);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(caps.vendor_id), 0x5852U);
	KUNIT_EXPECT_EQ(test, get_unaligned_be64(&caps.node_guid),
			d->sim->guid);
	for (i = 0; i < ARRAY_SIZE(d->db); i++) {
		d->db[i] = kt_dma(test, XNIC_DB_PAGE_SIZE, &dma);
		db.db_index = cpu_to_le32(i);
		db.page_addr = cpu_to_le64(dma);
		td_cmd_ok(d, XNIC_CMD_ALLOC_DB, &db, sizeof(db));
	}
	/* the all-memory MR of PD 1 */
	{
		struct xnic_cmd_reg_mr mr = {
			.key = cpu_to_le32(TD_ALL_KEY),
			.pdn = cpu_to_le32(TD_PD),
			.access = cpu_to_le32(XNIC_ACCESS_LOCAL_WRITE),
			.flags = cpu_to_le32(XNIC_MR_F_ALL),
		};

		td_cmd_ok(d, XNIC_CMD_REG_MR, &mr, sizeof(mr));
	}
}

struct td_cq *td_cq(struct td_dev *d, u32 cqn, u32 log, bool events)
{
	struct td_cq *cq = kunit_kzalloc(d->test, sizeof(*cq), GFP_KERNEL);
	struct xnic_cmd_create_cq in = {};
	u64 ring, rec;

	KUNIT_ASSERT_NOT_NULL(d->test, cq);
	cq->d = d;
	cq->cqn = cqn;
	cq->log = log;
	cq->ring = kt_dma(d->test, sizeof(struct xnic_cqe) << log, &ring);
	cq->rec = kt_dma(d->test, sizeof(*cq->rec), &rec);
	in.cqn = cpu_to_le32(cqn);
	in.log_cqe = cpu_to_le32(log);
	in.ring_addr = cpu_to_le64(ring);
	in.dbrec_addr = cpu_to_le64(rec);
	in.flags = cpu_to_le32(events ? XNIC_CQ_F_EVENTS : 0);
	td_cmd_ok(d, XNIC_CMD_CREATE_CQ, &in, sizeof(in));
	return cq;
}

/* Take a CQE if one is there within @ms. */
/* Take the CQE at ci if the device wrote it, without waiting. */
bool td_peek(struct td_cq *cq, struct xnic_cqe *out)
{
	struct xnic_cqe *e = &cq->ring[cq->ci & ((1U << cq->log) - 1)];

	if ((READ_ONCE(e->owner) & 1) != (((cq->ci >> cq->log) & 1) ^ 1))
		return false;
	rmb();	/* the body after the owner */
	*out = *e;
	cq->ci++;
	WRITE_ONCE(cq->rec->ci, cpu_to_le32(cq->ci));
	return true;
}

bool td_poll(struct td_cq *cq, struct xnic_cqe *out, unsigned int ms)
{
	unsigned long end = jiffies + msecs_to_jiffies(ms);

	for (;;) {
		if (td_peek(cq, out))
			return true;
		if (time_after(jiffies, end))
			return false;
		usleep_range(10, 50);
	}
}

void td_expect(struct td_cq *cq, u64 wr_id, u8 status, u8 opcode,
	       struct xnic_cqe *out)
{
	struct kunit *test = cq->d->test;
	struct xnic_cqe e;

	KUNIT_ASSERT_TRUE_MSG(test, td_poll(cq, &e, TD_TIMEOUT_MS),
			      "no CQE for wr_id 0x%llx", wr_id);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(e.wr_id), wr_id);
	KUNIT_EXPECT_EQ(test, e.status, status);
	if (!status)
		KUNIT_EXPECT_EQ(test, e.opcode, opcode);
	if (out)
		*out = e;
}

void td_arm(struct td_cq *cq, u32 how)
{
	cq->arm_sn++;
	smp_mb();	/* as a driver: the ci before the arm word */
	WRITE_ONCE(cq->rec->arm, cpu_to_le32(cq->arm_sn << 2 | how));
}

struct td_qp *td_qp(struct td_dev *d, u32 qpn, u8 type, u32 pdn,
		    struct td_cq *scq, struct td_cq *rcq, u32 dbi,
		    u32 slot, u32 srqn)
{
	return td_qp_status(d, qpn, type, pdn, scq, rcq, dbi, slot, srqn,
			    XNIC_CMD_OK);
}

/* CREATE_QP with valid queues; asserts the command returns @status. */
struct td_qp *td_qp_status(struct td_dev *d, u32 qpn, u8 type,
			   u32 pdn, struct td_cq *scq,
			   struct td_cq *rcq, u32 dbi, u32 slot,
			   u32 srqn, u32 status)
{
	struct td_qp *q = kunit_kzalloc(d->test, sizeof(*q), GFP_KERNEL);
	struct xnic_cmd_create_qp in = {};
	u64 sq, rq, rec;

	KUNIT_ASSERT_NOT_NULL(d->test, q);
	q->d = d;
	q->qpn = qpn;
	q->type = type;
	q->dbi = dbi;
	q->slot = slot;
	q->sq = kt_dma(d->test, 1U << (TD_Q_LOG + TD_WQE_SHIFT), &sq);
	q->rq = kt_dma(d->test, 1U << (TD_Q_LOG + TD_WQE_SHIFT), &rq);
	q->rec = kt_dma(d->test, sizeof(*q->rec), &rec);
	in.qpn = cpu_to_le32(qpn);
	in.qp_type = type;
	in.sq_log_wqe = TD_Q_LOG;
	in.sq_wqe_shift = TD_WQE_SHIFT;
	in.rq_log_wqe = TD_Q_LOG;
	in.rq_wqe_shift = TD_WQE_SHIFT;
	in.pdn = cpu_to_le32(pdn);
	in.send_cqn = cpu_to_le32(scq->cqn);
	in.recv_cqn = cpu_to_le32(rcq->cqn);
	in.srqn = cpu_to_le32(srqn);
	in.db_index = cpu_to_le32(dbi);
	in.db_slot = cpu_to_le32(slot);
	in.sq_addr = cpu_to_le64(sq);
	in.rq_addr = cpu_to_le64(rq);
	in.dbrec_addr = cpu_to_le64(rec);
	KUNIT_ASSERT_EQ(d->test, td_cmd(d, XNIC_CMD_CREATE_QP, &in, sizeof(in)),
			status);
	return q;
}

u32 td_modify(struct td_qp *q, struct xnic_cmd_modify_qp *m, u8 state,
	      u32 mask)
{
	m->qpn = cpu_to_le32(q->qpn);
	m->state = state;
	m->mask = cpu_to_le32(mask | XNIC_QP_MOD_STATE);
	return td_cmd(q->d, XNIC_CMD_MODIFY_QP, m, sizeof(*m));
}

u8 td_state(struct td_qp *q)
{
	struct xnic_cmd_obj in = { .index = cpu_to_le32(q->qpn) };
	struct xnic_cmd_query_qp_out out;

	KUNIT_ASSERT_EQ(q->d->test, td_cmd_out(q->d, XNIC_CMD_QUERY_QP, &in,
					       sizeof(in), &out, sizeof(out)),
			(u32)XNIC_CMD_OK);
	return out.state;
}

/* RESET -> INIT -> RTR -> RTS towards @b (RC/UC), or for UD. */
void td_connect(struct td_qp *a, struct td_qp *b, u8 rnr_retry)
{
	struct kunit *test = a->d->test;
	struct xnic_cmd_modify_qp m = {};

	m.access = cpu_to_le32(TD_ACCESS);
	m.port_num = 1;
	m.qkey = cpu_to_le32(0x11111111);
	KUNIT_ASSERT_EQ(test, td_modify(a, &m, XNIC_QPS_INIT,
					XNIC_QP_MOD_ACCESS | XNIC_QP_MOD_PORT |
					XNIC_QP_MOD_QKEY), (u32)XNIC_CMD_OK);
	memset(&m, 0, sizeof(m));
	m.path_mtu = XNIC_MTU_1024;
	m.min_rnr_timer = 1;
	m.max_dest_rd_atomic = 16;
	if (b) {
		memcpy(m.dgid, b->d->sim->gid, 16);
		m.dest_qpn = cpu_to_le32(b->qpn);
	}
	/* PSN 0 both ways: a responder drops requests out of sequence */
	KUNIT_ASSERT_EQ(test, td_modify(a, &m, XNIC_QPS_RTR,
					XNIC_QP_MOD_AV | XNIC_QP_MOD_PATH_MTU |
					XNIC_QP_MOD_DEST_QPN | XNIC_QP_MOD_RQ_PSN |
					XNIC_QP_MOD_MIN_RNR_TIMER |
					XNIC_QP_MOD_MAX_DEST_RD_ATOMIC),
			(u32)XNIC_CMD_OK);
	memset(&m, 0, sizeof(m));
	m.timeout = 1;
	m.retry_cnt = 2;
	m.rnr_retry = rnr_retry;
	m.max_rd_atomic = 16;
	KUNIT_ASSERT_EQ(test, td_modify(a, &m, XNIC_QPS_RTS,
					XNIC_QP_MOD_TIMEOUT | XNIC_QP_MOD_RETRY_CNT |
					XNIC_QP_MOD_RNR_RETRY | XNIC_QP_MOD_SQ_PSN |
					XNIC_QP_MOD_MAX_RD_ATOMIC),
			(u32)XNIC_CMD_OK);
}

/* Set a slot's bits in a doorbell page (no kick). */
void td_ring_bits(struct td_dev *d, u32 dbi, u32 slot)
{
	struct xnic_db_page *p = d->db[dbi];

	set_bit(slot % 64, (unsigned long *)&p->group[slot / 64]);
	set_bit((slot / 64) % 64, (unsigned long *)&p->summary[slot / 4096]);
	smp_mb__after_atomic();	/* the bits before the flags */
}

/* A KICK as the uverbs ioctl writes it for the context of page @dbi. */
void td_kick(struct td_dev *d, u32 dbi)
{
	td_wr(d, XNIC_REG_KICK,
	      XNIC_KICK_WAKE | XNIC_KICK_RUN_HERE | XNIC_KICK_DB(dbi));
}

void td_ring(struct td_dev *d, u32 dbi, u32 slot)
{
	struct xnic_db_page *p = d->db[dbi];

	td_ring_bits(d, dbi, slot);
	/* the test thread holds no lock: the device may run the work here */
	if (le32_to_cpu(READ_ONCE(p->flags)) & XNIC_DB_NEED_WAKEUP)
		td_kick(d, dbi);
}

/* Write a WQE (owner last), without telling the device. */
void td_write_wqe(struct td_qp *q, const struct td_wr *w)
{
	u8 *e = q->sq + ((q->sq_pi & ((1U << TD_Q_LOG) - 1)) << TD_WQE_SHIFT);
	struct xnic_wqe_ctrl *c = (void *)e;
	struct xnic_wqe_remote *r = (void *)(e + XNIC_WQE_REMOTE_OFF);
	struct xnic_wqe_atomic *a = (void *)(e + XNIC_WQE_ATOMIC_OFF);
	struct xnic_wqe_ud *ud = (void *)(e + XNIC_WQE_UD_OFF);

	memset(e, 0, 1U << TD_WQE_SHIFT);
	c->opcode = w->op;
	c->flags = w->flags | (w->inl ? XNIC_WQE_INLINE : 0);
	c->wr_id = cpu_to_le64(w->wr_id);
	c->imm_data = w->imm;
	r->remote_addr = cpu_to_le64(w->raddr);
	r->rkey = cpu_to_le32(w->rkey);
	a->compare_add = cpu_to_le64(w->cmp);
	a->swap = cpu_to_le64(w->swap);
	ud->dest_qpn = cpu_to_le32(w->dqpn);
	ud->qkey = cpu_to_le32(w->qkey);
	if (w->dgid)
		memcpy(ud->dgid, w->dgid, 16);
	ud->sgid_index = w->sgid_index;
	ud->hop_limit = w->hop_limit;
	ud->traffic_class = w->tclass;
	if (w->inl) {
		c->inline_len = cpu_to_le32(w->inl_len);
		memcpy(e + XNIC_WQE_DATA_OFF, w->inl, w->inl_len);
	} else {
		c->num_sge = w->nsge;
		memcpy(e + XNIC_WQE_DATA_OFF, w->sge,
		       w->nsge * sizeof(struct xnic_sge));
	}
	dma_wmb();	/* the entry before its owner */
	WRITE_ONCE(c->owner, (q->sq_pi >> TD_Q_LOG) & 1);
	q->sq_pi++;
}

/* The doorbell record, then the doorbell page. */
void td_doorbell(struct td_qp *q)
{
	dma_wmb();	/* the entries before the producer index */
	WRITE_ONCE(q->rec->sq_pi, cpu_to_le32(q->sq_pi));
	td_ring(q->d, q->dbi, q->slot);
}

void td_post(struct td_qp *q, const struct td_wr *w)
{
	td_write_wqe(q, w);
	td_doorbell(q);
}

void td_post_recv(struct td_qp *q, u64 wr_id,
		  const struct xnic_sge *sge, u32 n)
{
	u8 *e = q->rq + ((q->rq_pi & ((1U << TD_Q_LOG) - 1)) << TD_WQE_SHIFT);
	struct xnic_rwqe *h = (void *)e;

	memset(e, 0, 1U << TD_WQE_SHIFT);
	h->wr_id = cpu_to_le64(wr_id);
	h->num_sge = n;
	memcpy(h + 1, sge, n * sizeof(*sge));
	dma_wmb();	/* the entry before its owner */
	WRITE_ONCE(h->owner, (q->rq_pi >> TD_Q_LOG) & 1);
	q->rq_pi++;
	dma_wmb();	/* the entry before the producer index */
	WRITE_ONCE(q->rec->rq_pi, cpu_to_le32(q->rq_pi));
}

struct xnic_sge td_sge(u64 addr, u32 len, u32 key)
{
	return (struct xnic_sge) {
		.addr = cpu_to_le64(addr), .length = cpu_to_le32(len),
		.lkey = cpu_to_le32(key),
	};
}

static void td_mr_pages_free(struct kunit_resource *res)
{
	struct td_mr *m = res->data;
	u32 i;

	for (i = 0; i < m->npages; i++)
		if (m->pg[i])
			__free_page(m->pg[i]);
}

/* An MR of @npages single pages at @iova (page aligned + @off). */
struct td_mr *td_mr(struct td_dev *d, u32 key, u32 pdn, u32 access,
		    u32 npages, u64 iova, bool managed)
{
	struct kunit *test = d->test;
	struct td_mr *m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	struct xnic_cmd_reg_mr in = {};
	__le64 *mtt;
	u64 mtt_dma;
	u32 i;

	KUNIT_ASSERT_NOT_NULL(test, m);
	KUNIT_ASSERT_LE(test, npages, (u32)ARRAY_SIZE(m->pg));
	mtt = kt_dma(test, npages * sizeof(u64), &mtt_dma);
	m->key = key;
	m->iova = iova;
	m->npages = npages;
	for (i = 0; i < npages; i++) {
		m->pg[npages - 1 - i] = alloc_page(GFP_KERNEL | __GFP_ZERO);
		KUNIT_ASSERT_NOT_NULL(test, m->pg[npages - 1 - i]);
	}
	if (managed)
		kt_defer(test, td_mr_pages_free, m);
	for (i = 0; i < npages; i++)
		mtt[i] = cpu_to_le64(page_to_phys(m->pg[i]));
	in.key = cpu_to_le32(key);
	in.pdn = cpu_to_le32(pdn);
	in.access = cpu_to_le32(access);
	in.iova = cpu_to_le64(iova);
	in.length = cpu_to_le64((u64)npages * PAGE_SIZE -
				(iova & ~PAGE_MASK));
	in.mtt_addr = cpu_to_le64(mtt_dma);
	in.npages = cpu_to_le32(npages);
	in.page_shift = PAGE_SHIFT;
	td_cmd_ok(d, XNIC_CMD_REG_MR, &in, sizeof(in));
	return m;
}

u8 *td_mr_byte(struct td_mr *m, u64 iova)
{
	u64 off = iova - (m->iova & PAGE_MASK);

	return page_address(m->pg[off >> PAGE_SHIFT]) + (off & ~PAGE_MASK);
}

/* module parameters a case may change, restored by td_exit() */
static bool td_saved_kick_serve_on, td_saved_irq_remote_on;

int td_init(struct kunit *test)
{
	struct td_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	int i;

	td_saved_kick_serve_on = READ_ONCE(xnic_sim_kick_serve_on);
	td_saved_irq_remote_on = READ_ONCE(xnic_sim_irq_remote_on);
	if (!c)
		return -ENOMEM;
	for (i = 0; i < 2; i++) {
		c->dev[i].test = test;
		spin_lock_init(&c->dev[i].ev_lock);
		c->dev[i].sim = xnic_sim_dev_alloc(i);
		if (!c->dev[i].sim)
			return -ENOMEM;
		c->dev[i].bus = &c->dev[i].sim->pdata.bus;
	}
	c->dev[0].sim->peer = c->dev[1].sim;
	c->dev[1].sim->peer = c->dev[0].sim;
	test->priv = c;
	for (i = 0; i < 2; i++)
		if (xnic_sim_dev_start(c->dev[i].sim, NULL))
			return -ENOMEM;
	return 0;
}

void td_exit(struct kunit *test)
{
	struct td_ctx *c = test->priv;
	int i;

	WRITE_ONCE(xnic_sim_test_hook, NULL);
	/* also after a failed assertion, which skips the rest of a case */
	WRITE_ONCE(xnic_sim_kick_serve_on, td_saved_kick_serve_on);
	WRITE_ONCE(xnic_sim_irq_remote_on, td_saved_irq_remote_on);
	if (!c)
		return;
	for (i = 0; i < 2; i++)
		if (c->dev[i].sim && c->dev[i].irq)
			c->dev[i].bus->free_irq(c->dev[i].bus);
	for (i = 0; i < 2; i++)
		if (c->dev[i].sim)
			xnic_sim_dev_stop(c->dev[i].sim);
	/*
	 * Both cleared before either is freed: clearing one waits out its
	 * peer's sections (xnic_sim_sect_sync() reads the peer).
	 */
	for (i = 0; i < 2; i++) {
		if (!c->dev[i].sim)
			continue;
		xnic_sim_clear(c->dev[i].sim);
		irq_work_sync(&c->dev[i].sim->irq_work);
	}
	for (i = 0; i < 2; i++) {
		if (!c->dev[i].sim)
			continue;
		c->dev[i].sim->peer = NULL;
		xnic_sim_dev_free(c->dev[i].sim);
	}
}

struct td_ctx *td_ctx_up(struct kunit *test)
{
	struct td_ctx *c = test->priv;

	td_up(&c->dev[0]);
	td_up(&c->dev[1]);
	return c;
}

/* One RC pair a -> b: every opcode, data checked, on @da -> @db. */
void td_rc_ops(struct kunit *test, struct td_dev *da, struct td_dev *db,
	       u32 base)
{
	struct td_cq *acq = td_cq(da, base, 6, true);
	struct td_cq *bcq = td_cq(db, base + 1, 6, true);
	struct td_qp *a = td_qp(da, base + 2, XNIC_QPT_RC, TD_PD, acq, acq,
				0, base, XNIC_NO_SRQ);
	struct td_qp *b = td_qp(db, base + 3, XNIC_QPT_RC, TD_PD, bcq, bcq,
				0, base + 1, XNIC_NO_SRQ);
	u64 iova = 0x7000000000000800ULL;
	struct td_mr *m = td_mr(db, (base + 8) << 8 | 0x5a, TD_PD, TD_ACCESS,
				4, iova, true);
	u32 len = 3 * PAGE_SIZE - 0x800, i, ev;
	u8 *src = kunit_kmalloc(test, len, GFP_KERNEL);
	u8 *dst = kunit_kzalloc(test, len, GFP_KERNEL);
	struct td_wr w = {};
	struct xnic_sge rs[2];
	struct xnic_cqe e;
	u64 *ctr;

	KUNIT_ASSERT_NOT_NULL(test, src);
	KUNIT_ASSERT_NOT_NULL(test, dst);
	kt_fill_pattern(src, len, base);
	td_connect(a, b, 3);
	td_connect(b, a, 3);

	/* SEND: 3 SGEs into 2 of an MTT MR, signaled, event armed */
	td_arm(bcq, XNIC_CQ_ARM_NEXT);
	ev = td_ev(db, XNIC_EQE_COMPLETION);
	rs[0] = td_sge(iova, 1000, m->key);
	rs[1] = td_sge(iova + 1000, len - 1000, m->key);
	td_post_recv(b, 0xb0, rs, 2);
	w.op = XNIC_OP_SEND_WITH_IMM;
	w.flags = XNIC_WQE_SIGNALED | XNIC_WQE_SOLICITED;
	w.wr_id = 0xa0;
	w.imm = cpu_to_le32(0xdeadbeef);
	w.nsge = 3;
	w.sge[0] = td_sge(td_pa(src), 10, TD_ALL_KEY);
	w.sge[1] = td_sge(td_pa(src + 10), 0, TD_ALL_KEY);
	w.sge[2] = td_sge(td_pa(src + 10), len - 10, TD_ALL_KEY);
	td_post(a, &w);
	td_expect(bcq, 0xb0, 0, XNIC_CQE_OP_RECV, &e);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(e.byte_len), len);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(e.qpn), b->qpn);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(e.src_qp), a->qpn);
	KUNIT_EXPECT_EQ(test, e.flags, XNIC_CQE_WITH_IMM);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(e.imm_data), 0xdeadbeefU);
	td_expect(acq, 0xa0, 0, XNIC_CQE_OP_SEND, NULL);
	for (i = 0; i < len; i++)
		if (*td_mr_byte(m, iova + i) != src[i])
			break;
	KUNIT_EXPECT_EQ(test, i, len);
	KUNIT_EXPECT_TRUE(test, td_wait_ev(db, XNIC_EQE_COMPLETION, ev));
	KUNIT_EXPECT_EQ(test, READ_ONCE(db->ev_data[XNIC_EQE_COMPLETION]),
			bcq->cqn);

	/* RDMA READ it back, unsignaled then a signaled NOP-like READ */
	memset(&w, 0, sizeof(w));
	w.op = XNIC_OP_RDMA_READ;
	w.flags = XNIC_WQE_SIGNALED;
	w.wr_id = 0xa1;
	w.raddr = iova + 1;
	w.rkey = m->key;
	w.nsge = 2;
	w.sge[0] = td_sge(td_pa(dst), 4097, TD_ALL_KEY);
	w.sge[1] = td_sge(td_pa(dst + 4097), len - 4098, TD_ALL_KEY);
	td_post(a, &w);
	td_expect(acq, 0xa1, 0, XNIC_CQE_OP_RDMA_READ, &e);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(e.byte_len), len - 1);
	KUNIT_EXPECT_EQ(test, memcmp(dst, src + 1, len - 1), 0);

	/* RDMA WRITE with immediate, from inline data */
	memset(&w, 0, sizeof(w));
	w.op = XNIC_OP_RDMA_WRITE_WITH_IMM;
	w.wr_id = 0xa2;
	w.imm = cpu_to_le32(7);
	w.raddr = iova + PAGE_SIZE - 0x800 - 3;	/* across a page */
	w.rkey = m->key;
	w.inl = "0123456789";
	w.inl_len = 10;
	td_post_recv(b, 0xb1, NULL, 0);
	td_post(a, &w);
	td_expect(bcq, 0xb1, 0, XNIC_CQE_OP_RECV_RDMA_WITH_IMM, &e);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(e.byte_len), 10U);
	KUNIT_EXPECT_EQ(test, e.flags, XNIC_CQE_WITH_IMM);
	for (i = 0; i < 10; i++)
		KUNIT_EXPECT_EQ(test, *td_mr_byte(m, w.raddr + i), '0' + i);

	/* atomics */
	ctr = (u64 *)td_mr_byte(m, iova + 0x800);
	*ctr = 40;
	memset(&w, 0, sizeof(w));
	w.op = XNIC_OP_ATOMIC_FETCH_AND_ADD;
	w.flags = XNIC_WQE_SIGNALED;
	w.wr_id = 0xa3;
	w.raddr = iova + 0x800;
	w.rkey = m->key;
	w.cmp = 2;
	w.nsge = 1;
	w.sge[0] = td_sge(td_pa(dst), 8, TD_ALL_KEY);
	td_post(a, &w);
	td_expect(acq, 0xa3, 0, XNIC_CQE_OP_FETCH_ADD, NULL);
	KUNIT_EXPECT_EQ(test, *(u64 *)dst, 40ULL);
	KUNIT_EXPECT_EQ(test, READ_ONCE(*ctr), 42ULL);
	w.op = XNIC_OP_ATOMIC_CMP_AND_SWP;
	w.wr_id = 0xa4;
	w.cmp = 42;
	w.swap = 1;
	td_post(a, &w);
	td_expect(acq, 0xa4, 0, XNIC_CQE_OP_COMP_SWAP, NULL);
	KUNIT_EXPECT_EQ(test, *(u64 *)dst, 42ULL);
	KUNIT_EXPECT_EQ(test, READ_ONCE(*ctr), 1ULL);

	/* unsignaled WQEs complete silently, a NOP signals */
	memset(&w, 0, sizeof(w));
	w.op = XNIC_OP_RDMA_WRITE;
	w.raddr = iova;
	w.rkey = m->key;
	w.nsge = 1;
	w.sge[0] = td_sge(td_pa(src), 64, TD_ALL_KEY);
	for (i = 0; i < 40; i++) {	/* more than the SQ holds: laps */
		w.wr_id = 0x100 + i;
		w.flags = i % 8 == 7 ? XNIC_WQE_SIGNALED : 0;
		td_post(a, &w);
		if (i % 8 == 7)
			td_expect(acq, 0x100 + i, 0, XNIC_CQE_OP_RDMA_WRITE,
				  NULL);
	}
	KUNIT_EXPECT_FALSE(test, td_poll(acq, &e, 10));
	KUNIT_EXPECT_EQ(test, td_state(a), XNIC_QPS_RTS);
	KUNIT_EXPECT_EQ(test, td_state(b), XNIC_QPS_RTS);
}
