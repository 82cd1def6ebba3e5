/* Completion candidates for a port spec being typed, from the drivers'
 * own key tables: driver names first, then that driver's keys, then the
 * values of an enum or bool key.  Used by the shell's readline completion
 * and by the tools' bash completion (`TOOL __complete`). */
#ifndef VF_SPEC_COMPLETE_H
#define VF_SPEC_COMPLETE_H

/* Calls emit for each candidate that starts with cur. */
void vf_spec_complete(const char *cur, void (*emit)(const char *s, void *arg), void *arg);
/* The '|'-separated choices, each after prefix, that start with cur. */
void vf_spec_complete_choices(const char *cur, const char *prefix, const char *choices,
			      void (*emit)(const char *s, void *arg), void *arg);

#endif
