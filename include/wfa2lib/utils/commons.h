/* seqshim: WFA2-lib 2.3.3 compatible declarations. Common includes and helpers. */
#ifndef SEQSHIM_WFA2_COMMONS_H
#define SEQSHIM_WFA2_COMMONS_H

#include <stdbool.h>
#include <stdint.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <time.h>

#ifndef MIN
#define MIN(a,b) (((a)<=(b))?(a):(b))
#endif
#ifndef MAX
#define MAX(a,b) (((a)>=(b))?(a):(b))
#endif
#define METRIC_FACTOR_1K   (1000ul)
#define METRIC_FACTOR_1M   (1000000ul)
#define METRIC_FACTOR_1G   (1000000000ul)
#define BUFFER_SIZE_4K  (1ul<<12)
#define BUFFER_SIZE_4M  (1ul<<22)

#ifdef __cplusplus
extern "C" {
#endif
/* base*factor when 0<=factor<=1, else factor itself (truncated). */
uint32_t nominal_prop_u32(const uint32_t base, const double factor);
#ifdef __cplusplus
}
#endif

#endif
