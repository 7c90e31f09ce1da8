/* gpu_hog: takes most of GPU 0's free memory, as another process on a
 * shared GPU would, and holds it until killed. For the device checks of
 * seqshim's out-of-memory behaviour; it does not use seqshim.
 *
 *   gpu_hog LEAVE_MIB     leaves LEAVE_MIB of the free memory free
 *
 * Prints "gpu_hog: holding N MiB, M MiB left free" once it holds them.
 * The driver library is opened at run time, so this builds without CUDA. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

typedef int (*init_fn)(unsigned);
typedef int (*device_get_fn)(int *, int);
typedef int (*ctx_retain_fn)(void **, int);
typedef int (*ctx_set_fn)(void *);
typedef int (*mem_info_fn)(size_t *, size_t *);
typedef int (*mem_alloc_fn)(unsigned long long *, size_t);

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: gpu_hog LEAVE_MIB\n");
        return 2;
    }
    size_t leave = (size_t)strtoull(argv[1], NULL, 10) << 20;
    void *cuda = dlopen("libcuda.so.1", RTLD_NOW);
    if (!cuda) {
        fprintf(stderr, "gpu_hog: no CUDA driver (%s)\n", dlerror());
        return 1;
    }
    init_fn init = (init_fn)dlsym(cuda, "cuInit");
    device_get_fn device_get = (device_get_fn)dlsym(cuda, "cuDeviceGet");
    ctx_retain_fn retain = (ctx_retain_fn)dlsym(cuda, "cuDevicePrimaryCtxRetain");
    ctx_set_fn set = (ctx_set_fn)dlsym(cuda, "cuCtxSetCurrent");
    mem_info_fn info = (mem_info_fn)dlsym(cuda, "cuMemGetInfo_v2");
    mem_alloc_fn alloc = (mem_alloc_fn)dlsym(cuda, "cuMemAlloc_v2");
    int dev = 0;
    void *ctx = NULL;
    size_t free_bytes = 0, total = 0;
    if (!init || !device_get || !retain || !set || !info || !alloc || init(0) || device_get(&dev, 0) ||
        retain(&ctx, dev) || set(ctx) || info(&free_bytes, &total)) {
        fprintf(stderr, "gpu_hog: cannot open GPU 0\n");
        return 1;
    }
    /* Several pieces: one allocation of almost all memory may be refused
     * where pieces are not. */
    size_t held = 0, piece = (size_t)1 << 30;
    while (free_bytes > leave + ((size_t)64 << 20) && piece >= ((size_t)16 << 20)) {
        size_t want = free_bytes - leave < piece ? free_bytes - leave : piece;
        unsigned long long ptr = 0;
        if (alloc(&ptr, want) == 0) {
            held += want;
        } else {
            piece /= 2;
        }
        if (info(&free_bytes, &total)) break;
    }
    printf("gpu_hog: holding %zu MiB, %zu MiB left free\n", held >> 20, free_bytes >> 20);
    fflush(stdout);
    for (;;) pause();
}
