/* Peer credentials and socket-file attributes for the control sockets
 * (see vf_peercred.h). */
#include "vf_peercred.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "vf_event.h"
#include "vf_log.h"
#include "vf_out.h"

#ifndef SO_PEERGROUPS
#define SO_PEERGROUPS 59
#endif
#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif

/* ---- parsing ---- */

/* An id as a number (0..2^32-2: -1 means "no change" to chown) or a name. */
static int parse_id(const char *s, size_t n, bool user, uint32_t *out)
{
	char buf[64];
	char *end;

	if (n == 0 || n >= sizeof(buf))
		return -1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	if (buf[0] >= '0' && buf[0] <= '9') {
		unsigned long long v;

		errno = 0;
		v = strtoull(buf, &end, 10);
		if (errno || *end || v >= UINT32_MAX)
			return -1;
		*out = (uint32_t)v;
		return 0;
	}
	if (user) {
		struct passwd pw, *r = NULL;
		char tmp[4096];

		if (getpwnam_r(buf, &pw, tmp, sizeof(tmp), &r) != 0 || r == NULL)
			return -1;
		*out = (uint32_t)r->pw_uid;
		return 0;
	} else {
		struct group gr, *r = NULL;
		char tmp[16384];

		if (getgrnam_r(buf, &gr, tmp, sizeof(tmp), &r) != 0 || r == NULL)
			return -1;
		*out = (uint32_t)r->gr_gid;
		return 0;
	}
}

/* "a:b:c" into ids; 0 or -1. */
static int parse_list(const char *val, bool user, uint32_t *ids, unsigned int *n)
{
	const char *p = val;

	*n = 0;
	if (*p == '\0')
		return -1;
	for (;;) {
		size_t k = strcspn(p, ":");

		if (*n == VF_ACCESS_MAX_IDS || parse_id(p, k, user, &ids[*n]) < 0)
			return -1;
		(*n)++;
		p += k;
		if (*p == '\0')
			return 0;
		p++;	/* ':' */
		if (*p == '\0')
			return -1;
	}
}

static int parse_mode(const char *val, mode_t *mode)
{
	size_t n = strlen(val);
	unsigned long v = 0;

	if (n < 3 || n > 4)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (val[i] < '0' || val[i] > '7')
			return -1;
		v = v * 8 + (unsigned long)(val[i] - '0');
	}
	if (v > 0777)
		return -1;
	*mode = (mode_t)v;
	return 0;
}

int vf_access_check_mode(const char *val, char *expect, size_t len)
{
	mode_t m;

	if (parse_mode(val, &m) == 0)
		return 0;
	snprintf(expect, len, "an octal mode of 3 or 4 digits up to 0777, such as 0660 or 0600");
	return -1;
}

int vf_access_check_group(const char *val, char *expect, size_t len)
{
	uint32_t g;

	if (parse_id(val, strlen(val), false, &g) == 0)
		return 0;
	snprintf(expect, len, "an existing group name or a numeric gid");
	return -1;
}

int vf_access_check_uids(const char *val, char *expect, size_t len)
{
	uint32_t ids[VF_ACCESS_MAX_IDS];
	unsigned int n;

	if (parse_list(val, true, ids, &n) == 0)
		return 0;
	snprintf(expect, len, "1..%d existing user names or numeric uids separated by ':'",
		 VF_ACCESS_MAX_IDS);
	return -1;
}

int vf_access_check_gids(const char *val, char *expect, size_t len)
{
	uint32_t ids[VF_ACCESS_MAX_IDS];
	unsigned int n;

	if (parse_list(val, false, ids, &n) == 0)
		return 0;
	snprintf(expect, len, "1..%d existing group names or numeric gids separated by ':'",
		 VF_ACCESS_MAX_IDS);
	return -1;
}

void vf_access_init(struct vf_access *a)
{
	memset(a, 0, sizeof(*a));
	a->mode = VF_SOCK_MODE_DEFAULT;
}

