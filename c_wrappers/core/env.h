/* env.h — the library's numeric settings from the environment, all read one way (env.c).
 * Unset or empty, a setting keeps its default.  A value that is not what the setting takes (a
 * word, junk after the number, a number under the least it takes) keeps the default too, and
 * says so once per variable on stderr, rather than being half-read: atoi takes "4G" for 4.  A
 * number past the most a setting takes reads as that most (a limit past any size is no limit). */
#ifndef CUFORT_ENV_H
#define CUFORT_ENV_H

#include <stddef.h>
#include <stdint.h>

/* a whole number of at least lo, a number past hi read as hi: 1 with *out set, else 0 */
int cufort_env_int(const char *name, int64_t lo, int64_t hi, int64_t *out);
/* a real number of at least lo, a number past hi read as hi (NaN refused): 1 with *out set, else 0 */
int cufort_env_real(const char *name, double lo, double hi, double *out);
/* a byte count of at least 0, whole or not, with an optional K, M or G after it (powers of 1024;
 * "KB" and "KiB" too), a count past SIZE_MAX read as SIZE_MAX: 1 with *out set, else 0 */
int cufort_env_bytes(const char *name, size_t *out);

#endif
