# libc.sig - the C library functions examples/wrap/wrapdemo traces, for cygtrace wrap
# --signatures: the C library has no DWARF to take them from.

# open is variadic in the C library (int open(const char *, int, ...)), which cygtrace wrap
# cannot wrap. Declared here with the third argument that O_CREAT passes as a fixed one: on
# every ABI cygtrace supports it travels in the same register either way. A call without it
# records (and passes on) whatever that register held, which open ignores.
int open(const char *path, int flags, unsigned int mode);
ssize_t read(int fd, void *buf, size_t count);
int close(int fd);
void *malloc(size_t size);
void free(void *ptr);
