/* errors.c — per-thread last error (message + BLAS parameter position) and status names. */
#include <stdarg.h>
#include <stdio.h>

#include "internal.h"

static _Thread_local char last_message[512];
static _Thread_local int last_info;

int cufort_fail(int status, const char *fmt, ...)
{
    char text[sizeof last_message];   /* the arguments may quote last_message itself */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    memcpy(last_message, text, sizeof text);
    return status;
}

int cufort_bad_arg(const char *routine, int position, const char *name)
{
    last_info = position;
    return cufort_fail(CUFORT_INVALID_VALUE, "%s: parameter %d (%s) has an illegal value", routine,
                       position, name);
}

int cufort_bad_inc(const char *routine, int position, const char *name)
{
    last_info = position;
    return cufort_fail(CUFORT_INVALID_VALUE, "%s: parameter %d (%s) has an illegal value: %s = "
                       "INT64_MIN has no magnitude an int64 can hold (increments lie in "
                       "-INT64_MAX..INT64_MAX)", routine, position, name, name);
}

int cufort_alias_arg(const char *routine, const char *out, const char *in)
{
    return cufort_fail(CUFORT_INVALID_VALUE, "%s: the output %s overlaps the input %s (an output "
                       "may share no element with an input, except where the routine allows "
                       "exactly in place)", routine, out, in);
}

int cufort_null_arg(const char *routine, const char *name)
{
    return cufort_fail(CUFORT_INVALID_VALUE, "%s: %s is a null pointer", routine, name);
}

int cufort_in(const char *routine, int st)
{
    size_t n = strlen(routine);
    if (st && !(strncmp(last_message, routine, n) == 0 && last_message[n] == ':'))
        cufort_fail(st, "%s: %s", routine, last_message);
    return st;
}

const char *cufort_last_error(void) { return last_message; }
int cufort_last_info(void) { return last_info; }

void cufort_clear_error(void)
{
    last_message[0] = '\0';
    last_info = 0;
}

const char *cufort_status_string(int status)
{
    switch (status) {
    case CUFORT_SUCCESS: return "CUFORT_SUCCESS";
    case CUFORT_NOT_INITIALIZED: return "CUFORT_NOT_INITIALIZED";
    case CUFORT_ALLOC_FAILED: return "CUFORT_ALLOC_FAILED";
    case CUFORT_INVALID_VALUE: return "CUFORT_INVALID_VALUE";
    case CUFORT_ARCH_MISMATCH: return "CUFORT_ARCH_MISMATCH";
    case CUFORT_MAPPING_ERROR: return "CUFORT_MAPPING_ERROR";
    case CUFORT_EXECUTION_FAILED: return "CUFORT_EXECUTION_FAILED";
    case CUFORT_INTERNAL_ERROR: return "CUFORT_INTERNAL_ERROR";
    case CUFORT_NOT_SUPPORTED: return "CUFORT_NOT_SUPPORTED";
    case CUFORT_NO_DEVICE: return "CUFORT_NO_DEVICE";
    case CUFORT_BAD_POINTER: return "CUFORT_BAD_POINTER";
    default: return "unknown cufort status";
    }
}
