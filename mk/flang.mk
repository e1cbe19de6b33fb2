# mk/flang.mk — cufort's Fortran side built a second time with LLVM flang, beside gfortran's, against
# the same C libraries (they do not depend on the Fortran compiler).  Included by the Makefile.
#
#   FLANG=cmd        the flang command; default the first of flang-new, flang-new-19, flang on PATH.
#                    FLANG= (empty) builds nothing with flang; nor is anything built here when FC is
#                    flang itself (the main build is then flang's).
#   FLANG_FFLAGS     its flags (default -O2); FFLAGS stay FC's
#
# Built (make, make check):
#   build/lib/libcufort_fortran_flang.{a,so}   the `use cufort` modules compiled by flang; the library
#       carries the compiler's name (as Debian names a Fortran library's flavours) so that it installs
#       beside gfortran's libcufort_fortran; its modules go to build/flang/include
#   build/flang/tests/flang_<test>   every Fortran test (the F77 drivers, the FFT and kernel F77 tests,
#       the modern tests) and every modern example (flang_example_modern_*): tests/run_tests.sh runs
#       them with build/tests
#   build/flang/examples/      the F77 examples and examples/user_kernel, checked by
#       tests/examples/flang.sh through the checks of the gfortran builds
# build/flang is not in what make gpu-bundle carries: flang's programs (21 MB, half of it the generated
# BLAS test, which flang compiles to 10 MB of code at -O0) would nearly double it, for C libraries
# whose backends they exercise no differently from gfortran's.
# make install puts the modules in include/cufort/<flang-mod-n>/, the library beside libcufort_fortran
# and cufort-fortran-flang.pc in pkgconfig/; the CMake package's cufort::fortran is flang's for a
# project whose Fortran compiler is flang (mk/install.mk, cmake/cufortConfig.cmake.in).
#
# The modern tests are compiled at -O0, as with gfortran: flang takes more than twice as long over the
# generated BLAS test at -O1 or -O2 (about 2 minutes of one core).  The flang runtime is a static
# archive, linked into every program: --gc-sections keeps only what each uses (2 MB less per program).

FLANG_CANDIDATES := flang-new flang-new-19 flang
ifeq ($(origin FLANG),undefined)
FLANG := $(firstword $(foreach c,$(FLANG_CANDIDATES),$(if $(shell command -v $c 2>/dev/null),$c)))
endif
FLANG_ON := $(if $(filter flang,$(FC_FAMILY)),,$(strip $(FLANG)))

FLANG_FFLAGS ?= -O2
FLANG_MODDIR := $(BUILD)/flang/include
FLANG_OBJ := $(BUILD)/flang/obj
FLANG_EXBIN := $(BUILD)/flang/examples
FLANG_TESTBIN := $(BUILD)/flang/tests
# programs in build/flang/<dir>/ find build/lib through $ORIGIN
FLANG_RPATH := -Wl,-rpath,'$$ORIGIN/../../lib'
FLANG_LIBS := $(LIB)/libcufort_fortran_flang.a $(LIB)/libcufort_fortran_flang.so
# the module directory's name for make install: flang-mod-<n>, from a module flang wrote
FLANG_MOD_ID = $(if $(FLANG_ON),$(call memo,FLANG_MOD_ID,$(shell bash scripts/fortran_mod_id.sh \
                 '$(FLANG_ON)' $(FLANG_MODDIR)/cufort_core.mod)))

ifneq ($(FLANG_ON),)
$(eval $(call fc_flags,FLANG,flang))
FLANG_LDFLAGS := -Wl,--gc-sections

# a change of compiler or flags rebuilds what flang built
FLANG_SIG := $(FLANG_ON)|$(FLANG_FFLAGS)|$(FLANG_F77_FLAGS)
FLANG_FLAGS_FILE := $(BUILD)/flang/.flags
$(eval $(call signature_file,FLANG_FLAGS_FILE,FLANG_SIG))

