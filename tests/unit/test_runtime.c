/* The EAL argument vector we build from our options. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "vf_runtime.h"

static int has(char **argv, int argc, const char *s)
{
	for (int i = 0; i < argc; i++)
		if (!strcmp(argv[i], s))
			return i;
	return -1;
}

static void test_plain_memory(void **state)
{
	struct vf_runtime_opts o = { .tool = "vfwd", .lcores = "", .main_lcore = -1,
				     .eal_args = "", .mem_mb = 300 };
	char buf[2048], *argv[64];
	int argc = vf_runtime_eal_argv(&o, false, "pfx", buf, sizeof(buf), argv, 64);

	assert_true(argc > 0);
	assert_true(has(argv, argc, "--no-huge") > 0);
	assert_true(has(argv, argc, "-m300") > 0);
	assert_true(has(argv, argc, "--file-prefix=pfx") > 0);
	assert_true(has(argv, argc, "--no-pci") > 0);
	assert_true(has(argv, argc, "--single-file-segments") < 0);
	assert_null(argv[argc]);
}

static void test_hugepages_and_extra(void **state)
{
	struct vf_runtime_opts o = { .tool = "vfwd", .lcores = "0-1", .main_lcore = 1,
				     .eal_args = "  --log-level=eal:debug   --vdev net_null9 ",
				     .mem_mb = 300, .need_pci = true };
	char buf[2048], *argv[64];
	int argc = vf_runtime_eal_argv(&o, true, "p2", buf, sizeof(buf), argv, 64);

	assert_true(has(argv, argc, "--no-huge") < 0);
	assert_true(has(argv, argc, "--single-file-segments") > 0);
	assert_true(has(argv, argc, "-l0-1") > 0);
	assert_true(has(argv, argc, "--main-lcore=1") > 0);
	assert_true(has(argv, argc, "--no-pci") < 0);
	/* extra args come last, split on blanks, so they override ours */
	assert_int_equal(has(argv, argc, "--vdev"), argc - 2);
	assert_int_equal(has(argv, argc, "net_null9"), argc - 1);
	assert_true(has(argv, argc, "--log-level=eal:debug") > has(argv, argc, "--log-level=error"));
}

static void test_too_small(void **state)
{
	struct vf_runtime_opts o = { .tool = "vfwd", .lcores = "", .main_lcore = -1,
				     .eal_args = "a b c d e f g h", .mem_mb = 300 };
	char buf[2048], *argv[8];

	assert_int_equal(vf_runtime_eal_argv(&o, false, "p", buf, sizeof(buf), argv, 8), -1);
	assert_int_equal(vf_runtime_eal_argv(&o, false, "p", buf, 20, argv, 64), -1);
}

static void mk(const char *base, const char *name, bool with_file)
{
	char p[512];

	snprintf(p, sizeof(p), "%s/%s", base, name);
	assert_int_equal(mkdir(p, 0700), 0);
	if (with_file) {
		FILE *f;

		snprintf(p, sizeof(p), "%s/%s/config", base, name);
		f = fopen(p, "w");
		assert_non_null(f);
		fclose(f);
	}
}

static bool exists(const char *base, const char *name)
{
	char p[512];
	struct stat st;

	snprintf(p, sizeof(p), "%s/%s", base, name);
	return stat(p, &st) == 0;
}

/* Directories of dead instances go; live ones, other tools' and names that
 * only look like ours stay. */
static void test_sweep(void **state)
{
	char base[] = "/tmp/vf-sweep-XXXXXX", dead[64], mine[64], live[64], odd[64];
	pid_t child = fork();

	(void)state;
	assert_true(child >= 0);
	if (child == 0)
		_exit(0);
	assert_int_equal(waitpid(child, NULL, 0), child);
	assert_non_null(mkdtemp(base));
	snprintf(dead, sizeof(dead), "vf-vfwd-%d-0123abcd", (int)child);
	snprintf(mine, sizeof(mine), "vf-vhostd-%d-0123abcd", (int)getpid());
	snprintf(live, sizeof(live), "vf-memifctl-1-ffffffff");
	snprintf(odd, sizeof(odd), "vf-vfwd-%d-xyz", (int)child);
	mk(base, dead, true);
	mk(base, mine, true);
	mk(base, live, false);
	mk(base, odd, false);
	mk(base, "rte", false);
	assert_int_equal(vf_runtime_sweep(base), 1);
	assert_false(exists(base, dead));
	assert_true(exists(base, mine));
	assert_true(exists(base, live));
	assert_true(exists(base, odd));
	assert_true(exists(base, "rte"));
	assert_int_equal(vf_runtime_sweep("/nonexistent/vf"), 0);
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", base);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_memory),
		cmocka_unit_test(test_hugepages_and_extra),
		cmocka_unit_test(test_too_small),
		cmocka_unit_test(test_sweep),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
