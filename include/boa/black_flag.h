/* seqshim: BOA error reporting (libseqshim ABI). */
#ifndef BLACK_FLAG_HEADER_INCLUDED
#define BLACK_FLAG_HEADER_INCLUDED 1

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Message buffer (1024 bytes) formatted by callers before black_flag(). */
extern char ERRTXT[];

enum {
    CRASH_black_flag_type,
    TRAP_black_flag_type,
    COPE_black_flag_type,
    USERR_black_flag_type,
    WARN_black_flag_type,
    DEBUG_black_flag_type,
    max_black_flag_type
};

#define DBOUT stderr

/* Token pasting and quoting helpers used by the reporting macros. */
#define CONCAT_MACRO0(a, b) a##b
#define CONCAT_MACRO(a, b) CONCAT_MACRO0(a, b)
#define STRINGIFY(NAME) #NAME

/* WARN_MSG(LEVEL, (ERRTXT, format, ...), revision): format into ERRTXT and
 * report at LEVEL (CRASH, TRAP, COPE, USERR, WARN or DEBUG). */
#define WARN_MSG(LEVEL, MESSAGE, REVISION) \
    (sprintf MESSAGE, black_flag(CONCAT_MACRO(LEVEL, _black_flag_type), __FILE__, __LINE__, (REVISION)))

/* IF_GUARD(condition, revision, (ERRTXT, ...), LEVEL) { handler }: report
 * and run the handler when the condition holds. */
#define IF_GUARD(CONDITION, REVISION, MESSAGE, LEVEL)                                     \
    if ((CONDITION) ? (sprintf MESSAGE, black_flag(CONCAT_MACRO(LEVEL, _black_flag_type), \
                                                   __FILE__, __LINE__, STRINGIFY(REVISION))) \
                    : 0)

/* Prints ERRTXT with the level and location to stderr, clears ERRTXT,
 * returns 1. seqshim never aborts, whatever the level. */
int black_flag(int bug_level, char sourcefile[], int sourceline, char sourcefile_revision[]);

#ifdef __cplusplus
}
#endif

#endif /* BLACK_FLAG_HEADER_INCLUDED */
