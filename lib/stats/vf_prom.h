/* Prometheus text exposition (version 0.0.4) of the statistics, for
 * node_exporter's textfile collector: --prom-file PATH is rewritten every
 * period (temporary file, then rename) by a thread of its own (lib/session), never by a
 * forwarding core.  Counters end in _total; labels tool, port, name and
 * driver on port metrics. */
#ifndef VF_PROM_H
#define VF_PROM_H

#include <stdio.h>

/* Every metric into f: HELP and TYPE once per family, then its samples. */
void vf_prom_render(FILE *f, const char *tool);
/* Renders into PATH.tmp-PID, then renames it over PATH.  0 or -errno. */
int vf_prom_write(const char *path, const char *tool);

#endif
