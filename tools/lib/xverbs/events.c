// SPDX-License-Identifier: GPL-2.0
/*
 * xverbs: events -- completion channels, completion events and the
 * asynchronous events of a context.
 */
#include <poll.h>
#include <stdlib.h>
#include <unistd.h>
#include "xverbs.h"

/* ------------------------------------------------------------ events */

struct ibv_comp_channel *
ibv_create_comp_channel(struct ibv_context *ctx)
{
	struct xrdma_cmd_fd c = { 0 };
	struct ibv_comp_channel *ch;

	ch = calloc(1, sizeof(*ch));
	if (!ch) {
		errno = ENOMEM;
		return NULL;
	}
	errno = xv_ioctl(ctx, XRDMA_IOC_CREATE_COMP_CHANNEL, &c);
	if (errno) {
		free(ch);
		return NULL;
	}
	ch->context = ctx;
	ch->fd = c.fd;
	ch->refcnt = 0;
	return ch;
}

int ibv_destroy_comp_channel(struct ibv_comp_channel *ch)
{
	struct ibv_context *ctx = ch->context;
	int ret = 0;

	pthread_mutex_lock(&ctx->mutex);
	if (ch->refcnt) {
		ret = EBUSY;
	} else {
		close(ch->fd);
		free(ch);
	}
	pthread_mutex_unlock(&ctx->mutex);
	return ret;
}

int ibv_get_cq_event(struct ibv_comp_channel *ch,
		     struct ibv_cq **cq, void **cq_context)
{
	struct xrdma_comp_event ev;
	ssize_t n;

	n = read(ch->fd, &ev, sizeof(ev));
	if (n != (ssize_t)sizeof(ev))
		return -1;
	*cq = (struct ibv_cq *)(uintptr_t)ev.cq_cookie;
	*cq_context = (*cq)->cq_context;
	return 0;
}

void ibv_ack_cq_events(struct ibv_cq *cq, unsigned int nevents)
{
	pthread_mutex_lock(&cq->mutex);
	cq->comp_events_completed += nevents;
	pthread_cond_signal(&cq->cond);
	pthread_mutex_unlock(&cq->mutex);
}

int ibv_get_async_event(struct ibv_context *ctx,
			struct ibv_async_event *event)
{
	struct xrdma_async_event ev;
	ssize_t n;

	for (;;) {
		n = read(ctx->async_fd, &ev, sizeof(ev));
		if (n != (ssize_t)sizeof(ev))
			return -1;
		if (ev.event_type != XRDMA_UVERBS_EVENT_OVERFLOW)
			break;
	}
	event->event_type = (enum ibv_event_type)ev.event_type;
	switch (event->event_type) {
	case IBV_EVENT_CQ_ERR:
		event->element.cq = (struct ibv_cq *)(uintptr_t)ev.element;
		break;
	case IBV_EVENT_QP_FATAL:
	case IBV_EVENT_QP_REQ_ERR:
	case IBV_EVENT_QP_ACCESS_ERR:
	case IBV_EVENT_COMM_EST:
	case IBV_EVENT_SQ_DRAINED:
	case IBV_EVENT_PATH_MIG:
	case IBV_EVENT_PATH_MIG_ERR:
	case IBV_EVENT_QP_LAST_WQE_REACHED:
		event->element.qp = (struct ibv_qp *)(uintptr_t)ev.element;
		break;
	case IBV_EVENT_SRQ_ERR:
	case IBV_EVENT_SRQ_LIMIT_REACHED:
		event->element.srq = (struct ibv_srq *)(uintptr_t)ev.element;
		break;
	case IBV_EVENT_DEVICE_FATAL:
		event->element.port_num = 0;
		break;
	default:
		event->element.port_num = (int)ev.element;
		break;
	}
	return 0;
}

static void xv_ack(pthread_mutex_t *m, pthread_cond_t *c, uint32_t *n)
{
	pthread_mutex_lock(m);
	++*n;
	pthread_cond_signal(c);
	pthread_mutex_unlock(m);
}

void ibv_ack_async_event(struct ibv_async_event *event)
{
	switch (event->event_type) {
	case IBV_EVENT_CQ_ERR: {
		struct ibv_cq *cq = event->element.cq;

		xv_ack(&cq->mutex, &cq->cond, &cq->async_events_completed);
		break;
	}
	case IBV_EVENT_QP_FATAL:
	case IBV_EVENT_QP_REQ_ERR:
	case IBV_EVENT_QP_ACCESS_ERR:
	case IBV_EVENT_COMM_EST:
	case IBV_EVENT_SQ_DRAINED:
	case IBV_EVENT_PATH_MIG:
	case IBV_EVENT_PATH_MIG_ERR:
	case IBV_EVENT_QP_LAST_WQE_REACHED: {
		struct ibv_qp *qp = event->element.qp;

		xv_ack(&qp->mutex, &qp->cond, &qp->events_completed);
		break;
	}
	case IBV_EVENT_SRQ_ERR:
	case IBV_EVENT_SRQ_LIMIT_REACHED: {
		struct ibv_srq *srq = event->element.srq;

		xv_ack(&srq->mutex, &srq->cond, &srq->events_completed);
		break;
	}
	default:
		break;
	}
}
