# mk/sanitize.mk — the sanitizer build, included by the Makefile once CC and FC are known.
#
#   make check SANITIZE=address,undefined     builds into build-san (unless BUILD is given) with every
#                                             C and Fortran source compiled and every binary and library
#                                             linked with -fsanitize=$(SANITIZE), then runs the suite
#
# CUDA kernels are compiled by nvcc as always (no sanitizer there).  UBSan findings are fatal
# (-fno-sanitize-recover), so a report fails its test.  $(BUILD)/.sanitize records the list, from
# which tests/run_tests.sh sets ASAN_OPTIONS, UBSAN_OPTIONS and LSAN_OPTIONS (suppressions:
# tests/sanitizer/*.supp).

ifneq ($(strip $(SANITIZE)),)
SAN_FLAGS := -fsanitize=$(SANITIZE) -fno-omit-frame-pointer \
             $(if $(findstring undefined,$(SANITIZE)),-fno-sanitize-recover=undefined)
CC := $(CC) $(SAN_FLAGS)
FC := $(FC) $(SAN_FLAGS)
$(shell mkdir -p $(BUILD) && { [ "$$(cat $(BUILD)/.sanitize 2>/dev/null)" = '$(SANITIZE)' ] || \
        printf '%s\n' '$(SANITIZE)' > $(BUILD)/.sanitize; })
endif
