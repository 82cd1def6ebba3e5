/* Registers the /vfwd/... commands on DPDK's telemetry socket. */
#ifndef VF_TELEMETRY_H
#define VF_TELEMETRY_H

void vf_telemetry_register(void);

#endif
