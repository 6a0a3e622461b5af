/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xnic driver tracepoints (events/xnic/): device commands, event queue
 * entries, and error completions of kernel CQs (user CQs are polled in
 * the process: the kernel never sees their CQEs).  xnic_main.c defines
 * them (CREATE_TRACE_POINTS).
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM xnic

#if !defined(_XNIC_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _XNIC_TRACE_H

#include <linux/tracepoint.h>
#include <xrdma/compat.h>
#include "xnic.h"

/* a command is handed to the device (the producer index is written) */
TRACE_EVENT(xnic_cmd_submit,
	TP_PROTO(const struct xnic_dev *xdev, u8 opcode, u32 token),
	TP_ARGS(xdev, opcode, token),
	TP_STRUCT__entry(
		__string(dev, xdev->ibdev.name)
		__field(u8, opcode)
		__field(u32, token)
	),
	TP_fast_assign(
		xrdma_assign_str(dev, xdev->ibdev.name);
		__entry->opcode = opcode;
		__entry->token = token;
	),
	TP_printk("dev=%s opcode=0x%02x token=%u", __get_str(dev),
		  __entry->opcode, __entry->token)
);

/*
 * a command ends: the device's status (0 OK; ~0U when it never answered)
 * and the errno the caller gets
 */
TRACE_EVENT(xnic_cmd_done,
	TP_PROTO(const struct xnic_dev *xdev, u8 opcode, u32 token, u32 status,
		 int ret),
	TP_ARGS(xdev, opcode, token, status, ret),
	TP_STRUCT__entry(
		__string(dev, xdev->ibdev.name)
		__field(u8, opcode)
		__field(u32, token)
		__field(u32, status)
		__field(int, ret)
	),
	TP_fast_assign(
		xrdma_assign_str(dev, xdev->ibdev.name);
		__entry->opcode = opcode;
		__entry->token = token;
		__entry->status = status;
		__entry->ret = ret;
	),
	TP_printk("dev=%s opcode=0x%02x token=%u status=%u ret=%d",
		  __get_str(dev), __entry->opcode, __entry->token,
		  __entry->status, __entry->ret)
);

/* an event queue entry (enum xnic_eqe_type), before it is handled */
TRACE_EVENT(xnic_eqe,
	TP_PROTO(const struct xnic_dev *xdev, u8 type, u32 data, u32 aux),
	TP_ARGS(xdev, type, data, aux),
	TP_STRUCT__entry(
		__string(dev, xdev->ibdev.name)
		__field(u8, type)
		__field(u32, data)
		__field(u32, aux)
	),
	TP_fast_assign(
		xrdma_assign_str(dev, xdev->ibdev.name);
		__entry->type = type;
		__entry->data = data;
		__entry->aux = aux;
	),
	TP_printk("dev=%s type=%u data=%u aux=%u", __get_str(dev),
		  __entry->type, __entry->data, __entry->aux)
);

/* an error completion polled from a kernel CQ */
TRACE_EVENT(xnic_cqe_error,
	TP_PROTO(const struct xnic_dev *xdev, const struct xrdma_cq *cq,
		 u32 qpn, u64 wr_id, u8 hw_status, u32 wc_status, u8 hw_opcode),
	TP_ARGS(xdev, cq, qpn, wr_id, hw_status, wc_status, hw_opcode),
	TP_STRUCT__entry(
		__string(dev, xdev->ibdev.name)
		__field(u32, cqn)
		__field(u32, qpn)
		__field(u64, wr_id)
		__field(u8, hw_status)
		__field(u32, wc_status)
		__field(u8, hw_opcode)
	),
	TP_fast_assign(
		xrdma_assign_str(dev, xdev->ibdev.name);
		__entry->cqn = cq->res.id;
		__entry->qpn = qpn;
		__entry->wr_id = wr_id;
		__entry->hw_status = hw_status;
		__entry->wc_status = wc_status;
		__entry->hw_opcode = hw_opcode;
	),
	TP_printk("dev=%s cqn=%u qpn=%u wr_id=0x%llx status=%u wc_status=%u opcode=0x%02x",
		  __get_str(dev), __entry->cqn, __entry->qpn,
		  (unsigned long long)__entry->wr_id, __entry->hw_status,
		  __entry->wc_status, __entry->hw_opcode)
);

#endif /* _XNIC_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE xnic_trace
#include <trace/define_trace.h>
