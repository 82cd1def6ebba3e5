/* The measuring modes join the forwarding engine's table (fwd/ knows
 * nothing of measure/: the modes register, as drivers do), in the order
 * help and completion list them. */
#include "vf_fwd.h"
#include "vf_meas.h"

static void __attribute__((constructor)) register_modes(void)
{
	vf_fwd_mode_register(&vf_fwd_measure);
	vf_fwd_mode_register(&vf_fwd_impair);
}
