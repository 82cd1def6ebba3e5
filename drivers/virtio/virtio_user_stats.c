/* virtio_user's counters and port info: the stats, xstats, info and
 * ring_info ops (the ops table is in virtio_user.c). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "vf_ctl.h"
#include "vf_out.h"
#include "vf_peercred.h"
#include "vf_port.h"

#include "virtio_rxtx.h"
#include "virtio_user_priv.h"
#include "virtio_user_stats.h"

void vu_stats_get(struct vf_port *port, struct vf_port_stats *st)
{
	struct vu_dev *d = port->priv;
	uint16_t i;

	memset(st, 0, sizeof(*st));
	for (i = 0; i < d->active_qp; i++) {
		const struct vio_qstats *r = &d->rxq[i]->st, *t = &d->txq[i]->st;

		st->ipackets += vf_ctr_read(r->packets);
		st->ibytes += vf_ctr_read(r->bytes);
		st->ierrors += vf_ctr_read(r->errors);
		for (int e = 1; e < VNET_OL_NB_ERR; e++)
			st->ierrors += d->rxq[i]->ol_rx.err[e];
		st->rx_nombuf += vf_ctr_read(r->nombuf);
		st->opackets += vf_ctr_read(t->packets);
		st->obytes += vf_ctr_read(t->bytes);
		st->oerrors += vf_ctr_read(t->errors) + d->txq[i]->ol_tx.st.sw_nombuf +
			       d->txq[i]->ol_tx.st.sw_bad + d->txq[i]->ol_tx.st.sw_unsent;
	}
}

void vu_stats_reset(struct vf_port *port)
{
	struct vu_dev *d = port->priv;
	uint16_t i;

	for (i = 0; i < d->active_qp; i++) {
		memset(&d->rxq[i]->st, 0, sizeof(d->rxq[i]->st));
		memset(&d->txq[i]->st, 0, sizeof(d->txq[i]->st));
		memset(&d->rxq[i]->ol_rx, 0, sizeof(d->rxq[i]->ol_rx));
		memset(&d->txq[i]->ol_tx.st, 0, sizeof(d->txq[i]->ol_tx.st));
	}
}

/* Offload counters, summed over the queues: the received headers (by
 * outcome) and the software path of tx. */
static unsigned int ol_xstats(const struct vu_dev *d, struct vf_xstat *xs, unsigned int n)
{
	uint64_t v[4 + VNET_OL_NB_ERR + 6] = { 0 };
	const char *names[4 + VNET_OL_NB_ERR + 6] = {
		"rx_ol_csum", "rx_ol_csum_done", "rx_ol_tso", "rx_ol_data_valid",
	};
	unsigned int k = 4, i;

	for (int e = 1; e < VNET_OL_NB_ERR; e++)
		names[k++] = vnet_ol_err_name(e);
	names[k++] = "tx_sw_csum";
	names[k++] = "tx_sw_tso";
	names[k++] = "tx_sw_tso_segs";
	names[k++] = "tx_sw_dropped_nombuf";
	names[k++] = "tx_sw_dropped_bad";
	names[k++] = "tx_sw_dropped_ring_full";
	for (i = 0; i < d->active_qp; i++) {
		const struct vnet_ol_rx_stats *r = &d->rxq[i]->ol_rx;
		const struct vf_ol_stats *t = &d->txq[i]->ol_tx.st;
		unsigned int j = 0;

		v[j++] += r->csum;
		v[j++] += r->csum_sw;
		v[j++] += r->tso;
		v[j++] += r->data_valid;
		for (int e = 1; e < VNET_OL_NB_ERR; e++)
			v[j++] += r->err[e];
		v[j++] += t->sw_csum;
		v[j++] += t->sw_tso;
		v[j++] += t->sw_tso_segs;
		v[j++] += t->sw_nombuf;
		v[j++] += t->sw_bad;
		v[j++] += t->sw_unsent;
	}
	for (i = 0; i < k && i < n; i++) {
		/* received header errors read rx_hdr_... */
		snprintf(xs[i].name, sizeof(xs[i].name), "%s%s",
			 (i >= 4 && i < 4 + VNET_OL_NB_ERR - 1) ? "rx_" : "", names[i]);
		xs[i].value = v[i];
	}
	return k;
}

