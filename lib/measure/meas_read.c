/* measure's readers (main thread): each stream's figures merged over the
 * forwarding cores' receive records, the run's totals, and whether every
 * frame is sent or back.  They read what the cores write (a burst old at
 * worst). */
#include <string.h>

#include <rte_cycles.h>

#include "meas_priv.h"
#include "vf_fwd_mode.h"
#include "vf_meas.h"

struct meas_core *vf__meas_cores[RTE_MAX_LCORE];
unsigned int vf__meas_run_streams;
uint32_t vf__meas_run_epoch;
volatile uint32_t vf__meas_clear_req;

uint8_t vf__meas_epoch(void)
{
	return (uint8_t)(vf__meas_run_epoch + vf__meas_clear_req);
}

/* A stream of the measure mode, whose table names vf_meas_all_back (this
 * file's, so that it depends on nothing of mode_measure.c). */
static inline bool measures(const struct vf_stream *fs)
{
	return fs->cfg->mode->all_back == vf_meas_all_back;
}

unsigned int vf_meas_nb_streams(void)
{
	unsigned int n = vf_fwd_nb_streams();

	return vf__meas_run_streams < n ? vf__meas_run_streams : n;
}

int vf_meas_get(unsigned int i, struct vf_meas_stream *s)
{
	struct vf_stream *fs = vf_fwd_stream(i);
	const struct meas_tx *t;

	if (i >= vf_meas_nb_streams() || !fs || !measures(fs))
		return -1;
	t = fs->mode_priv;
	memset(s, 0, sizeof(*s));
	vf_hist_reset(&s->hist);
	s->id = i;
	s->tx_port = fs->tx_port->id;
	s->tx_queue = fs->tx_queue;
	s->rx_port = -1;
	s->sent = t ? vf_ctr_read(t->sent) : 0;
	s->stall_s = t ? (double)vf_ctr_read(t->stall) / (double)rte_get_tsc_hz() : 0;
	s->blocked_s = t ? (double)vf_ctr_read(t->blocked) / (double)rte_get_tsc_hz() : 0;
	for (unsigned int l = 0; l < RTE_MAX_LCORE; l++) {
		const struct meas_core *c = vf__meas_cores[l];
		const struct meas_rec *r;

		uint64_t jit_n;
		int rx_port;

		if (!c || i >= c->nrec || vf_ctr_read(c->epoch) != vf__meas_epoch())
			continue;
		r = &c->rec[i];
		s->received += vf_ctr_read(r->seq.received);
		s->dups += vf_ctr_read(r->seq.dups);
		s->reordered += vf_ctr_read(r->seq.reordered);
		s->late += vf_ctr_read(r->seq.late);
		s->jitter_sum += vf_ctr_read(r->jit_sum);
		jit_n = vf_ctr_read(r->jit_n);
		s->jitter_n += jit_n > 0 ? jit_n - 1 : 0;
		rx_port = vf_ctr_read(r->rx_port);
		if (rx_port >= 0)
			s->rx_port = rx_port;
		vf_hist_merge(&s->hist, &r->hist);
	}
	s->unique = s->received - s->dups;
	s->lost = s->sent > s->unique ? s->sent - s->unique : 0;
	s->loss_ratio = s->sent ? (double)s->lost / (double)s->sent : 0.0;
	return 0;
}

void vf_meas_totals(struct vf_meas_totals *tot)
{
	memset(tot, 0, sizeof(*tot));
	for (unsigned int l = 0; l < RTE_MAX_LCORE; l++) {
		const struct meas_core *c = vf__meas_cores[l];

		if (!c || vf_ctr_read(c->epoch) != vf__meas_epoch())
			continue;
		tot->foreign += vf_ctr_read(c->foreign);
		tot->corrupt += vf_ctr_read(c->corrupt);
		tot->stale += vf_ctr_read(c->stale);
	}
}

bool vf_meas_all_back(void)
{
	unsigned int n = vf_meas_nb_streams();
	bool any = false;

	for (unsigned int i = 0; i < n; i++) {
		struct vf_stream *fs = vf_fwd_stream(i);
		const struct meas_tx *t = fs->mode_priv;
		uint64_t unique = 0;

		if (!fs->sends || !measures(fs) || !t)
			continue;	/* --one-way: a receiver only */
		for (unsigned int l = 0; l < RTE_MAX_LCORE; l++) {
			const struct meas_core *c = vf__meas_cores[l];

			if (c && i < c->nrec && vf_ctr_read(c->epoch) == vf__meas_epoch())
				unique += vf_seq_unique(&c->rec[i].seq);
		}
		if (unique < vf_ctr_read(t->sent))
			return false;
		any = true;
	}
	return any;	/* a receiver only never knows what is still out */
}

bool vf_meas_all_sent(void)
{
	unsigned int n = vf_meas_nb_streams();

	if (!n)
		return false;
	for (unsigned int i = 0; i < n; i++) {
		struct vf_stream *fs = vf_fwd_stream(i);
		const struct meas_tx *t = fs->mode_priv;

		if (!fs->sends)
			continue;	/* --one-way: a receiver only */
		if (!measures(fs) || !fs->cfg->count || !t ||
		    vf_ctr_read(t->sent) < fs->cfg->count)
			return false;
	}
	return true;
}
