/* The control socket's reply framing (lib/shell/ctlrun.c vf__ctl_frame):
 * every line gets its type byte, empty lines survive, a missing last
 * newline is added, and no output line can read as an end line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ctlrun.h"
#include "vf_ctlproto.h"

static char *framed(char type, const char *text)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(vf__ctl_frame(f, type, text, strlen(text)), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static void check_frame(char type, const char *text, const char *want)
{
	char *got = framed(type, text);

	assert_string_equal(got, want);
	free(got);
}

static void test_lines(void **state)
{
	(void)state;
	check_frame(VF_CTL_OUT, "", "");
	check_frame(VF_CTL_OUT, "a\n", ".a\n");
	check_frame(VF_CTL_OUT, "a", ".a\n");
	check_frame(VF_CTL_OUT, "a\n\nb\n", ".a\n.\n.b\n");
	check_frame(VF_CTL_ERR, "error: x\nusage: y\n", "!error: x\n!usage: y\n");
	check_frame(VF_CTL_OUT, "\n", ".\n");
}

/* Output that looks like an end line stays output. */
static void test_no_false_end(void **state)
{
	char *got = framed(VF_CTL_OUT, "=ok\n=error\n");

	(void)state;
	assert_string_equal(got, ".=ok\n.=error\n");
	for (char *l = got; *l; l = strchr(l, '\n') + 1)
		assert_int_not_equal(l[0], VF_CTL_END);
	free(got);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lines),
		cmocka_unit_test(test_no_false_end),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
