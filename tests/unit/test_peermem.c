/* vf_peermem: a registered peer mapping whose file shrinks under it is
 * survived (zero pages, owner told on the control thread, other mappings
 * untouched); a SIGBUS anywhere else keeps the default outcome. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "vf_ctl.h"
#include "vf_peermem.h"

#define LEN (4 * 4096)

static int told;		/* atomic */
static struct sigaction startup;	/* SIGBUS before cmocka: default, or ASan's */
static void *told_addr;

static void on_fault(void *arg, void *addr)
{
	told_addr = addr;
	__atomic_fetch_add((int *)arg, 1, __ATOMIC_RELEASE);
}

static uint8_t *peer_map(int *fd, uint8_t fill)
{
	uint8_t *p;

	*fd = memfd_create("peer", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	assert_true(*fd >= 0);
	assert_int_equal(ftruncate(*fd, LEN), 0);
	p = mmap(NULL, LEN, PROT_READ | PROT_WRITE, MAP_SHARED, *fd, 0);
	assert_true(p != MAP_FAILED);
	memset(p, fill, LEN);
	return p;
}

static void wait_told(int *flag, int want)
{
	for (int i = 0; i < 5000 && __atomic_load_n(flag, __ATOMIC_ACQUIRE) < want; i++)
		usleep(1000);
	assert_int_equal(__atomic_load_n(flag, __ATOMIC_ACQUIRE), want);
}

/* The peer truncates; our next read and write succeed on zero pages; the
 * owner is told once; an untouched second mapping keeps its bytes. */
static void test_truncate_survived(void **st)
{
	int fd1, fd2, other = 0;
	uint8_t *a = peer_map(&fd1, 0xab), *b = peer_map(&fd2, 0xcd);
	int h1 = vf_peermem_register(a, LEN, on_fault, &told);
	int h2 = vf_peermem_register(b, LEN, on_fault, &other);
	uint64_t before = vf_peermem_faults();
	volatile uint8_t *va = a;

	(void)st;
	assert_true(h1 > 0 && h2 > 0 && h1 != h2);
	assert_int_equal(va[LEN - 1], 0xab);
	assert_int_equal(ftruncate(fd1, 0), 0);	/* the peer shrinks it */
	assert_int_equal(va[LEN - 1], 0);	/* SIGBUS, survived */
	va[5] = 7;				/* writes land too */
	assert_int_equal(va[5], 7);
	assert_int_equal(va[4096 * 2], 0);	/* the whole mapping went */
	wait_told(&told, 1);
	assert_ptr_equal(told_addr, a);
	assert_int_equal(vf_peermem_faults(), before + 1);
	/* the other peer's memory is untouched */
	for (size_t i = 0; i < LEN; i += 512)
		assert_int_equal(b[i], 0xcd);
	assert_int_equal(__atomic_load_n(&other, __ATOMIC_ACQUIRE), 0);
	/* a second touch does not tell again */
	assert_int_equal(va[100], 0);
	usleep(20000);
	assert_int_equal(__atomic_load_n(&told, __ATOMIC_ACQUIRE), 1);
	vf_peermem_unregister(h1);
	vf_peermem_unregister(h2);
	munmap(a, LEN);
	munmap(b, LEN);
	close(fd1);
	close(fd2);
}

/* A freed slot is reused and watches its new mapping. */
static void test_reuse(void **st)
{
	int flag = 0;

	(void)st;
	for (int round = 0; round < 3; round++) {
		int fd;
		uint8_t *a = peer_map(&fd, 1);
		int h = vf_peermem_register(a, LEN, on_fault, &flag);
		volatile uint8_t *va = a;

		assert_true(h > 0);
		assert_int_equal(ftruncate(fd, 4096), 0);
		assert_int_equal(va[0], 1);		/* first page still backed */
		assert_int_equal(va[3 * 4096], 0);	/* fault, survived */
		wait_told(&flag, round + 1);
		vf_peermem_unregister(h);
		munmap(a, LEN);
		close(fd);
	}
}

/* A mapping nobody registered: the SIGBUS gets the default outcome (or
 * ASan's report in a sanitizer build): the process does not survive. */
static void test_unregistered_dies(void **st)
{
	int fd, status;
	uint8_t *keep = peer_map(&fd, 3);
	int h = vf_peermem_register(keep, LEN, on_fault, &told);
	pid_t pid;

	(void)st;
	assert_true(h > 0);	/* the handler is installed */
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		/* cmocka's own handler out of the way: ours chains to what
		 * the process started with (the default action, or ASan's
		 * handler in a sanitizer build, which reports and exits). */
		int f3, h3;
		uint8_t *q;

		sigaction(SIGBUS, &startup, NULL);
		q = peer_map(&f3, 1);
		h3 = vf_peermem_register(q, LEN, on_fault, &told);
		if (h3 <= 0)
			_exit(4);
		int f2;
		uint8_t *p = peer_map(&f2, 9);
		volatile uint8_t *vp = p;

		if (ftruncate(f2, 0) != 0)
			_exit(3);
		(void)vp[0];
		_exit(0);	/* survived: wrong */
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (WIFSIGNALED(status))
		assert_int_equal(WTERMSIG(status), SIGBUS);
	else
		assert_true(WIFEXITED(status) && WEXITSTATUS(status) != 0 &&
			    WEXITSTATUS(status) != 3 && WEXITSTATUS(status) != 4);
	vf_peermem_unregister(h);
	munmap(keep, LEN);
	close(fd);
}

static void test_check_fd(void **st)
{
	int fd = memfd_create("chk", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	bool sealed = true;

	(void)st;
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 8192), 0);
	assert_int_equal(vf_peermem_check_fd(fd, 8192, &sealed), 0);
	assert_false(sealed);
	assert_int_equal(vf_peermem_check_fd(fd, 8193, NULL), -EFBIG);
	assert_int_equal(fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK), 0);
	assert_int_equal(vf_peermem_check_fd(fd, 100, &sealed), 0);
	assert_true(sealed);
	assert_int_equal(vf_peermem_check_fd(-1, 1, NULL), -EBADF);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_truncate_survived),
		cmocka_unit_test(test_reuse),
		cmocka_unit_test(test_unregistered_dies),
		cmocka_unit_test(test_check_fd),
	};
	int rc;

	sigaction(SIGBUS, NULL, &startup);
	rc = cmocka_run_group_tests(tests, NULL, NULL);

	vf_ctl_stop();
	return rc;
}
