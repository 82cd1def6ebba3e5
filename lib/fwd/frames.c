/* A generating stream's frames: template, lengths, schedule, flows
 * (vf_frames.h). */
#include "vf_frames.h"

#include "vf_pkt.h"

/* One's-complement sum of n bytes read as host-order 16-bit words, an odd
 * last byte padded with zero (RFC 768), as the measuring code sums. */
static uint32_t sum_words(const uint8_t *p, uint32_t n, uint32_t sum)
{
	uint16_t w;

	for (; n > 1; p += 2, n -= 2) {
		memcpy(&w, p, 2);
		sum += w;
		sum = (sum & 0xffff) + (sum >> 16);
	}
	if (n) {
		uint8_t b[2] = { p[0], 0 };
		memcpy(&w, b, 2);
		sum += w;
	}
	return (sum & 0xffff) + (sum >> 16);
}

/* IPv6: the same, with the pseudo-header's fixed address words (the
 * first 96 bits of each; the last 32 come with the flow) in udp_sum. */
static void len_sums6(struct vf_frame_len *z, uint8_t *t, uint16_t len)
{
	static const uint8_t proto[2] = { 0, 17 };
	uint16_t w;
	uint32_t s;

	z->len = len;
	z->ip_len_be = htons((uint16_t)(len - VF_FRAMES_L4_OFF6));	/* payload length */
	z->udp_len_be = z->ip_len_be;
	memcpy(t + 18, &z->ip_len_be, 2);
	memcpy(t + VF_FRAMES_L4_OFF6 + 4, &z->udp_len_be, 2);
	z->ip_sum = 0;
	memcpy(&w, proto, 2);
	s = sum_words(t + 22, 12, w);			/* source, first 96 bits */
	s = sum_words(t + 38, 12, s);			/* destination */
	s = sum_words(t + VF_FRAMES_L4_OFF6 + 4, 2, s);	/* UDP length */
	s += z->udp_len_be;				/* pseudo-header length */
	s = sum_words(t + VF_FRAMES_PAYLOAD_OFF6, len - VF_FRAMES_PAYLOAD_OFF6, s);
	z->udp_sum = s;
}

/* The sums of template t at length len (its length fields set to len). */
static void len_sums(struct vf_frame_len *z, uint8_t *t, uint16_t len)
{
	static const uint8_t proto[2] = { 0, 17 };	/* pseudo-header: zero, UDP */
	uint16_t w;
	uint32_t s;

	z->len = len;
	z->ip_len_be = htons((uint16_t)(len - 14));
	z->udp_len_be = htons((uint16_t)(len - VF_FRAMES_L4_OFF));
	memcpy(t + 16, &z->ip_len_be, 2);
	memcpy(t + VF_FRAMES_L4_OFF + 4, &z->udp_len_be, 2);
	/* IPv4: version .. protocol (bytes 0-9), checksum and addresses not */
	z->ip_sum = sum_words(t + 14, 10, 0);
	memcpy(&w, proto, 2);
	s = sum_words(t + VF_FRAMES_L4_OFF + 4, 2, w);			/* UDP length */
	s += z->udp_len_be;						/* pseudo-header length */
	s = sum_words(t + VF_FRAMES_PAYLOAD_OFF, len - VF_FRAMES_PAYLOAD_OFF, s);
	z->udp_sum = s;
}

/* The shortest frame: the caller's, or the headers'. */
static unsigned int least_len(const struct vf_flows *fl, unsigned int min_len)
{
	unsigned int hdr = (fl->v6 ? VF_FRAMES_PAYLOAD_OFF6 : VF_FRAMES_PAYLOAD_OFF) +
			   (fl->vlan ? VF_FRAMES_VLAN_LEN : 0);

	return min_len < hdr ? hdr : min_len;
}

static size_t tmpl_room(const struct vf_mix *mix, unsigned int min_len)
{
	size_t max = vf_mix_max(mix) < min_len ? min_len : vf_mix_max(mix);

	return (max + 63) & ~(size_t)63;
}

size_t vf_frames_mem_size(const struct vf_mix *mix, const struct vf_flows *fl,
			  unsigned int min_len)
{
	return tmpl_room(mix, least_len(fl, min_len)) + ((vf_mix_period(mix) + 63) & ~(size_t)63);
}

/* A MAC address from the field fl gives, or the caller's. */
static void mac_of(uint8_t out[6], const struct vf_field *f, uint32_t low_be, const uint8_t def[6])
{
	if (!f->given) {
		memcpy(out, def, 6);
		return;
	}
	memcpy(out, f->hi96, 2);
	memcpy(out + 2, &low_be, 4);
}

