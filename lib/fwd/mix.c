/* Frame-size mixes and their schedule (vf_mix.h). */
#include "vf_mix.h"

#include <stdio.h>
#include <string.h>

#include "vf_parse.h"

static const struct {
	const char *name;
	const char *spec;
} named[] = {
	/* the simple IMIX, as FD.io CSIT's IMIX_v4_1: 7 : 4 : 1 */
	{ "imix", "64:7,570:4,1518:1" },
};

void vf_mix_single(struct vf_mix *m, uint16_t len)
{
	memset(m, 0, sizeof(*m));
	m->n = 1;
	m->len[0] = len;
	m->weight[0] = 1;
}

static uint32_t gcd(uint32_t a, uint32_t b)
{
	while (b) {
		uint32_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

/* One "LEN" or "LEN:WEIGHT" of n characters at s into r's next entry. */
static int parse_item(const char *s, size_t n, struct vf_mix *r, unsigned int min_len,
		      unsigned int max_len, char *err, size_t errlen)
{
	char item[32], *colon;
	uint64_t len, w = 1;

	if (n == 0 || n >= sizeof(item)) {
		snprintf(err, errlen, "an empty or overlong entry");
		return -1;
	}
	memcpy(item, s, n);
	item[n] = '\0';
	colon = strchr(item, ':');
	if (colon)
		*colon = '\0';
	if (vf_parse_u64(item, 0, UINT16_MAX, &len) || len < min_len || len > max_len) {
		snprintf(err, errlen, "bad length '%s': expected %u..%u bytes (without the FCS; "
			 "frames longer than one mbuf go out chained)", item, min_len, max_len);
		return -1;
	}
	if (colon && vf_parse_u64(colon + 1, 1, VF_MIX_MAX_PERIOD, &w)) {
		snprintf(err, errlen, "bad weight '%s' of length %s: expected 1..%u", colon + 1, item,
			 VF_MIX_MAX_PERIOD);
		return -1;
	}
	for (unsigned int i = 0; i < r->n; i++)
		if (r->len[i] == len) {
			snprintf(err, errlen, "length %s appears twice: give it once, with its weight",
				 item);
			return -1;
		}
	if (r->n == VF_MIX_MAX_SIZES) {
		snprintf(err, errlen, "more than %d lengths", VF_MIX_MAX_SIZES);
		return -1;
	}
	r->len[r->n] = (uint16_t)len;
	r->weight[r->n] = (uint32_t)w;
	r->n++;
	return 0;
}

int vf_mix_parse(const char *s, struct vf_mix *m, unsigned int min_len, unsigned int max_len,
		 char *err, size_t errlen)
{
	struct vf_mix r;
	const char *name = NULL, *p;
	char why[192];
	uint64_t sum = 0;
	uint32_t g = 0;

	memset(&r, 0, sizeof(r));
	for (unsigned int i = 0; i < sizeof(named) / sizeof(named[0]); i++)
		if (!strcmp(s, named[i].name)) {
			name = named[i].name;
			s = named[i].spec;
		}
	if (!*s) {
		snprintf(why, sizeof(why), "empty");
		goto bad;
	}
	for (p = s;;) {
		const char *comma = strchr(p, ',');
		size_t n = comma ? (size_t)(comma - p) : strlen(p);

		if (parse_item(p, n, &r, min_len, max_len, why, sizeof(why)))
			goto bad;
		if (!comma)
			break;
		p = comma + 1;
	}
	for (unsigned int i = 0; i < r.n; i++)
		g = gcd(r.weight[i], g);
	for (unsigned int i = 0; i < r.n; i++) {
		r.weight[i] /= g;
		sum += r.weight[i];
	}
	if (sum > VF_MIX_MAX_PERIOD) {
		snprintf(why, sizeof(why), "the weights sum to %llu: at most %u",
			 (unsigned long long)sum, VF_MIX_MAX_PERIOD);
		goto bad;
	}
	if (name)
		snprintf(r.name, sizeof(r.name), "%s", name);
	*m = r;
	return 0;
bad:
	snprintf(err, errlen, "%s; expected %s", why, VF_MIX_FORMS);
	return -1;
}

static bool equal_weights(const struct vf_mix *m)
{
	for (unsigned int i = 1; i < m->n; i++)
		if (m->weight[i] != m->weight[0])
			return false;
	return true;
}

static int fmt_list(char *buf, size_t len, const struct vf_mix *m)
{
	bool weights = !equal_weights(m);
	size_t off = 0;
	int ret = 0;

	if (len)
		buf[0] = '\0';
	for (unsigned int i = 0; i < m->n; i++) {
		int k = weights ? snprintf(buf + off, len > off ? len - off : 0, "%s%u:%u", i ? "," : "",
					   m->len[i], m->weight[i])
				: snprintf(buf + off, len > off ? len - off : 0, "%s%u", i ? "," : "",
					   m->len[i]);
		ret += k;
		off = off + (size_t)k < len ? off + (size_t)k : len;
	}
	return ret;
}

int vf_mix_fmt(char *buf, size_t len, const struct vf_mix *m)
{
	if (m->name[0])
		return snprintf(buf, len, "%s", m->name);
	return fmt_list(buf, len, m);
}

void vf_mix_describe(char *buf, size_t len, const struct vf_mix *m, unsigned int min_len)
{
	char list[160];

	if (vf_mix_is_single(m)) {
		snprintf(buf, len, "%u-byte", m->len[0] < min_len ? min_len : m->len[0]);
		return;
	}
	fmt_list(list, sizeof(list), m);
	snprintf(buf, len, "%s%s%s, mean %.1f-byte", m->name, m->name[0] ? " " : "", list,
		 vf_mix_mean(m, min_len));
}

uint32_t vf_mix_period(const struct vf_mix *m)
{
	uint32_t sum = 0;

	for (unsigned int i = 0; i < m->n; i++)
		sum += m->weight[i];
	return sum;
}

double vf_mix_mean(const struct vf_mix *m, unsigned int min_len)
{
	double bytes = 0;

	for (unsigned int i = 0; i < m->n; i++)
		bytes += (double)m->weight[i] * (m->len[i] < min_len ? min_len : m->len[i]);
	return bytes / vf_mix_period(m);
}

unsigned int vf_mix_max(const struct vf_mix *m)
{
	unsigned int max = 0;

	for (unsigned int i = 0; i < m->n; i++)
		max = m->len[i] > max ? m->len[i] : max;
	return max;
}

unsigned int vf_mix_min(const struct vf_mix *m)
{
	unsigned int min = UINT16_MAX;

	for (unsigned int i = 0; i < m->n; i++)
		min = m->len[i] < min ? m->len[i] : min;
	return min;
}

/* Smooth weighted round robin (as nginx's upstream balancer): each slot,
 * every length gains its weight, the one furthest ahead is sent and loses
 * the period.  Over a period each length is chosen exactly weight times,
 * spread out: 7:4:1 gives a b a a b a c a b a b a rather than seven a's in
 * a row. */
void vf_mix_schedule(const struct vf_mix *m, uint8_t *slot)
{
	int64_t cur[VF_MIX_MAX_SIZES] = { 0 };
	uint32_t period = vf_mix_period(m);

	for (uint32_t s = 0; s < period; s++) {
		unsigned int best = 0;

		for (unsigned int i = 0; i < m->n; i++) {
			cur[i] += m->weight[i];
			if (cur[i] > cur[best])
				best = i;
		}
		cur[best] -= period;
		slot[s] = (uint8_t)best;
	}
}

uint64_t vf_mix_count(const struct vf_mix *m, const uint8_t *slot, uint64_t count, unsigned int i)
{
	uint32_t period = vf_mix_period(m);
	uint64_t n = count / period * m->weight[i];

	for (uint32_t s = 0; s < count % period; s++)
		n += slot[s] == i;
	return n;
}
