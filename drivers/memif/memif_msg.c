/* memif control messages: one handler per type, chosen from a table that
 * also says which side may receive it and whether it carries an fd.  The
 * handler never touches the socket: replies are queued on the connection
 * and memif_socket.c sends exactly one queued message per message received
 * (the protocol is lock-step).  Every error sets a reason that goes to the
 * peer in DISCONNECT. */
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_version.h>

#include "memif.h"
#include "vf_log.h"

/* The name a peer shows for us (VPP's "show memif", our peer_name): the
 * tool's own, so that an operator tells nullgen from memifctl or vfwd. */
#define APP_NAME program_invocation_short_name

static int fail(struct memif_conn *c, const char *reason)
{
	snprintf(c->reason, sizeof(c->reason), "%s", reason);
	if (c->mif)
		c->mif->ctl_rejects++;
	return -1;
}

static struct memif_txmsg *txq_push(struct memif_conn *c, uint16_t type)
{
	struct memif_txmsg *t;

	if (c->tx_count == MEMIF_TXQ_LEN)
		return NULL;	/* cannot happen: sized for the largest set-up */
	t = &c->txq[(c->tx_head + c->tx_count++) % MEMIF_TXQ_LEN];
	memset(t, 0, sizeof(*t));
	t->msg.type = type;
	t->fd = -1;
	return t;
}

/* Copies a peer string field into a NUL-terminated buffer. */
static void copy_name(char *dst, size_t dlen, const uint8_t *src, size_t slen)
{
	size_t n = strnlen((const char *)src, slen);

	if (n >= dlen)
		n = dlen - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
	/* Keep logs and JSON printable whatever the peer sent. */
	for (size_t i = 0; i < n; i++)
		if (dst[i] < 0x20 || dst[i] > 0x7e)
			dst[i] = '?';
}

void memif_msg_queue_hello(struct memif_conn *c)
{
	struct memif_txmsg *t = txq_push(c, MEMIF_MSG_HELLO);
	struct memif_msg_hello *h;

	if (t == NULL)
		return;
	h = &t->msg.hello;

	snprintf((char *)h->name, sizeof(h->name), "%s", APP_NAME);
	h->min_version = MEMIF_VERSION;
	h->max_version = MEMIF_VERSION;
	h->max_region = MEMIF_MAX_REGION;
	h->max_s2c_ring = MEMIF_MAX_QUEUES - 1;
	h->max_c2s_ring = MEMIF_MAX_QUEUES - 1;
	h->max_log2_ring_size = MEMIF_MAX_LOG2_RING;
}

void memif_msg_init_disconnect(struct memif_msg *m, const char *reason)
{
	memset(m, 0, sizeof(*m));
	m->type = MEMIF_MSG_DISCONNECT;
	snprintf((char *)m->disconnect.string, sizeof(m->disconnect.string), "%s", reason);
}

static void queue_ack(struct memif_conn *c)
{
	txq_push(c, MEMIF_MSG_ACK);
}

bool memif_secret_equal(const char *ours, const uint8_t theirs[MEMIF_SECRET_SZ])
{
	uint8_t a[MEMIF_SECRET_SZ] = { 0 }, b[MEMIF_SECRET_SZ] = { 0 };
	volatile uint8_t diff = 0;
	bool end = false;

	/* Both as strings padded with NULs to the field size (DPDK compares
	 * with strncmp: bytes after the peer's NUL do not count).  Padding
	 * the peer's copy depends on its bytes only; the comparison then
	 * touches every byte whatever matches. */
	for (size_t i = 0; i < MEMIF_SECRET_SZ; i++) {
		end |= theirs[i] == 0;
		b[i] = end ? 0 : theirs[i];
	}
	memcpy(a, ours, strnlen(ours, MEMIF_SECRET_SZ));
	for (size_t i = 0; i < MEMIF_SECRET_SZ; i++)
		diff |= a[i] ^ b[i];
	return diff == 0;
}

/* ---- server side ---- */

/* The interface with this id attached to the listener s (memif_sock_attach),
 * or NULL.  Here, not in memif_socket.c: it reads the listener's table, not
 * its socket, and memif_socket.c calls this file, never the other way. */
static struct memif_if *sock_find(const struct memif_sock *s, uint32_t id)
{
	if (s == NULL)
		return NULL;
	for (unsigned int i = 0; i < VF_MAX_PORTS; i++)
		if (s->ifs[i] != NULL && s->ifs[i]->cfg.id == id)
			return s->ifs[i];
	return NULL;
}

