#include "vf_port.h"
#include "vf_offload.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_malloc.h>

#include "vf_event.h"
#include "vf_log.h"

#define MAX_DRIVERS 16

static const struct vf_driver *drivers[MAX_DRIVERS];
static unsigned int nb_drivers;
static struct vf_port *ports[VF_MAX_PORTS];
/* Guards ports[] against readers on other threads (telemetry). */
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;

void vf_port_registry_lock(void) { pthread_mutex_lock(&registry_lock); }
void vf_port_registry_unlock(void) { pthread_mutex_unlock(&registry_lock); }

void vf_driver_register(const struct vf_driver *drv)
{
	if (nb_drivers < MAX_DRIVERS)
		drivers[nb_drivers++] = drv;
}

const struct vf_driver *vf_driver_find(const char *name)
{
	for (unsigned int i = 0; i < nb_drivers; i++)
		if (!strcmp(drivers[i]->name, name))
			return drivers[i];
	return NULL;
}

const struct vf_driver *vf_driver_at(unsigned int idx)
{
	return idx < nb_drivers ? drivers[idx] : NULL;
}

static void driver_names(char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (unsigned int i = 0; i < nb_drivers && off < len; i++)
		off += snprintf(buf + off, len - off, "%s%s", i ? ", " : "",
				drivers[i]->name);
}

static enum vf_rx_mode default_rx_mode = VF_RX_POLL;
static const char *const rx_mode_names[] = { "poll", "interrupt", "adaptive" };

const char *vf_rx_mode_name(enum vf_rx_mode m)
{
	return (unsigned int)m < RTE_DIM(rx_mode_names) ? rx_mode_names[m] : "?";
}

int vf_rx_mode_parse(const char *name)
{
	for (unsigned int i = 0; i < RTE_DIM(rx_mode_names); i++)
		if (!strcmp(name, rx_mode_names[i]))
			return (int)i;
	return -1;
}

uint32_t vf__port_rx_modes_gen;

void vf_port_default_rx_mode(enum vf_rx_mode m)
{
	default_rx_mode = m;
}

int vf_port_set_rx_mode(struct vf_port *port, enum vf_rx_mode m)
{
	enum vf_rx_mode was;

	if (m != VF_RX_POLL && !vf_port_can_notify(port))
		return -ENOTSUP;
	was = (enum vf_rx_mode)__atomic_exchange_n(&port->rx_mode, (uint8_t)m, __ATOMIC_RELAXED);
	__atomic_fetch_add(&vf__port_rx_modes_gen, 1, __ATOMIC_RELEASE);
	if (was != m && vf_event_on()) {
		struct vf_event ev = {
			.type = VF_EV_RX_MODE, .port = port->id, .queue = -1,
			.pid = -1, .uid = -1, .gid = -1,
		};

		snprintf(ev.name, sizeof(ev.name), "%s", port->name);
		snprintf(ev.what, sizeof(ev.what), "%s", vf_rx_mode_name(m));
		snprintf(ev.text, sizeof(ev.text), "%s", vf_rx_mode_name(was));
		vf_event_raise(&ev);
	}
	return 0;
}

uint16_t vf_port_rx_none(void *q, struct rte_mbuf **pkts, uint16_t n)
{
	return 0;
}

uint16_t vf_port_tx_none(void *q, struct rte_mbuf **pkts, uint16_t n)
{
	return 0;
}

/* Whether the devargs name rx-mode (a driver that cannot notify gets a
 * clearer refusal than an unknown key; a raw one, dpdk's, would hand it to
 * the PMD). */