# ---- the modules and libcufort_fortran_flang ------------------------------------------------------------
FLANG_MOD_OBJS := $(patsubst %.f90,$(FLANG_OBJ)/%.o,$(FORTRAN_MOD_SRCS))
$(FLANG_OBJ)/fortran/%.o: fortran/%.f90 $(FLANG_FLAGS_FILE) | $(DEPS_STAMP)
	@mkdir -p $(@D) $(FLANG_MODDIR)
	$(FLANG_ON) $(FLANG_FFLAGS) $(FLANG_STD) -fPIC -J$(FLANG_MODDIR) -c $< -o $@
# each module after the one before it in FORTRAN_MOD_SRCS, which lists them in dependency order
flang_chain = $(if $(word 2,$1),$(eval $(word 2,$1): $(word 1,$1))$(call flang_chain,$(wordlist 2,$(words \
                $1),$1)))
$(call flang_chain,$(FLANG_MOD_OBJS))

$(LIB)/libcufort_fortran_flang.a: $(FLANG_MOD_OBJS)
	@mkdir -p $(@D)
	rm -f $@ && $(AR) rcs $@ $^

$(LIB)/libcufort_fortran_flang.so: $(FLANG_MOD_OBJS) $(LIB)/libcufort.so
	@mkdir -p $(@D) && $(SO_CLEAN)
	$(FLANG_SO_LINK) $(SO_OUTPUT) $(filter %.o,$^) -L$(LIB) -lcufort $(RPATH_LIB) $(FLANG_SO_LIBS)
	@$(SO_LINKS)

# LIBS: for make install; libs: its prerequisites were fixed before this file was read
LIBS += $(FLANG_LIBS)
libs: $(FLANG_LIBS)

# ---- tests: build/flang/tests/flang_<name> ---------------------------------------------------------------
# The F77 drivers (tests/generated/test_f77_*.f90, tests/test_*_f77_*.f90): the libraries by name, as
# for gfortran (name_layer), and the reference BLAS as the oracle.
FLANG_F77_TEST_BINS := $(if $(FLANG_F77_OK),$(foreach f,$(F90_TEST_SRCS),$(FLANG_TESTBIN)/flang_$(basename \
                         $(notdir $f))))
$(FLANG_F77_TEST_BINS): $(FLANG_TESTBIN)/flang_%: $$(F90SRC_$$*) $$(LAYER_DEPLIBS_$$(call name_layer,$$*)) \
                        $(FLANG_FLAGS_FILE) | $(DEPS_STAMP)
	@mkdir -p $(@D) $(FLANG_OBJ)/tests/mod/$*
	$(FLANG_ON) $(FLANG_FFLAGS) -w $(FLANG_F77_FLAGS) -I/usr/include -J$(FLANG_OBJ)/tests/mod/$* -o $@ \
	    $(filter %.f90,$^) -L$(LIB) $(LAYER_LIBS_$(call name_layer,$*)) $(FLANG_RPATH) $(ORACLE_BLAS) \
	    $(FFTW_LIBS) -lm $(FLANG_LDFLAGS)

# The modern tests (use cufort), at -O0 (see above).
FLANG_LINK_MODERN = -I$(FLANG_MODDIR) -L$(LIB) -lcufort_fortran_flang -lcufort
FLANG_MODERN_TEST_BINS := $(foreach f,$(FORTRAN_TEST_SRCS),$(FLANG_TESTBIN)/flang_$(basename $(notdir $f)))
$(FLANG_MODERN_TEST_BINS): $(FLANG_TESTBIN)/flang_%: $$(F90SRC_$$*) $(FLANG_LIBS) $(FLANG_FLAGS_FILE) \
                           | $(DEPS_STAMP)
	@mkdir -p $(@D) $(FLANG_OBJ)/tests/mod/$*
	$(FLANG_ON) $(FLANG_FFLAGS) -O0 $(FLANG_STD) -J$(FLANG_OBJ)/tests/mod/$* -o $@ $(filter %.f90,$^) \
	    $(FLANG_LINK_MODERN) $(FLANG_RPATH) $(FLANG_LDFLAGS)

# ---- examples: build/flang/examples/ -----------------------------------------------------------------------
FLANG_EXAMPLES := $(if $(FLANG_F77_OK),$(patsubst %,$(FLANG_EXBIN)/%,matrixmod_thunking matrixmod_device \
                    matrixmod_cpu sgemm_example_host sgemm_example_cublas)) $(FLANG_EXBIN)/user_kernel
