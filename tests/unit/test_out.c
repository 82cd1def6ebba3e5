/* The emitter and the stats renderer: same fields in text and JSON, valid
 * JSON, exact counters above 2^63. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <jansson.h>

#include "vf_out.h"
#include "vf_impair.h"
#include "vf_port.h"
#include "vf_stats.h"

static json_t *take_json(struct vf_out *o)
{
	char *s = vf_out_take(o);
	json_error_t e;
	json_t *j;

	assert_non_null(s);
	assert_null(strchr(s, '\n'));	/* one line */
	j = json_loads(s, 0, &e);
	if (!j)
		fail_msg("invalid JSON '%s': %s", s, e.text);
	free(s);
	return j;
}

static void test_nesting_and_types(void **state)
{
	struct vf_out *o = vf_out_new(true);
	json_t *j;

	vf_out_obj_begin(o, NULL);
	vf_out_str(o, "s", "a\"b");
	vf_out_u64(o, "small", 42);
	vf_out_u64(o, "max_i64", (uint64_t)INT64_MAX);
	vf_out_u64(o, "big", UINT64_MAX);
	vf_out_u64(o, "big2", (1ull << 63) + 5);
	vf_out_dbl(o, "d", 1.5);
	vf_out_bool(o, "b", true);
	vf_out_arr_begin(o, "arr");
	for (int i = 0; i < 3; i++) {
		vf_out_obj_begin(o, NULL);
		vf_out_u64(o, "i", (uint64_t)i);
		vf_out_obj_end(o);
	}
	vf_out_arr_end(o);
	vf_out_obj_begin(o, "sub");
	vf_out_i64(o, "neg", -3);
	vf_out_obj_end(o);
	vf_out_title(o, "ignored in JSON");
	vf_out_obj_end(o);
	j = take_json(o);
	assert_string_equal(json_string_value(json_object_get(j, "s")), "a\"b");
	assert_int_equal(json_integer_value(json_object_get(j, "small")), 42);
	assert_true(json_integer_value(json_object_get(j, "max_i64")) == INT64_MAX);
	/* above INT64_MAX: exact decimal string, never a wrapped negative */
	assert_string_equal(json_string_value(json_object_get(j, "big")), "18446744073709551615");
	assert_string_equal(json_string_value(json_object_get(j, "big2")), "9223372036854775813");
	assert_true(json_is_true(json_object_get(j, "b")));
	assert_int_equal(json_array_size(json_object_get(j, "arr")), 3);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(json_object_get(j, "arr"), 2), "i")), 2);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "sub"), "neg")), -3);
	json_decref(j);
	/* the emitter is reusable after take */
	vf_out_obj_begin(o, NULL);
	vf_out_u64(o, "x", 1);
	vf_out_obj_end(o);
	j = take_json(o);
	assert_int_equal(json_object_size(j), 1);
	json_decref(j);
	vf_out_free(o);
}

static struct vf_port *null_port(void)
{
	static struct vf_port port;

	memset(&port, 0, sizeof(port));
	port.drv = vf_driver_find("null");
	assert_non_null(port.drv);
	port.id = 3;
	strcpy(port.name, "null3");
	return &port;
}

static void render_port(bool json, char **out)
{
	struct vf_out *o = vf_out_new(json);
	struct vf_port_stats st = { .ipackets = 10, .opackets = 9, .ibytes = 640, .obytes = 576,
				    .imissed = 1, .ierrors = 2, .oerrors = 3, .rx_nombuf = UINT64_MAX };
	struct vf_port_stats prev = { .ipackets = 4, .opackets = 4, .ibytes = 256, .obytes = 256 };
	struct vf_rates r;

	vf_stats_rates(&prev, &st, 2.0, &r);
	assert_true(r.rx_pps == 3.0);
	assert_true(r.tx_pps == 2.5);
	assert_true(r.rx_bps == 384 * 8 / 2.0);
	vf_out_obj_begin(o, NULL);
	vf_stats_port_table_begin(o);
	vf_stats_port(o, null_port(), &st, &r);
	vf_stats_port_table_end(o);
	vf_out_obj_end(o);
	*out = vf_out_take(o);
	vf_out_free(o);
}