static bool has_rx_mode(const char *rest)
{
	static const char key[] = "rx-mode";

	for (const char *p = rest; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (!strncmp(p, key, sizeof(key) - 1) &&
		    (p[sizeof(key) - 1] == '=' || p[sizeof(key) - 1] == ',' || !p[sizeof(key) - 1]))
			return true;
	return false;
}

/* Copies raw devargs rest into out without their rx-mode=VALUE, whose
 * mode goes to *mode.  0, or -1 with the reason in why. */
static int take_rx_mode(const char *rest, char out[VF_DEVARGS_STR_MAX], int *mode,
			char *why, size_t whylen)
{
	size_t o = 0;

	out[0] = '\0';
	for (const char *p = rest; *p;) {
		size_t n = strcspn(p, ",");

		if (n > 8 && !strncmp(p, "rx-mode=", 8)) {
			char v[16];

			snprintf(v, sizeof(v), "%.*s", (int)(n - 8), p + 8);
			*mode = n - 8 < sizeof(v) ? vf_rx_mode_parse(v) : -1;
			if (*mode < 0) {
				snprintf(why, whylen, "bad rx-mode '%.*s': expected poll|interrupt|adaptive",
					 (int)(n - 8), p + 8);
				return -1;
			}
		} else if (n == 7 && !strncmp(p, "rx-mode", 7)) {
			snprintf(why, whylen, "rx-mode needs a value: poll|interrupt|adaptive");
			return -1;
		} else {
			o += (size_t)snprintf(out + o, VF_DEVARGS_STR_MAX - o, "%s%.*s",
					      o ? "," : "", (int)n, p);
			if (o >= VF_DEVARGS_STR_MAX)
				return -1;
		}
		p += n;
		if (*p == ',')
			p++;
	}
	return 0;
}

/* Redacts spec into shown, finds the driver, parses the devargs into da and
 * runs the driver's check.  0, or -1 with "port 'SPEC': why" in err. */
static int spec_parse(const char *spec, char shown[VF_DEVARGS_STR_MAX],
		      const struct vf_driver **drvp, struct vf_devargs *da, int *rx_mode,
		      char *err, size_t errlen)
{
	char drvname[VF_NAME_LEN], names[256], why[512], raw[VF_DEVARGS_STR_MAX];
	const struct vf_driver *drv;
	const char *rest;

	/* Secrets never reach messages or "show port info". */
	vf_devargs_redact(spec, shown, VF_DEVARGS_STR_MAX);
	if (vf_devargs_split(spec, drvname, sizeof(drvname), &rest, err, errlen))
		return -1;
	drv = vf_driver_find(drvname);
	if (!drv) {
		driver_names(names, sizeof(names));
		snprintf(err, errlen, "unknown driver '%s' in port '%s': drivers are %s",
			 drvname, shown, names);
		return -1;
	}
	if (!drv->rx_intr_arm && has_rx_mode(rest)) {
		snprintf(err, errlen, "port '%s': rx-mode: the %s driver cannot notify, its queues "
			 "are always polled (rx modes: memif, vhost, virtio_user)", shown, drv->name);
		return -1;
	}
	*rx_mode = -1;
	if (!drv->keys && drv->rx_intr_arm && has_rx_mode(rest)) {
		/* Raw devargs (dpdk): ours is taken out, the rest goes on. */
		if (take_rx_mode(rest, raw, rx_mode, why, sizeof(why))) {
			snprintf(err, errlen, "port '%s': %s", shown, why);
			return -1;
		}
		rest = raw;
	}
	if (vf_devargs_parse(rest, drv->keys, da, why, sizeof(why)) ||
	    (drv->check && drv->check(da, why, sizeof(why)))) {
		snprintf(err, errlen, "port '%s': %s", shown, why);
		return -1;
	}
	*drvp = drv;
	return 0;
}

int vf_port_spec_check(const char *spec, char *err, size_t errlen)
{
	char shown[VF_DEVARGS_STR_MAX];
	const struct vf_driver *drv;
	struct vf_devargs *da = calloc(1, sizeof(*da));
	int ret;

	if (!da) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	int mode;

	ret = spec_parse(spec, shown, &drv, da, &mode, err, errlen);
	free(da);
	return ret;
}

bool vf_port_spec_keeps_mbufs(const char *spec)
{
	char shown[VF_DEVARGS_STR_MAX], err[512];
	const struct vf_driver *drv;
	struct vf_devargs *da = calloc(1, sizeof(*da));
	bool keeps = true;
	int rx_mode;

	if (da && !spec_parse(spec, shown, &drv, da, &rx_mode, err, sizeof(err)) &&
	    drv->keeps_mbufs)
		keeps = drv->keeps_mbufs(da);
	free(da);
	return keeps;
}

struct vf_port *vf_port_create(const char *spec, char *err, size_t errlen)
{
	char shown[VF_DEVARGS_STR_MAX], why[256];
	const struct vf_driver *drv;
	struct vf_devargs *da;
	struct vf_port *port;
	unsigned int id, same = 0;
	int ret, given = -1;

	for (id = 0; id < VF_MAX_PORTS && ports[id]; id++)
		;
	if (id == VF_MAX_PORTS) {
		snprintf(err, errlen, "too many ports (max %d)", VF_MAX_PORTS);
		return NULL;
	}
	da = calloc(1, sizeof(*da));
	if (!da) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (spec_parse(spec, shown, &drv, da, &given, err, errlen)) {
		free(da);
		return NULL;
	}
	port = rte_zmalloc("vf_port", sizeof(*port), RTE_CACHE_LINE_SIZE);
	if (!port) {
		snprintf(err, errlen, "out of memory");
		free(da);
		return NULL;
	}
	for (unsigned int i = 0; i < VF_MAX_PORTS; i++)
		if (ports[i] && ports[i]->drv == drv)
			same++;
	port->id = (uint16_t)id;
	port->drv = drv;
	port->max_rxq = port->max_txq = VF_MAX_QUEUES;
	port->rx_burst = vf_port_rx_none;
	port->tx_burst = vf_port_tx_none;
	snprintf(port->name, sizeof(port->name), "%s%u", drv->name, same);
	snprintf(port->spec, sizeof(port->spec), "%s", shown);
	/* Locally administered, unicast, unique per port until the driver says. */
	port->mac[0] = 0x02;
	port->mac[1] = 0x76;	/* 'v' */
	port->mac[2] = 0x66;	/* 'f' */
	port->mac[5] = (uint8_t)id;
	/* The driver's own error line, if it logged one, becomes the message. */
	vf_log_capture_begin(why, sizeof(why));
	/* A driver that cannot notify lists no rx-mode key: always polled.
	 * Set before probe: a driver may look at it (dpdk configures rx
	 * interrupts for it) or turn it back to poll (no_rx_intr). */
	if (drv->rx_intr_arm) {
		if (drv->keys && vf_devargs_has(da, "rx-mode"))
			given = vf_devargs_enum(da, "rx-mode", VF_RX_POLL);
		port->rx_mode_given = given >= 0;
		port->rx_mode = (uint8_t)(given >= 0 ? given : (int)default_rx_mode);
	}
	ret = drv->probe(port, da);
	if (!vf_log_capture_end())
		why[0] = '\0';
	free(da);
	if (ret) {
		snprintf(err, errlen, "port '%s': %s", shown, why[0] ? why : strerror(-ret));
		rte_free(port);
		return NULL;
	}
	if (why[0])		/* logged, yet it came up: not to be lost */
		VF_ERR("%s", why);
	vf_port_registry_lock();
	ports[id] = port;
	vf_port_registry_unlock();
	return port;
}

int vf_port_configure(struct vf_port *port, const struct vf_port_conf *conf)
{
	int ret;

	if (port->started)
		return -EBUSY;
	if (conf->nb_rxq == 0 || conf->nb_txq == 0 ||
	    conf->nb_rxq > port->max_rxq || conf->nb_txq > port->max_txq) {
		VF_ERR("port %u (%s): %u rx / %u tx queues asked, driver allows 1..%u / 1..%u",
		       port->id, port->name, conf->nb_rxq, conf->nb_txq,
		       port->max_rxq, port->max_txq);
		return -EINVAL;
	}
	ret = port->drv->configure(port, conf);
	if (ret == 0) {
		port->conf = *conf;
		port->configured = true;
	}
	return ret;
}

/* Software offload completion in front of a driver that ignores offload
 * requests: a packet a guest handed vhost with a partial checksum or as a
 * 64 KiB TSO frame must not leave through memif, null or dpdk: as it is. */
struct vf_port_olq {
	void *q;
	vf_tx_burst_t tx;
	struct vf_ol_txq ol;	/* caps 0: the peer takes nothing */
} __rte_cache_aligned;

static uint16_t olq_tx(void *arg, struct rte_mbuf **pkts, uint16_t n)
{
	struct vf_port_olq *w = arg;

	return vf_ol_tx_burst(w->q, w->tx, &w->ol, pkts, n);
}

static bool any_rx_offloads(void)
{
	for (unsigned int i = 0; i < VF_MAX_PORTS; i++)
		if (ports[i] && ports[i]->rx_offloads)
			return true;
	return false;
}

static int olq_wrap(struct vf_port *port)
{
	if (port->drv->tx_offloads || !any_rx_offloads())
		return 0;
	if (!port->olq) {
		port->olq = rte_zmalloc("vf_port_olq", sizeof(*port->olq) * VF_MAX_QUEUES,
					RTE_CACHE_LINE_SIZE);
		if (!port->olq)
			return -ENOMEM;
	}
	for (uint16_t q = 0; q < port->conf.nb_txq; q++) {
		port->olq[q].q = port->txq[q];
		port->olq[q].tx = port->tx_burst;
		port->txq[q] = &port->olq[q];
	}
	port->tx_burst = olq_tx;
	return 0;
}

int vf_port_start(struct vf_port *port)
{
	int ret;

	if (port->started)
		return 0;
	if (!port->configured)
		return -EINVAL;
	ret = port->drv->start(port);
	if (ret == 0 && olq_wrap(port) < 0) {
		port->drv->stop(port);
		ret = -ENOMEM;
	}
	if (ret == 0)
		port->started = true;
	return ret;
}

void vf_port_stop(struct vf_port *port)
{
	if (!port->started)
		return;
	port->drv->stop(port);
	port->rx_burst = vf_port_rx_none;
	port->tx_burst = vf_port_tx_none;
	port->started = false;
}

void vf_port_close(struct vf_port *port)
{
	if (!port)
		return;
	vf_port_stop(port);
	vf_port_registry_lock();
	if (port->id < VF_MAX_PORTS && ports[port->id] == port)
		ports[port->id] = NULL;
	vf_port_registry_unlock();
	port->drv->close(port);
	rte_free(port->olq);
	rte_free(port);
}

uint16_t vf_port_count(void)
{
	uint16_t n = 0;

	for (uint16_t i = 0; i < VF_MAX_PORTS; i++)
		if (ports[i])
			n = i + 1;
	return n;
}

struct vf_port *vf_port_get(uint16_t id)
{
	return id < VF_MAX_PORTS ? ports[id] : NULL;
}

void vf_port_link(struct vf_port *port, struct vf_link *link)
{
	memset(link, 0, sizeof(*link));
	if (port->drv->link_get)
		port->drv->link_get(port, link);
}

static void raw_stats(struct vf_port *port, struct vf_port_stats *st)
{
	memset(st, 0, sizeof(*st));
	port->drv->stats_get(port, st);
	if (port->olq)
		for (unsigned int q = 0; q < VF_MAX_QUEUES; q++) {
			const struct vf_ol_stats *o = &port->olq[q].ol.st;
			st->oerrors += o->sw_nombuf + o->sw_bad + o->sw_unsent;
		}
}

void vf_port_stats(struct vf_port *port, struct vf_port_stats *st)
{
	const uint64_t *b = (const uint64_t *)&port->stats_base;
	uint64_t *s = (uint64_t *)st;

	raw_stats(port, st);
	for (size_t i = 0; i < sizeof(*st) / sizeof(uint64_t); i++)
		s[i] -= b[i];
}

void vf_port_stats_reset(struct vf_port *port)
{
	/* Drivers' counters are single-writer on the forwarding cores, so a
	 * reset is a new baseline, never a write into their counters. */
	raw_stats(port, &port->stats_base);
}

/* The software offload path's counters, summed over the tx queues. */
static int olq_xstats(const struct vf_port *port, struct vf_xstat *xs, unsigned int n)
{
	static const char *const names[] = { "tx_sw_csum", "tx_sw_tso", "tx_sw_tso_segs",
					     "tx_sw_dropped_nombuf", "tx_sw_dropped_bad",
					     "tx_sw_dropped_ring_full" };
	uint64_t v[6] = { 0 };

	if (!port->olq)
		return 0;
	for (unsigned int q = 0; q < VF_MAX_QUEUES; q++) {
		const struct vf_ol_stats *o = &port->olq[q].ol.st;
		v[0] += o->sw_csum;
		v[1] += o->sw_tso;
		v[2] += o->sw_tso_segs;
		v[3] += o->sw_nombuf;
		v[4] += o->sw_bad;
		v[5] += o->sw_unsent;
	}
	for (unsigned int i = 0; i < 6 && i < n; i++) {
		snprintf(xs[i].name, sizeof(xs[i].name), "%s", names[i]);
		xs[i].value = v[i];
	}
	return 6;
}

int vf_port_xstats(struct vf_port *port, struct vf_xstat *xs, unsigned int n)
{
	int k = port->drv->xstats_get ? port->drv->xstats_get(port, xs, n) : 0;

	if (k < 0)
		return k;
	unsigned int used = (unsigned int)k < n ? (unsigned int)k : n;

	return k + olq_xstats(port, xs + used, n - used);
}

void vf_port_xstats_reset(struct vf_port *port)
{
	if (port->drv->xstats_reset)
		port->drv->xstats_reset(port);
	if (port->olq)
		for (unsigned int q = 0; q < VF_MAX_QUEUES; q++)
			memset(&port->olq[q].ol.st, 0, sizeof(port->olq[q].ol.st));
}

/* ---- the capture tap (capture.c sets it up and writes the file) ---- */

struct vf_port_tap vf_port_tap;


static inline void tap_put(struct rte_mbuf **c, unsigned int n)
{
	unsigned int k = n ? rte_ring_enqueue_burst(vf_port_tap.ring, (void **)c, n, NULL) : 0;

	if (k < n) {
		rte_pktmbuf_free_bulk(c + k, n - k);
		__atomic_fetch_add(&vf_port_tap.drops, n - k, __ATOMIC_RELAXED);
	}
}

/* Copies of pkts into c (NULL where no mbuf was left); the misses count. */
static unsigned int tap_copy(struct rte_mbuf **pkts, uint16_t n, struct rte_mbuf **c, uint8_t dir)
{
	uint64_t tsc = rte_get_tsc_cycles();
	unsigned int ok = 0;

	for (uint16_t i = 0; i < n; i++) {
		c[i] = rte_pktmbuf_copy(pkts[i], vf_port_tap.pool, 0, VF_PORT_TAP_SNAPLEN);
		if (!c[i])
			continue;
		*(struct vf_port_tap_meta *)rte_mbuf_to_priv(c[i]) = (struct vf_port_tap_meta){ tsc, dir };
		ok++;
	}
	if (ok < n)
		__atomic_fetch_add(&vf_port_tap.drops, n - ok, __ATOMIC_RELAXED);
	return ok;
}

/* Keeps the non-NULL entries of c[0..n), in order; returns their number. */
static unsigned int tap_compact(struct rte_mbuf **c, unsigned int n)
{
	unsigned int k = 0;

	for (unsigned int i = 0; i < n; i++)
		if (c[i])
			c[k++] = c[i];
	return k;
}

void vf_port_tap_rx(struct vf_port *p, struct rte_mbuf **pkts, uint16_t n)
{
	struct rte_mbuf *c[n];

	(void)p;
	tap_copy(pkts, n, c, VF_CAP_RX);
	tap_put(c, tap_compact(c, n));
}

uint16_t vf_port_tap_tx(struct vf_port *p, uint16_t q, struct rte_mbuf **pkts, uint16_t n)
{
	struct rte_mbuf *c[n ? n : 1];
	uint16_t sent;

	/* Copy before the driver owns them; keep the copies of what it took. */
	tap_copy(pkts, n, c, VF_CAP_TX);
	sent = p->tx_burst(p->txq[q], pkts, n);
	for (uint16_t i = sent; i < n; i++)
		if (c[i]) {
			rte_pktmbuf_free(c[i]);
			c[i] = NULL;
		}
	tap_put(c, tap_compact(c, sent));
	return sent;
}