void vf_frames_init(struct vf_frames *g, void *mem, const struct vf_mix *mix,
		    const struct vf_flows *fl, unsigned int min_len, const uint8_t smac[6],
		    const uint8_t dmac[6], const void *payload, size_t payload_len)
{
	uint32_t max, room;
	uint8_t sm[6], dm[6], *e;

	min_len = least_len(fl, min_len);
	max = vf_mix_max(mix) < min_len ? min_len : vf_mix_max(mix);
	room = (uint32_t)tmpl_room(mix, min_len);
	memset(g, 0, sizeof(*g));
	memset(mem, 0, room);
	g->tmpl = mem;
	g->tmpl_len = (uint16_t)max;
	g->period = vf_mix_period(mix);
	g->sched = g->tmpl + room;
	vf_mix_schedule(mix, g->tmpl + room);
	g->nlens = mix->n;
	g->mixed = mix->n > 1;
	vf_flow_walk_init(&g->walk, fl);
	g->flows = g->walk.n > 1;
	g->v6 = fl->v6;
	g->sh = fl->vlan ? VF_FRAMES_VLAN_LEN : 0;
	g->l4_off = (uint16_t)((g->v6 ? VF_FRAMES_L4_OFF6 : VF_FRAMES_L4_OFF) + g->sh);
	g->payload_off = (uint16_t)((g->v6 ? VF_FRAMES_PAYLOAD_OFF6 : VF_FRAMES_PAYLOAD_OFF) + g->sh);
	/* the walk writes what varies; a MAC address not given is the
	 * caller's, kept in the walk so that the frames' copy of it stays */
	mac_of(sm, &fl->f[VF_FIELD_SMAC], g->walk.smac_be, smac);
	mac_of(dm, &fl->f[VF_FIELD_DMAC], g->walk.dmac_be, dmac);
	memcpy(&g->walk.smac_be, sm + 2, 4);
	memcpy(&g->walk.dmac_be, dm + 2, 4);
	for (unsigned int d = 0; d < g->walk.nd; d++)
		g->l2 = g->l2 || g->walk.fld[d] >= VF_FIELD_SMAC;

	if (g->v6) {
		uint8_t src[16], dst[16];

		memcpy(src, fl->f[VF_FIELD_SRC].hi96, 12);
		memcpy(src + 12, &g->walk.src_be, 4);
		memcpy(dst, fl->f[VF_FIELD_DST].hi96, 12);
		memcpy(dst + 12, &g->walk.dst_be, 4);
		vf_pkt_build_udp6(g->tmpl, max - g->sh, sm, dm, src, dst);
	} else {
		vf_pkt_build_udp(g->tmpl, max - g->sh, sm, dm, 0);
	}
	if (g->sh) {	/* the tag after the MAC addresses, the rest moved on */
		static const uint8_t tpid[2] = { 0x81, 0x00 };

		memmove(g->tmpl + 12 + g->sh, g->tmpl + 12, max - g->sh - 12);
		memcpy(g->tmpl + 12, tpid, 2);
		memcpy(g->tmpl + 14, &g->walk.tci_be, 2);
	}
	e = g->tmpl + g->sh;	/* the untagged offsets from here */
	if (payload_len > max - g->payload_off)
		payload_len = max - g->payload_off;
	if (payload_len)
		memcpy(g->tmpl + g->payload_off, payload, payload_len);
	for (unsigned int i = 0; i < mix->n; i++) {
		uint16_t len = (uint16_t)(mix->len[i] < min_len ? min_len : mix->len[i]);

		/* the sums read from the IP header on: as in an untagged
		 * frame sh bytes shorter */
		if (g->v6)
			len_sums6(&g->lens[i], e, (uint16_t)(len - g->sh));
		else
			len_sums(&g->lens[i], e, (uint16_t)(len - g->sh));
		g->lens[i].len = len;
	}
	/* the template as the first frame: length 0 of the mix, flow 0 */
	if (g->v6) {
		const struct vf_frame_len *z = &g->lens[0];

		memcpy(e + 18, &z->ip_len_be, 2);
		memcpy(e + VF_FRAMES_L4_OFF6 + 4, &z->udp_len_be, 2);
		memcpy(e + VF_FRAMES_L4_OFF6, &g->walk.sport_be, 2);
		memcpy(e + VF_FRAMES_L4_OFF6 + 2, &g->walk.dport_be, 2);
	} else {
		const struct vf_frame_len *z = &g->lens[0];
		uint32_t s = z->ip_sum + g->walk.addr_sum;
		uint16_t ck;

		memcpy(e + 16, &z->ip_len_be, 2);
		memcpy(e + VF_FRAMES_L4_OFF + 4, &z->udp_len_be, 2);
		memcpy(e + 26, &g->walk.src_be, 4);
		memcpy(e + 30, &g->walk.dst_be, 4);
		memcpy(e + VF_FRAMES_L4_OFF, &g->walk.sport_be, 2);
		memcpy(e + VF_FRAMES_L4_OFF + 2, &g->walk.dport_be, 2);
		s = (s & 0xffff) + (s >> 16);
		s = (s & 0xffff) + (s >> 16);
		ck = (uint16_t)~s;
		memcpy(e + 24, &ck, 2);
	}
}

void vf_frames_seek(struct vf_frames *g, uint64_t seq)
{
	g->pos = (uint32_t)(seq % g->period);
	vf_flow_seek(&g->walk, seq);
}
