/* libFuzzer: port specs and devargs (untrusted: command lines, shell,
 * scripts) through the splitter and the strict parser of every driver's
 * key table. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vf_devargs.h"
#include "vf_port.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char spec[600], drv[VF_NAME_LEN], err[512];
	const char *rest;
	static struct vf_devargs da;

	if (size >= sizeof(spec))
		return 0;
	memcpy(spec, data, size);
	spec[size] = '\0';
	/* Redaction (for logs and show) over any spec and any buffer size. */
	{
		char out[300];
		size_t n = size ? 1 + data[0] % sizeof(out) : sizeof(out);

		vf_devargs_redact(spec, out, n);
		if (strlen(out) >= n)
			abort();
	}
	if (vf_devargs_split(spec, drv, sizeof(drv), &rest, err, sizeof(err)) == 0) {
		for (unsigned int i = 0; vf_driver_at(i); i++)
			vf_devargs_parse(rest, vf_driver_at(i)->keys, &da, err, sizeof(err));
	}
	return 0;
}
