# mk/dropin.mk — the drop-in BLAS library, included by the Makefile.
#
#   build/lib/libcufort_blas.so   every standard Fortran BLAS name (sgemm_, ddot_, ...): Level-3 calls
#                                 above a threshold through the thunk engine (libcufort), the rest on
#                                 the CPU BLAS found at run time.  Relink (-lcufort_blas instead of
#                                 -lblas) or LD_PRELOAD it.
#   DROPIN_GPU_THRESHOLD=flops    build-time default of CUFORT_GPU_THRESHOLD (1e8: measured, docs/performance.md)
#   DROPIN_GPU_MIN_DIM=n          build-time default of CUFORT_GPU_MIN_DIM (256)
#
# Tests (build/tests, run by make check): test_blas_dropin and test_blas_dropin_engine (the generated
# BLAS suite through the standard names, CPU path and forced engine path), test_dropin (extras,
# routing, fallback, report, xerbla), test_adapt (the measured routing's policy on a simulated clock);
# tests/examples/dropin.sh (the dgemm_loop example relinked and
# under LD_PRELOAD, symbol coverage).  Their oracle is netlib's static BLAS with every symbol renamed
# to ref_*, so that it cannot collide with the names under test.

include mk/route.mk

DROPIN_GPU_THRESHOLD ?= 1e8
DROPIN_GPU_MIN_DIM ?= 256

