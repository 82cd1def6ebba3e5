/* Test helpers: a memfd playing the front-end's memory, open-fd counting. */
#ifndef VH_TESTMEM_H
#define VH_TESTMEM_H

#include <dirent.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define GUEST_GPA 0x100000ull		/* descriptors use these */
#define GUEST_UVA 0x7f1200000000ull	/* ring addresses use these */
#define GUEST_SIZE (1u << 20)

struct guest {
	int fd;
	uint8_t *va;		/* our view of the same pages */
	size_t size;
};

static inline int guest_open(struct guest *g, size_t size)
{
	g->size = size;
	g->fd = memfd_create("vh-test-guest", MFD_CLOEXEC);
	if (g->fd < 0 || ftruncate(g->fd, (off_t)size) != 0)
		return -1;
	g->va = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, g->fd, 0);
	return g->va == MAP_FAILED ? -1 : 0;
}

static inline void guest_close(struct guest *g)
{
	munmap(g->va, g->size);
	close(g->fd);
}

static inline int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n - 1;	/* the DIR's own fd */
}

#endif