static int on_init(struct memif_conn *c, const struct memif_msg *m, int fd)
{
	const struct memif_msg_init *in = &m->init;
	struct memif_if *mif;

	if (in->version != MEMIF_VERSION)
		return fail(c, "Incompatible memif version");
	mif = sock_find(c->sock, in->id);
	if (mif == NULL || !mif->enabled)
		return fail(c, "ID not found");
	c->asked = mif;
	if (in->mode != MEMIF_MODE_ETHERNET)
		return fail(c, "Only ethernet mode supported");
	/* A missing secret and a wrong one get the same answer. */
	if (mif->cfg.secret[0] != '\0' && !memif_secret_equal(mif->cfg.secret, in->secret)) {
		/* counted on the interface asked for: a peer guessing is seen */
		mif->ctl_rejects++;
		return fail(c, "Incorrect secret");
	}
	if (mif->conn != NULL &&
	    __atomic_load_n(&mif->state, __ATOMIC_ACQUIRE) == MEMIF_ST_CONNECTED) {
		/* The connected session is untouched; only this one goes. */
		mif->ctl_rejects++;
		return fail(c, "Already connected");
	}
	if (mif->conn != NULL) {
		/* No lock-out: a handshake that has not finished (a peer that
		 * sent INIT and stopped) gives way to a new client that passed
		 * the same id and secret checks. */
		mif->ctl_preempted++;
		if (vf_access_log_due(mif->ctl_preempted))
			VF_WARN("memif %s: handshake unfinished; preempted by a new connection "
				"(%" PRIu64 " so far)", mif->cfg.if_name, mif->ctl_preempted);
		/* through the connection's own drop: memif_socket.c calls us */
		mif->conn->drop(mif->conn, "Preempted by a new connection");
	}
	c->mif = mif;
	mif->conn = c;
	__atomic_store_n(&mif->state, MEMIF_ST_HANDSHAKE, __ATOMIC_RELEASE);
	mif->nregions = 0;
	mif->n_c2s = mif->n_s2c = 0;
	copy_name(mif->peer_name, sizeof(mif->peer_name), in->name, sizeof(in->name));
	mif->peer = c->peer;
	memif_if_peer_event(mif, VF_EV_PEER_CONNECTED, &c->peer, NULL);
	c->phase = MEMIF_PH_SETUP;
	queue_ack(c);
	return 0;
}

static int on_add_region(struct memif_conn *c, const struct memif_msg *m, int fd)
{
	const struct memif_msg_add_region *ar = &m->add_region;
	struct memif_if *mif = c->mif;
	struct memif_region *r;
	struct stat st;

	if (fd < 0)
		return fail(c, "Missing region fd");
	if (ar->index != mif->nregions)
		return fail(c, "Invalid region index");
	if (ar->index > MEMIF_MAX_REGION)
		return fail(c, "Too many regions");
	if (ar->size == 0 || ar->size > MEMIF_REGION_MAX_BYTES)
		return fail(c, "Invalid region size");
	/* A file shorter than the region would SIGBUS on access. */
	if (fstat(fd, &st) < 0 || (uint64_t)st.st_size < ar->size)
		return fail(c, "Region larger than its file");
	/* DPDK and libmemif seal their memfds against shrinking; a region
	 * that can shrink under our mapping would SIGBUS a forwarding core.
	 * Accepted (other peers may not seal), said once per connection. */
	if (!(fcntl(fd, F_GET_SEALS) > 0 && (fcntl(fd, F_GET_SEALS) & F_SEAL_SHRINK)))
		VF_LOG_ONCE(c->log_unsealed, VF_LOG_WARN,
			    "memif %s: region %u is not sealed against shrinking (F_SEAL_SHRINK)",
			    mif->cfg.if_name, ar->index);
	r = &mif->regions[mif->nregions++];
	r->addr = NULL;
	r->size = ar->size;
	r->fd = fd;
	r->owned = false;
	r->borrowed = false;
	queue_ack(c);
	return 0;
}

