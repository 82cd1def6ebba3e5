/* The generators' flows: fields, ranges and the walk over them (vf_flow.h). */
#include "vf_flow.h"

#include <stdio.h>
#include <string.h>

#include "vf_pace.h"
#include "vf_parse.h"

#define BENCH_SRC 0xc6120001u	/* 198.18.0.1 (RFC 2544's 198.18.0.0/15) */
#define BENCH_DST 0xc6130002u	/* 198.19.0.2 */
#define BENCH6_SRC 1u		/* 2001:2::1 (RFC 5180's 2001:2::/48) */
#define BENCH6_DST 2u		/* 2001:2:0:1::2 */
#define DEF_PORT 9		/* discard */
#define DEF_FLOWS 1024

static const char *const options[VF_NB_FIELDS] = {
	"flow-src", "flow-dst", "flow-sport", "flow-dport", "flow-src-mac", "flow-dst-mac", "flow-vlan"
};

const char *vf_field_option(enum vf_field_id id)
{
	return options[id];
}

static bool is_addr(enum vf_field_id id)
{
	return id == VF_FIELD_SRC || id == VF_FIELD_DST;
}

static bool is_mac(enum vf_field_id id)
{
	return id == VF_FIELD_SMAC || id == VF_FIELD_DMAC;
}

/* "xx:xx:xx:xx:xx:xx", hex pairs, nothing after. */
static int parse_mac(const char *s, uint8_t m[6])
{
	for (unsigned int i = 0; i < 6; i++) {
		unsigned int v = 0;

		for (unsigned int j = 0; j < 2; j++, s++) {
			char c = *s;

			if (c >= '0' && c <= '9')
				v = v * 16 + (unsigned int)(c - '0');
			else if (c >= 'a' && c <= 'f')
				v = v * 16 + (unsigned int)(c - 'a' + 10);
			else if (c >= 'A' && c <= 'F')
				v = v * 16 + (unsigned int)(c - 'A' + 10);
			else
				return -1;
		}
		m[i] = (uint8_t)v;
		if (*s != (i == 5 ? '\0' : ':'))
			return -1;
		s++;
	}
	return 0;
}

/* One value; an IPv6 address sets f's family and upper 96 bits (first) or
 * must have the same upper 96 bits (second value of a range). */
static int parse_value(enum vf_field_id id, const char *s, uint32_t *v, struct vf_field *f,
		       bool first)
{
	uint64_t p;
	struct in_addr a;
	struct in6_addr a6;

	if (is_addr(id) && strchr(s, ':')) {
		if (inet_pton(AF_INET6, s, &a6) != 1 || (!first && !f->v6))
			return -1;
		if (first) {
			f->v6 = true;
			memcpy(f->hi96, a6.s6_addr, 12);
		} else if (memcmp(f->hi96, a6.s6_addr, 12)) {
			return -1;	/* a range varies the last 32 bits only */
		}
		memcpy(&a.s_addr, a6.s6_addr + 12, 4);
		*v = ntohl(a.s_addr);
		return 0;
	}
	if (is_addr(id)) {
		if (inet_pton(AF_INET, s, &a) != 1 || (!first && f->v6))
			return -1;
		*v = ntohl(a.s_addr);
		return 0;
	}
	if (is_mac(id)) {
		uint8_t m[6];

		if (parse_mac(s, m))
			return -1;
		if (first)
			memcpy(f->hi96, m, 2);
		else if (memcmp(f->hi96, m, 2))
			return -1;	/* a range varies the last 32 bits only */
		memcpy(&a.s_addr, m + 2, 4);
		*v = ntohl(a.s_addr);
		return 0;
	}
	if (vf_parse_u64(s, 0, id == VF_FIELD_VLAN ? 4095 : 65535, &p))
		return -1;
	*v = (uint32_t)p;
	return 0;
}

