# mk/fftw.mk — the FFTW drop-in library, included by the Makefile after mk/dropin.mk.
#
#   build/lib/libcufort_fftw.so   FFTW3's API in double (fftw_*) and single (fftwf_*) precision, and its
#                                 legacy Fortran interface (dfftw_*, sfftw_*): transforms above a
#                                 threshold through the thunk engine (libcufort, cuFFT), the rest and
#                                 everything cuFFT cannot express on the real FFTW found at run time.
#                                 Relink (-lcufort_fftw instead of -lfftw3 -lfftw3f [-lfftw3_threads
#                                 -lfftw3f_threads]) or LD_PRELOAD it.  docs/fftw-dropin.md.
#   FFTW_GPU_THRESHOLD=flops      build-time default of CUFORT_FFTW_THRESHOLD (5e6, c_wrappers/fftw/profile.c)

FFTW_GPU_THRESHOLD ?= 5e6

FFTW_DROPIN_SRCS := $(sort $(wildcard c_wrappers/fftw/*.c))
FFTW_DROPIN_OBJS := $(call obj_of,$(FFTW_DROPIN_SRCS))
FFTW_DROPIN_LIB := $(LIB)/libcufort_fftw.so

$(FFTW_DROPIN_OBJS): CPPFLAGS += -Ic_wrappers/fftw -Ic_wrappers/route
# the .inc templates each precision's file includes
$(filter %_double.o %_single.o,$(FFTW_DROPIN_OBJS)): $(wildcard c_wrappers/fftw/*.inc)

# The threshold is compiled into profile.o: a change rebuilds it.
FFTW_SIG_FILE := $(BUILD)/.fftw_flags
$(eval $(call signature_file,FFTW_SIG_FILE,FFTW_GPU_THRESHOLD))
$(OBJ)/c_wrappers/fftw/profile.o: $(FFTW_SIG_FILE)
$(OBJ)/c_wrappers/fftw/profile.o: CPPFLAGS += -DCUFORT_FFTW_THRESHOLD=$(FFTW_GPU_THRESHOLD)

$(FFTW_DROPIN_LIB): $(FFTW_DROPIN_OBJS) $(ROUTE_OBJS) $(LIB)/libcufort.so
	@mkdir -p $(@D) && $(SO_CLEAN)
	$(CC) -shared -pthread $(SO_OUTPUT) -Wl,--no-undefined $(filter %.o,$^) \
	    -L$(LIB) -lcufort $(RPATH_LIB) -ldl -lm
	@$(SO_LINKS)

LIBS += $(FFTW_DROPIN_LIB)
HEADERS += c_wrappers/fftw/cufort_fftw.h
libs: $(FFTW_DROPIN_LIB)

# ---- tests (build/tests, run by make check) ---------------------------------------------------------------
# test_fftw and test_fftw_engine: every plan kind through the drop-in and the real FFTW (opened apart as
# the oracle), default routing and the engine forced; tests/examples/fftw.sh: an unchanged F77 program
# (dfftw_*, sfftw_*) and a fftw3.f03 program, linked against -lfftw3, relinked against the drop-in and
# under LD_PRELOAD.
FFTW_TEST_BINS := $(TESTBIN)/test_fftw $(TESTBIN)/test_fftw_engine
$(OBJ)/tests/fftw/%.o: CPPFLAGS += -Ic_wrappers/fftw
FFTW_TEST_LINK = -L$(LIB) -lcufort_fftw -lcufort $(RPATH_BIN) -ldl -lm -pthread
$(TESTBIN)/test_fftw: $(OBJ)/tests/fftw/test_fftw.o $(FFTW_DROPIN_LIB)
	@mkdir -p $(@D)
	$(CC) -pthread -o $@ $(filter %.o,$^) $(FFTW_TEST_LINK)
$(TESTBIN)/test_fftw_engine: $(OBJ)/tests/fftw/test_fftw.o $(OBJ)/tests/fftw/force_engine.o $(FFTW_DROPIN_LIB)
	@mkdir -p $(@D)
	$(CC) -pthread -o $@ $(filter %.o,$^) $(FFTW_TEST_LINK)
$(OBJ)/tests/fftw/test_fftw.o: tests/fftw/cases.inc

TEST_BINS += $(FFTW_TEST_BINS)
tests: $(FFTW_TEST_BINS)

# ---- examples: unchanged FFTW programs, linked against -lfftw3 and relinked against the drop-in ---------
# (checked by tests/examples/fftw.sh; FORTRAN_EXAMPLES is empty where the F77 names have no scheme)
FFTW_REAL_LIBS := -lfftw3 -lfftw3f -lfftw3_threads -lfftw3f_threads
ifneq ($(FORTRAN_EXAMPLES),)
FFTW_EXAMPLES := $(EXBIN)/fftw_legacy $(EXBIN)/fftw_legacy_dropin $(EXBIN)/fftw_f03 $(EXBIN)/fftw_f03_dropin
EXAMPLE_BINS += $(FFTW_EXAMPLES)
examples: $(FFTW_EXAMPLES)

$(OBJ)/examples/fftw_legacy.o: examples/fftw_legacy.f $(FLAGS_FILE) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(FC) $(CPU_FFLAGS) -I/usr/include -c $< -o $@
$(OBJ)/examples/fftw_f03.o: examples/fftw_f03.f90 $(FLAGS_FILE) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(FC) $(CPU_FFLAGS) -I/usr/include -c $< -o $@
$(EXBIN)/fftw_legacy $(EXBIN)/fftw_f03: $(EXBIN)/%: $(OBJ)/examples/%.o
	@mkdir -p $(@D)
	$(FC) -o $@ $< $(FFTW_REAL_LIBS)
# fftw3.f03 binds the C names: the same object relinked, always
$(EXBIN)/fftw_f03_dropin: $(OBJ)/examples/fftw_f03.o $(FFTW_DROPIN_LIB)
	@mkdir -p $(@D)
	$(FC) -o $@ $< -L$(LIB) -lcufort_fftw $(RPATH_BIN)
# the legacy names: the same object relinked, unless the F77 layer's names or INTEGER size differ
ifeq ($(strip $(F77_FC_FLAGS)),)
$(EXBIN)/fftw_legacy_dropin: $(OBJ)/examples/fftw_legacy.o $(FFTW_DROPIN_LIB)
	@mkdir -p $(@D)
	$(FC) -o $@ $< -L$(LIB) -lcufort_fftw $(RPATH_BIN)
else
$(EXBIN)/fftw_legacy_dropin: examples/fftw_legacy.f $(FFTW_DROPIN_LIB) $(FLAGS_FILE) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(FC) $(ALL_FFLAGS) -I/usr/include -o $@ $< -L$(LIB) -lcufort_fftw $(RPATH_BIN)
endif
endif

# ---- bench (needs a GPU for its point): bench/fftw_run.sh runs it for every contestant -----------------
FFTW_BENCH_BIN := $(BUILD)/bench/fftw_bench
$(FFTW_BENCH_BIN): bench/fftw_bench.c bench/bench_util.h $(FLAGS_FILE) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(C_BASE) -o $@ $< -ldl -lm
bench-build: $(FFTW_BENCH_BIN) $(FFTW_DROPIN_LIB)