static int on_add_ring(struct memif_conn *c, const struct memif_msg *m, int fd)
{
	const struct memif_msg_add_ring *ar = &m->add_ring;
	struct memif_if *mif = c->mif;
	bool c2s = ar->flags & MEMIF_RING_FLAG_C2S;
	uint16_t *count = c2s ? &mif->n_c2s : &mif->n_s2c;
	/* Our rx queues consume C2S rings, our tx queues fill S2C rings. */
	uint16_t limit = c2s ? mif->nb_rxq : mif->nb_txq;
	struct memif_ringinfo *ri;
	uint64_t end;

	if (fd < 0)
		return fail(c, "Missing interrupt fd");
	if (ar->index != *count || ar->index >= limit)
		return fail(c, "Invalid ring index");
	if (ar->region >= mif->nregions)
		return fail(c, "Invalid region index");
	if (ar->log2_ring_size == 0 || ar->log2_ring_size > MEMIF_MAX_LOG2_RING)
		return fail(c, "Invalid ring size");
	if (ar->private_hdr_size != 0)
		return fail(c, "Private headers not supported");
	end = (uint64_t)ar->offset + memif_ring_bytes(ar->log2_ring_size);
	if (end > mif->regions[ar->region].size || (ar->offset & 63) != 0)
		return fail(c, "Ring outside region");
	ri = c2s ? &mif->c2s[ar->index] : &mif->s2c[ar->index];
	ri->region = ar->region;
	ri->offset = ar->offset;
	ri->log2 = ar->log2_ring_size;
	ri->fd = fd;
	(*count)++;
	queue_ack(c);
	return 0;
}

static int on_connect(struct memif_conn *c, const struct memif_msg *m, int fd)
{
	struct memif_if *mif = c->mif;
	struct memif_txmsg *t;

	if (mif->n_c2s == 0 || mif->n_s2c == 0)
		return fail(c, "No rings");
	if (memif_if_map_peer(mif, c->reason, sizeof(c->reason)) < 0) {
		mif->ctl_rejects++;
		return -1;
	}
	copy_name(mif->peer_if, sizeof(mif->peer_if), m->connect.if_name,
		  sizeof(m->connect.if_name));
	mif->run_c2s = mif->n_c2s;
	mif->run_s2c = mif->n_s2c;
	mif->run_log2 = mif->c2s[0].log2;
	t = txq_push(c, MEMIF_MSG_CONNECTED);
	if (t == NULL)
		return fail(c, "Device error");
	snprintf((char *)t->msg.connected.if_name, sizeof(t->msg.connected.if_name),
		 "%s", mif->cfg.if_name);
	c->phase = MEMIF_PH_CONNECTED;
	memif_if_connected(mif);
	return 0;
}

/* ---- client side ---- */

static int on_hello(struct memif_conn *c, const struct memif_msg *m, int fd)
{
	const struct memif_msg_hello *h = &m->hello;
	struct memif_if *mif = c->mif;
	struct memif_txmsg *t;
	uint16_t i;

	if (h->min_version > MEMIF_VERSION || h->max_version < MEMIF_VERSION)
		return fail(c, "Incompatible memif version");
	copy_name(mif->peer_name, sizeof(mif->peer_name), h->name, sizeof(h->name));
	/* We choose the counts: ours, capped by what the server accepts. */
	mif->run_c2s = RTE_MIN((uint32_t)mif->nb_txq, (uint32_t)h->max_c2s_ring + 1);
	mif->run_s2c = RTE_MIN((uint32_t)mif->nb_rxq, (uint32_t)h->max_s2c_ring + 1);
	mif->run_log2 = RTE_MIN(mif->cfg.log2, h->max_log2_ring_size);
	if (mif->run_log2 == 0)
		return fail(c, "Invalid ring size");
	if (memif_if_build_regions(mif) < 0)
		return fail(c, "Device error");
	if (mif->nregions > (uint32_t)h->max_region + 1)
		return fail(c, "Too many regions");

	/* INIT, regions, rings, CONNECT must all fit the queue. */
	if (c->tx_count + 2u + mif->nregions + mif->run_c2s + mif->run_s2c > MEMIF_TXQ_LEN)
		return fail(c, "Device error");
	t = txq_push(c, MEMIF_MSG_INIT);
	t->wants_ack = true;
	t->msg.init.version = MEMIF_VERSION;
	t->msg.init.id = mif->cfg.id;
	t->msg.init.mode = MEMIF_MODE_ETHERNET;
	memcpy(t->msg.init.secret, mif->cfg.secret,
	       strnlen(mif->cfg.secret, MEMIF_SECRET_SZ));
	snprintf((char *)t->msg.init.name, sizeof(t->msg.init.name), "%s", APP_NAME);
	for (i = 0; i < mif->nregions; i++) {
		t = txq_push(c, MEMIF_MSG_ADD_REGION);
		t->wants_ack = true;
		t->msg.add_region.index = i;
		t->msg.add_region.size = mif->regions[i].size;
		t->fd = mif->regions[i].fd;
	}
	for (i = 0; i < mif->run_c2s + mif->run_s2c; i++) {
		bool c2s = i < mif->run_c2s;
		uint16_t idx = c2s ? i : i - mif->run_c2s;
		const struct memif_ringinfo *ri = c2s ? &mif->c2s[idx] : &mif->s2c[idx];

		t = txq_push(c, MEMIF_MSG_ADD_RING);
		t->wants_ack = true;
		t->msg.add_ring.flags = c2s ? MEMIF_RING_FLAG_C2S : 0;
		t->msg.add_ring.index = idx;
		t->msg.add_ring.region = ri->region;
		t->msg.add_ring.offset = ri->offset;
		t->msg.add_ring.log2_ring_size = ri->log2;
		t->fd = ri->fd;
	}
	t = txq_push(c, MEMIF_MSG_CONNECT);
	snprintf((char *)t->msg.connect.if_name, sizeof(t->msg.connect.if_name),
		 "%s", mif->cfg.if_name);
	c->phase = MEMIF_PH_SETUP;
	__atomic_store_n(&mif->state, MEMIF_ST_HANDSHAKE, __ATOMIC_RELEASE);
	return 0;
}

