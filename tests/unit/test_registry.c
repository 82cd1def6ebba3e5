/* Drivers register from constructors (archive linked whole), modes and
 * options come from tables: check they are all there and consistent. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "vf_app.h"
#include "vf_port.h"

static void test_drivers(void **state)
{
	const char *want[] = { "null", "dpdk" };

	for (size_t i = 0; i < 2; i++)
		if (!vf_driver_find(want[i]))
			fail_msg("driver %s not registered", want[i]);
	for (unsigned int i = 0; vf_driver_at(i); i++) {
		const struct vf_driver *d = vf_driver_at(i);
		assert_non_null(d->probe);
		assert_non_null(d->configure);
		assert_non_null(d->start);
		assert_non_null(d->stop);
		assert_non_null(d->close);
		assert_non_null(d->stats_get);
		assert_non_null(d->help);
		for (const struct vf_kvdef *k = d->keys; k && k->key; k++)
			assert_non_null(k->help);
	}
}

static void test_modes(void **state)
{
	const char *want[] = { "io", "mac", "macswap", "rxonly", "txonly", "flowgen",
			       "icmpecho", "5tswap", "replay", "measure", "impair" };
	const size_t nwant = sizeof(want) / sizeof(want[0]);
	unsigned int n = 0;

	while (vf_fwd_mode_at(n))
		n++;
	assert_int_equal(n, nwant);
	for (size_t i = 0; i < nwant; i++) {
		const struct vf_fwd_mode *m = vf_fwd_mode_find(want[i]);
		assert_non_null(m);
		assert_non_null(m->fwd);
		assert_string_equal(m->name, want[i]);
	}
	assert_null(vf_fwd_mode_find("IO"));	/* exact match only */
	assert_null(vf_fwd_mode_find("mac "));
}

static void test_options_table(void **state)
{
	for (const struct vf_opt *o = vf_common_opts; o->lname; o++) {
		assert_non_null(o->help);
		assert_non_null(o->set);
		for (const struct vf_opt *p = o + 1; p->lname; p++) {
			assert_string_not_equal(o->lname, p->lname);
			if (o->sname)
				assert_int_not_equal(o->sname, p->sname);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_drivers),
		cmocka_unit_test(test_modes),
		cmocka_unit_test(test_options_table),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