DROPIN_SRCS := $(sort $(wildcard c_wrappers/dropin/*.c)) \
               $(sort $(wildcard c_wrappers/dropin/generated/*.c))
DROPIN_OBJS := $(call obj_of,$(DROPIN_SRCS))
DROPIN_LIB := $(LIB)/libcufort_blas.so
# the reference-message xerbla of the F77 libraries, weak, so that a program's own wins
DROPIN_XERBLA_OBJ := $(OBJ)/c_wrappers/f77/xerbla.o

$(DROPIN_OBJS): CPPFLAGS += -Ic_wrappers/dropin -Ic_wrappers/route
# LAPACK's row interchanges, shared among OpenMP threads (lapack_laswp.c)
$(OBJ)/c_wrappers/dropin/lapack_laswp.o: CFLAGS += -fopenmp

# The thresholds are compiled into profile.o: a change rebuilds it.
DROPIN_SIG := $(DROPIN_GPU_THRESHOLD)|$(DROPIN_GPU_MIN_DIM)
DROPIN_FLAGS_FILE := $(BUILD)/.dropin_flags
$(eval $(call signature_file,DROPIN_FLAGS_FILE,DROPIN_SIG))
$(OBJ)/c_wrappers/dropin/profile.o: $(DROPIN_FLAGS_FILE)
$(OBJ)/c_wrappers/dropin/profile.o: CPPFLAGS += -DCUFORT_DROPIN_THRESHOLD=$(DROPIN_GPU_THRESHOLD) \
                                              -DCUFORT_DROPIN_MIN_DIM=$(DROPIN_GPU_MIN_DIM)

# The CPU BLAS loader, a hidden copy: CPU calls never open libcufort, which the library opens itself
# on the first call for the GPU (c_wrappers/route/core_link.c), so it is not linked in.
DROPIN_CPU_BLAS_OBJ := $(OBJ)/dropin/cpu_blas_loader.o
$(DROPIN_CPU_BLAS_OBJ): c_wrappers/host/cpu_blas.c $(FLAGS_FILE) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -fvisibility=hidden -c $< -o $@
-include $(DROPIN_CPU_BLAS_OBJ:.o=.d)

$(DROPIN_LIB): $(DROPIN_OBJS) $(ROUTE_OBJS) $(DROPIN_XERBLA_OBJ) $(DROPIN_CPU_BLAS_OBJ) | $(LIB)/libcufort.so
	@mkdir -p $(@D) && $(SO_CLEAN)
	$(CC) -shared -pthread $(SO_OUTPUT) -Wl,--no-undefined $(filter %.o,$^) \
	    $(RPATH_LIB) -fopenmp -ldl -lm
	@$(SO_LINKS)

# LIBS: for make install (expanded when its recipe runs); libs: its prerequisites were fixed already.
LIBS += $(DROPIN_LIB)
HEADERS += c_wrappers/dropin/cufort_dropin.h
libs: $(DROPIN_LIB)

# ---- the renamed oracle ---------------------------------------------------------------------------------
DROPIN_ORACLE := $(OBJ)/dropin/libblas_ref.a
$(DROPIN_ORACLE): $(ORACLE_BLAS) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	nm --defined-only -g $(ORACLE_BLAS) | awk 'NF == 3 { print $$3, "ref_" $$3 }' | sort -u > $@.syms
	objcopy --redefine-syms=$@.syms $(ORACLE_BLAS) $@.tmp && ranlib $@.tmp && mv $@.tmp $@

# Every test binary's link line, with the renamed oracle in place of netlib's.
DROPIN_TEST_LDLIBS = -L$(LIB) -lcufort_blas -lcufort $(subst $(ORACLE_BLAS),$(DROPIN_ORACLE),$(TEST_LDLIBS))
DROPIN_TEST_DEPS = $(DROPIN_LIB) $(LIB)/libcufort.so $(DROPIN_ORACLE)

# ---- the generated suite, fifth layer -------------------------------------------------------------------
LAYER_DEF_dropin := -DLAYER_DROPIN
$(eval $(call support_rule,dropin))
$(OBJ)/tests/dropin/layer.o: CPPFLAGS += -DLAYER_DROPIN -Ic_wrappers/dropin -Ic_wrappers/route
$(OBJ)/tests/dropin/test_dropin.o: CPPFLAGS += -Ic_wrappers/dropin -Ic_wrappers/f77 -Ic_wrappers/route
DROPIN_LAYER_OBJS = $(OBJ)/tests/generated/test_blas.dropin.o $(call support_objs,dropin) \
                    $(OBJ)/tests/dropin/layer.o

DROPIN_TEST_BINS := $(if $(TEST_BLAS_SRC),$(TESTBIN)/test_blas_dropin $(TESTBIN)/test_blas_dropin_engine) \
                    $(TESTBIN)/test_dropin $(TESTBIN)/test_adapt $(TESTBIN)/test_lapack_helpers
$(TESTBIN)/test_blas_dropin: $(DROPIN_LAYER_OBJS) $(DROPIN_TEST_DEPS)
	@mkdir -p $(@D)
	$(CC) -pthread -o $@ $(filter %.o,$^) $(DROPIN_TEST_LDLIBS)
$(TESTBIN)/test_blas_dropin_engine: $(DROPIN_LAYER_OBJS) $(OBJ)/tests/dropin/force_engine.o $(DROPIN_TEST_DEPS)
	@mkdir -p $(@D)
	$(CC) -pthread -o $@ $(filter %.o,$^) $(DROPIN_TEST_LDLIBS)
$(TESTBIN)/test_dropin: $(OBJ)/tests/dropin/test_dropin.o $(DROPIN_TEST_DEPS)
	@mkdir -p $(@D)
	$(CC) -pthread -o $@ $(filter %.o,$^) $(DROPIN_TEST_LDLIBS) -ldl

# the LAPACK helpers (row interchanges, ILAENV) against their definitions
$(TESTBIN)/test_lapack_helpers: $(OBJ)/tests/dropin/test_lapack_helpers.o $(DROPIN_TEST_DEPS)
	@mkdir -p $(@D)
	$(CC) -pthread -o $@ $(filter %.o,$^) $(DROPIN_TEST_LDLIBS)

# adapt.c's policy on a simulated clock: its object linked in directly, with the test's dropin_now_ns
# and the BLAS drop-in's profile
$(OBJ)/tests/dropin/test_adapt.o: CPPFLAGS += -Ic_wrappers/dropin -Ic_wrappers/f77 -Ic_wrappers/route
$(TESTBIN)/test_adapt: $(OBJ)/tests/dropin/test_adapt.o $(OBJ)/c_wrappers/route/adapt.o $(LIB)/libcufort.so
	@mkdir -p $(@D)
	$(CC) -pthread -o $@ $(filter %.o,$^) -L$(LIB) -lcufort $(TEST_LDLIBS)

TEST_BINS += $(DROPIN_TEST_BINS)
tests: $(DROPIN_TEST_BINS)

# ---- examples: an unchanged legacy program, linked against -lblas and relinked against the drop-in --------
ifneq ($(FORTRAN_EXAMPLES),)
DROPIN_EXAMPLES := $(EXBIN)/dgemm_loop $(EXBIN)/dgemm_loop_dropin

$(OBJ)/examples/dgemm_loop.o: examples/dgemm_loop.f90 $(FLAGS_FILE) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(FC) $(CPU_FFLAGS) -c $< -o $@
$(EXBIN)/dgemm_loop: $(OBJ)/examples/dgemm_loop.o
	@mkdir -p $(@D)
	$(FC) -o $@ $< $(CPU_BLAS_LIBS)
# lapack_solve: an unchanged LAPACK program (tests/examples/lapack.sh runs it on reference LAPACK with
# the drop-in preloaded); 4-byte INTEGERs, as the system's LAPACK takes them.
ifeq ($(strip $(F77_FC_FLAGS)),)
DROPIN_EXAMPLES += $(EXBIN)/lapack_solve
$(EXBIN)/lapack_solve: examples/lapack_solve.f90 $(FLAGS_FILE) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(FC) $(CPU_FFLAGS) -J$(OBJ) -o $@ $< -llapack $(CPU_BLAS_LIBS)
endif
# The same object relinked, unless the F77 layer's INTEGER size or names differ from the CPU BLAS's.
ifeq ($(strip $(F77_FC_FLAGS)),)
$(EXBIN)/dgemm_loop_dropin: $(OBJ)/examples/dgemm_loop.o $(DROPIN_LIB)
	@mkdir -p $(@D)
	$(FC) -o $@ $< -L$(LIB) -lcufort_blas $(RPATH_BIN)
else
$(EXBIN)/dgemm_loop_dropin: examples/dgemm_loop.f90 $(DROPIN_LIB) $(FLAGS_FILE) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(FC) $(ALL_FFLAGS) -o $@ $< -L$(LIB) -lcufort_blas $(RPATH_BIN)
endif
EXAMPLE_BINS += $(DROPIN_EXAMPLES)
examples: $(DROPIN_EXAMPLES)
endif
