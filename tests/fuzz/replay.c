/* SPDX-License-Identifier: GPL-3.0-or-later */
/* replay.c - a fuzz target without libFuzzer: feeds files (or every file of a directory) to
 * its LLVMFuzzerTestOneInput, one call each, as the fuzzer would. Built with the normal
 * compiler by the normal build; tests/e2e/fuzz_regress.sh runs it over the regression inputs
 * and the seed corpus, so a crash found once stays fixed.
 *
 *   fuzz_replay_TARGET FILE|DIR...   prints "N inputs"; a crash is the test failing. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static unsigned inputs;

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf = NULL;
    long n;

    if (!f || fseek(f, 0, SEEK_END) < 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) < 0 ||
        !(buf = malloc((size_t)n + 1)) || fread(buf, 1, (size_t)n, f) != (size_t)n) {
        fprintf(stderr, "replay: %s: cannot read\n", path);
        if (f)
            fclose(f);
        free(buf);
        return -1;
    }
    fclose(f);
    /* The name goes out first: if the input crashes, the last line says which. */
    fprintf(stderr, "replay: %s\n", path);
    LLVMFuzzerTestOneInput(buf, (size_t)n);
    free(buf);
    inputs++;
    return 0;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int replay_dir(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char **names = NULL, path[4096];
    size_t n = 0, cap = 0;
    int rc = 0;

    if (!d) {
        fprintf(stderr, "replay: %s: cannot open\n", dir);
        return -1;
    }
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        if (n == cap) {
            char **more = realloc(names, (cap = cap ? 2 * cap : 64) * sizeof *names);

            if (!more)
                abort();
            names = more;
        }
        if (!(names[n++] = strdup(e->d_name)))
            abort();
    }
    closedir(d);
    qsort(names, n, sizeof *names, cmp_names); /* the same order every run */
    for (size_t i = 0; i < n; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        if (replay_file(path) < 0)
            rc = -1;
        free(names[i]);
    }
    free(names);
    return rc;
}

int main(int argc, char **argv)
{
    int rc = 0;

    for (int i = 1; i < argc; i++) {
        struct stat st;

        if (stat(argv[i], &st) < 0) {
            fprintf(stderr, "replay: %s: no such file or directory\n", argv[i]);
            rc = 1;
        } else if ((S_ISDIR(st.st_mode) ? replay_dir(argv[i]) : replay_file(argv[i])) < 0) {
            rc = 1;
        }
    }
    printf("%u inputs\n", inputs);
    return rc;
}