FLANG_MODERN_EXAMPLES := $(patsubst examples/modern/%.f90,$(FLANG_EXBIN)/modern_%,$(sort \
                           $(wildcard examples/modern/*.f90)))
FLANG_EX = $(FLANG_ON) $(FLANG_FFLAGS) -J$(FLANG_OBJ)/examples/mod/$(@F) -o $@
# the source among the prerequisites (the rule with the recipe lists the flags file first)
FLANG_SRC = $(firstword $(filter %.f %.F %.f90 %.F90,$^))

$(FLANG_EXAMPLES) $(FLANG_MODERN_EXAMPLES): $(FLANG_FLAGS_FILE) | $(DEPS_STAMP)
	@mkdir -p $(@D) $(FLANG_OBJ)/examples/mod/$(@F)
	$(FLANG_EX) $(FLANG_EX_ARGS) $(FLANG_RPATH) $(FLANG_LDFLAGS)
# what each is built from and with
$(FLANG_EXBIN)/matrixmod_thunking: examples/matrixmod_thunking.f $(LIB)/libcufort_f77_thunking.so
$(FLANG_EXBIN)/matrixmod_thunking: FLANG_EX_ARGS = $(FLANG_F77_FLAGS) $(FLANG_SRC) -L$(LIB) \
                                                    -lcufort_f77_thunking -lcufort
$(FLANG_EXBIN)/matrixmod_device: examples/matrixmod_device.F $(LIB)/libcufort_f77.so
$(FLANG_EXBIN)/matrixmod_device: FLANG_EX_ARGS = $(FLANG_F77_FLAGS) $(FLANG_SRC) -L$(LIB) -lcufort_f77 \
                                                  -lcufort
$(FLANG_EXBIN)/matrixmod_cpu: examples/matrixmod_cpu.f
$(FLANG_EXBIN)/matrixmod_cpu: FLANG_EX_ARGS = $(FLANG_SRC) $(CPU_BLAS_LIBS)
$(FLANG_EXBIN)/sgemm_example_host: examples/sgemm_example.F90
$(FLANG_EXBIN)/sgemm_example_host: FLANG_EX_ARGS = $(FLANG_SRC) $(CPU_BLAS_LIBS)
$(FLANG_EXBIN)/sgemm_example_cublas: examples/sgemm_example.F90 $(LIB)/libcufort_f77_thunking.so
$(FLANG_EXBIN)/sgemm_example_cublas: FLANG_EX_ARGS = $(FLANG_F77_FLAGS) -DCUBLAS $(FLANG_SRC) -L$(LIB) \
                                                      -lcufort_f77_thunking -lcufort
$(FLANG_EXBIN)/user_kernel: examples/user_kernel/main.f90 $(OBJ)/examples/user_kernel/csquare.cu.o \
                            $(LIB)/libcufort.so
$(FLANG_EXBIN)/user_kernel: FLANG_EX_ARGS = $(FLANG_SRC) $(filter %.cu.o,$^) -L$(LIB) -lcufort \
                                            -L$(CUDA_LIBDIR) -lcudart -lstdc++ -Wl,-rpath,$(CUDA_LIBDIR)
$(FLANG_MODERN_EXAMPLES): $(FLANG_EXBIN)/modern_%: examples/modern/%.f90 $(FLANG_LIBS)
$(FLANG_MODERN_EXAMPLES): FLANG_EX_ARGS = $(FLANG_STD) $(FLANG_SRC) $(FLANG_LINK_MODERN)
# each modern example checks its own result: make check runs it as a test
$(FLANG_TESTBIN)/flang_example_modern_%: $(FLANG_EXBIN)/modern_%
	@mkdir -p $(@D)
	cp $< $@

tests: $(FLANG_F77_TEST_BINS) $(FLANG_MODERN_TEST_BINS) \
       $(patsubst $(FLANG_EXBIN)/%,$(FLANG_TESTBIN)/flang_example_%,$(FLANG_MODERN_EXAMPLES))
examples: $(FLANG_EXAMPLES) $(FLANG_MODERN_EXAMPLES)
endif
