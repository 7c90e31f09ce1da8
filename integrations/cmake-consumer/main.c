/* Prints the backend seqshim chose and runs its selftest. */
#include <stdio.h>
#include <seqshim.h>

int main(void) {
    char info[4096];
    if (seqshim_backend_info(info, sizeof info) < 0) return 1;
    printf("seqshim %s via CMake\n%s", seqshim_version(), info);
    int status = seqshim_selftest();
    printf("selftest: %s\n", seqshim_strerror(status));
    return status == SEQSHIM_OK ? 0 : 1;
}