int vf_access_set(struct vf_access *a, const char *key, const char *val, char *err, size_t len)
{
	uint32_t ids[VF_ACCESS_MAX_IDS], g;
	unsigned int n;
	bool user = !strcmp(key, "allow-uid");

	if (!strcmp(key, "socket-mode")) {
		if (parse_mode(val, &a->mode) < 0) {
			snprintf(err, len, "bad mode '%s': expected an octal mode such as 0660", val);
			return -EINVAL;
		}
		a->mode_set = true;
	} else if (!strcmp(key, "socket-group")) {
		if (parse_id(val, strlen(val), false, &g) < 0) {
			snprintf(err, len, "no group '%s'", val);
			return -EINVAL;
		}
		a->group = (gid_t)g;
		a->group_set = true;
	} else if (user || !strcmp(key, "allow-gid")) {
		if (parse_list(val, user, ids, &n) < 0) {
			snprintf(err, len, "%s: cannot resolve '%s'", key, val);
			return -EINVAL;
		}
		for (unsigned int i = 0; i < n; i++) {
			if (user)
				a->uid[i] = (uid_t)ids[i];
			else
				a->gid[i] = (gid_t)ids[i];
		}
		*(user ? &a->nuid : &a->ngid) = n;
	} else {
		snprintf(err, len, "no access key '%s'", key);
		return -EINVAL;
	}
	return 0;
}

int vf_access_from_devargs(struct vf_access *a, const struct vf_devargs *da,
			   char *err, size_t len)
{
	const char *v;
	uint32_t ids[VF_ACCESS_MAX_IDS], g;
	unsigned int n;

	vf_access_init(a);
	/* The values were checked at parse time; names are resolved again
	 * here (a user may have gone in between: then it is an error). */
	v = vf_devargs_str(da, "socket-mode", NULL);
	if (v != NULL) {
		if (parse_mode(v, &a->mode) < 0)
			goto bad;
		a->mode_set = true;
	}
	v = vf_devargs_str(da, "socket-group", NULL);
	if (v != NULL) {
		if (parse_id(v, strlen(v), false, &g) < 0) {
			snprintf(err, len, "socket-group: no group '%s'", v);
			return -EINVAL;
		}
		a->group = (gid_t)g;
		a->group_set = true;
	}
	v = vf_devargs_str(da, "allow-uid", NULL);
	if (v != NULL) {
		if (parse_list(v, true, ids, &n) < 0) {
			snprintf(err, len, "allow-uid: cannot resolve '%s'", v);
			return -EINVAL;
		}
		for (unsigned int i = 0; i < n; i++)
			a->uid[i] = (uid_t)ids[i];
		a->nuid = n;
	}
	v = vf_devargs_str(da, "allow-gid", NULL);
	if (v != NULL) {
		if (parse_list(v, false, ids, &n) < 0) {
			snprintf(err, len, "allow-gid: cannot resolve '%s'", v);
			return -EINVAL;
		}
		for (unsigned int i = 0; i < n; i++)
			a->gid[i] = (gid_t)ids[i];
		a->ngid = n;
	}
	return 0;
bad:
	snprintf(err, len, "socket-mode: bad value");
	return -EINVAL;
}

bool vf_access_equal(const struct vf_access *a, const struct vf_access *b)
{
	if (a->mode_set != b->mode_set || (a->mode_set && a->mode != b->mode) ||
	    a->group_set != b->group_set || (a->group_set && a->group != b->group) ||
	    a->nuid != b->nuid || a->ngid != b->ngid)
		return false;
	for (unsigned int i = 0; i < a->nuid; i++)
		if (a->uid[i] != b->uid[i])
			return false;
	for (unsigned int i = 0; i < a->ngid; i++)
		if (a->gid[i] != b->gid[i])
			return false;
	return true;
}

/* ---- the decision ---- */

int vf_peer_get(int fd, struct vf_peer *p)
{
	struct ucred uc;
	socklen_t l = sizeof(uc);

	memset(p, 0, sizeof(*p));
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &uc, &l) < 0)
		return -errno;
	if (l != sizeof(uc))
		return -EPROTO;
	p->known = true;
	p->pid = uc.pid;
	p->uid = uc.uid;
	p->gid = uc.gid;
	return 0;
}

bool vf_access_allows(const struct vf_access *a, bool abstract, const struct vf_peer *p,
		      const gid_t *groups, unsigned int ngroups)
{
	if (!p->known)
		return false;
	if (a->nuid == 0 && a->ngid == 0) {
		if (!abstract)
			return true;	/* the socket file's mode decided */
		return p->uid == 0 || p->uid == geteuid();
	}
	for (unsigned int i = 0; i < a->nuid; i++)
		if (a->uid[i] == p->uid)
			return true;
	for (unsigned int i = 0; i < a->ngid; i++) {
		if (a->gid[i] == p->gid)
			return true;
		for (unsigned int k = 0; k < ngroups; k++)
			if (a->gid[i] == groups[k])
				return true;
	}
	return false;
}

