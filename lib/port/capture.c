/* pcapng capture: copies on the forwarding cores, a writer thread for the
 * file (see vf_capture.h).  The file: a section header, one interface
 * (the port: its name, a description, nanosecond timestamps), then one
 * enhanced packet block per packet with its direction in epb_flags.
 *
 * Not DPDK's rte_pcapng: in 22.11 it writes interface blocks only for
 * ethdevs (rte_pcapng_fdopen walks them; there is no add_interface before
 * 23.03) and checks rte_eth_dev_is_valid_port, while our ports are not
 * ethdevs; its API is experimental too.  The blocks we need are few. */
#include "vf_capture.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include "vf_port.h"
#include "vf_sync.h"

#define RING_SIZE 2048
#define POOL_SIZE (2 * RING_SIZE - 1)

static pthread_t writer;
static volatile bool writer_stop;
static FILE *file;
static struct vf_port *cap_port;
static struct vf_capture_stats st;
static bool ever;
static uint64_t t0_ns, tsc0, hz;

/* ---- the file ---- */

static size_t opt(uint8_t *b, uint16_t code, const void *v, uint16_t len)
{
	size_t pad = (4 - (len & 3)) & 3;

	memcpy(b, &code, 2);
	memcpy(b + 2, &len, 2);
	if (len)
		memcpy(b + 4, v, len);
	memset(b + 4 + len, 0, pad);
	return 4 + len + pad;
}

/* Finishes a block of n bytes so far (type and length first, the length
 * again last) and writes it. */
static int block(uint8_t *b, size_t n, uint32_t type)
{
	uint32_t len = (uint32_t)n + 4;

	memcpy(b, &type, 4);
	memcpy(b + 4, &len, 4);
	memcpy(b + n, &len, 4);
	return fwrite(b, len, 1, file) == 1 ? 0 : -EIO;
}

static int write_headers(const struct vf_port *p, const char *appname)
{
	uint8_t b[1024];
	size_t n;
	uint32_t bom = 0x1A2B3C4D;
	uint16_t ver[2] = { 1, 0 };
	int64_t seclen = -1;
	uint16_t link[2] = { 1 /* LINKTYPE_ETHERNET */, 0 };
	uint32_t snap = VF_PORT_TAP_SNAPLEN;
	uint8_t tsres = 9;	/* nanoseconds */
	char desc[160];
	int ret;

	n = 8;
	memcpy(b + n, &bom, 4);
	memcpy(b + n + 4, ver, 4);
	memcpy(b + n + 8, &seclen, 8);
	n += 16;
	n += opt(b + n, 4 /* shb_userappl */, appname, (uint16_t)strlen(appname));
	n += opt(b + n, 0, NULL, 0);
	ret = block(b, n, 0x0A0D0D0A);
	if (ret)
		return ret;
	n = 8;
	memcpy(b + n, link, 4);
	memcpy(b + n + 4, &snap, 4);
	n += 8;
	n += opt(b + n, 2 /* if_name */, p->name, (uint16_t)strlen(p->name));
	snprintf(desc, sizeof(desc), "port %u, driver %s", p->id, p->drv->name);
	n += opt(b + n, 3 /* if_description */, desc, (uint16_t)strlen(desc));
	n += opt(b + n, 9 /* if_tsresol */, &tsres, 1);
	n += opt(b + n, 0, NULL, 0);
	return block(b, n, 1);
}

static int write_packet(struct rte_mbuf *m, uint8_t *b)
{
	const struct vf_port_tap_meta *meta = rte_mbuf_to_priv(m);
	uint32_t caplen = rte_pktmbuf_pkt_len(m), flags = meta->dir == VF_CAP_RX ? 1 : 2;
	uint64_t ts = t0_ns + (uint64_t)((__uint128_t)(meta->tsc - tsc0) * 1000000000u / hz);
	uint32_t w[5] = { 0, (uint32_t)(ts >> 32), (uint32_t)ts, caplen, caplen };
	size_t n = 8, off = 0;

	if (caplen > VF_PORT_TAP_SNAPLEN)
		w[3] = caplen = VF_PORT_TAP_SNAPLEN;
	memcpy(b + n, w, sizeof(w));
	n += sizeof(w);
	for (const struct rte_mbuf *s = m; s && off < caplen; s = s->next) {
		uint32_t k = s->data_len < caplen - off ? s->data_len : caplen - (uint32_t)off;

		memcpy(b + n + off, rte_pktmbuf_mtod(s, const void *), k);
		off += k;
	}
	n += caplen;
	while (n & 3)
		b[n++] = 0;
	n += opt(b + n, 2 /* epb_flags: direction */, &flags, 4);
	n += opt(b + n, 0, NULL, 0);
	return block(b, n, 6);
}

static void *writer_main(void *arg)
{
	static uint8_t b[VF_PORT_TAP_SNAPLEN + 128];
	struct rte_mbuf *m[64];

	(void)arg;
	for (;;) {
		unsigned int n = rte_ring_dequeue_burst(vf_port_tap.ring, (void **)m, 64, NULL);

		for (unsigned int i = 0; i < n; i++) {
			if (st.count && st.written >= st.count) {
				/* past the count: the cores stop at their next burst */
				cap_port->capture = 0;
			} else if (write_packet(m[i], b)) {
				__atomic_fetch_add(&vf_port_tap.drops, 1, __ATOMIC_RELAXED);
			} else {
				__atomic_fetch_add(&st.written, 1, __ATOMIC_RELAXED);
				if (st.count && st.written >= st.count)
					cap_port->capture = 0;
			}
			rte_pktmbuf_free(m[i]);
		}
		if (n)
			continue;
		fflush(file);
		if (writer_stop)
			break;
		nanosleep(&(struct timespec){ 0, 1000 * 1000 }, NULL);
	}
	return NULL;
}

