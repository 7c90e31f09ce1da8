/* Preloaded into a process (LD_PRELOAD), prints every exit handler it
 * registers, with the library the handler lives in, in order: the GPU
 * machine's start-up check uses it to see that no NVRTC handler is
 * registered after seqshim's exit wait. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>

int __cxa_atexit(void (*f)(void *), void *arg, void *dso) {
    static int (*next)(void (*)(void *), void *, void *);
    if (!next)
        next = (int (*)(void (*)(void *), void *, void *))dlsym(RTLD_NEXT, "__cxa_atexit");
    Dl_info info;
    const char *lib = dladdr((void *)f, &info) && info.dli_fname ? info.dli_fname : "?";
    fprintf(stderr, "[exit handler] %s\n", lib);
    return next ? next(f, arg, dso) : -1;
}