/* "A", "A-B" or (addresses) "A/N" of n characters at s. */
static int parse_range(enum vf_field_id id, const char *s, size_t n, struct vf_field *f)
{
	char buf[96], *sep;
	uint64_t bits;

	if (n == 0 || n >= sizeof(buf))
		return -1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	if (is_addr(id) && (sep = strchr(buf, '/'))) {
		*sep = '\0';
		/* /0 would be 2^32 addresses: one more than a range holds;
		 * an IPv6 prefix varies the last 32 bits at most (/97 up) */
		if (parse_value(id, buf, &f->lo, f, true) ||
		    vf_parse_u64(sep + 1, f->v6 ? 97 : 1, f->v6 ? 128 : 32, &bits))
			return -1;
		if (f->v6)
			bits -= 96;
		f->lo &= bits == 32 ? ~0u : ~(~0u >> bits);
		f->hi = f->lo | (bits == 32 ? 0 : ~0u >> bits);
		return 0;
	}
	sep = strchr(buf, '-');
	if (sep)
		*sep = '\0';
	if (parse_value(id, buf, &f->lo, f, true) ||
	    parse_value(id, sep ? sep + 1 : buf, &f->hi, f, false) || f->hi < f->lo)
		return -1;
	if (f->lo == 0 && f->hi == UINT32_MAX)
		return -1;
	return 0;
}

int vf_field_parse(enum vf_field_id id, const char *s, struct vf_field *out, char *err,
		   size_t errlen)
{
	const char *forms = is_addr(id) ? VF_FIELD_FORMS_ADDR : is_mac(id) ? VF_FIELD_FORMS_MAC :
			    id == VF_FIELD_VLAN ? VF_FIELD_FORMS_VLAN : VF_FIELD_FORMS_PORT;
	/* the order after the range: ":inc" or ":random[:SEED]", found by its
	 * name (an IPv6 address has colons of its own, and no 'r' or 'n') */
	const char *colon = strstr(s, ":random");
	struct vf_field f = { .mode = VF_FIELD_FIXED, .given = true, .seed = 1 };

	if (!colon && strlen(s) >= 4 && !strcmp(s + strlen(s) - 4, ":inc"))
		colon = s + strlen(s) - 4;
	/* not IPv6 or a MAC address: the first colon ends the range (so
	 * that a misspelt order is named as such) */
	if (!colon && !is_mac(id) && (!is_addr(id) || strchr(s, '.')))
		colon = strchr(s, ':');
	if (parse_range(id, s, colon ? (size_t)(colon - s) : strlen(s), &f)) {
		snprintf(err, errlen, "bad --%s '%s': expected %s%s", options[id], s, forms,
			 is_addr(id) ? " (an IPv6 range varies the last 32 bits only)" :
			 is_mac(id) || id == VF_FIELD_VLAN ? "" : ", ports 0..65535");
		return -1;
	}
	if (f.hi > f.lo)
		f.mode = VF_FIELD_INC;
	if (!colon) {
		*out = f;
		return 0;
	}
	if (f.hi == f.lo) {
		snprintf(err, errlen, "bad --%s '%s': %s is one value, with no order to choose: "
			 "give a range", options[id], s, colon + 1);
		return -1;
	}
	if (!strcmp(colon + 1, "inc")) {
		f.mode = VF_FIELD_INC;
	} else if (!strcmp(colon + 1, "random")) {
		f.mode = VF_FIELD_RANDOM;
	} else if (!strncmp(colon + 1, "random:", 7) &&
		   !vf_parse_u64(colon + 8, 0, UINT64_MAX, &f.seed)) {
		f.mode = VF_FIELD_RANDOM;
	} else {
		snprintf(err, errlen, "bad --%s '%s': after the range, expected :inc, :random or "
			 ":random:SEED (an integer)", options[id], s);
		return -1;
	}
	*out = f;
	return 0;
}

static void fmt_value(char *buf, size_t len, enum vf_field_id id, const struct vf_field *f,
		      uint32_t v)
{
	struct in_addr a = { htonl(v) };
	struct in6_addr a6;

	if (is_addr(id) && f->v6) {
		memcpy(a6.s6_addr, f->hi96, 12);
		memcpy(a6.s6_addr + 12, &a.s_addr, 4);
		if (inet_ntop(AF_INET6, &a6, buf, (socklen_t)len))
			return;
	}
	if (is_mac(id)) {
		const uint8_t *m = (const uint8_t *)&a.s_addr;

		snprintf(buf, len, "%02x:%02x:%02x:%02x:%02x:%02x", f->hi96[0], f->hi96[1], m[0], m[1],
			 m[2], m[3]);
		return;
	}
	if (!is_addr(id) || !inet_ntop(AF_INET, &a, buf, (socklen_t)len))
		snprintf(buf, len, "%u", v);
}

