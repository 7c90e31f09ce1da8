/* Exercises seqshim's native C API. Built three ways from this one source:
 *   -DLOAD_LINKED   linked with -lseqshim
 *   -DLOAD_DLOPEN   loads libseqshim.so.0 with dlopen() at run time
 *   -DLOAD_PRELOAD  not linked at all; finds the symbols only when the
 *                   library is injected with LD_PRELOAD
 * and must print the same lines in every case. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(LOAD_LINKED)
#include "seqshim.h"
#endif

typedef const char *(*version_fn)(void);
typedef const char *(*strerror_fn)(int);
typedef int (*backend_info_fn)(char *, size_t);
#if defined(LOAD_LINKED)
typedef seqshim_status (*selftest_fn)(void);
#else
/* Without the header: seqshim_status is a C enum, passed as an int. */
typedef int (*selftest_fn)(void);
#endif

struct api {
    version_fn version;
    strerror_fn strerror_;
    backend_info_fn backend_info;
    selftest_fn selftest;
};

static int load(struct api *api) {
#if defined(LOAD_LINKED)
    api->version = seqshim_version;
    api->strerror_ = seqshim_strerror;
    api->backend_info = seqshim_backend_info;
    api->selftest = seqshim_selftest;
    return 0;
#else
#if defined(LOAD_DLOPEN)
    void *handle = dlopen("libseqshim.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        printf("dlopen failed: %s\n", dlerror());
        return 2;
    }
#else
    void *handle = RTLD_DEFAULT;
#endif
    *(void **)&api->version = dlsym(handle, "seqshim_version");
    *(void **)&api->strerror_ = dlsym(handle, "seqshim_strerror");
    *(void **)&api->backend_info = dlsym(handle, "seqshim_backend_info");
    *(void **)&api->selftest = dlsym(handle, "seqshim_selftest");
    if (!api->version || !api->strerror_ || !api->backend_info || !api->selftest) {
        printf("seqshim not loaded\n");
        return 3;
    }
    return 0;
#endif
}

/* Prints the first line of the report that starts with `key`. */
static void print_line(const char *report, const char *key) {
    const char *at = strstr(report, key);
    if (!at) {
        printf("%s<missing>\n", key);
        return;
    }
    const char *end = strchr(at, '\n');
    printf("%.*s\n", (int)(end ? end - at : (long)strlen(at)), at);
}

int main(void) {
    struct api api;
    int status = load(&api);
    if (status != 0) return status;

    printf("version: %s\n", api.version());
    printf("strerror(0): %s\n", api.strerror_(0));
    printf("strerror(-1): %s\n", api.strerror_(-1));

    /* Length query, then a buffer of exactly that size. */
    int needed = api.backend_info(NULL, 0);
    char *report = malloc((size_t)needed + 1);
    if (!report) return 1;
    memset(report, 'x', (size_t)needed + 1);
    int again = api.backend_info(report, (size_t)needed + 1);
    printf("length query: %s\n",
           (needed > 0 && again == needed && strlen(report) == (size_t)needed) ? "consistent" : "INCONSISTENT");
    print_line(report, "backend: ");
    print_line(report, "reason: ");

    /* A short buffer is truncated and still NUL-terminated, like snprintf. */
    char small[8];
    memset(small, 'x', sizeof small);
    int full = api.backend_info(small, sizeof small);
    printf("truncated copy: %s\n",
           (full == needed && small[7] == '\0' && strncmp(small, report, 7) == 0) ? "ok" : "WRONG");
    printf("null buffer with length: %d\n", api.backend_info(NULL, 16));
    free(report);

    printf("selftest: %d\n", api.selftest());
    printf("selftest again: %d\n", api.selftest());
    return 0;
}
