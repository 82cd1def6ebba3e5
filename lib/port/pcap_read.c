/* pcap and pcapng reader (vf_pcap_read.h).  Every length read from the
 * file is checked against what is left of the file before it is used. */
#include "vf_pcap_read.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define LINKTYPE_ETHERNET 1
#define MAX_IFACES 64

struct rd {
	const uint8_t *b;
	size_t len;
	bool swap;
	const struct vf_pcap_limits *lim;
	struct vf_pcap *out;
	uint32_t cap;		/* frames allocated */
	uint64_t last_ns, first_ns;
	bool have_first;
	char *err;
	size_t errlen;
};

static int fail(struct rd *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct rd *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->err, r->errlen, fmt, ap);
	va_end(ap);
	return -1;
}

static uint32_t u32(const struct rd *r, size_t off)
{
	uint32_t v;

	memcpy(&v, r->b + off, 4);
	return r->swap ? __builtin_bswap32(v) : v;
}

static uint16_t u16(const struct rd *r, size_t off)
{
	uint16_t v;

	memcpy(&v, r->b + off, 2);
	return r->swap ? __builtin_bswap16(v) : v;
}

/* One frame: its bytes at off, its time in ns (absolute, as recorded),
 * the interface it was captured on (pcapng; 0 in pcap). */
static int add(struct rd *r, size_t off, uint32_t len, uint64_t ts_ns, uint16_t iface)
{
	struct vf_pcap *p = r->out;
	struct vf_pcap_frame *f;

	if (len > r->lim->max_frame_len)
		return fail(r, "frame %u: %u bytes captured, at most %u (one mbuf)", p->n + 1, len,
			    r->lim->max_frame_len);
	if (len < 14)
		return fail(r, "frame %u: %u bytes, shorter than an Ethernet header", p->n + 1, len);
	if (p->n == r->lim->max_frames)
		return fail(r, "more than %u frames: replay holds every frame in memory",
			    r->lim->max_frames);
	if (p->n == r->cap) {
		uint32_t cap = r->cap ? r->cap * 2 : 1024;

		if (cap > r->lim->max_frames)
			cap = r->lim->max_frames;
		f = realloc(p->frames, (size_t)cap * sizeof(*f));
		if (!f)
			return fail(r, "out of memory for %u frames", cap);
		p->frames = f;
		r->cap = cap;
	}
	if (!r->have_first) {
		r->first_ns = r->last_ns = ts_ns;
		r->have_first = true;
	}
	/* a capture's clock may step back (merged files): hold it still */
	if (ts_ns < r->last_ns)
		ts_ns = r->last_ns;
	r->last_ns = ts_ns;
	f = &p->frames[p->n++];
	f->ts_ns = ts_ns - r->first_ns;
	f->off = off;
	f->len = len;
	f->iface = iface;
	p->bytes += len;
	return 0;
}

static int parse_pcap(struct rd *r, bool nano)
{
	size_t off = 24;
	uint32_t link;

	if (r->len < 24)
		return fail(r, "pcap: file header truncated (%zu of 24 bytes)", r->len);
	if (u16(r, 4) != 2)
		return fail(r, "pcap: version %u.%u, expected 2.4", u16(r, 4), u16(r, 6));
	link = u32(r, 20) & 0xffff;	/* the upper bits carry FCS information */
	if (link != LINKTYPE_ETHERNET)
		return fail(r, "pcap: link type %u, expected 1 (Ethernet)", link);
	while (off < r->len) {
		uint32_t incl, sec, frac;

		if (r->len - off < 16)
			return fail(r, "pcap: record %u: header truncated at byte %zu", r->out->n + 1, off);
		sec = u32(r, off);
		frac = u32(r, off + 4);
		incl = u32(r, off + 8);
		if (frac >= (nano ? 1000000000u : 1000000u))
			return fail(r, "pcap: record %u: sub-second field %u out of range", r->out->n + 1,
				    frac);
		if (incl > r->len - off - 16)
			return fail(r, "pcap: record %u: %u bytes captured, %zu left in the file",
				    r->out->n + 1, incl, r->len - off - 16);
		if (add(r, off + 16, incl, (uint64_t)sec * 1000000000ull + (nano ? frac : frac * 1000ull), 0))
			return -1;
		off += 16 + (size_t)incl;
	}
	return 0;
}

