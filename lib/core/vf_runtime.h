/* Starting and stopping DPDK's EAL with defaults that need no set-up. */
#ifndef VF_RUNTIME_H
#define VF_RUNTIME_H

#include <stdbool.h>
#include <stddef.h>

struct vf_runtime_opts {
	const char *tool;	/* for the file prefix */
	const char *lcores;	/* -l LIST, "" = all */
	int main_lcore;		/* -1 = first of the list */
	const char *eal_args;	/* --eal "ARGS", split on blanks, may be "" */
	size_t mem_mb;		/* memory wanted when hugepages are not used */
	bool need_pci;		/* a dpdk: port names a PCI device */
	int verbose;
};

/* Builds the EAL argument vector (exposed for tests).  Returns argc, or -1
 * if the buffer is too small.  argv strings point into buf. */
int vf_runtime_eal_argv(const struct vf_runtime_opts *o, bool hugepages,
			const char *prefix, char *buf, size_t buflen,
			char **argv, int max_argc);

/* True when a hugetlbfs is mounted and has free pages. */
bool vf_runtime_hugepages_usable(void);

/* Starts the EAL. Returns 0 or -1 with a message on stderr. */
int vf_runtime_start(const struct vf_runtime_opts *o);
/* Stops the EAL and removes its runtime directory.  Idempotent. */
void vf_runtime_stop(void);
/* Whether memory came from hugepages. */
bool vf_runtime_hugepages(void);
const char *vf_runtime_prefix(void);
/* Removes the runtime directories under base (DPDK's /var/run/dpdk or
 * $XDG_RUNTIME_DIR/dpdk) that one of our tools made (vf-TOOL-PID-RANDOM)
 * and whose process no longer exists.  Returns how many.  Run at every
 * start. */
int vf_runtime_sweep(const char *base);

/* Seconds on the monotonic clock: for deadlines and elapsed times on the
 * control side (the data path reads the TSC). */
double vf_now_s(void);

#endif
