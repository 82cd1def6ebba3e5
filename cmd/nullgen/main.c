/* nullgen: traffic generator and sink; with no ports, two null ports in io
 * mode measure the raw speed of the framework. */
#include "vf_app.h"

static const struct vf_tool nullgen_tool = {
	.name = "nullgen",
	.summary = "Measure a device under test (--fwd measure: loss, reordering, latency; "
		   "--search: NDR/PDR),\n"
		   "generate (--fwd txonly/flowgen, --rate PPS) or sink (--fwd rxonly) traffic;\n"
		   "with no --port, forward between two null ports.",
	.default_mode = "io",
	.default_null_ports = 2,
};

int main(int argc, char **argv)
{
	return vf_app_main(&nullgen_tool, argc, argv);
}
