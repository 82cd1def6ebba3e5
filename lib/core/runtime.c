#include "vf_runtime.h"

#include <dirent.h>
#include <stdarg.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <stdint.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_log.h>

#include "vf_log.h"

static bool started, used_huge;
static char prefix[64];
static char rundir[512];

bool vf_runtime_hugepages_usable(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[256];
	long free_pages = 0;
	bool mounted = false;

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		sscanf(line, "HugePages_Free: %ld", &free_pages);
	fclose(f);
	f = fopen("/proc/mounts", "r");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, " hugetlbfs "))
			mounted = true;
	fclose(f);
	/* A few free pages are not enough for a pool and the rings; fall back
	 * to plain memory rather than fail half-way. */
	return mounted && free_pages >= 64;
}

static int push(char **argv, int *argc, int max, char *buf, size_t *off,
		size_t len, const char *fmt, ...)
	__attribute__((format(printf, 7, 8)));

static int push(char **argv, int *argc, int max, char *buf, size_t *off,
		size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*argc >= max - 1 || *off >= len)
		return -1;
	va_start(ap, fmt);
	n = vsnprintf(buf + *off, len - *off, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= len - *off)
		return -1;
	argv[(*argc)++] = buf + *off;
	*off += (size_t)n + 1;
	argv[*argc] = NULL;
	return 0;
}

int vf_runtime_eal_argv(const struct vf_runtime_opts *o, bool hugepages,
			const char *pfx, char *buf, size_t buflen,
			char **argv, int max_argc)
{
	int argc = 0;
	size_t off = 0;
	char *extra, *tok, *save = NULL;

#define P(...) do { if (push(argv, &argc, max_argc, buf, &off, buflen, __VA_ARGS__)) return -1; } while (0)
	P("%s", o->tool);
	P("--file-prefix=%s", pfx);
	if (o->lcores && *o->lcores)
		P("-l%s", o->lcores);
	if (o->main_lcore >= 0)
		P("--main-lcore=%d", o->main_lcore);
	if (hugepages) {
		/* One file per memseg list (peers get a handful of fds), and
		 * in-memory: hugepages come from memfd, so nothing is left in
		 * hugetlbfs even after a SIGKILL.  (DPDK 22.11 refuses
		 * --huge-unlink with single-file segments outside this mode.) */
		P("--single-file-segments");
		P("--in-memory");
	} else {
		/* --no-huge backs memory with a memfd (shareable by fd). */
		P("--no-huge");
		P("-m%zu", o->mem_mb);
	}
	if (!o->need_pci)
		P("--no-pci");
	P("--log-level=%s", o->verbose > 1 ? "debug" : o->verbose ? "info" : "error");
	if (o->eal_args && *o->eal_args) {
		extra = strdup(o->eal_args);
		if (!extra)
			return -1;
		for (tok = strtok_r(extra, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save))
			if (push(argv, &argc, max_argc, buf, &off, buflen, "%s", tok)) {
				free(extra);
				return -1;
			}
		free(extra);
	}
#undef P
	return argc;
}

static void remove_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[1024];

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		unlink(path);
	}
	closedir(d);
	rmdir(dir);
}

/* The pid in one of our prefixes (vf-TOOL-PID-RANDOM), or -1. */
static int prefix_pid(const char *name)
{
	const char *dash, *p;
	char *end;
	long pid;

	if (strncmp(name, "vf-", 3) != 0)
		return -1;
	/* TOOL has no dash; a name of ours has exactly three of them. */
	dash = strchr(name + 3, '-');
	if (!dash || dash == name + 3)
		return -1;
	pid = strtol(dash + 1, &end, 10);
	if (end == dash + 1 || *end != '-' || pid <= 0 || pid > INT32_MAX)
		return -1;
	p = end + 1;
	if (strlen(p) != 8 || strspn(p, "0123456789abcdef") != 8)
		return -1;
	return (int)pid;
}

int vf_runtime_sweep(const char *base)
{
	DIR *d = opendir(base);
	struct dirent *e;
	char path[1024];
	int n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		int pid = prefix_pid(e->d_name);

		/* Only ours, and only when the process that made it is gone: a
		 * live one (or a recycled pid) keeps its directory. */
		if (pid < 0 || pid == (int)getpid() || kill(pid, 0) == 0 || errno != ESRCH)
			continue;
		snprintf(path, sizeof(path), "%s/%s", base, e->d_name);
		remove_dir(path);
		n++;
	}
	closedir(d);
	return n;
}

/* DPDK's base for runtime directories (as rte_eal_get_runtime_dir() builds
 * it before the prefix is added). */
static void runtime_base(char *buf, size_t len)
{
	const char *x = getenv("XDG_RUNTIME_DIR");

	if (getuid() == 0)
		snprintf(buf, len, "/var/run/dpdk");
	else
		snprintf(buf, len, "%s/dpdk", x && x[0] ? x : "/tmp");
}

int vf_runtime_start(const struct vf_runtime_opts *o)
{
	char buf[4096], *argv[128];
	uint32_t rnd = 0;
	int argc;

	if (started)
		return 0;
	if (getrandom(&rnd, sizeof(rnd), GRND_NONBLOCK) != sizeof(rnd))
		rnd = (uint32_t)rand();
	/* pid + random: two instances started at the same moment never share
	 * a prefix, and a recycled pid never meets a stale directory. */
	snprintf(prefix, sizeof(prefix), "vf-%s-%d-%08x", o->tool, (int)getpid(), rnd);
	{
		/* An instance killed with SIGKILL could not remove its
		 * directory: the next start does, so they never pile up. */
		char base[512];

		runtime_base(base, sizeof(base));
		vf_runtime_sweep(base);
	}
	used_huge = vf_runtime_hugepages_usable();
	argc = vf_runtime_eal_argv(o, used_huge, prefix, buf, sizeof(buf), argv, 128);
	if (argc < 0) {
		VF_ERR("EAL arguments too long");
		return -1;
	}
	/* EAL logs go to stdout by default; stdout is for stats and JSON.
	 * stderr, through log.c: a stalled reader never stops a thread. */
	rte_openlog_stream(vf_log_stream());
	if (rte_eal_init(argc, argv) < 0) {
		VF_ERR("cannot start DPDK EAL: %s", rte_strerror(rte_errno));
		return -1;
	}
	snprintf(rundir, sizeof(rundir), "%s", rte_eal_get_runtime_dir());
	started = true;
	return 0;
}

void vf_runtime_stop(void)
{
	if (!started)
		return;
	started = false;
	rte_eal_cleanup();
	/* DPDK leaves its config and fbarray files behind; the prefix is
	 * ours alone, so the whole directory goes. */
	if (rundir[0] && strstr(rundir, prefix))
		remove_dir(rundir);
}

bool vf_runtime_hugepages(void)
{
	return used_huge;
}

const char *vf_runtime_prefix(void)
{
	return prefix;
}

double vf_now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}