/* The peer's supplementary groups (SO_PEERGROUPS, Linux 4.13); NULL and 0
 * when unavailable.  Caller frees. */
static gid_t *peer_groups(int fd, unsigned int *n)
{
	socklen_t l = 64 * sizeof(gid_t);
	gid_t *g = NULL;

	*n = 0;
	for (int tries = 0; tries < 3; tries++) {
		gid_t *ng = realloc(g, l ? l : sizeof(gid_t));

		if (ng == NULL)
			break;
		g = ng;
		if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, g, &l) == 0) {
			*n = l / sizeof(gid_t);
			return g;
		}
		if (errno != ERANGE)
			break;
		/* l now holds the size needed */
	}
	free(g);
	return NULL;
}

int vf_access_check(const struct vf_access *a, bool abstract, int fd,
		    struct vf_peer *p, char *why, size_t len)
{
	gid_t *groups = NULL;
	unsigned int ngroups = 0;
	bool ok;
	int rc;

	rc = vf_peer_get(fd, p);
	if (rc < 0) {
		snprintf(why, len, "Peer credentials unavailable");
		return rc;
	}
	if (a->ngid != 0)
		groups = peer_groups(fd, &ngroups);
	ok = vf_access_allows(a, abstract, p, groups, ngroups);
	free(groups);
	if (ok)
		return 0;
	snprintf(why, len, "Peer uid %u not allowed", (unsigned int)p->uid);
	return -EPERM;
}

/* ---- socket files ---- */

void vf_sock_warn_dir(const char *who, const char *path)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');
	struct stat st;

	if (slash == NULL)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == path)
		snprintf(dir, sizeof(dir), "/");
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	if (stat(dir, &st) < 0 || !(st.st_mode & S_IWOTH))
		return;
	VF_WARN("%s: directory %s of socket %s is writable by other users%s; "
		"use a directory only trusted users can write", who, dir, path,
		(st.st_mode & S_ISVTX) ? " (sticky: another user can take the name first)"
				       : ": another user can replace the socket");
}

int vf_sock_listen_file(int fd, const char *path, const struct vf_access *a, int backlog,
			char *err, size_t len)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char tdir[PATH_MAX], tsock[PATH_MAX];
	const char *slash = strrchr(path, '/');
	int rc = 0, dfd = -1;

	err[0] = '\0';
	if (strlen(path) >= sizeof(sa.sun_path)) {
		snprintf(err, len, "%s: path too long (max %zu bytes)", path,
			 sizeof(sa.sun_path) - 1);
		return -ENAMETOOLONG;
	}
	/* A private directory next to the target: same file system, so the
	 * rename below is atomic; 0700, so nobody but us (and root) can reach
	 * the socket before it has its mode and group. */
	if (slash == NULL)
		snprintf(tdir, sizeof(tdir), ".vf-sock-XXXXXX");
	else
		snprintf(tdir, sizeof(tdir), "%.*s/.vf-sock-XXXXXX", (int)(slash - path), path);
	if (mkdtemp(tdir) == NULL) {
		rc = -errno;
		snprintf(err, len, "%s: cannot create a private directory next to it: %s",
			 path, strerror(errno));
		return rc;
	}
	snprintf(tsock, sizeof(tsock), "%s/s", tdir);
	if (strlen(tsock) < sizeof(sa.sun_path)) {
		memcpy(sa.sun_path, tsock, strlen(tsock) + 1);
	} else {
		/* Too long for sun_path: reach the directory through its fd. */
		dfd = open(tdir, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (dfd < 0) {
			rc = -errno;
			goto fail_dir;
		}
		snprintf(sa.sun_path, sizeof(sa.sun_path), "/proc/self/fd/%d/s", dfd);
	}
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		rc = -errno;
		goto fail_dir;
	}
	if (a->group_set && chown(tsock, (uid_t)-1, a->group) < 0) {
		rc = -errno;
		snprintf(err, len, "%s: socket-group %u: %s", path, (unsigned int)a->group,
			 strerror(errno));
		goto fail_sock;
	}
	/* After chown, which may clear bits; chmod is not subject to the
	 * umask, so the mode is exactly the one asked. */
	if (chmod(tsock, a->mode) < 0) {
		rc = -errno;
		goto fail_sock;
	}
	/* Listening before the name appears: a peer that sees the path can
	 * connect at once (no ECONNREFUSED window). */
	if (listen(fd, backlog) < 0) {
		rc = -errno;
		goto fail_sock;
	}
	if (renameat2(AT_FDCWD, tsock, AT_FDCWD, path, RENAME_NOREPLACE) < 0) {
		if (errno == EINVAL || errno == ENOSYS) {
			/* No RENAME_NOREPLACE here: link() never replaces. */
			if (link(tsock, path) < 0) {
				rc = -errno;
				goto fail_sock;
			}
			unlink(tsock);
		} else {
			rc = errno == EEXIST ? -EADDRINUSE : -errno;
			goto fail_sock;
		}
	}
	rmdir(tdir);
	if (dfd >= 0)
		close(dfd);
	return 0;