struct ng_if {
	uint16_t link;
	uint32_t snaplen;
	uint8_t tsresol;	/* if_tsresol: 10^-v, or 2^-(v & 0x7f) with the top bit */
};

static int ts_to_ns(struct rd *r, const struct ng_if *i, uint64_t ts, uint64_t *ns)
{
	unsigned __int128 v = ts;
	unsigned int e = i->tsresol & 0x7f;

	if (i->tsresol & 0x80) {
		if (e > 63)
			return fail(r, "pcapng: time resolution 2^-%u not supported", e);
		v = v * 1000000000ull >> e;
	} else if (e <= 9) {
		for (unsigned int k = e; k < 9; k++)
			v *= 10;
	} else {
		if (e > 19)
			return fail(r, "pcapng: time resolution 10^-%u not supported", e);
		for (unsigned int k = 9; k < e; k++)
			v /= 10;
	}
	if (v > UINT64_MAX)
		return fail(r, "pcapng: timestamp beyond 2^64 ns");
	*ns = (uint64_t)v;
	return 0;
}

/* Options of an interface block (body from off, n bytes): if_tsresol. */
static int ng_if_opts(struct rd *r, size_t off, size_t n, struct ng_if *i)
{
	while (n >= 4) {
		uint16_t code = u16(r, off), len = u16(r, off + 2);
		size_t padded = ((size_t)len + 3) & ~(size_t)3;

		if (code == 0)
			break;
		if (padded > n - 4)
			return fail(r, "pcapng: interface option %u overruns its block", code);
		if (code == 9 && len == 1)
			i->tsresol = r->b[off + 4];
		off += 4 + padded;
		n -= 4 + padded;
	}
	return 0;
}

static int parse_pcapng(struct rd *r)
{
	struct ng_if ifs[MAX_IFACES];
	unsigned int nif = 0;
	uint64_t last_ts = 0;
	size_t off = 0;

	while (off < r->len) {
		uint32_t type, blen;
		size_t body;

		if (r->len - off < 12)
			return fail(r, "pcapng: block header truncated at byte %zu", off);
		type = u32(r, off);
		if (type == 0x0A0D0D0A) {	/* a section: its own byte order */
			uint32_t bom;

			if (r->len - off < 28)
				return fail(r, "pcapng: section header truncated at byte %zu", off);
			memcpy(&bom, r->b + off + 8, 4);
			if (bom == 0x1A2B3C4D)
				r->swap = false;
			else if (bom == 0x4D3C2B1A)
				r->swap = true;
			else
				return fail(r, "pcapng: bad byte-order magic at byte %zu", off);
			if (u16(r, off + 12) != 1)
				return fail(r, "pcapng: version %u, expected 1", u16(r, off + 12));
			nif = 0;
		}
		blen = u32(r, off + 4);
		if (blen < 12 || blen % 4 || blen > r->len - off)
			return fail(r, "pcapng: block at byte %zu: length %u %s", off, blen,
				    blen > r->len - off ? "runs past the end of the file" : "is not valid");
		if (u32(r, off + blen - 4) != blen)
			return fail(r, "pcapng: block at byte %zu: trailing length differs", off);
		body = blen - 12;
		if (type == 1) {		/* interface description */
			if (body < 8)
				return fail(r, "pcapng: interface block at byte %zu too short", off);
			if (nif == MAX_IFACES)
				return fail(r, "pcapng: more than %d interfaces", MAX_IFACES);
			ifs[nif] = (struct ng_if){ u16(r, off + 8), u32(r, off + 12), 6 };
			if (ng_if_opts(r, off + 16, body - 8, &ifs[nif]))
				return -1;
			nif++;
		} else if (type == 6) {		/* enhanced packet */
			uint32_t id, cap;
			uint64_t ts, ns = 0;

			if (body < 20)
				return fail(r, "pcapng: packet block at byte %zu too short", off);
			id = u32(r, off + 8);
			cap = u32(r, off + 20);
			if (id >= nif)
				return fail(r, "pcapng: packet block at byte %zu names interface %u of %u",
					    off, id, nif);
			if (ifs[id].link != LINKTYPE_ETHERNET)
				return fail(r, "pcapng: interface %u: link type %u, expected 1 (Ethernet)",
					    id, ifs[id].link);
			if (cap > body - 20)
				return fail(r, "pcapng: packet block at byte %zu: %u bytes captured, "
					    "%zu in the block", off, cap, body - 20);
			ts = (uint64_t)u32(r, off + 12) << 32 | u32(r, off + 16);
			if (ts_to_ns(r, &ifs[id], ts, &ns) || add(r, off + 28, cap, ns, (uint16_t)id))
				return -1;
			last_ts = ns;
		} else if (type == 3) {		/* simple packet: no time, interface 0 */
			uint32_t orig, cap;

			if (body < 4 || nif == 0)
				return fail(r, "pcapng: simple packet block at byte %zu %s", off,
					    nif ? "too short" : "before any interface");
			if (ifs[0].link != LINKTYPE_ETHERNET)
				return fail(r, "pcapng: interface 0: link type %u, expected 1 (Ethernet)",
					    ifs[0].link);
			orig = u32(r, off + 8);
			cap = orig;
			if (ifs[0].snaplen && cap > ifs[0].snaplen)
				cap = ifs[0].snaplen;
			if (cap > body - 4)
				return fail(r, "pcapng: simple packet block at byte %zu: %u bytes, %zu in "
					    "the block", off, cap, body - 4);
			if (add(r, off + 12, cap, last_ts, 0))
				return -1;
		}
		off += blen;
	}
	return 0;
}

