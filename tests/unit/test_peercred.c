/* Who may connect (lib/port/peercred.c): the devargs checks, the policy over
 * real credentials (a socketpair with ourselves, and as root a child that
 * becomes another user and connects to a real listener), socket files
 * created with exactly the asked mode and group whatever the umask, and
 * secrets redacted from port specs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <grp.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "vf_devargs.h"
#include "vf_peercred.h"

#define OTHER_UID 65534		/* nobody */
#define OTHER_GID 65534
#define EXTRA_GID 4242		/* a supplementary group of the child */

static const struct vf_kvdef keys[] = {
	{ "path", VF_KV_STR, 0, 107, NULL, NULL, "" },
	VF_ACCESS_KEYS,
	{ NULL },
};

static struct vf_devargs da;
static char err[512];

static int parse(const char *s)
{
	err[0] = '\0';
	return vf_devargs_parse(s, keys, &da, err, sizeof(err));
}

static void test_devargs(void **state)
{
	struct vf_access a;

	assert_int_equal(parse("socket-mode=0600,socket-group=0,allow-uid=0:root:65534,allow-gid=root"), 0);
	assert_int_equal(vf_access_from_devargs(&a, &da, err, sizeof(err)), 0);
	assert_true(a.mode_set);
	assert_int_equal(a.mode, 0600);
	assert_true(a.group_set);
	assert_int_equal(a.group, 0);
	assert_int_equal(a.nuid, 3);
	assert_int_equal(a.uid[0], 0);
	assert_int_equal(a.uid[1], 0);
	assert_int_equal(a.uid[2], 65534);
	assert_int_equal(a.ngid, 1);
	assert_int_equal(a.gid[0], 0);

	assert_int_equal(parse("socket-mode=660"), 0);
	assert_int_equal(vf_access_from_devargs(&a, &da, err, sizeof(err)), 0);
	assert_int_equal(a.mode, 0660);
	assert_false(a.group_set);
	assert_int_equal(a.nuid + a.ngid, 0);

	/* Defaults: 0660, no lists. */
	assert_int_equal(parse(""), 0);
	assert_int_equal(vf_access_from_devargs(&a, &da, err, sizeof(err)), 0);
	assert_int_equal(a.mode, VF_SOCK_MODE_DEFAULT);
	assert_false(a.mode_set || a.group_set);

	static const char *const bad[][2] = {
		{ "socket-mode=0999", "socket-mode" }, { "socket-mode=1777", "socket-mode" },
		{ "socket-mode=06600", "socket-mode" }, { "socket-mode=rw", "socket-mode" },
		{ "socket-mode=66", "socket-mode" },
		{ "socket-group=no-such-group-vft", "socket-group" },
		{ "socket-group=4294967295", "socket-group" },
		{ "allow-uid=no-such-user-vft", "allow-uid" }, { "allow-uid=0:", "allow-uid" },
		{ "allow-uid=:0", "allow-uid" }, { "allow-uid=0::1", "allow-uid" },
		{ "allow-uid=-1", "allow-uid" },
		{ "allow-uid=1:2:3:4:5:6:7:8:9:10:11:12:13:14:15:16:17", "allow-uid" },
		{ "allow-gid=no-such-group-vft", "allow-gid" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(parse(bad[i][0]), -EINVAL);
		/* one line naming the key and what is accepted */
		assert_non_null(strstr(err, bad[i][1]));
		assert_non_null(strstr(err, "expected"));
		assert_null(strchr(err, '\n'));
	}
	assert_int_equal(parse("allow-uid=1:2:3:4:5:6:7:8:9:10:11:12:13:14:15:16"), 0);
}

static void test_policy(void **state)
{
	struct vf_access a;
	struct vf_peer me = { true, 1, geteuid(), getegid() };
	struct vf_peer root = { true, 1, 0, 0 };
	struct vf_peer other = { true, 1, 4000, 4000 };
	struct vf_peer unknown = { 0 };
	gid_t groups[2] = { 10, 4001 };

	vf_access_init(&a);
	/* abstract: own uid and root only */
	assert_true(vf_access_allows(&a, true, &me, NULL, 0));
	assert_true(vf_access_allows(&a, true, &root, NULL, 0));
	assert_false(vf_access_allows(&a, true, &other, NULL, 0));
	assert_false(vf_access_allows(&a, true, &unknown, NULL, 0));
	/* socket file: the file's mode decided */
	assert_true(vf_access_allows(&a, false, &other, NULL, 0));
	assert_false(vf_access_allows(&a, false, &unknown, NULL, 0));

	/* explicit lists: exactly those, on either kind */
	a.nuid = 1;
	a.uid[0] = 4000;
	assert_true(vf_access_allows(&a, true, &other, NULL, 0));
	assert_true(vf_access_allows(&a, false, &other, NULL, 0));
	assert_false(vf_access_allows(&a, true, &root, NULL, 0));
	assert_false(vf_access_allows(&a, false, &root, NULL, 0));
	a.uid[0] = 4002;
	assert_false(vf_access_allows(&a, false, &other, NULL, 0));
	a.ngid = 1;
	a.gid[0] = 4001;	/* a supplementary group of other */
	assert_false(vf_access_allows(&a, false, &other, NULL, 0));
	assert_true(vf_access_allows(&a, false, &other, groups, 2));
	a.gid[0] = 4000;	/* its primary group */
	assert_true(vf_access_allows(&a, true, &other, NULL, 0));
}

static void test_socketpair_self(void **state)
{
	struct vf_access a;
	struct vf_peer p;
	char why[96];
	int sv[2];

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	vf_access_init(&a);
	assert_int_equal(vf_access_check(&a, true, sv[0], &p, why, sizeof(why)), 0);
	assert_true(p.known);
	assert_int_equal(p.pid, getpid());
	assert_int_equal(p.uid, geteuid());
	assert_int_equal(p.gid, getegid());
	a.nuid = 1;
	a.uid[0] = geteuid() + 1;
	assert_int_equal(vf_access_check(&a, false, sv[0], &p, why, sizeof(why)), -EPERM);
	assert_non_null(strstr(why, "not allowed"));
	/* our primary group lets us in */
	a.ngid = 1;
	a.gid[0] = getegid();
	assert_int_equal(vf_access_check(&a, false, sv[0], &p, why, sizeof(why)), 0);
	close(sv[0]);
	close(sv[1]);
	/* not a connected unix socket: refused, not crashed */
	assert_true(vf_access_check(&a, false, -1, &p, why, sizeof(why)) < 0);
	assert_false(p.known);
}

/* A child that turns into OTHER_UID (with EXTRA_GID as a supplementary
 * group) and connects to name (abstract) or path. */
static pid_t connect_as_other(const struct sockaddr_un *sa, socklen_t len)
{
	pid_t pid = fork();

	if (pid == 0) {
		gid_t g = EXTRA_GID;
		int fd;
		char c;

		if (setgroups(1, &g) || setgid(OTHER_GID) || setuid(OTHER_UID))
			_exit(10);
		fd = socket(AF_UNIX, SOCK_STREAM, 0);
		if (fd < 0 || connect(fd, (const struct sockaddr *)sa, len) < 0)
			_exit(errno == EACCES ? 13 : 11);
		/* wait until the parent has looked and closed */
		if (read(fd, &c, 1) < 0)
			_exit(12);
		_exit(0);
	}
	return pid;
}

static int child_status(pid_t pid)
{
	int st;

	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	return WEXITSTATUS(st);
}

static void test_other_user(void **state)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct vf_access a;
	struct vf_peer p;
	char why[96];
	socklen_t len;
	int lfd, c;
	pid_t pid;

	if (geteuid() != 0)
		skip();
	snprintf(sa.sun_path + 1, sizeof(sa.sun_path) - 1, "vft-peercred-%d", getpid());
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + strlen(sa.sun_path + 1));
	lfd = socket(AF_UNIX, SOCK_STREAM, 0);
	assert_true(lfd >= 0);
	assert_int_equal(bind(lfd, (struct sockaddr *)&sa, len), 0);
	assert_int_equal(listen(lfd, 4), 0);

	struct {
		unsigned int nuid, ngid;
		uid_t uid;
		gid_t gid;
		bool abstract, ok;
	} cases[] = {
		{ 0, 0, 0, 0, true, false },			/* abstract default: refused */
		{ 0, 0, 0, 0, false, true },			/* as if a file: its mode */
		{ 1, 0, OTHER_UID, 0, true, true },		/* allow-uid=nobody */
		{ 1, 0, 0, 0, true, false },			/* allow-uid=root only */
		{ 0, 1, 0, OTHER_GID, true, true },		/* primary group */
		{ 0, 1, 0, EXTRA_GID, true, true },		/* supplementary group */
		{ 0, 1, 0, 4243, true, false },			/* neither */
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		vf_access_init(&a);
		a.nuid = cases[i].nuid;
		a.uid[0] = cases[i].uid;
		a.ngid = cases[i].ngid;
		a.gid[0] = cases[i].gid;
		pid = connect_as_other(&sa, len);
		c = accept(lfd, NULL, NULL);
		assert_true(c >= 0);
		int rc = vf_access_check(&a, cases[i].abstract, c, &p, why, sizeof(why));
		printf("case %zu: %s (%s)\n", i, rc == 0 ? "allowed" : "refused", rc ? why : "");
		assert_int_equal(rc, cases[i].ok ? 0 : -EPERM);
		assert_int_equal(p.uid, OTHER_UID);
		assert_int_equal(p.gid, OTHER_GID);
		assert_int_equal(p.pid, pid);
		if (!cases[i].ok)
			assert_string_equal(why, "Peer uid 65534 not allowed");
		close(c);
		assert_int_equal(child_status(pid), 0);
	}
	close(lfd);
}

