/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xrdma_core tracepoints (events/xrdma/): objects as they are published
 * and removed, QP state transitions, async events.  device.c defines them
 * (CREATE_TRACE_POINTS).  Documentation/core.rst, "Tracing".
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM xrdma

#if !defined(_XRDMA_CORE_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _XRDMA_CORE_TRACE_H

#include <linux/tracepoint.h>
#include <xrdma/compat.h>
#include <xrdma/xrdma_verbs.h>

/* the enum values below, for user-space tools (trace-cmd, perf) */
TRACE_DEFINE_ENUM(XRDMA_RES_PD);
TRACE_DEFINE_ENUM(XRDMA_RES_CQ);
TRACE_DEFINE_ENUM(XRDMA_RES_QP);
TRACE_DEFINE_ENUM(XRDMA_RES_SRQ);
TRACE_DEFINE_ENUM(XRDMA_RES_MR);
TRACE_DEFINE_ENUM(XRDMA_RES_AH);
TRACE_DEFINE_ENUM(XRDMA_RES_MW);
TRACE_DEFINE_ENUM(XRDMA_RES_XRCD);
TRACE_DEFINE_ENUM(XRDMA_QPS_RESET);
TRACE_DEFINE_ENUM(XRDMA_QPS_INIT);
TRACE_DEFINE_ENUM(XRDMA_QPS_RTR);
TRACE_DEFINE_ENUM(XRDMA_QPS_RTS);
TRACE_DEFINE_ENUM(XRDMA_QPS_SQD);
TRACE_DEFINE_ENUM(XRDMA_QPS_SQE);
TRACE_DEFINE_ENUM(XRDMA_QPS_ERR);
TRACE_DEFINE_ENUM(XRDMA_EVENT_CQ_ERR);
TRACE_DEFINE_ENUM(XRDMA_EVENT_QP_FATAL);
TRACE_DEFINE_ENUM(XRDMA_EVENT_QP_REQ_ERR);
TRACE_DEFINE_ENUM(XRDMA_EVENT_QP_ACCESS_ERR);
TRACE_DEFINE_ENUM(XRDMA_EVENT_COMM_EST);
TRACE_DEFINE_ENUM(XRDMA_EVENT_SQ_DRAINED);
TRACE_DEFINE_ENUM(XRDMA_EVENT_QP_LAST_WQE_REACHED);
TRACE_DEFINE_ENUM(XRDMA_EVENT_SRQ_ERR);
TRACE_DEFINE_ENUM(XRDMA_EVENT_SRQ_LIMIT_REACHED);
TRACE_DEFINE_ENUM(XRDMA_EVENT_PORT_ACTIVE);
TRACE_DEFINE_ENUM(XRDMA_EVENT_PORT_ERR);
TRACE_DEFINE_ENUM(XRDMA_EVENT_DEVICE_FATAL);

#define xrdma_show_res_type(t)						\
	__print_symbolic(t, { XRDMA_RES_PD, "pd" }, { XRDMA_RES_CQ, "cq" },	\
			 { XRDMA_RES_QP, "qp" }, { XRDMA_RES_SRQ, "srq" },	\
			 { XRDMA_RES_MR, "mr" }, { XRDMA_RES_AH, "ah" },	\
			 { XRDMA_RES_MW, "mw" }, { XRDMA_RES_XRCD, "xrcd" })

#define xrdma_show_qp_state(s)						\
	__print_symbolic(s, { XRDMA_QPS_RESET, "RESET" },		\
			 { XRDMA_QPS_INIT, "INIT" }, { XRDMA_QPS_RTR, "RTR" },	\
			 { XRDMA_QPS_RTS, "RTS" }, { XRDMA_QPS_SQD, "SQD" },	\
			 { XRDMA_QPS_SQE, "SQE" }, { XRDMA_QPS_ERR, "ERR" })

