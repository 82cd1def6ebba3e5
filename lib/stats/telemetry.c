/* Our ports and streams on DPDK's telemetry socket (they are not ethdevs, so
 * /ethdev/... does not see them): /vfwd/ports, /vfwd/port_stats,ID (the
 * counter names of /ethdev/stats), /vfwd/fwd_stats and
 * /vfwd/stream_stats,ID (the keys of our JSON's streams). */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <rte_telemetry.h>

#include "vf_fwd.h"
#include "vf_parse.h"
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

/* The stream table's columns (the one description the text, JSON and
 * Prometheus forms use): the counters are those with a metric name, the
 * rest (ids, ports, queues, lcore) say where the stream runs. */
static bool col_is_counter(const struct vf_col *c)
{
	return c->kind == VF_COL_U64 && c->prom != NULL;
}

static uint64_t col_u64(const struct vf_col *c, const struct vf_stream_row *row)
{
	uint64_t v;

	memcpy(&v, (const char *)row + c->off, sizeof(v));
	return v;
}

static int tel_fwd_stats(const char *cmd, const char *params, struct rte_tel_data *d)
{
	const struct vf_table *t = &vf_stream_table;
	struct vf_stream_row tot = { 0 };
	unsigned int n;

	/* DPDK's telemetry thread: the table may change under a port attach
	 * or detach (the session lock is above us) */
	vf_fwd_streams_lock();
	n = vf_fwd_nb_streams();
	for (unsigned int i = 0; i < n; i++) {
		struct vf_stream_row row;

		vf_stats_stream_row(vf_fwd_stream(i), &row);
		for (unsigned int c = 0; c < t->n; c++)
			if (col_is_counter(&t->cols[c])) {
				uint64_t v = col_u64(&t->cols[c], &tot) + col_u64(&t->cols[c], &row);

				memcpy((char *)&tot + t->cols[c].off, &v, sizeof(v));
			}
	}
	vf_fwd_streams_unlock();
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "streams", n);
	for (unsigned int c = 0; c < t->n; c++)
		if (col_is_counter(&t->cols[c]))
			rte_tel_data_add_dict_u64(d, t->cols[c].key, col_u64(&t->cols[c], &tot));
	rte_tel_data_add_dict_int(d, "running", vf_fwd_running());
	return 0;
}

/* One stream: every column of the stream table, under its JSON key. */
static int tel_stream_stats(const char *cmd, const char *params, struct rte_tel_data *d)
{
	const struct vf_table *t = &vf_stream_table;
	struct vf_stream_row row;
	uint64_t id;

	if (vf_parse_u64(params, 0, VF_MAX_STREAMS, &id))
		return -1;
	vf_fwd_streams_lock();
	if (id >= vf_fwd_nb_streams()) {
		vf_fwd_streams_unlock();
		return -1;
	}
	vf_stats_stream_row(vf_fwd_stream((unsigned int)id), &row);
	vf_fwd_streams_unlock();
	rte_tel_data_start_dict(d);
	for (unsigned int c = 0; c < t->n; c++)
		if (t->cols[c].kind == VF_COL_U64)
			rte_tel_data_add_dict_u64(d, t->cols[c].key, col_u64(&t->cols[c], &row));
	return 0;
}

void vf_telemetry_register(void)
{
	rte_telemetry_register_cmd("/vfwd/ports", tel_ports, "Our port ids. No parameters");
	rte_telemetry_register_cmd("/vfwd/port_stats", tel_port_stats,
				   "Counters of one of our ports (names as /ethdev/stats). Parameter: port id");
	rte_telemetry_register_cmd("/vfwd/fwd_stats", tel_fwd_stats,
				   "Forwarding totals over all streams. No parameters");
	rte_telemetry_register_cmd("/vfwd/stream_stats", tel_stream_stats,
				   "Counters of one stream (keys as the streams of show fwd stats json). Parameter: stream id");
}
