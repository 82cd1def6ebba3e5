/* Our ports and streams on DPDK's telemetry socket (they are not ethdevs, so
 * /ethdev/... does not see them):  /vfwd/ports, /vfwd/port_stats,ID and
 * /vfwd/fwd_stats, with the same counter names as /ethdev/stats. */
#include <stdlib.h>
#include <string.h>

#include <rte_telemetry.h>

#include "vf_fwd.h"
#include "vf_port.h"
#include "vf_stats.h"
#include "vf_telemetry.h"

static int tel_ports(const char *cmd, const char *params, struct rte_tel_data *d)
{
	rte_tel_data_start_array(d, RTE_TEL_INT_VAL);
	vf_port_registry_lock();
	for (uint16_t i = 0; i < vf_port_count(); i++)
		if (vf_port_get(i))
			rte_tel_data_add_array_int(d, i);
	vf_port_registry_unlock();
	return 0;
}

static int tel_port_stats(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct vf_port_stats st;
	struct vf_link link;
	struct vf_port *p;
	char *end;
	unsigned long id;

	if (!params || !*params)
		return -1;
	id = strtoul(params, &end, 10);
	if (*end || id >= VF_MAX_PORTS)
		return -1;
	vf_port_registry_lock();
	p = vf_port_get((uint16_t)id);
	if (!p) {
		vf_port_registry_unlock();
		return -1;
	}
	vf_port_stats(p, &st);
	vf_port_link(p, &link);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "name", p->name);
	rte_tel_data_add_dict_string(d, "driver", p->drv->name);
	rte_tel_data_add_dict_string(d, "link", link.up ? "up" : "down");
	for (unsigned int i = 0; i < vf_port_stat_count; i++)
		rte_tel_data_add_dict_u64(d, vf_port_stat_descs[i].name,
					  *(const uint64_t *)((const char *)&st + vf_port_stat_descs[i].offset));
	vf_port_registry_unlock();
	return 0;
}

static int tel_fwd_stats(const char *cmd, const char *params, struct rte_tel_data *d)
{
	uint64_t rx = 0, tx = 0, dropped = 0;
	unsigned int n;

	/* DPDK's telemetry thread: the table may change under a port attach
	 * or detach (the session lock is above us) */
	vf_fwd_streams_lock();
	n = vf_fwd_nb_streams();
	for (unsigned int i = 0; i < n; i++) {
		uint64_t r, t, x;

		vf_stats_stream_counts(vf_fwd_stream(i), &r, &t, &x);
		rx += r;
		tx += t;
		dropped += x;
	}
	vf_fwd_streams_unlock();
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "streams", n);
	rte_tel_data_add_dict_u64(d, "rx", rx);
	rte_tel_data_add_dict_u64(d, "tx", tx);
	rte_tel_data_add_dict_u64(d, "dropped", dropped);
	rte_tel_data_add_dict_int(d, "running", vf_fwd_running());
	return 0;
}

void vf_telemetry_register(void)
{
	rte_telemetry_register_cmd("/vfwd/ports", tel_ports, "Our port ids. No parameters");
	rte_telemetry_register_cmd("/vfwd/port_stats", tel_port_stats,
				   "Counters of one of our ports (names as /ethdev/stats). Parameter: port id");
	rte_telemetry_register_cmd("/vfwd/fwd_stats", tel_fwd_stats,
				   "Forwarding totals over all streams. No parameters");
}
