/* vf_rate: the forms --rate, --min-rate and --max-rate take, what they
 * refuse, and the L1/L2 arithmetic, against numbers worked by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "vf_rate.h"

static struct vf_rate ok(const char *s)
{
	struct vf_rate r = { VF_RATE_PPS, -1 };
	char err[320] = "";

	assert_int_equal(vf_rate_parse(s, &r, err, sizeof(err)), 0);
	assert_string_equal(err, "");
	return r;
}

static void bad(const char *s)
{
	struct vf_rate r = { VF_RATE_L1_BPS, 42 };
	char err[320] = "";

	assert_int_equal(vf_rate_parse(s, &r, err, sizeof(err)), -1);
	assert_true(err[0] != '\0');
	assert_int_equal(r.unit, VF_RATE_L1_BPS);	/* unchanged on failure */
	assert_true(r.value == 42);
}

#define FORM(s, u, v) do {						\
		struct vf_rate r_ = ok(s);				\
		assert_int_equal(r_.unit, u);				\
		assert_true(r_.value == (v));				\
	} while (0)

static void test_pps_forms(void **state)
{
	(void)state;
	/* today's forms stay what they were */
	FORM("200000", VF_RATE_PPS, 200000);
	FORM("200k", VF_RATE_PPS, 200000);
	FORM("200kpps", VF_RATE_PPS, 200000);
	FORM("1.5M", VF_RATE_PPS, 1500000);
	FORM("1.5Mpps", VF_RATE_PPS, 1500000);
	FORM("1G", VF_RATE_PPS, 1e9);
	FORM("12345PPS", VF_RATE_PPS, 12345);
	FORM("0.5k", VF_RATE_PPS, 500);
}

static void test_bit_forms(void **state)
{
	(void)state;
	FORM("1Mbps", VF_RATE_L2_BPS, 1e6);
	FORM("10Gbps", VF_RATE_L2_BPS, 1e10);
	FORM("2.5GBPS", VF_RATE_L2_BPS, 2.5e9);
	FORM("100kbps", VF_RATE_L2_BPS, 1e5);
	FORM("9600bps", VF_RATE_L2_BPS, 9600);
	FORM("10Gbps-L1", VF_RATE_L1_BPS, 1e10);
	FORM("10Gbps-l1", VF_RATE_L1_BPS, 1e10);
	FORM("10Gbpsl1", VF_RATE_L1_BPS, 1e10);
	FORM("1Tbps", VF_RATE_L2_BPS, 1e12);
	FORM("50%", VF_RATE_PCT, 50);
	FORM("0.5%", VF_RATE_PCT, 0.5);
	FORM("100%", VF_RATE_PCT, 100);
}

static void test_refused(void **state)
{
	(void)state;
	bad("");
	bad("-5");
	bad(" 5");
	bad("0x10");
	bad("inf");
	bad("nan");
	bad("0");		/* 0 pps: not a rate (unlimited is no --rate) */
	bad("0bps");
	bad("0%");
	bad("101%");
	bad("5k%");
	bad("2G");		/* above 1 Gpps */
	bad("11Tbps");
	bad("10Gbit");
	bad("10Gbps-L2");
	bad("10 Gbps");
	bad("10mbps");		/* m is milli, not mega */
	bad("Mbps");
}

/* Hand-worked: a 64-byte frame with FCS is --txpkts 60; on the wire it
 * takes 64 * 8 = 512 bits at L2 and (64 + 20) * 8 = 672 bits at L1. */
static void test_conversions(void **state)
{
	struct vf_rate r;

	(void)state;
	assert_true(vf_rate_l2_bits(60) == 512);
	assert_true(vf_rate_l1_bits(60) == 672);
	assert_true(vf_rate_l2_bits(64) == 544);	/* --txpkts 64: 68 bytes with FCS */
	assert_true(vf_rate_l1_bits(1514) == 12304);	/* 1518 + 20 bytes */
	/* 10 Gbit/s L1 at 64 B: 10e9 / 672 = 14,880,952.38 pps */
	r = ok("10Gbps-L1");
	assert_float_equal(vf_rate_to_pps(&r, 60, 0), 14880952.38, 0.01);
	/* 10 Gbit/s L2 at 64 B with FCS: 10e9 / 512 = 19,531,250 pps; a
	 * 64-byte frame without FCS (--txpkts 64) is 68 on the wire:
	 * 10e9 / 544 = 18,382,352.94 pps */
	r = ok("10Gbps");
	assert_float_equal(vf_rate_to_pps(&r, 60, 0), 19531250.0, 1e-6);
	assert_float_equal(vf_rate_to_pps(&r, 64, 0), 18382352.94, 0.01);
	/* 1518-byte frames at 10 Gbit/s L1: 10e9 / 12304 = 812,743.82 pps */
	r = ok("10Gbps-L1");
	assert_float_equal(vf_rate_to_pps(&r, 1514, 0), 812743.82, 0.01);
	/* 1 Mbit/s L2 at --txpkts 64: 1e6 / 544 = 1838.24 pps */
	r = ok("1Mbps");
	assert_float_equal(vf_rate_to_pps(&r, 64, 0), 1838.235, 0.001);
	/* 50 % of a 10G link at 64 B: half of 14.88 Mpps */
	r = ok("50%");
	assert_float_equal(vf_rate_to_pps(&r, 60, 10000000000ull), 7440476.19, 0.01);
	/* no link speed: refused */
	assert_true(vf_rate_to_pps(&r, 60, 0) < 0);
	/* pps is pps whatever the frame */
	r = ok("1.5Mpps");
	assert_float_equal(vf_rate_to_pps(&r, 1514, 0), 1.5e6, 1e-9);
	/* and back: 14.88 Mpps of 64 B is 10 Gbit/s L1, 7.62 Gbit/s L2 */
	assert_float_equal(vf_rate_l1_bps(14880952.38, 60), 1e10, 10);
	assert_float_equal(vf_rate_l2_bps(14880952.38, 60), 7.619047619e9, 10);
}

static void test_fmt(void **state)
{
	char buf[64];
	struct vf_rate r;

	(void)state;
	r = ok("10Gbps-L1");
	vf_rate_fmt(buf, sizeof(buf), &r);
	assert_string_equal(buf, "10 Gbit/s L1");
	r = ok("1Mbps");
	vf_rate_fmt(buf, sizeof(buf), &r);
	assert_string_equal(buf, "1 Mbit/s L2");
	r = ok("50%");
	vf_rate_fmt(buf, sizeof(buf), &r);
	assert_string_equal(buf, "50 % of the link");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pps_forms),
		cmocka_unit_test(test_bit_forms),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_conversions),
		cmocka_unit_test(test_fmt),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