int vf_field_fmt(char *buf, size_t len, enum vf_field_id id, const struct vf_field *f)
{
	char lo[INET6_ADDRSTRLEN], hi[INET6_ADDRSTRLEN];

	if (id >= VF_FIELD_SMAC && !f->given)	/* filled in at start, or no tag */
		return snprintf(buf, len, "%s", id == VF_FIELD_SMAC ? "port" :
					       id == VF_FIELD_DMAC ? "eth-peer" : "none");
	fmt_value(lo, sizeof(lo), id, f, f->lo);
	fmt_value(hi, sizeof(hi), id, f, f->hi);
	if (f->mode == VF_FIELD_FIXED || f->lo == f->hi)
		return snprintf(buf, len, "%s", lo);
	if (f->mode == VF_FIELD_INC)
		return snprintf(buf, len, "%s-%s", lo, hi);
	return snprintf(buf, len, "%s-%s:random:%llu", lo, hi, (unsigned long long)f->seed);
}

static void fixed(struct vf_field *f, uint32_t v)
{
	f->mode = VF_FIELD_FIXED;
	f->lo = f->hi = v;
	f->seed = 1;
	f->v6 = false;
}

/* The IPv6 defaults: 2001:2::/48 (RFC 5180), source and destination in
 * two /64s. */
static void fixed6(struct vf_field *f, uint32_t v, uint8_t subnet)
{
	static const uint8_t bench[12] = { 0x20, 0x01, 0x00, 0x02, 0, 0, 0, 0, 0, 0, 0, 0 };

	fixed(f, v);
	f->v6 = true;
	memcpy(f->hi96, bench, sizeof(bench));
	f->hi96[7] = subnet;
}

int vf_flows_resolve(struct vf_flows *fl, uint32_t flows, bool vary, char *err, size_t errlen)
{
	static const uint32_t defaults[VF_NB_FIELDS] = { BENCH_SRC, BENCH_DST, DEF_PORT, DEF_PORT };
	struct vf_field *vlan = &fl->f[VF_FIELD_VLAN];
	struct vf_field *src = &fl->f[VF_FIELD_SRC], *dst = &fl->f[VF_FIELD_DST];
	bool any = false;
	uint64_t tuples = 1;

	fl->v6 = (src->given && src->v6) || (dst->given && dst->v6);
	fl->vlan = vlan->given;
	if (src->given && dst->given && src->v6 != dst->v6) {
		snprintf(err, errlen, "--flow-src and --flow-dst are one IPv4 and one IPv6 address: "
			 "give both of one family");
		return -1;
	}
	for (unsigned int i = 0; i < VF_NB_FIELDS; i++) {
		if (!fl->f[i].given) {
			if (fl->v6 && is_addr((enum vf_field_id)i))
				fixed6(&fl->f[i], i == VF_FIELD_SRC ? BENCH6_SRC : BENCH6_DST,
				       i == VF_FIELD_SRC ? 0 : 1);
			else
				fixed(&fl->f[i], defaults[i]);	/* MAC, VLAN: 0, unused */
		}
		/* one MAC address or VLAN ID is the frames' header, not flows */
		any = any || (fl->f[i].given && (i < VF_FIELD_SMAC || fl->f[i].hi > fl->f[i].lo));
	}
	if (!any) {
		fl->n = 1;
		if (!vary)
			return 0;
		/* the source address first (198.18.0.1 .. 198.18.255.254), then
		 * the source port: --flows up to 2^24 stay distinct */
		fl->f[VF_FIELD_SRC].mode = VF_FIELD_INC;
		fl->f[VF_FIELD_SRC].hi = 0xc612fffeu;
		fl->f[VF_FIELD_SPORT].mode = VF_FIELD_INC;
		fl->f[VF_FIELD_SPORT].hi = 65535;
		fl->n = flows ? flows : DEF_FLOWS;
		return 0;
	}
	for (unsigned int i = 0; i < VF_NB_FIELDS; i++) {
		tuples *= vf_field_size(&fl->f[i]);
		if (tuples > VF_FLOWS_MAX)
			tuples = VF_FLOWS_MAX + 1ull;	/* no overflow: more than enough */
	}
	if (flows && flows > tuples) {
		snprintf(err, errlen, "--flows %u asks for more flows than the --flow-* fields hold "
			 "(%llu distinct tuples)", flows, (unsigned long long)tuples);
		return -1;
	}
	if (!flows && tuples > VF_FLOWS_MAX) {
		snprintf(err, errlen, "the --flow-* ranges hold more than %u tuples: give --flows N to "
			 "send the first N of them", VF_FLOWS_MAX);
		return -1;
	}
	fl->n = flows ? flows : (uint32_t)tuples;
	return 0;
}

