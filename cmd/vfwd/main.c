/* vfwd: the general forwarder (testpmd's job) over ports of any driver. */
#include "vf_app.h"

static const struct vf_tool vfwd_tool = {
	.name = "vfwd",
	.summary = "Forward packets between ports of any driver (null, virtio_user, vhost, memif, dpdk:).",
	.default_mode = "io",
};

int main(int argc, char **argv)
{
	return vf_app_main(&vfwd_tool, argc, argv);
}