int vu_xstats_get(struct vf_port *port, struct vf_xstat *xs, unsigned int n)
{
	struct vu_dev *d = port->priv;
	enum { NB = 16 };
	uint64_t v[NB] = { d->link_down, d->connects, d->ring_broken, d->start_fail };
	static const char *const names[NB] = {
		"link_down_events", "backend_connects", "ring_broken", "start_failures",
		"used_bad_id", "used_bad_len", "used_idx_jump", "rx_bad_len", "rx_bad_hdr",
		"rx_kicks", "tx_kicks", "rx_nombuf", "used_bad_flags", "peer_rejects",
		"rx_in_place", "tx_in_place",
	};
	unsigned int i;

	for (i = 0; i < d->active_qp; i++) {
		const struct vio_queue *r = d->rxq[i], *t = d->txq[i];

		if (d->packed) {
			v[4] += r->pq.err[VQP_ERR_BAD_ID] + t->pq.err[VQP_ERR_BAD_ID];
			v[5] += r->pq.err[VQP_ERR_BAD_LEN] + t->pq.err[VQP_ERR_BAD_LEN];
			v[12] += r->pq.err[VQP_ERR_BAD_FLAGS] + t->pq.err[VQP_ERR_BAD_FLAGS];
		} else {
			v[4] += r->vq.err[VQS_ERR_BAD_ID] + t->vq.err[VQS_ERR_BAD_ID];
			v[5] += r->vq.err[VQS_ERR_BAD_LEN] + t->vq.err[VQS_ERR_BAD_LEN];
			v[6] += r->vq.err[VQS_ERR_IDX_JUMP] + t->vq.err[VQS_ERR_IDX_JUMP];
		}
		v[7] += vf_ctr_read(r->st.bad_len);
		v[8] += vf_ctr_read(r->st.bad_hdr);
		v[9] += vf_ctr_read(r->st.kicks);
		v[10] += vf_ctr_read(t->st.kicks);
		v[11] += vf_ctr_read(r->st.nombuf);
		v[14] += vf_ctr_read(r->st.in_place);
		v[15] += vf_ctr_read(t->st.in_place);
	}
	v[13] = d->peer_rejects;
	for (i = 0; i < NB && i < n; i++) {
		snprintf(xs[i].name, sizeof(xs[i].name), "%s", names[i]);
		xs[i].value = v[i];
	}
	return NB + (int)ol_xstats(d, xs + NB, n > NB ? n - NB : 0);
}

static const char *vu_state(const struct vu_dev *d)
{
	switch (busy(d)) {
	case VU_JOB_NEGOTIATE:
		return "negotiating";
	case VU_JOB_START:
		return "starting";
	case VU_JOB_STOP:
		return "stopping";
	}
	if (__atomic_load_n(&d->link_up, __ATOMIC_ACQUIRE))
		return "up";
	if (d->fe.fd >= 0)
		return "connected";
	return d->server ? "listening" : "reconnecting";
}

struct info_call {
	struct vu_dev *d;
	struct vf_out *o;
};

/* Under the control lock: the connection's fields (fe, peer, counters) are
 * written by the control thread and by the worker's job_done, both holding
 * it (ThreadSanitizer saw the shell read fe.fd beside them). */
static void do_info(void *arg)
{
	const struct info_call *c = arg;
	struct vu_dev *d = c->d;
	struct vf_out *o = c->o;

	vf_out_str(o, "path", d->path);
	vf_out_bool(o, "server", d->server);
	vf_out_bool(o, "connected", d->fe.fd >= 0);
	vf_out_str(o, "state", vu_state(d));
	/* Written on the control thread meanwhile: read within its bounds. */
	vf_out_strf(o, "last_error", "%.*s", (int)sizeof(d->last_error), d->last_error);
	vf_out_u64(o, "drains_unfinished", d->drain_unfinished);
	vf_out_u64(o, "queue_pairs", d->nqp);
	vf_out_u64(o, "queue_size", d->qsize);
	vf_out_strf(o, "features", "0x%" PRIx64, d->fe.features);
	vf_out_strf(o, "protocol_features", "0x%" PRIx64, d->fe.protocol);
	vf_out_bool(o, "in_order", d->fe.features & (1ull << VIRTIO_F_IN_ORDER));
	vf_out_bool(o, "mrg_rxbuf", d->fe.features & (1ull << VIRTIO_NET_F_MRG_RXBUF));
	vf_out_strf(o, "offloads", "0x%" PRIx64, (uint64_t)(d->fe.features & VU_FE_OL_FEATURES));
	vf_out_bool(o, "packed", d->packed);
	vf_peer_info(o, &d->peer);
	vf_access_info(o, &d->access, false, d->server ? d->path : NULL);
	vf_out_u64(o, "peer_rejects", d->peer_rejects);
	vf_out_str(o, "last_refused", d->last_refused);
}

void vu_info(struct vf_port *port, struct vf_out *o)
{
	struct info_call c = { .d = port->priv, .o = o };

	vf_ctl_call(do_info, &c);
}

void vu_ring_info(struct vf_port *port, struct vf_out *o)
{
	struct vu_dev *d = port->priv;
	uint16_t i;
	int k;

	vf_out_arr_begin(o, "rings");
	for (i = 0; i < d->active_qp; i++) {
		for (k = 0; k < 2; k++) {
			const struct vio_queue *q = k ? d->txq[i] : d->rxq[i];

			vf_out_obj_begin(o, NULL);
			vf_out_u64(o, "vring", q->vring);
			vf_out_str(o, "dir", q->rx ? "rx" : "tx");
			if (q->packed) {
				vf_out_u64(o, "size", q->pq.size);
				vf_out_u64(o, "avail_slot", q->pq.avail_slot);
				vf_out_bool(o, "avail_wrap", q->pq.avail_wrap);
				vf_out_u64(o, "used_slot", q->pq.used_slot);
				vf_out_bool(o, "used_wrap", q->pq.used_wrap);
				vf_out_u64(o, "free", q->pq.nfree);
				vf_out_u64(o, "inflight", q->pq.inflight);
				vf_out_bool(o, "broken", q->pq.broken);
			} else {
				vf_out_u64(o, "size", q->vq.size);
				vf_out_u64(o, "avail_idx", q->vq.avail_idx);
				vf_out_u64(o, "used_idx", q->vq.used_idx);
				vf_out_u64(o, "free", q->vq.nfree);
				vf_out_u64(o, "inflight", q->vq.inflight);
				vf_out_bool(o, "broken", q->vq.broken);
			}
			vf_out_obj_end(o);
		}
	}
	vf_out_arr_end(o);
}