static void test_port_schema(void **state)
{
	static const char *const keys[] = {
		"id", "name", "driver", "link", "ipackets", "opackets", "ibytes", "obytes",
		"imissed", "ierrors", "oerrors", "rx_nombuf", "rx_pps", "tx_pps", "rx_bps", "tx_bps",
	};
	char *js, *txt;
	json_error_t e;
	json_t *j, *p;

	render_port(true, &js);
	render_port(false, &txt);
	j = json_loads(js, 0, &e);
	assert_non_null(j);
	p = json_array_get(json_object_get(j, "ports"), 0);
	assert_non_null(p);
	assert_int_equal(json_object_size(p), sizeof(keys) / sizeof(keys[0]));
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		if (!json_object_get(p, keys[i]))
			fail_msg("JSON lacks %s", keys[i]);
	}
	assert_int_equal(json_integer_value(json_object_get(p, "id")), 3);
	assert_string_equal(json_string_value(json_object_get(p, "driver")), "null");
	assert_string_equal(json_string_value(json_object_get(p, "link")), "down");
	assert_int_equal(json_integer_value(json_object_get(p, "ierrors")), 2);
	assert_string_equal(json_string_value(json_object_get(p, "rx_nombuf")), "18446744073709551615");
	/* text: a heading line and one row, digits grouped, human units */
	assert_non_null(strstr(txt, "18,446,744,073,709,551,615"));
	assert_non_null(strstr(txt, "null3"));
	assert_non_null(strstr(txt, "rx-pkts"));
	assert_non_null(strstr(txt, " 3 pps"));
	{
		int lines = 0;

		for (const char *c = txt; *c; c++)
			lines += *c == '\n';
		assert_int_equal(lines, 2);	/* heading and one row */
	}
	json_decref(j);
	free(js);
	free(txt);
}

static void test_rates_after_clear(void **state)
{
	struct vf_port_stats prev = { .ipackets = 100 }, cur = { .ipackets = 10 };
	struct vf_rates r;

	vf_stats_rates(&prev, &cur, 1.0, &r);
	assert_true(r.rx_pps == 0.0);
	vf_stats_rates(&prev, &cur, 0.0, &r);
	assert_true(r.rx_pps == 0.0);
}

static void test_stream(void **state)
{
	static struct vf_stream fs;
	struct vf_out *o = vf_out_new(true);
	struct vf_port *p = null_port();
	json_t *j, *h;

	memset(&fs, 0, sizeof(fs));
	fs.rx_port = fs.tx_port = p;
	fs.burst = 32;
	fs.rx_packets = 100;
	fs.tx_packets = 90;
	fs.fwd_dropped = 10;
	fs.rx_bursts[0] = 7;
	fs.rx_bursts[32] = 3;
	fs.rx_bursts[4] = 1;
	vf_stats_stream(o, &fs);
	j = take_json(o);
	assert_int_equal(json_integer_value(json_object_get(j, "rx")), 100);
	assert_int_equal(json_integer_value(json_object_get(j, "dropped")), 10);
	h = json_object_get(j, "rx_bursts");
	assert_int_equal(json_object_size(h), 3);
	assert_int_equal(json_integer_value(json_object_get(h, "32")), 3);
	assert_int_equal(json_integer_value(json_object_get(h, "0")), 7);
	json_decref(j);
	vf_out_free(o);
}

/* Every JSON key of a table has its text column (a heading) and every text
 * column its JSON key: render one row both ways and compare. */
static void check_table(const struct vf_table *t, const void *row)
{
	struct vf_out *o = vf_out_new(true);
	char head[1024];
	json_t *j;

	vf_out_obj_begin(o, NULL);
	vf_out_table_begin(o, "rows", t);
	vf_out_row_begin(o, t, row);
	vf_out_row_end(o);
	vf_out_table_end(o);
	vf_out_obj_end(o);
	j = take_json(o);
	vf_out_table_head_text(head, sizeof(head), t);
	for (unsigned int i = 0; i < t->n; i++) {
		const struct vf_col *c = &t->cols[i];

		assert_non_null(c->key);
		if (!c->head || !*c->head || !strstr(head, c->head))
			fail_msg("column %s has no text heading", c->key);
		if (strchr(c->head, ' '))
			fail_msg("heading '%s' has a blank: the text table splits on blanks", c->head);
		if (c->width < (int)strlen(c->head))
			fail_msg("column %s narrower than its heading", c->key);
		if (!json_object_get(json_array_get(json_object_get(j, "rows"), 0), c->key))
			fail_msg("text column %s has no JSON key", c->head);
		for (unsigned int m = 0; m < i; m++)
			if (!strcmp(t->cols[m].key, c->key) || !strcmp(t->cols[m].head, c->head))
				fail_msg("column %s twice", c->key);
	}
	json_decref(j);
	vf_out_free(o);
}

