/* Who may connect to a control socket (vhost-user, memif), and how the
 * socket files we create look.
 *
 * Policy (vf-ports(7), ACCESS):
 *  - allow-uid / allow-gid given: exactly the peers whose uid is listed, or
 *    whose primary or supplementary gid is listed, on any kind of socket;
 *  - else, on an abstract name (which has no permissions of its own): our
 *    own effective uid and root;
 *  - else, on a socket file: whoever the file's mode lets connect (the file
 *    is the gate, as OVS-DPDK and libvirt set it up).
 * Socket files we create get socket-mode (default 0660) and socket-group
 * (default: the group the file system gives) before anyone can connect.
 *
 * Everything here is plain socket code with no protocol knowledge; the
 * drivers call it where they accept or connect. */
#ifndef VF_PEERCRED_H
#define VF_PEERCRED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "vf_devargs.h"
#include "vf_event.h"

struct vf_out;

#define VF_ACCESS_MAX_IDS	16
#define VF_SOCK_MODE_DEFAULT	0660

struct vf_access {
	mode_t mode;			/* socket files we create */
	bool mode_set;			/* socket-mode= given */
	bool group_set;			/* socket-group= given */
	gid_t group;
	unsigned int nuid, ngid;	/* allow lists; both 0: default policy */
	uid_t uid[VF_ACCESS_MAX_IDS];
	gid_t gid[VF_ACCESS_MAX_IDS];
};

/* The credentials of a connected peer (SO_PEERCRED: as they were when it
 * called connect() or listen()). */
struct vf_peer {
	bool known;
	pid_t pid;
	uid_t uid;
	gid_t gid;
};

/* Devarg value checks (vf_kvdef.check): 0, or -1 with what is accepted. */
int vf_access_check_mode(const char *val, char *expect, size_t len);
int vf_access_check_group(const char *val, char *expect, size_t len);
int vf_access_check_uids(const char *val, char *expect, size_t len);
int vf_access_check_gids(const char *val, char *expect, size_t len);

/* The four keys, for a driver's devargs table. */
#define VF_ACCESS_KEYS							\
	{ "socket-mode", VF_KV_STR, 0, 16, NULL, "0660",			\
	  "octal mode of a socket file we create", vf_access_check_mode }, \
	{ "socket-group", VF_KV_STR, 0, 63, NULL, "file system's",	\
	  "group (NAME or GID) of a socket file we create", vf_access_check_group }, \
	{ "allow-uid", VF_KV_STR, 0, 255, NULL, "abstract: own and root; file: its mode", \
	  "peers allowed by uid: NAME|UID[:NAME|UID...]", vf_access_check_uids }, \
	{ "allow-gid", VF_KV_STR, 0, 255, NULL, "abstract: own and root; file: its mode", \
	  "peers allowed by group: NAME|GID[:NAME|GID...]", vf_access_check_gids }

/* Fills a from the VF_ACCESS_KEYS of da.  0, or -EINVAL with err. */
int vf_access_from_devargs(struct vf_access *a, const struct vf_devargs *da,
			   char *err, size_t len);
/* Sets one of the four keys from its value (names resolved now): for
 * sockets that are no port's (the control socket).  0, or -EINVAL with err;
 * a is unchanged then, but for a list cut short. */
int vf_access_set(struct vf_access *a, const char *key, const char *val, char *err, size_t len);
/* The defaults (no key given). */
void vf_access_init(struct vf_access *a);
/* Same policy and file attributes (sockets shared by several ports). */
bool vf_access_equal(const struct vf_access *a, const struct vf_access *b);
/* Were socket-mode or socket-group given? */
static inline bool vf_access_file_keys(const struct vf_access *a)
{
	return a->mode_set || a->group_set;
}

/* Reads the peer's credentials of a connected unix socket; 0 or -errno. */
int vf_peer_get(int fd, struct vf_peer *p);

/* Decides about the peer on fd (connected; p filled from it).  abstract:
 * the socket has an abstract name.  Returns 0 (allowed) or -EPERM (refused;
 * -errno when the credentials cannot be read) with a short reason in why,
 * such as "uid 1001 not allowed", fit for a memif DISCONNECT string. */
int vf_access_check(const struct vf_access *a, bool abstract, int fd,
		    struct vf_peer *p, char *why, size_t len);
/* The same decision over given credentials and groups (for tests). */
bool vf_access_allows(const struct vf_access *a, bool abstract, const struct vf_peer *p,
		      const gid_t *groups, unsigned int ngroups);

/* Binds fd (AF_UNIX) to path with a's mode and group and listens,
 * atomically: the socket is bound in a fresh private (0700) directory next
 * to path, given its mode and group there, set listening, then renamed onto
 * path without replacing anything.  An existing path is -EADDRINUSE (the
 * caller removes stale sockets first).  Returns 0 or -errno with a message
 * in err. */
int vf_sock_listen_file(int fd, const char *path, const struct vf_access *a, int backlog,
			char *err, size_t len);

/* Warns when the directory of path is writable by other users, so that
 * another user could create or replace the socket (drivers call it once
 * per port).  who names the port in the message. */
void vf_sock_warn_dir(const char *who, const char *path);

/* A peer event (vf_event.h) with p's credentials, when known (p may be
 * NULL); path: the socket, why: the reason (both may be NULL). */
void vf_peer_event(uint16_t port, const char *name, enum vf_event_peer state,
		   const struct vf_peer *p, const char *path, const char *why);

/* "pid 12 uid 0 gid 0" */
const char *vf_peer_str(const struct vf_peer *p, char *buf, size_t len);
/* What the policy lets in, for show port info: "uid 0,1000 gid 107",
 * "own uid 1000 and root", "as the socket file's mode allows". */
const char *vf_access_str(const struct vf_access *a, bool abstract, char *buf, size_t len);

/* show port info fields: peer_pid, peer_uid, peer_gid (-1: no peer). */
void vf_peer_info(struct vf_out *o, const struct vf_peer *p);
/* show port info fields: allow, and for a socket file we created
 * (path != NULL) socket_mode and socket_group as the file is now. */
void vf_access_info(struct vf_out *o, const struct vf_access *a, bool abstract,
		    const char *path);

/* Log the n-th refusal? (the first five, then one in a thousand) */
static inline bool vf_access_log_due(uint64_t n)
{
	return n <= 5 || n % 1000 == 0;
}

#endif
