/* Shell completion answered by the binary itself (`TOOL __complete WORDS`),
 * from the same tables that parse the options: they cannot drift. */
#ifndef VF_COMPLETE_H
#define VF_COMPLETE_H

struct vf_tool;

/* words: the command line after the tool name, the last being the word
 * under the cursor (maybe ""). Prints one candidate per line; prints
 * "__files__" when the shell should complete file names. Returns 0. */
int vf_complete(const struct vf_tool *tool, int nwords, char **words);

#endif
