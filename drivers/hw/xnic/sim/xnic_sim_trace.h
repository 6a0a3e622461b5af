/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xnic_sim tracepoints (events/xnic_sim/): every fault a rule injects
 * (Documentation/faults.rst).  xnic_sim_fault.c defines them
 * (CREATE_TRACE_POINTS).
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM xnic_sim

#if !defined(_XNIC_SIM_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _XNIC_SIM_TRACE_H

#include <linux/tracepoint.h>
#include <xrdma/compat.h>

/* a rule fired: @qpn is the device's QP it matched, @op the operation's class */
TRACE_EVENT(xnic_sim_fault,
	TP_PROTO(int dev, const char *rule, const char *type, u32 qpn,
		 const char *op),
	TP_ARGS(dev, rule, type, qpn, op),
	TP_STRUCT__entry(
		__field(int, dev)
		__string(rule, rule)
		__string(type, type)
		__field(u32, qpn)
		__string(op, op)
	),
	TP_fast_assign(
		__entry->dev = dev;
		xrdma_assign_str(rule, rule);
		xrdma_assign_str(type, type);
		__entry->qpn = qpn;
		xrdma_assign_str(op, op);
	),
	TP_printk("dev %d rule %s type %s qpn %u op %s", __entry->dev,
		  __get_str(rule), __get_str(type), __entry->qpn,
		  __get_str(op))
);

#endif /* _XNIC_SIM_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE xnic_sim_trace
#include <trace/define_trace.h>
