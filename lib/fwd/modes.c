#include <string.h>

#include "fwd_priv.h"

static const struct vf_fwd_mode *const modes[] = {
	&vf_fwd_io, &vf_fwd_mac, &vf_fwd_macswap, &vf_fwd_rxonly,
	&vf_fwd_txonly, &vf_fwd_flowgen, &vf_fwd_icmpecho, &vf_fwd_5tswap, &vf_fwd_measure,
	&vf_fwd_impair,
};

const struct vf_fwd_mode *vf_fwd_mode_find(const char *name)
{
	for (unsigned int i = 0; i < RTE_DIM(modes); i++)
		if (!strcmp(modes[i]->name, name))
			return modes[i];
	return NULL;
}

const struct vf_fwd_mode *vf_fwd_mode_at(unsigned int idx)
{
	return idx < RTE_DIM(modes) ? modes[idx] : NULL;
}
