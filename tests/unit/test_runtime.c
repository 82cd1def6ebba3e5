/* The EAL argument vector we build from our options. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

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
	assert_true(has(argv, argc, "--log-level=eal:debug") > has(argv, argc, "--log-level=warning"));
}

static void test_too_small(void **state)
{
	struct vf_runtime_opts o = { .tool = "vfwd", .lcores = "", .main_lcore = -1,
				     .eal_args = "a b c d e f g h", .mem_mb = 300 };
	char buf[2048], *argv[8];

	assert_int_equal(vf_runtime_eal_argv(&o, false, "p", buf, sizeof(buf), argv, 8), -1);
	assert_int_equal(vf_runtime_eal_argv(&o, false, "p", buf, 20, argv, 64), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_memory),
		cmocka_unit_test(test_hugepages_and_extra),
		cmocka_unit_test(test_too_small),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
