# mk/fuzz.mk — fuzz_capi, the seeded random-argument driver over the C ABI (tests/fuzz), included by
# the Makefile.  It lands in $(BUILD)/tests, so `make check` runs it (with no arguments: the
# regression cases of tests/fuzz/regressions.txt, compiled in, and a slice of calls).
#
#   make fuzz FUZZ_ARGS='--seed 7 --calls 1000000'     one run as asked (see tests/fuzz/fuzz_main.c)

FUZZ_SRCS := $(sort $(wildcard tests/fuzz/*.c)) $(wildcard tests/fuzz/generated/fuzz_*.c)
FUZZ_OBJS := $(call obj_of,$(FUZZ_SRCS))
FUZZ_BIN := $(TESTBIN)/fuzz_capi
FUZZ_CASES_INC := $(OBJ)/tests/fuzz/regressions.inc
FUZZ_ARGS ?= --seed 1 --calls 1000000

$(FUZZ_OBJS): CPPFLAGS += -Itests/fuzz -I$(OBJ)/tests/fuzz

# the regression cases as one C string, a line per line
$(FUZZ_CASES_INC): tests/fuzz/regressions.txt
	@mkdir -p $(@D)
	sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/.*/"&\\n"/' $< > $@
$(FUZZ_OBJS): $(FUZZ_CASES_INC)

$(FUZZ_BIN): $(FUZZ_OBJS) $(LIB)/libcufort.so
	@mkdir -p $(@D)
	$(CC) -pthread -o $@ $(FUZZ_OBJS) -L$(LIB) -lcufort $(RPATH_BIN) -lm

tests: $(FUZZ_BIN)

.PHONY: fuzz
fuzz: $(FUZZ_BIN)
	LD_LIBRARY_PATH=$(LIB) $(FUZZ_BIN) $(FUZZ_ARGS)
