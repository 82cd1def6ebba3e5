/* Devargs: "DRIVER[,key=value...]" parsed strictly against a driver's key table.
 * An unknown key, a repeated key or a bad value is an error whose message names
 * the key and lists what is accepted. */
#ifndef VF_DEVARGS_H
#define VF_DEVARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VF_DEVARGS_MAX_KEYS 32
#define VF_DEVARGS_STR_MAX  256

enum vf_kv_type {
	VF_KV_UINT,	/* decimal or 0x hex, within [min, max] */
	VF_KV_BOOL,	/* 0|1|yes|no */
	VF_KV_STR,	/* 1..max bytes (max <= VF_DEVARGS_STR_MAX - 1) */
	VF_KV_MAC,	/* xx:xx:xx:xx:xx:xx */
	VF_KV_ENUM,	/* one of choices, '|'-separated */
};

struct vf_kvdef {
	const char *key;
	enum vf_kv_type type;
	uint64_t min, max;	/* UINT: range; STR: max length */
	const char *choices;	/* ENUM: "server|client" */
	const char *def;	/* default as text, for help, man and completion */
	const char *help;
	/* Optional, STR only: further check of a value; 0, or -1 with what is
	 * accepted in expect ("an octal mode such as 0660"). */
	int (*check)(const char *val, char *expect, size_t len);
};

struct vf_kvval {
	bool set;
	uint64_t u;		/* UINT, BOOL (0/1), ENUM (index into choices) */
	uint8_t mac[6];
	char str[VF_DEVARGS_STR_MAX];
};

struct vf_devargs {
	const struct vf_kvdef *defs;	/* NULL-key terminated */
	unsigned int ndefs;
	struct vf_kvval val[VF_DEVARGS_MAX_KEYS];
	char raw[VF_DEVARGS_STR_MAX];	/* everything after "DRIVER," verbatim */
};

/* Splits "DRIVER,rest" (or "dpdk:rest") into the driver name and the rest.
 * Returns 0, or -EINVAL with a message in err. */
int vf_devargs_split(const char *spec, char *driver, size_t driver_len,
		     const char **rest, char *err, size_t errlen);

/* Parses "k=v,k=v" against defs (terminated by an entry with key NULL).
 * Returns 0, or -EINVAL with a message in err naming the key; out is then
 * undefined. */
int vf_devargs_parse(const char *args, const struct vf_kvdef *defs,
		     struct vf_devargs *out, char *err, size_t errlen);

/* Getters return the parsed value, or def when the key was not given.
 * Asking for a key that is not in the table is a programming error (abort). */
bool vf_devargs_has(const struct vf_devargs *da, const char *key);
uint64_t vf_devargs_uint(const struct vf_devargs *da, const char *key, uint64_t def);
bool vf_devargs_bool(const struct vf_devargs *da, const char *key, bool def);
const char *vf_devargs_str(const struct vf_devargs *da, const char *key, const char *def);
int vf_devargs_enum(const struct vf_devargs *da, const char *key, int def);
bool vf_devargs_mac(const struct vf_devargs *da, const char *key, uint8_t mac[6]);

/* spec with the value of every secret key ("secret") replaced by "***",
 * for logs, error messages and show output.  Never fails: out is always
 * NUL-terminated (and truncated when too small). */
void vf_devargs_redact(const char *spec, char *out, size_t len);

/* "key1, key2, ..." into buf, for error messages and help. */
void vf_devargs_keys_list(const struct vf_kvdef *defs, char *buf, size_t len);

#endif