void vf_perm_init(struct vf_perm *p, uint32_t size, uint64_t seed)
{
	uint64_t st = seed ^ 0x5851f42d4c957f2dull;
	unsigned int bits = 0;

	while (bits < 32 && ((uint64_t)1 << bits) < size)
		bits++;
	memset(p, 0, sizeof(*p));
	p->size = size;
	p->mask = bits == 32 ? ~0u : (1u << bits) - 1;
	p->shift = (uint8_t)(bits / 2 + 1);
	p->mul1 = (uint32_t)vf_pace_rand(&st) | 1;	/* odd: a bijection mod 2^bits */
	p->mul2 = (uint32_t)vf_pace_rand(&st) | 1;
	p->add = (uint32_t)vf_pace_rand(&st);
}

void vf_flow_walk_init(struct vf_flow_walk *w, const struct vf_flows *fl)
{
	memset(w, 0, sizeof(*w));
	w->n = fl->n ? fl->n : 1;
	for (unsigned int i = 0; i < VF_NB_FIELDS; i++) {
		const struct vf_field *f = &fl->f[i];

		w->lo[i] = f->lo;
		if (f->mode == VF_FIELD_FIXED || f->hi == f->lo)
			continue;
		w->fld[w->nd] = (uint8_t)i;
		w->size[w->nd] = f->hi - f->lo + 1;
		w->random[w->nd] = f->mode == VF_FIELD_RANDOM;
		if (w->random[w->nd])
			/* each field its own order, even with the same seed */
			vf_perm_init(&w->perm[w->nd], w->size[w->nd], f->seed + 0x9e3779b97f4a7c15ull * (i + 1));
		w->nd++;
	}
	/* a fixed field's value never changes: set it once */
	w->src_be = htonl(w->lo[VF_FIELD_SRC]);
	w->dst_be = htonl(w->lo[VF_FIELD_DST]);
	w->sport_be = htons((uint16_t)w->lo[VF_FIELD_SPORT]);
	w->dport_be = htons((uint16_t)w->lo[VF_FIELD_DPORT]);
	w->smac_be = htonl(w->lo[VF_FIELD_SMAC]);
	w->dmac_be = htonl(w->lo[VF_FIELD_DMAC]);
	w->tci_be = htons((uint16_t)w->lo[VF_FIELD_VLAN]);
	if (!w->nd)
		w->size[0] = 1;
	vf_flow_seek(w, 0);
}

void vf_flow_seek(struct vf_flow_walk *w, uint64_t k)
{
	k %= w->n;
	w->k = (uint32_t)k;
	for (unsigned int d = 0; d < w->nd; d++) {
		w->c[d] = (uint32_t)(k % w->size[d]);
		k /= w->size[d];
		vf__flow_set(w, d);
	}
	if (!w->nd) {
		w->c[0] = 0;
		w->addr_sum = (w->src_be & 0xffff) + (w->src_be >> 16) + (w->dst_be & 0xffff) +
			      (w->dst_be >> 16);
		w->port_sum = (uint32_t)w->sport_be + w->dport_be;
	}
}

void vf__flow_carry(struct vf_flow_walk *w)
{
	w->c[0] = 0;
	vf__flow_set(w, 0);
	for (unsigned int d = 1; d < w->nd; d++) {
		if (++w->c[d] < w->size[d]) {
			vf__flow_set(w, d);
			return;
		}
		w->c[d] = 0;
		vf__flow_set(w, d);
	}
}

uint32_t vf_flow_value(const struct vf_flow_walk *w, enum vf_field_id id)
{
	switch (id) {
	case VF_FIELD_SRC: return ntohl(w->src_be);
	case VF_FIELD_DST: return ntohl(w->dst_be);
	case VF_FIELD_SPORT: return ntohs(w->sport_be);
	case VF_FIELD_DPORT: return ntohs(w->dport_be);
	case VF_FIELD_SMAC: return ntohl(w->smac_be);
	case VF_FIELD_DMAC: return ntohl(w->dmac_be);
	default: return ntohs(w->tci_be) & 0x0fff;
	}
}