/* ---- control ---- */

int vf_capture_start(uint16_t port, unsigned int dirs, const char *path, uint64_t count,
		     char *err, size_t errlen)
{
	struct vf_port *p = vf_port_get(port);
	struct timespec ts;
	char app[64];

	if (!p) {
		snprintf(err, errlen, "no port '%u'", port);
		return -1;
	}
	if (st.running) {
		snprintf(err, errlen, "a capture of port %u runs: capture stop first", st.port);
		return -1;
	}
	if (!vf_port_tap.ring) {
		vf_port_tap.ring = rte_ring_create("vf_capture", RING_SIZE, SOCKET_ID_ANY, RING_F_SC_DEQ);
		vf_port_tap.pool = rte_pktmbuf_pool_create("vf_capture", POOL_SIZE, 0,
					       sizeof(struct vf_port_tap_meta), RTE_MBUF_DEFAULT_BUF_SIZE,
					       SOCKET_ID_ANY);
		if (!vf_port_tap.ring || !vf_port_tap.pool) {
			snprintf(err, errlen, "cannot create the capture ring and pool: out of memory");
			rte_ring_free(vf_port_tap.ring);
			rte_mempool_free(vf_port_tap.pool);
			vf_port_tap.ring = NULL;
			vf_port_tap.pool = NULL;
			return -1;
		}
	}
	file = fopen(path, "wb");
	if (!file) {
		snprintf(err, errlen, "cannot open capture file '%s': %s", path, strerror(errno));
		return -1;
	}
	snprintf(app, sizeof(app), "vfwd suite %s", VF_VERSION);
	if (write_headers(p, app)) {
		snprintf(err, errlen, "cannot write capture file '%s'", path);
		fclose(file);
		file = NULL;
		return -1;
	}
	memset(&st, 0, sizeof(st));
	st.port = port;
	st.dirs = dirs;
	st.count = count;
	snprintf(st.path, sizeof(st.path), "%s", path);
	vf_port_tap.drops = 0;
	clock_gettime(CLOCK_REALTIME, &ts);
	tsc0 = rte_get_tsc_cycles();
	hz = rte_get_tsc_hz();
	t0_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	writer_stop = false;
	if (pthread_create(&writer, NULL, writer_main, NULL)) {
		snprintf(err, errlen, "cannot start the capture writer");
		fclose(file);
		file = NULL;
		return -1;
	}
	cap_port = p;
	st.running = true;
	ever = true;
	p->capture = (uint8_t)dirs;
	return 0;
}

int vf_capture_stop(struct vf_capture_stats *out)
{
	if (!st.running)
		return -1;
	cap_port->capture = 0;
	vf_sync_wait();		/* no core is still in a burst that copies */
	writer_stop = true;
	pthread_join(writer, NULL);
	fclose(file);
	file = NULL;
	st.running = false;
	st.dropped = __atomic_load_n(&vf_port_tap.drops, __ATOMIC_RELAXED);
	cap_port = NULL;
	if (out)
		*out = st;
	return 0;
}

bool vf_capture_stats(struct vf_capture_stats *out)
{
	if (!ever)
		return false;
	*out = st;
	out->written = __atomic_load_n(&st.written, __ATOMIC_RELAXED);
	out->dropped = __atomic_load_n(&vf_port_tap.drops, __ATOMIC_RELAXED);
	return true;
}

void vf_capture_port_closed(uint16_t id)
{
	if (st.running && st.port == id)
		vf_capture_stop(NULL);
}

int vf_capture_parse(const char *arg, uint16_t *port, unsigned int *dirs, char *path,
		     size_t pathlen, char *err, size_t errlen)
{
	const char *c1 = strchr(arg, ':'), *rest;
	char *end;
	unsigned long id = strtoul(arg, &end, 10);

	if (!c1 || end != c1 || c1 == arg || id >= VF_MAX_PORTS) {
		snprintf(err, errlen, "bad --capture '%s': expected PORT[:rx|tx|both]:FILE", arg);
		return -1;
	}
	rest = c1 + 1;
	*dirs = VF_CAP_RX | VF_CAP_TX;
	if (!strncmp(rest, "rx:", 3) || !strncmp(rest, "tx:", 3) || !strncmp(rest, "both:", 5)) {
		*dirs = rest[0] == 'r' ? VF_CAP_RX : rest[0] == 't' ? VF_CAP_TX : VF_CAP_RX | VF_CAP_TX;
		rest = strchr(rest, ':') + 1;
	}
	if (!*rest || strlen(rest) >= pathlen) {
		snprintf(err, errlen, "bad --capture '%s': expected PORT[:rx|tx|both]:FILE", arg);
		return -1;
	}
	*port = (uint16_t)id;
	snprintf(path, pathlen, "%s", rest);
	return 0;
}