fail_sock:
	unlink(tsock);
fail_dir:
	rmdir(tdir);
	if (dfd >= 0)
		close(dfd);
	if (rc != 0 && err[0] == '\0')
		snprintf(err, len, "%s: %s", path, rc == -EADDRINUSE ?
			 "address in use" : strerror(-rc));
	return rc;
}

/* ---- output ---- */

const char *vf_peer_str(const struct vf_peer *p, char *buf, size_t len)
{
	if (!p->known)
		snprintf(buf, len, "unknown peer");
	else
		snprintf(buf, len, "pid %d uid %u gid %u", (int)p->pid, (unsigned int)p->uid,
			 (unsigned int)p->gid);
	return buf;
}

void vf_peer_event(uint16_t port, const char *name, enum vf_event_peer state,
		   const struct vf_peer *p, const char *path, const char *why)
{
	bool k = p && p->known;

	vf_event_peer(port, name, state, k ? p->pid : -1, k ? (int64_t)p->uid : -1,
		      k ? (int64_t)p->gid : -1, path, why);
}

static size_t ids_str(char *buf, size_t len, const char *what, const uint32_t *ids,
		      unsigned int n)
{
	size_t o = 0;

	for (unsigned int i = 0; i < n && o < len; i++)
		o += (size_t)snprintf(buf + o, len - o, "%s%" PRIu32, i ? "," : what, ids[i]);
	return o < len ? o : len;
}

const char *vf_access_str(const struct vf_access *a, bool abstract, char *buf, size_t len)
{
	uint32_t ids[VF_ACCESS_MAX_IDS];
	size_t o = 0;

	buf[0] = '\0';
	if (a->nuid == 0 && a->ngid == 0) {
		if (abstract)
			snprintf(buf, len, "own uid %u and root", (unsigned int)geteuid());
		else
			snprintf(buf, len, "as the socket file's mode allows");
		return buf;
	}
	for (unsigned int i = 0; i < a->nuid; i++)
		ids[i] = (uint32_t)a->uid[i];
	o += ids_str(buf + o, len - o, "uid ", ids, a->nuid);
	for (unsigned int i = 0; i < a->ngid; i++)
		ids[i] = (uint32_t)a->gid[i];
	if (a->ngid && o && o + 1 < len)
		buf[o++] = ' ', buf[o] = '\0';
	ids_str(buf + o, len - o, "gid ", ids, a->ngid);
	return buf;
}

void vf_peer_info(struct vf_out *o, const struct vf_peer *p)
{
	vf_out_i64(o, "peer_pid", p->known ? (int64_t)p->pid : -1);
	vf_out_i64(o, "peer_uid", p->known ? (int64_t)p->uid : -1);
	vf_out_i64(o, "peer_gid", p->known ? (int64_t)p->gid : -1);
}

void vf_access_info(struct vf_out *o, const struct vf_access *a, bool abstract,
		    const char *path)
{
	char buf[256];
	struct stat st;

	vf_out_str(o, "allow", vf_access_str(a, abstract, buf, sizeof(buf)));
	if (path == NULL || abstract || lstat(path, &st) < 0)
		return;
	vf_out_strf(o, "socket_mode", "0%03o", (unsigned int)(st.st_mode & 07777));
	{
		struct group gr, *r = NULL;
		char tmp[16384];

		if (getgrgid_r(st.st_gid, &gr, tmp, sizeof(tmp), &r) == 0 && r != NULL)
			vf_out_strf(o, "socket_group", "%s(%u)", r->gr_name, (unsigned int)st.st_gid);
		else
			vf_out_strf(o, "socket_group", "%u", (unsigned int)st.st_gid);
	}
}
