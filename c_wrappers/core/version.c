/* version.c — the version libcufort was built as, for programs that check at run time that the
 * library they loaded is the one they were compiled against. */
#include "cufort.h"

#define CUFORT_STR_(x) #x
#define CUFORT_STR(x) CUFORT_STR_(x)

int cufort_version(int *major, int *minor, int *patch)
{
    if (major)
        *major = CUFORT_VERSION_MAJOR;
    if (minor)
        *minor = CUFORT_VERSION_MINOR;
    if (patch)
        *patch = CUFORT_VERSION_PATCH;
    return CUFORT_SUCCESS;
}

const char *cufort_version_string(void)
{
    return CUFORT_STR(CUFORT_VERSION_MAJOR) "." CUFORT_STR(CUFORT_VERSION_MINOR) "." CUFORT_STR(
        CUFORT_VERSION_PATCH);
}
