/* The cookie ledger of the vring fuzzers: which cookies the driver side
 * posted and has not had back.  A cookie returned that is not outstanding,
 * or returned twice, is the bug the fuzzers hunt: they trap on it. */
#ifndef FUZZ_COOKIES_H
#define FUZZ_COOKIES_H

#include <stdint.h>

#define MAXC 100000

static uint8_t held[MAXC];	/* 1: cookie posted and not yet returned */

/* The ring's give-back callback: cookie c (id + 1) comes back; arg counts. */
static void give_back(void *c, void *arg)
{
	uintptr_t id = (uintptr_t)c - 1;

	if (id >= MAXC || !held[id])
		__builtin_trap();
	held[id] = 0;
	(*(unsigned int *)arg)++;
}

#endif
