/* replay's capture: read (--pcap) and split (--split) once before the
 * run (vf_session.h; the ports are checked against the split at every
 * start, in session.c). */
#include "vf_session.h"

#include <stdio.h>

#include <rte_ether.h>

#include "vf_log.h"

/* Says how the split fell (with -v): a side with no frames is most often
 * a capture of one direction, or the wrong mode. */
static void split_log(const struct vf_session *ses)
{
	const struct vf_pcap_split *sp = &ses->pcap_split;
	const struct vf_pcap *cap = &ses->pcap;
	char mac[RTE_ETHER_ADDR_FMT_SIZE] = "";

	if (ses->split == VF_PCAP_SPLIT_MAC)
		rte_ether_format_addr(mac, sizeof(mac),
				      (const struct rte_ether_addr *)(cap->buf + cap->frames[0].off + 6));
	VF_INFO("replay: %u frames split by %s: %u%s%s%s sent on the first port of each pair, "
		"%u on the second", cap->n, vf_pcap_split_mode_name(ses->split), sp->n[0],
		mac[0] ? " (from " : "", mac, mac[0] ? ")" : "", sp->n[1]);
	if (!sp->n[0] || !sp->n[1])
		VF_WARN("replay: --split %s puts every frame on one side: the other port sends nothing",
			vf_pcap_split_mode_name(ses->split));
}

int vf_session_replay_load(struct vf_session *ses, char *err, size_t errlen)
{
	/* Bounded: the frames stay in memory for the run (vf_pcap_read.h). */
	static const struct vf_pcap_limits lim = { 1ull << 30, 16u << 20, 2048 };
	char msg[200];

	if (!ses->pcap_file[0]) {
		if (ses->split != VF_PCAP_SPLIT_NONE) {
			snprintf(err, errlen, "--split splits the capture of --fwd replay --pcap FILE");
			return -1;
		}
		return 0;
	}
	if (ses->split != VF_PCAP_SPLIT_NONE && ses->fwd.one_way) {
		snprintf(err, errlen, "--split sends each side on its own port: not with --one-way");
		return -1;
	}
	if (vf_pcap_load(ses->pcap_file, &lim, &ses->pcap, err, errlen))
		return -1;
	ses->fwd.replay = &ses->pcap;
	if (ses->split == VF_PCAP_SPLIT_NONE)
		return 0;
	if (vf_pcap_split_build(&ses->pcap, ses->split, &ses->pcap_split, msg, sizeof(msg))) {
		snprintf(err, errlen, "--split %s: %s", vf_pcap_split_mode_name(ses->split), msg);
		return -1;
	}
	ses->fwd.replay_split = &ses->pcap_split;
	split_log(ses);
	return 0;
}

void vf_session_replay_free(struct vf_session *ses)
{
	ses->fwd.replay = NULL;
	ses->fwd.replay_split = NULL;
	vf_pcap_split_free(&ses->pcap_split);
	vf_pcap_free(&ses->pcap);
}