static bool in_table(const struct vf_table *t, const char *key)
{
	for (unsigned int i = 0; i < t->n; i++)
		if (!strcmp(t->cols[i].key, key))
			return true;
	return false;
}

static void test_tables_key_and_heading(void **state)
{
	static struct vf_stream fs;
	struct vf_port_row prow = { .name = "n", .driver = "d", .link = "up" };
	struct vf_stream_row srow = { 0 };
	uint64_t irow[1 + VF_IMPAIR_NB_COUNTERS] = { 0 };
	struct vf_out *o;
	char *js, *txt;
	const char *key;
	json_t *j, *v, *p;

	check_table(&vf_port_table, &prow);
	check_table(&vf_stream_table, &srow);
	check_table(vf_impair_table(), irow);
	/* the DPDK telemetry counter names are port columns */
	for (unsigned int i = 0; i < vf_port_stat_count; i++)
		assert_true(in_table(&vf_port_table, vf_port_stat_descs[i].name));
	/* the port renderer's JSON: every key a column, and the reverse */
	render_port(true, &js);
	render_port(false, &txt);
	j = json_loads(js, 0, NULL);
	p = json_array_get(json_object_get(j, "ports"), 0);
	json_object_foreach(p, key, v)
		if (!in_table(&vf_port_table, key))
			fail_msg("port JSON key %s has no text column", key);
	assert_int_equal(json_object_size(p), vf_port_table.n);
	for (unsigned int i = 0; i < vf_port_table.n; i++)
		if (!strstr(txt, vf_port_table.cols[i].head))
			fail_msg("port text lacks %s", vf_port_table.cols[i].head);
	json_decref(j);
	free(js);
	free(txt);
	/* the stream renderer: every key but the nested objects a column */
	memset(&fs, 0, sizeof(fs));
	fs.rx_port = fs.tx_port = null_port();
	fs.burst = 32;
	o = vf_out_new(true);
	vf_stats_stream(o, &fs);
	j = take_json(o);
	json_object_foreach(j, key, v)
		if (!json_is_object(v) && !in_table(&vf_stream_table, key))
			fail_msg("stream JSON key %s has no text column", key);
	for (unsigned int i = 0; i < vf_stream_table.n; i++)
		assert_non_null(json_object_get(j, vf_stream_table.cols[i].key));
	json_decref(j);
	vf_out_free(o);
}

static void test_units(void **state)
{
	char b[64];

	vf_out_fmt_count(b, sizeof(b), 0);
	assert_string_equal(b, "0");
	vf_out_fmt_count(b, sizeof(b), 999);
	assert_string_equal(b, "999");
	vf_out_fmt_count(b, sizeof(b), 1000);
	assert_string_equal(b, "1,000");
	vf_out_fmt_count(b, sizeof(b), 699912448);
	assert_string_equal(b, "699,912,448");
	vf_out_fmt_pps(b, sizeof(b), 140.2e6);
	assert_string_equal(b, "140.2 Mpps");
	vf_out_fmt_pps(b, sizeof(b), 512e3);
	assert_string_equal(b, "512.0 kpps");
	vf_out_fmt_pps(b, sizeof(b), 12);
	assert_string_equal(b, "12 pps");
	vf_out_fmt_si(b, sizeof(b), 699.9e6, "");
	assert_string_equal(b, "699.9 M");
	vf_out_fmt_si(b, sizeof(b), 4.4e9, "B");
	assert_string_equal(b, "4.4 GB");
	vf_out_fmt_si(b, sizeof(b), 640, "B");
	assert_string_equal(b, "640 B");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nesting_and_types),
		cmocka_unit_test(test_port_schema),
		cmocka_unit_test(test_rates_after_clear),
		cmocka_unit_test(test_stream),
		cmocka_unit_test(test_tables_key_and_heading),
		cmocka_unit_test(test_units),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
