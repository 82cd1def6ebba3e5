/* The port watch (vf_watch.h): drops by reason and polled links, as
 * events, once a second on the control thread. */
#include "vf_watch.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "vf_ctl.h"
#include "vf_ctr.h"
#include "vf_event.h"
#include "vf_fwd.h"
#include "vf_port.h"
#include "vf_session.h"

#define MAX_REASONS	32
#define MAX_XSTATS	512

struct reason {
	char name[32];
	uint64_t value;
};

/* What the last look saw of one port id. */
struct seen {
	const struct vf_port *port;	/* NULL: nothing yet (or a new port) */
	bool link_up;
	uint64_t at_ms;
	unsigned int nb;
	struct reason r[MAX_REASONS];
};

/* Control thread only (the timer's callback, and stop under vf_ctl_call). */
static struct seen seen[VF_MAX_PORTS];
static struct vf_xstat xs[MAX_XSTATS];
static int timer_id = -1;

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void add(struct reason *r, unsigned int *nb, const char *name, uint64_t v)
{
	for (unsigned int i = 0; i < *nb; i++)
		if (!strcmp(r[i].name, name)) {
			r[i].value += v;
			return;
		}
	if (*nb == MAX_REASONS)
		return;
	snprintf(r[*nb].name, sizeof(r[*nb].name), "%s", name);
	r[(*nb)++].value = v;
}

/* "rx_q0_dropped_ring_full" -> "rx_dropped_ring_full": the queue goes. */
static void strip_queue(const char *in, char *out, size_t len)
{
	size_t o = 0;

	for (size_t i = 0; in[i] && o + 1 < len; i++) {
		if (in[i] == '_' && in[i + 1] == 'q' && isdigit((unsigned char)in[i + 2])) {
			size_t j = i + 2;

			while (isdigit((unsigned char)in[j]))
				j++;
			if (in[j] == '_' || in[j] == '\0') {
				i = j - 1;	/* keep the '_' after the number */
				continue;
			}
		}
		out[o++] = in[i];
	}
	out[o] = '\0';
}

/* The port's drop counters now, by reason. */
static unsigned int collect(struct vf_port *p, struct reason *r)
{
	struct vf_port_stats st;
	unsigned int nb = 0;
	uint64_t fwd = 0;
	int n;

	vf_port_stats(p, &st);
	add(r, &nb, "imissed", st.imissed);
	add(r, &nb, "ierrors", st.ierrors);
	add(r, &nb, "oerrors", st.oerrors);
	add(r, &nb, "rx_nombuf", st.rx_nombuf);
	for (unsigned int i = 0; i < vf_fwd_nb_streams(); i++) {
		const struct vf_stream *s = vf_fwd_stream(i);

		if (s->tx_port == p)
			fwd += vf_ctr_read(s->fwd_dropped);
	}
	add(r, &nb, "fwd_dropped", fwd);
	n = vf_port_xstats(p, xs, MAX_XSTATS);
	if (n > MAX_XSTATS)
		n = MAX_XSTATS;
	for (int i = 0; i < n; i++) {
		char name[64];

		if (!strstr(xs[i].name, "drop"))
			continue;
		strip_queue(xs[i].name, name, sizeof(name));
		add(r, &nb, name, xs[i].value);
	}
	return nb;
}

static const struct reason *find(const struct seen *s, const char *name)
{
	for (unsigned int i = 0; i < s->nb; i++)
		if (!strcmp(s->r[i].name, name))
			return &s->r[i];
	return NULL;
}

static void look(uint16_t id, struct vf_port *p, uint64_t t)
{
	struct seen *s = &seen[id];
	struct reason now[MAX_REASONS];
	unsigned int nb = collect(p, now);
	struct vf_link link;

	vf_port_link(p, &link);
	if (s->port == p) {
		for (unsigned int i = 0; i < nb; i++) {
			const struct reason *was = find(s, now[i].name);
			struct vf_event ev = {
				.type = VF_EV_DROPS, .port = id, .queue = -1,
				.pid = -1, .uid = -1, .gid = -1,
			};

			if (!was || now[i].value <= was->value)
				continue;	/* nothing new, or counters cleared */
			ev.count = now[i].value - was->value;
			ev.interval_ms = (uint32_t)(t - s->at_ms);
			snprintf(ev.name, sizeof(ev.name), "%s", p->name);
			snprintf(ev.what, sizeof(ev.what), "%s", now[i].name);
			vf_event_raise(&ev);
		}
		if (!p->drv->link_events && link.up != s->link_up)
			vf_event_link(id, p->name, link.up);
	}
	s->port = p;
	s->link_up = link.up;
	s->at_ms = t;
	s->nb = nb;
	memcpy(s->r, now, nb * sizeof(now[0]));
}

static void on_tick(void *arg)
{
	uint64_t t = now_ms();

	if (!vf_session_trylock())
		return;
	for (uint16_t id = 0; id < VF_MAX_PORTS; id++) {
		struct vf_port *p = vf_port_get(id);

		if (p)
			look(id, p, t);
		else
			seen[id].port = NULL;
	}
	vf_session_unlock();
}

int vf_session_watch_start(void)
{
	int ret;

	if (timer_id > 0)
		return 0;
	memset(seen, 0, sizeof(seen));
	ret = vf_ctl_add_timer(VF_WATCH_MS, on_tick, NULL);
	if (ret < 0)
		return ret;
	timer_id = ret;
	return 0;
}

void vf_session_watch_stop(void)
{
	if (timer_id > 0)
		vf_ctl_del_timer(timer_id);
	timer_id = -1;
}
