/* Idle streams polled less often on a core that holds many: vf_fwd_park.h.
 * The order array is the core's own (made when it takes a plan, dropped
 * with the plan), so moving a stream between the active and the parked
 * part is a swap of two indices, without any lock or atomic. */
#include "vf_fwd_park.h"

#include <stdlib.h>

#include "vf_fwd_mode.h"

int vf_fwd_park_init(struct vf_fwd_park *pk, unsigned int n, const struct vf_fwd_mode *mode)
{
	*pk = (struct vf_fwd_park){ .n = n, .active = n };
	if (n <= VF_FWD_PARK_MIN || n > VF_MAX_STREAMS || !mode->sleeps)
		return -1;
	pk->order = malloc(n * sizeof(*pk->order));
	pk->idle = calloc(n, sizeof(*pk->idle));
	if (!pk->order || !pk->idle) {
		vf_fwd_park_fini(pk);
		return -1;
	}
	for (unsigned int i = 0; i < n; i++)
		pk->order[i] = (uint16_t)i;
	pk->cursor = n;
	return 0;
}

void vf_fwd_park_fini(struct vf_fwd_park *pk)
{
	free(pk->order);
	free(pk->idle);
	pk->order = pk->idle = NULL;
}

/* Polls fs[i]; returns what it received. */
static inline uint64_t poll_one(struct vf_stream *s, const struct vf_fwd_mode *mode)
{
	uint64_t before = vf_ctr_read(s->rx_packets);

	mode->fwd(s);
	return vf_ctr_read(s->rx_packets) - before;
}

static inline void swap(uint16_t *o, unsigned int a, unsigned int b)
{
	uint16_t t = o[a];

	o[a] = o[b];
	o[b] = t;
}

uint64_t vf_fwd_park_pass(struct vf_fwd_park *pk, struct vf_stream *const *fs,
			  const struct vf_fwd_mode *mode)
{
	uint64_t got = 0;
	unsigned int j = 0, k;

	/* The active ones.  One that parks swaps with the last active one,
	 * which has not been polled this pass yet: j stays. */
	while (j < pk->active) {
		unsigned int i = pk->order[j];
		uint64_t r = poll_one(fs[i], mode);

		if (r) {
			got += r;
			pk->idle[i] = 0;
			j++;
		} else if (++pk->idle[i] < VF_FWD_PARK_AFTER) {
			j++;
		} else {
			swap(pk->order, j, --pk->active);
		}
	}
	/* A share of the parked ones, in turn: each every VF_FWD_PARK_EVERY
	 * passes at most.  One that received goes to the active part; the
	 * parked one that took its place is polled in a later turn. */
	k = (pk->n - pk->active + VF_FWD_PARK_EVERY - 1) / VF_FWD_PARK_EVERY;
	while (k-- && pk->active < pk->n) {
		unsigned int i, c = pk->cursor;
		uint64_t r;

		if (c < pk->active || c >= pk->n)
			c = pk->active;
		i = pk->order[c];
		r = poll_one(fs[i], mode);
		pk->cursor = c + 1;
		if (r) {
			got += r;
			pk->idle[i] = 0;
			swap(pk->order, c, pk->active++);
		}
	}
	return got;
}