static char dir[64];

static int dir_setup(void **state)
{
	snprintf(dir, sizeof(dir), "/tmp/vft-peercred-XXXXXX");
	assert_non_null(mkdtemp(dir));
	return 0;
}

static int dir_teardown(void **state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
	return 0;
}

/* Entries of dir other than . and .. */
static int dir_entries(const char *d)
{
	DIR *dp = opendir(d);
	struct dirent *e;
	int n = 0;

	assert_non_null(dp);
	while ((e = readdir(dp)) != NULL)
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(dp);
	return n;
}

static void bind_one(const char *path, mode_t umask_v, const struct vf_access *a)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat st;
	mode_t old = umask(umask_v);
	int fd = socket(AF_UNIX, SOCK_STREAM, 0), c;

	assert_int_equal(vf_sock_listen_file(fd, path, a, 1, err, sizeof(err)), 0);
	umask(old);
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISSOCK(st.st_mode));
	assert_int_equal(st.st_mode & 07777, a->mode);
	if (a->group_set)
		assert_int_equal(st.st_gid, a->group);
	/* it is the socket we bound, already listening: connect reaches it */
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	c = socket(AF_UNIX, SOCK_STREAM, 0);
	assert_int_equal(connect(c, (struct sockaddr *)&sa, sizeof(sa)), 0);
	close(c);
	close(fd);
}

