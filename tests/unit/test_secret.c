/* Secret files (lib/port/secret.c): real files in a temporary directory,
 * each rule of the ssh-like check and each bound, and that an error never
 * carries the file's content. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vf_secret.h"

static char dir[64], path[128], err[512], out[VF_SECRET_MAX + 1];

/* path := a file with content (len bytes) and mode. */
static void put(const char *content, size_t len, mode_t mode)
{
	int fd;

	unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, content, len), (ssize_t)len);
	close(fd);
	assert_int_equal(chmod(path, mode), 0);
}

static int rd(size_t max)
{
	memset(out, 'Z', sizeof(out));
	err[0] = '\0';
	return vf_secret_read_file(path, out, max, err, sizeof(err));
}

static void test_mode(void **state)
{
	(void)state;
	put("hunter2", 7, 0600);
	assert_int_equal(rd(24), 7);
	assert_string_equal(out, "hunter2");
	put("hunter2", 7, 0400);
	assert_int_equal(rd(24), 7);
	/* group or other bits of any kind: refused, the content not shown */
	static const mode_t bad[] = { 0644, 0640, 0604, 0620, 0602, 0610, 0601, 0660, 0666 };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		put("hunter2", 7, bad[i]);
		assert_int_equal(rd(24), -1);
		assert_non_null(strstr(err, "expected 0600 or stricter"));
		assert_non_null(strstr(err, path));
		assert_null(strstr(err, "hunter2"));
	}
}

static void test_newline(void **state)
{
	(void)state;
	put("abc\n", 4, 0600);
	assert_int_equal(rd(24), 3);
	assert_string_equal(out, "abc");
	put("abc\r\n", 5, 0600);
	assert_int_equal(rd(24), 3);
	assert_string_equal(out, "abc");
	/* only one trailing newline is not part of the secret */
	put("abc\n\n", 5, 0600);
	assert_int_equal(rd(24), 4);
	assert_memory_equal(out, "abc\n", 5);
	/* inner whitespace is the secret's own */
	put(" a b\tc", 6, 0600);
	assert_int_equal(rd(24), 6);
	assert_string_equal(out, " a b\tc");
}

static void test_bounds(void **state)
{
	char big[VF_SECRET_MAX * 4];

	(void)state;
	memset(big, 'x', sizeof(big));
	put(big, 24, 0600);
	assert_int_equal(rd(24), 24);
	big[24] = '\n';
	put(big, 25, 0600);
	assert_int_equal(rd(24), 24);
	big[24] = '\r';
	big[25] = '\n';
	put(big, 26, 0600);
	assert_int_equal(rd(24), 24);
	memset(big, 'x', sizeof(big));
	put(big, 25, 0600);
	assert_int_equal(rd(24), -1);
	assert_non_null(strstr(err, "too long"));
	assert_null(strstr(err, "xxx"));
	put(big, sizeof(big), 0600);
	assert_int_equal(rd(24), -1);
	assert_non_null(strstr(err, "too long"));
	assert_int_equal(rd(VF_SECRET_MAX), -1);
	put(big, VF_SECRET_MAX, 0600);
	assert_int_equal(rd(VF_SECRET_MAX), VF_SECRET_MAX);
	assert_int_equal(out[VF_SECRET_MAX], '\0');
	/* the caller's bound is checked too */
	assert_int_equal(rd(0), -1);
	assert_int_equal(rd(VF_SECRET_MAX + 1), -1);
}

static void test_empty_nul(void **state)
{
	(void)state;
	put("", 0, 0600);
	assert_int_equal(rd(24), -1);
	assert_non_null(strstr(err, "empty"));
	put("\n", 1, 0600);
	assert_int_equal(rd(24), -1);
	assert_non_null(strstr(err, "empty"));
	put("\r\n", 2, 0600);
	assert_int_equal(rd(24), -1);
	put("ab\0cd", 5, 0600);
	assert_int_equal(rd(24), -1);
	assert_non_null(strstr(err, "NUL"));
}

static void test_kind(void **state)
{
	(void)state;
	/* missing file */
	unlink(path);
	assert_int_equal(rd(24), -1);
	assert_non_null(strstr(err, "No such file"));
	/* a directory, and a FIFO (which must not block the open) */
	assert_int_equal(mkdir(path, 0700), 0);
	assert_int_equal(rd(24), -1);
	assert_non_null(strstr(err, "not a regular file"));
	rmdir(path);
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(rd(24), -1);
	assert_non_null(strstr(err, "not a regular file"));
	unlink(path);
	/* a symlink to a good file is followed (secrets mounted by container
	 * runtimes are links); the target is what is checked */
	char target[160];
	snprintf(target, sizeof(target), "%s.target", path);
	int fd = open(target, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "linked", 6), 6);
	close(fd);
	assert_int_equal(symlink(target, path), 0);
	assert_int_equal(rd(24), 6);
	assert_int_equal(chmod(target, 0644), 0);
	assert_int_equal(rd(24), -1);
	unlink(path);
	unlink(target);
}

static void test_owner(void **state)
{
	(void)state;
	if (geteuid() != 0) {
		skip();
		return;
	}
	/* as root: a file of another user is refused even at 0600; root's
	 * own (ours here) is taken */
	put("hunter2", 7, 0600);
	assert_int_equal(chown(path, 65534, 65534), 0);
	assert_int_equal(rd(24), -1);
	assert_non_null(strstr(err, "owned by uid 65534"));
	assert_int_equal(chown(path, 0, 0), 0);
	assert_int_equal(rd(24), 7);
}

static void test_clear(void **state)
{
	char buf[8] = "abcdefg";

	(void)state;
	vf_secret_clear(buf, sizeof(buf));
	for (size_t i = 0; i < sizeof(buf); i++)
		assert_int_equal(buf[i], 0);
	vf_secret_clear(NULL, 4);	/* no-op */
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/vft-secret-XXXXXX");
	if (mkdtemp(dir) == NULL)
		return -1;
	snprintf(path, sizeof(path), "%s/secret", dir);
	return 0;
}

static int teardown(void **state)
{
	char t[160];

	(void)state;
	unlink(path);
	snprintf(t, sizeof(t), "%s.target", path);
	unlink(t);
	rmdir(dir);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mode),
		cmocka_unit_test(test_newline),
		cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_empty_nul),
		cmocka_unit_test(test_kind),
		cmocka_unit_test(test_owner),
		cmocka_unit_test(test_clear),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
