/* Devargs: strict parsing, every error names the key and what is accepted. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "vf_devargs.h"

static const struct vf_kvdef keys[] = {
	{ "size", VF_KV_UINT, 14, 9000, NULL, "64", "" },
	{ "copy", VF_KV_BOOL, 0, 1, NULL, "0", "" },
	{ "role", VF_KV_ENUM, 0, 0, "server|client", "client", "" },
	{ "path", VF_KV_STR, 0, 107, NULL, NULL, "" },
	{ "mac", VF_KV_MAC, 0, 0, NULL, NULL, "" },
	{ NULL },
};

static struct vf_devargs da;
static char err[512];

static int parse(const char *s)
{
	err[0] = '\0';
	return vf_devargs_parse(s, keys, &da, err, sizeof(err));
}

static void test_good(void **state)
{
	uint8_t mac[6];

	assert_int_equal(parse("size=128,copy=1,role=server,path=/tmp/x.sock,mac=02:00:00:aa:bb:cc"), 0);
	assert_int_equal(vf_devargs_uint(&da, "size", 64), 128);
	assert_true(vf_devargs_bool(&da, "copy", false));
	assert_int_equal(vf_devargs_enum(&da, "role", 1), 0);
	assert_string_equal(vf_devargs_str(&da, "path", NULL), "/tmp/x.sock");
	assert_true(vf_devargs_mac(&da, "mac", mac));
	assert_int_equal(mac[0], 0x02);
	assert_int_equal(mac[5], 0xcc);
	/* defaults when absent */
	assert_int_equal(parse(""), 0);
	assert_int_equal(vf_devargs_uint(&da, "size", 64), 64);
	assert_false(vf_devargs_has(&da, "copy"));
	assert_int_equal(vf_devargs_enum(&da, "role", 1), 1);
	assert_int_equal(parse("copy=yes,size=0x40"), 0);
	assert_int_equal(vf_devargs_uint(&da, "size", 0), 64);
	assert_true(vf_devargs_bool(&da, "copy", false));
	assert_int_equal(parse("copy=no"), 0);
	assert_false(vf_devargs_bool(&da, "copy", true));
}

static void test_unknown_key(void **state)
{
	assert_int_not_equal(parse("sise=3"), 0);
	assert_non_null(strstr(err, "'sise'"));
	assert_non_null(strstr(err, "size, copy, role, path, mac"));
}

static void test_bad_values(void **state)
{
	static const struct { const char *in, *needle; } cases[] = {
		{ "size=13", "14..9000" }, { "size=9001", "14..9000" }, { "size=-1", "'size'" },
		{ "size=abc", "'size'" }, { "size=", "'size'" }, { "size=1 ", "'size'" },
		{ "size=99999999999999999999999", "'size'" },
		{ "copy=2", "0, 1, yes or no" }, { "copy=true", "'copy'" },
		{ "role=master", "server|client" }, { "role=", "'role'" },
		{ "mac=02:00:00:00:00", "MAC" }, { "mac=02:00:00:00:00:0g", "MAC" },
		{ "mac=02:00:00:00:00:00:00", "MAC" }, { "path=", "'path'" },
		{ "size", "needs a value" }, { "size=64,size=65", "twice" },
		{ ",size=64", "empty key" }, { "size=64,", "trailing" },
		{ "size=64,,copy=1", "empty key" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_not_equal(parse(cases[i].in), 0);
		if (!strstr(err, cases[i].needle))
			fail_msg("'%s': message '%s' lacks '%s'", cases[i].in, err, cases[i].needle);
	}
}

static void test_long_path(void **state)
{
	char buf[300] = "path=";

	memset(buf + 5, 'a', 108);
	buf[113] = '\0';
	assert_int_not_equal(parse(buf), 0);
	assert_non_null(strstr(err, "1..107"));
	memset(buf + 5, 'a', 280);
	buf[285] = '\0';
	assert_int_not_equal(parse(buf), 0);
}

static void test_split(void **state)
{
	char drv[32];
	const char *rest;

	assert_int_equal(vf_devargs_split("null,size=64", drv, sizeof(drv), &rest, err, sizeof(err)), 0);
	assert_string_equal(drv, "null");
	assert_string_equal(rest, "size=64");
	assert_int_equal(vf_devargs_split("null", drv, sizeof(drv), &rest, err, sizeof(err)), 0);
	assert_string_equal(rest, "");
	assert_int_equal(vf_devargs_split("dpdk:net_null0,size=64", drv, sizeof(drv), &rest, err, sizeof(err)), 0);
	assert_string_equal(drv, "dpdk");
	assert_string_equal(rest, "net_null0,size=64");
	assert_int_not_equal(vf_devargs_split("", drv, sizeof(drv), &rest, err, sizeof(err)), 0);
	assert_int_not_equal(vf_devargs_split(",size=1", drv, sizeof(drv), &rest, err, sizeof(err)), 0);
	/* raw pass-through when the driver has no key table */
	assert_int_equal(vf_devargs_parse("anything=goes,x", NULL, &da, err, sizeof(err)), 0);
	assert_string_equal(da.raw, "anything=goes,x");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_unknown_key),
		cmocka_unit_test(test_bad_values),
		cmocka_unit_test(test_long_path),
		cmocka_unit_test(test_split),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
