/* cmd.h - the subcommands. Each parses its own options, prints its own messages
 * ("cygtrace: INPUT: what is wrong") and returns the exit status: 0 done, 1 bad input or
 * failure, 2 bad usage. */
#ifndef CMD_H
#define CMD_H

/* cygtrace tree [options] ELF DUMP: the call tree. */
int cmd_tree(int argc, char **argv);

/* cygtrace info [ELF] DUMP: what the control block says. */
int cmd_info(int argc, char **argv);

/* cygtrace record [options] -- PROGRAM [ARGS]: runs a program with the runtime preloaded. */
int cmd_record(int argc, char **argv);

/* Prints "cygtrace: " and the formatted message to stderr. */
void cmd_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* After getopt_long returned '?': says which option was wrong, in one line. */
void cmd_bad_option(char **argv, const char *cmd);

/* Parses a whole decimal or 0x number into *v; 0, or -1 when s is not one. */
int cmd_parse_u64(const char *s, unsigned long long *v);

#endif