#define xrdma_show_event(e)						\
	__print_symbolic(e, { XRDMA_EVENT_CQ_ERR, "CQ_ERR" },		\
			 { XRDMA_EVENT_QP_FATAL, "QP_FATAL" },		\
			 { XRDMA_EVENT_QP_REQ_ERR, "QP_REQ_ERR" },	\
			 { XRDMA_EVENT_QP_ACCESS_ERR, "QP_ACCESS_ERR" },	\
			 { XRDMA_EVENT_COMM_EST, "COMM_EST" },		\
			 { XRDMA_EVENT_SQ_DRAINED, "SQ_DRAINED" },	\
			 { XRDMA_EVENT_QP_LAST_WQE_REACHED, "QP_LAST_WQE_REACHED" }, \
			 { XRDMA_EVENT_SRQ_ERR, "SRQ_ERR" },		\
			 { XRDMA_EVENT_SRQ_LIMIT_REACHED, "SRQ_LIMIT_REACHED" }, \
			 { XRDMA_EVENT_PORT_ACTIVE, "PORT_ACTIVE" },	\
			 { XRDMA_EVENT_PORT_ERR, "PORT_ERR" },		\
			 { XRDMA_EVENT_DEVICE_FATAL, "DEVICE_FATAL" })

DECLARE_EVENT_CLASS(xrdma_res_class,
	TP_PROTO(const struct xrdma_res *res),
	TP_ARGS(res),
	TP_STRUCT__entry(
		__string(dev, res->dev->name)
		__field(u32, type)
		__field(u32, id)
		__field(pid_t, pid)
		__string(kern, res->kern_name ? res->kern_name : "")
	),
	TP_fast_assign(
		xrdma_assign_str(dev, res->dev->name);
		__entry->type = res->type;
		__entry->id = res->id;
		__entry->pid = res->pid ? pid_nr(res->pid) : 0;
		xrdma_assign_str(kern, res->kern_name ? res->kern_name : "");
	),
	TP_printk("dev=%s %s=%u pid=%d kern=%s", __get_str(dev),
		  xrdma_show_res_type(__entry->type), __entry->id,
		  __entry->pid, __get_str(kern))
);

/* an object is published: its number is final, lookups find it */
DEFINE_EVENT(xrdma_res_class, xrdma_res_add,
	TP_PROTO(const struct xrdma_res *res),
	TP_ARGS(res));

/* an object is unpublished, before its driver destroy */
DEFINE_EVENT(xrdma_res_class, xrdma_res_del,
	TP_PROTO(const struct xrdma_res *res),
	TP_ARGS(res));

/* a modify QP request and its outcome (ret 0: @next is the new state) */
TRACE_EVENT(xrdma_modify_qp,
	TP_PROTO(const struct xrdma_qp *qp, enum xrdma_qp_state cur,
		 enum xrdma_qp_state next, int mask, int ret),
	TP_ARGS(qp, cur, next, mask, ret),
	TP_STRUCT__entry(
		__string(dev, qp->device->name)
		__field(u32, qpn)
		__field(u32, type)
		__field(u32, cur)
		__field(u32, next)
		__field(u32, mask)
		__field(int, ret)
	),
	TP_fast_assign(
		xrdma_assign_str(dev, qp->device->name);
		__entry->qpn = qp->qp_num;
		__entry->type = qp->qp_type;
		__entry->cur = cur;
		__entry->next = next;
		__entry->mask = mask;
		__entry->ret = ret;
	),
	TP_printk("dev=%s qpn=%u type=%u %s->%s mask=0x%x ret=%d",
		  __get_str(dev), __entry->qpn, __entry->type,
		  xrdma_show_qp_state(__entry->cur),
		  xrdma_show_qp_state(__entry->next), __entry->mask,
		  __entry->ret)
);

/* an async event a driver reports, before it is delivered */
TRACE_EVENT(xrdma_async_event,
	TP_PROTO(const struct xrdma_event *e, u32 element),
	TP_ARGS(e, element),
	TP_STRUCT__entry(
		__string(dev, e->device->name)
		__field(u32, event)
		__field(u32, element)
	),
	TP_fast_assign(
		xrdma_assign_str(dev, e->device->name);
		__entry->event = e->event;
		__entry->element = element;
	),
	TP_printk("dev=%s event=%s element=%u", __get_str(dev),
		  xrdma_show_event(__entry->event), __entry->element)
);

#endif /* _XRDMA_CORE_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
