/* Prometheus text exposition (version 0.0.4) of the statistics, for
 * node_exporter's textfile collector: --prom-file PATH is rewritten every
 * period (temporary file, then rename) by a thread of its own, never by a
 * forwarding core.  Counters end in _total; labels tool, port, name and
 * driver on port metrics. */
#ifndef VF_PROM_H
#define VF_PROM_H

#include <stdio.h>

struct vf_app;

/* Every metric into f: HELP and TYPE once per family, then its samples. */
void vf_prom_render(FILE *f, const char *tool);
/* Renders into PATH.tmp-PID, then renames it over PATH.  0 or -errno. */
int vf_prom_write(const char *path, const char *tool);
/* The writer thread (every --stats-period, default 1 s), when --prom-file
 * is set; stop joins it and writes the file once more. */
void vf_prom_start(struct vf_app *app);
void vf_prom_stop(struct vf_app *app);

/* Held by shell commands and by the writer: ports and streams do not
 * change under a render. */
void vf_app_lock(void);
void vf_app_unlock(void);

#endif