static int on_ack(struct memif_conn *c, const struct memif_msg *m, int fd)
{
	if (c->acks_due == 0)
		return fail(c, "Unexpected message");
	c->acks_due--;
	return 0;
}

static int on_connected(struct memif_conn *c, const struct memif_msg *m, int fd)
{
	struct memif_if *mif = c->mif;

	/* Only after our CONNECT went out and every ACK came back. */
	if (c->tx_count != 0 || c->acks_due != 0)
		return fail(c, "Unexpected message");
	copy_name(mif->peer_if, sizeof(mif->peer_if), m->connected.if_name,
		  sizeof(m->connected.if_name));
	c->phase = MEMIF_PH_CONNECTED;
	memif_if_connected(mif);
	return 0;
}

static int on_disconnect(struct memif_conn *c, const struct memif_msg *m, int fd)
{
	char peer[MEMIF_REASON_SZ + 1];

	copy_name(peer, sizeof(peer), m->disconnect.string, sizeof(m->disconnect.string));
	snprintf(c->reason, sizeof(c->reason), "peer: %.80s", peer);
	/* Do not answer a DISCONNECT with one. */
	c->reason[MEMIF_REASON_SZ] = '\0';
	return -2;
}

/* Which side may receive a type, in which phases, with an fd or not. */
#define SRV 1
#define CLI 2
#define PH(p) (1u << (p))

static const struct {
	int (*fn)(struct memif_conn *c, const struct memif_msg *m, int fd);
	uint8_t side;
	uint8_t phases;
	bool fd;
} handlers[MEMIF_MSG_TYPE_MAX + 1] = {
	[MEMIF_MSG_ACK] = { on_ack, CLI, PH(MEMIF_PH_SETUP) | PH(MEMIF_PH_CONNECT), false },
	[MEMIF_MSG_HELLO] = { on_hello, CLI, PH(MEMIF_PH_HELLO), false },
	[MEMIF_MSG_INIT] = { on_init, SRV, PH(MEMIF_PH_INIT), false },
	[MEMIF_MSG_ADD_REGION] = { on_add_region, SRV, PH(MEMIF_PH_SETUP), true },
	[MEMIF_MSG_ADD_RING] = { on_add_ring, SRV, PH(MEMIF_PH_SETUP), true },
	[MEMIF_MSG_CONNECT] = { on_connect, SRV, PH(MEMIF_PH_SETUP), false },
	[MEMIF_MSG_CONNECTED] = { on_connected, CLI, PH(MEMIF_PH_SETUP) | PH(MEMIF_PH_CONNECT), false },
	[MEMIF_MSG_DISCONNECT] = { on_disconnect, SRV | CLI, 0xff, false },
};

int memif_msg_handle(struct memif_conn *c, const void *buf, size_t len, int fd)
{
	struct memif_msg m;
	int ret;

	if (len != sizeof(m)) {
		ret = fail(c, "Invalid message size");
		goto close_fd;
	}
	memcpy(&m, buf, sizeof(m));	/* single fetch, aligned copy */
	if (m.type == MEMIF_MSG_NONE || m.type > MEMIF_MSG_TYPE_MAX) {
		ret = fail(c, "Unknown message type");
		goto close_fd;
	}
	if (!(handlers[m.type].side & (c->server ? SRV : CLI)) ||
	    !(handlers[m.type].phases & PH(c->phase))) {
		ret = fail(c, "Unexpected message");
		goto close_fd;
	}
	if (fd >= 0 && !handlers[m.type].fd) {
		ret = fail(c, "Unexpected fd");
		goto close_fd;
	}
	ret = handlers[m.type].fn(c, &m, fd);
	if (ret == 0 || !handlers[m.type].fd)
		return ret;
	/* A handler that takes an fd keeps it only on success. */
close_fd:
	if (fd >= 0)
		close(fd);
	return ret;
}
