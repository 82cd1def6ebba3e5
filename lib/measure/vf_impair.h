/* Link impairment (the impair forwarding mode), free of DPDK: the spec
 * parser, the per-packet decisions (loss, duplication, reordering) and the
 * delay line (a fixed ring of (packet, release time) in FIFO order, fed
 * through an optional rate serializer).  Packets are opaque pointers and
 * time is in TSC cycles, so the unit tests play the forwarding core with
 * fake packets and a fake clock; mode_impair.c is the DPDK side. */
#ifndef VF_IMPAIR_H
#define VF_IMPAIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VF_IMPAIR_LIMIT_DEFAULT 65536u
#define VF_IMPAIR_LIMIT_MAX     (1u << 20)
#define VF_IMPAIR_TIME_MAX_NS   (60ull * 1000000000ull)	/* delay, jitter */
#define VF_IMPAIR_PPS_MAX       1000000000ull
#define VF_IMPAIR_BITS_MAX      1000000000000ull		/* 1 Tbit/s */

/* --impair / set impair: what the user asked for (0: off). */
struct vf_impair_spec {
	double loss, dup, reorder;	/* percent, 0..100 */
	uint64_t loss_every;		/* drop packets N, 2N, 3N... */
	uint64_t seed;
	uint64_t delay_ns, jitter_ns;
	uint64_t rate;			/* packets/s, or bits/s with rate_bits */
	bool rate_bits;
	uint32_t limit;			/* delay line capacity, 0: default */
};

/* Parses "key=value,..." (or "none") into sp, replacing what was there.
 * Returns 0, or -1 with one line in err naming the key and what is
 * accepted. */
int vf_impair_parse(const char *s, struct vf_impair_spec *sp, char *err, size_t errlen);
/* The canonical form ("none" when nothing is set), as parse accepts it. */
void vf_impair_format(const struct vf_impair_spec *sp, char *buf, size_t len);
/* The delay line is used (delay, jitter or rate set). */
bool vf_impair_uses_line(const struct vf_impair_spec *sp);
uint32_t vf_impair_limit(const struct vf_impair_spec *sp);

/* Exact per-stream ground truth.  After a stop (nothing held or queued):
 * rx + duplicated == tx + dropped_loss + dropped_overflow + flushed + tx_dropped. */
struct vf_impair_counters {
	uint64_t rx;			/* packets received */
	uint64_t tx;			/* packets the tx port took */
	uint64_t dropped_loss;		/* loss= and loss-every= */
	uint64_t dropped_overflow;	/* delay line full (limit=, or a rate backlog) */
	uint64_t duplicated;		/* copies made */
	uint64_t dup_failed;		/* copies not made: pool empty */
	uint64_t reordered;		/* packets released behind a later one */
	uint64_t delayed;		/* packets that entered the delay line */
	uint64_t flushed;		/* held or queued at stop, freed */
	uint64_t tx_dropped;		/* refused by the tx port, freed (no line) */
};
#define VF_IMPAIR_NB_COUNTERS (sizeof(struct vf_impair_counters) / sizeof(uint64_t))
/* JSON keys of the counters, in struct order. */
extern const char *const vf_impair_counter_names[];

struct vf_impair_ent {
	void *pkt;
	uint64_t t;			/* release time, TSC cycles */
};

/* Per-stream state; written by its forwarding core only. */
struct vf_impair {
	/* derived from the spec at init */
	uint64_t loss_thr, dup_thr, reorder_thr;	/* of 2^32 */
	uint64_t loss_every;
	uint64_t delay_cyc, jitter_cyc;
	uint64_t rate, hz;
	bool rate_bits, line_on;
	/* decisions */
	uint64_t prng_loss, prng_dup, prng_reorder, prng_jitter, seen;
	void *held[2];			/* reorder: a packet (and its copy) held */
	unsigned int nheld;
	/* the line */
	uint64_t rate_t, rate_rem;	/* serializer: busy until rate_t + rate_rem/rate */
	uint64_t last_release;
	uint32_t mask, limit, head, tail;
	struct vf_impair_ent *ring;	/* mask + 1 entries, given by the caller */
	struct vf_impair_counters c;
};

/* Ring entries init needs (a power of two >= the limit; 0 without a line). */
uint32_t vf_impair_ring_entries(const struct vf_impair_spec *sp);
/* ring: vf_impair_ring_entries() entries (or NULL when 0). hz: TSC rate. */
void vf_impair_init(struct vf_impair *im, const struct vf_impair_spec *sp, unsigned int stream_id,
		    uint64_t hz, struct vf_impair_ent *ring);

enum {
	VF_IMPAIR_LOSS = 1,
	VF_IMPAIR_DUP = 2,
	VF_IMPAIR_REORDER = 4,
};
/* The fate of the stream's next packet (a VF_IMPAIR_* mask): the same
 * sequence for the same seed, stream and spec. */
unsigned int vf_impair_decide(struct vf_impair *im);

struct vf_impair_ops {
	void *(*copy)(void *pkt, void *ctx);	/* NULL: no copy could be made */
	uint32_t (*len)(const void *pkt);	/* frame bytes, for bit rates */
	void *ctx;
};

/* Room vf_impair_input needs in out[] and drop[] for n packets. */
#define VF_IMPAIR_ROOM(n) (2 * (n) + 2)

/* Runs n received packets through loss, dup and reorder, into the delay
 * line (timed from now) or, without one, into out[].  Packets to free are
 * put in drop[] (*ndrop of them).  Returns the number put in out[]. */
unsigned int vf_impair_input(struct vf_impair *im, void **pkts, unsigned int n, uint64_t now,
			     const struct vf_impair_ops *ops, void **out, void **drop,
			     unsigned int *ndrop);
/* Up to max packets whose time has come, oldest first, left in the line. */
unsigned int vf_impair_due(const struct vf_impair *im, uint64_t now, void **out, unsigned int max);
/* The first k of those went out: take them from the line. */
void vf_impair_sent(struct vf_impair *im, unsigned int k);
/* Packets in the line now. */
static inline uint32_t vf_impair_queued(const struct vf_impair *im)
{
	return im->tail - im->head;
}
/* At stop: up to max held or queued packets into out, counted as flushed.
 * Call until it returns 0. */
unsigned int vf_impair_flush(struct vf_impair *im, void **out, unsigned int max);

/* mode_impair.c: the counters of a stream that runs (or ran) the impair
 * mode since the last clear, into c; false for any other stream. */
struct vf_stream;
bool vf_fwd_impair_counters(const struct vf_stream *fs, struct vf_impair_counters *c);

#endif