static void test_bind_mode(void **state)
{
	static const mode_t modes[] = { 0600, 0660, 0666, 0700, 0777, 0640 };
	static const mode_t umasks[] = { 0, 022, 077, 0777 };
	struct vf_access a;
	char path[128];

	for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++)
		for (size_t u = 0; u < sizeof(umasks) / sizeof(umasks[0]); u++) {
			vf_access_init(&a);
			a.mode = modes[m];
			a.mode_set = true;
			snprintf(path, sizeof(path), "%s/m%zu-%zu.sock", dir, m, u);
			bind_one(path, umasks[u], &a);
			unlink(path);
		}
	/* nothing left behind: no private directory, no socket */
	assert_int_equal(dir_entries(dir), 0);

	/* default 0660 under umask 000 */
	vf_access_init(&a);
	snprintf(path, sizeof(path), "%s/def.sock", dir);
	bind_one(path, 0, &a);
	unlink(path);
}

static void test_bind_group(void **state)
{
	struct vf_access a;
	char path[128];

	if (geteuid() != 0)
		skip();	/* only root may give a file any group */
	vf_access_init(&a);
	a.group_set = true;
	a.group = EXTRA_GID;
	a.mode = 0660;
	snprintf(path, sizeof(path), "%s/g.sock", dir);
	bind_one(path, 0, &a);
	unlink(path);
	a.group = 0;
	bind_one(path, 077, &a);
	unlink(path);
}

