/* fork() after first use: the parent runs every family's batch entry point
 * (which starts seqshim's CPU pool and schedulers), forks, and the child
 * runs each again and must get the parent's results. A child stuck on the
 * parent's pool threads (which do not exist in it) is killed by alarm(),
 * which fails the test instead of hanging it. Prints "fork: all ok". */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "families.h"

#define FAMILIES 5
static const char* names[FAMILIES] = {"wfa batch", "poa batch", "abea batch", "gact tile batch", "ec"};

static int run_all(uint64_t* h) {
    if (fam_wfa(64, 200, &h[0])) return 1;
    if (fam_poa(8, 6, 150, &h[1])) return 2;
    if (fam_abea(8, &h[2])) return 3;
    if (fam_gact(16, &h[3])) return 4;
    if (fam_ec(&h[4])) return 5;
    return 0;
}

int main(void) {
    uint64_t parent[FAMILIES], child[FAMILIES];
    int failed = run_all(parent);
    if (failed) {
        printf("parent: %s failed\n", names[failed - 1]);
        return 1;
    }
    for (int generation = 1; generation <= 2; ++generation) {
        fflush(stdout);
        pid_t pid = fork();
        if (pid < 0) {
            perror("fork");
            return 1;
        }
        if (pid == 0) {
            alarm(30);
            failed = run_all(child);
            if (failed) {
                printf("child %d: %s failed\n", generation, names[failed - 1]);
                _exit(1);
            }
            int differ = 0;
            for (int f = 0; f < FAMILIES; ++f)
                if (child[f] != parent[f]) {
                    printf("child %d: %s differs from the parent\n", generation, names[f]);
                    differ = 1;
                }
            /* A grandchild as well: the second generation forks a child
             * whose parent was itself a forked child. */
            if (!differ && generation == 2) {
                fflush(stdout);
                pid_t grand = fork();
                if (grand == 0) {
                    alarm(30);
                    uint64_t again[FAMILIES];
                    _exit(run_all(again) || memcmp(again, parent, sizeof again) ? 1 : 0);
                }
                int st = 0;
                if (grand < 0 || waitpid(grand, &st, 0) != grand || !WIFEXITED(st) || WEXITSTATUS(st)) {
                    printf("grandchild failed (%s)\n", WIFSIGNALED(st) ? "killed: hung" : "wrong results");
                    differ = 1;
                }
            }
            fflush(stdout);
            _exit(differ);
        }
        int st = 0;
        if (waitpid(pid, &st, 0) != pid) {
            perror("waitpid");
            return 1;
        }
        if (WIFSIGNALED(st)) {
            printf("child %d killed by signal %d (%s)\n", generation, WTERMSIG(st),
                   WTERMSIG(st) == SIGALRM ? "hung in seqshim" : "crashed");
            return 1;
        }
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) return 1;
        /* The parent keeps working between forks. */
        if (run_all(child) || memcmp(child, parent, sizeof child)) {
            printf("parent: results changed after fork\n");
            return 1;
        }
    }
    printf("fork: all ok\n");
    return 0;
}
