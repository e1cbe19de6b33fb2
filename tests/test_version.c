/* test_version.c — the library's version agrees with the header it was built from, and the call
 * needs no cufort_init and takes NULL for any part. */
#include "check.h"

#include <stdio.h>
#include <string.h>

#include "cufort.h"

int main(void)
{
    ck_begin("version", 60);
    int major = -1, minor = -1, patch = -1;
    int st = cufort_version(&major, &minor, &patch);
    CHECK(st == CUFORT_SUCCESS && major == CUFORT_VERSION_MAJOR && minor == CUFORT_VERSION_MINOR &&
              patch == CUFORT_VERSION_PATCH,
          "cufort_version before init: the header's three parts", "status %d, %d.%d.%d, header %d.%d.%d",
          st, major, minor, patch, CUFORT_VERSION_MAJOR, CUFORT_VERSION_MINOR, CUFORT_VERSION_PATCH);
    CHECK(!cufort_is_initialized(), "cufort_version does not initialise", "initialised");

    char want[64];
    snprintf(want, sizeof want, "%d.%d.%d", CUFORT_VERSION_MAJOR, CUFORT_VERSION_MINOR, CUFORT_VERSION_PATCH);
    const char *s = cufort_version_string();
    CHECK(s && strcmp(s, want) == 0, "cufort_version_string matches the parts", "\"%s\", want \"%s\"",
          s ? s : "(null)", want);

    minor = -1;
    st = cufort_version(NULL, &minor, NULL);
    CHECK(st == CUFORT_SUCCESS && minor == CUFORT_VERSION_MINOR, "cufort_version: NULL parts skipped",
          "status %d, minor %d", st, minor);
    CHECK(cufort_version(NULL, NULL, NULL) == CUFORT_SUCCESS, "cufort_version(NULL, NULL, NULL)", "failed");

    CHECK(CUFORT_VERSION == CUFORT_VERSION_MAJOR * 10000 + CUFORT_VERSION_MINOR * 100 + CUFORT_VERSION_PATCH &&
              CUFORT_VERSION_MINOR < 100 && CUFORT_VERSION_PATCH < 100,
          "CUFORT_VERSION orders releases", "%d", CUFORT_VERSION);
    return ck_end();
}
