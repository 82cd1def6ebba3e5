#include <stdlib.h>
#include <string.h>

#include "vf_fwd_mode.h"

static const struct vf_fwd_mode *const modes[] = {
	&vf_fwd_io, &vf_fwd_mac, &vf_fwd_macswap, &vf_fwd_rxonly,
	&vf_fwd_txonly, &vf_fwd_flowgen, &vf_fwd_icmpecho, &vf_fwd_5tswap, &vf_fwd_replay,
};

#define MAX_REGISTERED 8
static const struct vf_fwd_mode *registered[MAX_REGISTERED];
static unsigned int nb_registered;

void vf_fwd_mode_register(const struct vf_fwd_mode *mode)
{
	/* Called from constructors, before main: a full table is a build
	 * mistake, not a runtime condition. */
	if (nb_registered == MAX_REGISTERED)
		abort();
	registered[nb_registered++] = mode;
}

const struct vf_fwd_mode *vf_fwd_mode_at(unsigned int idx)
{
	if (idx < RTE_DIM(modes))
		return modes[idx];
	idx -= RTE_DIM(modes);
	return idx < nb_registered ? registered[idx] : NULL;
}

const struct vf_fwd_mode *vf_fwd_mode_find(const char *name)
{
	const struct vf_fwd_mode *m;

	for (unsigned int i = 0; (m = vf_fwd_mode_at(i)) != NULL; i++)
		if (!strcmp(m->name, name))
			return m;
	return NULL;
}