int vf_pcap_parse(const uint8_t *buf, size_t len, const struct vf_pcap_limits *lim,
		  struct vf_pcap *out, char *err, size_t errlen)
{
	struct rd r = { .b = buf, .len = len, .lim = lim, .out = out, .err = err, .errlen = errlen };
	uint32_t magic;
	int ret;

	memset(out, 0, sizeof(*out));
	if (len < 4)
		return fail(&r, "not a capture: %zu bytes", len);
	memcpy(&magic, buf, 4);
	switch (magic) {
	case 0xa1b2c3d4: ret = parse_pcap(&r, false); break;
	case 0xd4c3b2a1: r.swap = true; ret = parse_pcap(&r, false); break;
	case 0xa1b23c4d: ret = parse_pcap(&r, true); break;
	case 0x4d3cb2a1: r.swap = true; ret = parse_pcap(&r, true); break;
	case 0x0A0D0D0A: out->ng = 1; ret = parse_pcapng(&r); break;
	default: ret = fail(&r, "not a pcap or pcapng file (magic %08x)", magic); break;
	}
	if (!ret && out->n == 0)
		ret = fail(&r, "no frames in the capture");
	if (ret) {
		free(out->frames);
		memset(out, 0, sizeof(*out));
	}
	return ret;
}

int vf_pcap_load(const char *path, const struct vf_pcap_limits *lim, struct vf_pcap *out,
		 char *err, size_t errlen)
{
	FILE *f = fopen(path, "rb");
	struct stat st;
	uint8_t *buf;
	int ret;

	memset(out, 0, sizeof(*out));
	if (!f) {
		snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fileno(f), &st) || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file", path);
		fclose(f);
		return -1;
	}
	if ((uint64_t)st.st_size > lim->max_file) {
		snprintf(err, errlen, "%s: %lld bytes, more than the %llu replay holds in memory",
			 path, (long long)st.st_size, (unsigned long long)lim->max_file);
		fclose(f);
		return -1;
	}
	buf = malloc(st.st_size ? (size_t)st.st_size : 1);
	if (!buf || fread(buf, 1, (size_t)st.st_size, f) != (size_t)st.st_size) {
		snprintf(err, errlen, "%s: %s", path, buf ? "short read" : "out of memory");
		free(buf);
		fclose(f);
		return -1;
	}
	fclose(f);
	ret = vf_pcap_parse(buf, (size_t)st.st_size, lim, out, err, errlen);
	if (ret) {
		char msg[256];

		snprintf(msg, sizeof(msg), "%s", err);
		snprintf(err, errlen, "%s: %s", path, msg);
		free(buf);
		return -1;
	}
	out->buf = buf;
	out->size = (size_t)st.st_size;
	return 0;
}

void vf_pcap_free(struct vf_pcap *p)
{
	free(p->frames);
	free(p->buf);
	memset(p, 0, sizeof(*p));
}