static void test_bind_exists(void **state)
{
	struct vf_access a;
	char path[128];
	struct stat st;
	int fd, fd2;

	vf_access_init(&a);
	snprintf(path, sizeof(path), "%s/x.sock", dir);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	assert_int_equal(vf_sock_listen_file(fd, path, &a, 1, err, sizeof(err)), 0);
	assert_int_equal(lstat(path, &st), 0);
	/* a second bind never replaces the first */
	fd2 = socket(AF_UNIX, SOCK_STREAM, 0);
	assert_int_equal(vf_sock_listen_file(fd2, path, &a, 1, err, sizeof(err)), -EADDRINUSE);
	assert_non_null(strstr(err, path));
	struct stat st2;
	assert_int_equal(lstat(path, &st2), 0);
	assert_int_equal(st.st_ino, st2.st_ino);
	assert_int_equal(dir_entries(dir), 1);
	close(fd2);
	close(fd);
	unlink(path);

	/* a directory that does not exist: an error, no crash */
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	snprintf(path, sizeof(path), "%s/nodir/x.sock", dir);
	assert_true(vf_sock_listen_file(fd, path, &a, 1, err, sizeof(err)) < 0);
	assert_non_null(strstr(err, path));
	close(fd);
	/* too long for sun_path */
	char longp[200];
	memset(longp, 'a', sizeof(longp) - 1);
	longp[0] = '/';
	longp[sizeof(longp) - 1] = '\0';
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	assert_int_equal(vf_sock_listen_file(fd, longp, &a, 1, err, sizeof(err)), -ENAMETOOLONG);
	close(fd);
}

static void test_bind_long_path(void **state)
{
	/* The private directory's path is longer than sun_path allows while
	 * the final path fits: bound through /proc/self/fd. */
	struct vf_access a;
	char sub[128], path[128];
	size_t n;

	snprintf(sub, sizeof(sub), "%s/", dir);
	n = strlen(sub);
	memset(sub + n, 'd', 90 - n);
	sub[90] = '\0';
	assert_int_equal(mkdir(sub, 0700), 0);
	snprintf(path, sizeof(path), "%s/s.sock", sub);	/* 97 bytes */
	assert_true(strlen(path) < sizeof(((struct sockaddr_un *)0)->sun_path));
	vf_access_init(&a);
	a.mode = 0600;
	bind_one(path, 0, &a);
	unlink(path);
	assert_int_equal(dir_entries(sub), 0);
	rmdir(sub);
}

static void test_redact(void **state)
{
	char out[256];

	vf_devargs_redact("memif,role=server,secret=hunter2,id=1", out, sizeof(out));
	assert_string_equal(out, "memif,role=server,secret=***,id=1");
	vf_devargs_redact("memif,secret=hunter2", out, sizeof(out));
	assert_string_equal(out, "memif,secret=***");
	vf_devargs_redact("dpdk:net_memif0,secret=hunter2,role=client", out, sizeof(out));
	assert_string_equal(out, "dpdk:net_memif0,secret=***,role=client");
	vf_devargs_redact("memif,id=1", out, sizeof(out));
	assert_string_equal(out, "memif,id=1");
	vf_devargs_redact("memif,secretx=1,xsecret=2", out, sizeof(out));
	assert_string_equal(out, "memif,secretx=1,xsecret=2");
	vf_devargs_redact("null", out, sizeof(out));
	assert_string_equal(out, "null");
	vf_devargs_redact("", out, sizeof(out));
	assert_string_equal(out, "");
	vf_devargs_redact("memif,secret=hunter2,a=b", out, 16);
	assert_int_equal(strlen(out), 15);
	assert_null(strstr(out, "hunter"));
	vf_devargs_redact("memif,secret=hunter2", out, 1);
	assert_string_equal(out, "");
}

static void test_strings(void **state)
{
	struct vf_access a;
	char buf[128];

	vf_access_init(&a);
	vf_access_str(&a, true, buf, sizeof(buf));
	assert_non_null(strstr(buf, "and root"));
	vf_access_str(&a, false, buf, sizeof(buf));
	assert_non_null(strstr(buf, "mode"));
	a.nuid = 2;
	a.uid[0] = 0;
	a.uid[1] = 1000;
	a.ngid = 1;
	a.gid[0] = 107;
	assert_string_equal(vf_access_str(&a, true, buf, sizeof(buf)), "uid 0,1000 gid 107");
	a.nuid = 0;
	assert_string_equal(vf_access_str(&a, true, buf, sizeof(buf)), "gid 107");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_devargs),
		cmocka_unit_test(test_policy),
		cmocka_unit_test(test_socketpair_self),
		cmocka_unit_test(test_other_user),
		cmocka_unit_test(test_bind_mode),
		cmocka_unit_test(test_bind_group),
		cmocka_unit_test(test_bind_exists),
		cmocka_unit_test(test_bind_long_path),
		cmocka_unit_test(test_redact),
		cmocka_unit_test(test_strings),
	};

	return cmocka_run_group_tests(tests, dir_setup, dir_teardown);
}
