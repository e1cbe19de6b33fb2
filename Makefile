# cufort — top-level build.
#
#   make                 libraries into build/lib: libcufort, libcufort_f77, libcufort_f77_thunking (.a, .so)
#   make check           builds the tests and examples, runs tests/run_tests.sh (ends "N passed, M failed")
#   make demo            builds and runs the examples, saying what ran where
#   make install PREFIX=/opt/cufort [DESTDIR=stage]
#                        libraries (lib*.so.X.Y.Z), headers, Fortran modules, pkg-config files and a CMake
#                        package (mk/install.mk); make uninstall removes exactly what it installed
#   make generate        regenerates the generated sources from gen/*_table.py
#   make check-generated fails when the generated files are not what the generator writes
#   make check-docs      fails when docs/environment.md misses a variable the code reads, or a link is dead
#   make gpu-bundle      build/runtime: the shared libraries a GPU machine without gfortran/OpenBLAS needs
#   make clean
#
# Variables: BUILD (build dir, default build; build-san with SANITIZE), CUDA_HOME, CC, FC, NVCC, CFLAGS,
#   FFLAGS, NVCCFLAGS, SANITIZE (e.g. address,undefined: the sanitizer build, mk/sanitize.mk),
#   F77_MANGLING=1|2|3|4 (external names of the F77 layer, see c_wrappers/f77/f77.h), F77_INT64=1 (the
#   F77 layer takes 8-byte INTEGERs, for -fdefault-integer-8 codes), CUDA_ARCH (default 90), FLANG (LLVM
#   flang, found on PATH: the Fortran side built and tested a second time with it, mk/flang.mk; FLANG= none).
# Missing system packages are installed (root on Debian/Ubuntu) or named by scripts/deps.sh, run once
# per build directory.

SHELL := /bin/bash
.DEFAULT_GOAL := all
.DELETE_ON_ERROR:
.SUFFIXES:

BUILD ?= $(if $(SANITIZE),build-san,build)
PREFIX ?= /usr/local

ifeq ($(origin CC),default)
CC := gcc
endif
ifeq ($(origin FC),default)
FC := gfortran
endif
PYTHON ?= python3
include mk/sanitize.mk
AR ?= ar

CFLAGS ?= -O2
FFLAGS ?= -O2
NVCCFLAGS ?= -O2
CUDA_ARCH ?= 90

# ---- toolchain locations, looked up lazily (after scripts/deps.sh may have installed them) ----------
# memo NAME,EXPR: evaluate EXPR on first use only
memo = $(eval $1 := $2)$($1)
NVCC ?= $(call memo,NVCC,$(firstword $(wildcard $(CUDA_HOME)/bin/nvcc) \
          $(shell command -v nvcc 2>/dev/null) $(wildcard /usr/local/cuda/bin/nvcc) nvcc))
CUDA_ROOT = $(call memo,CUDA_ROOT,$(if $(CUDA_HOME),$(CUDA_HOME),$(patsubst %/,%,$(dir \
              $(patsubst %/,%,$(dir $(NVCC)))))))
CUDA_INC = $(call memo,CUDA_INC,$(firstword $(wildcard $(CUDA_ROOT)/include/cublas_v2.h \
             $(CUDA_ROOT)/targets/x86_64-linux/include/cublas_v2.h /usr/include/cublas_v2.h)))
CUDA_INCDIR = $(patsubst %/,%,$(dir $(CUDA_INC)))
CUDA_LIBDIR = $(call memo,CUDA_LIBDIR,$(patsubst %/,%,$(dir $(firstword $(wildcard \
                $(CUDA_ROOT)/lib64/libcublas.so $(CUDA_ROOT)/targets/x86_64-linux/lib/libcublas.so \
                /usr/lib/$(MULTIARCH)/libcublas.so) $(CUDA_ROOT)/lib64/libcublas.so))))
MULTIARCH := $(or $(shell $(CC) -print-multiarch 2>/dev/null),x86_64-linux-gnu)

# The test oracle: netlib's reference BLAS, by full path (libblas.so.3 may be OpenBLAS).
ORACLE_BLAS ?= /usr/lib/$(MULTIARCH)/blas/libblas.a
# The CPU BLAS the plain-Fortran examples link against: libblas.so.3, whichever BLAS provides it
# (OpenBLAS through the alternatives here; the bundled reference BLAS on a GPU machine).
CPU_BLAS_LIBS ?= -lblas

# ---- sources ------------------------------------------------------------------------------------------
CORE_SRCS := $(sort $(wildcard c_wrappers/core/*.c c_wrappers/thunk/*.c c_wrappers/host/*.c \
               c_wrappers/cuda/*.c)) \
             $(wildcard c_wrappers/generated/blas_api.c c_wrappers/generated/blas_cuda.c \
               c_wrappers/generated/blas_host.c)
KERNEL_SRCS := $(sort $(wildcard kernels/*.cu))
# c_wrappers/f77/*_device.c go into libcufort_f77 only, *_thunking.c into libcufort_f77_thunking only,
# every other c_wrappers/f77/*.c into both.
F77_DEVICE_SRCS := $(sort $(wildcard c_wrappers/generated/f77_device.c c_wrappers/f77/*_device.c))
F77_THUNK_SRCS := $(sort $(wildcard c_wrappers/generated/f77_thunking.c c_wrappers/f77/*_thunking.c))
F77_COMMON_SRCS := $(filter-out $(F77_DEVICE_SRCS) $(F77_THUNK_SRCS),$(sort $(wildcard c_wrappers/f77/*.c)))
SUPPORT_SRCS := $(sort $(wildcard tests/support/*.c))
TEST_BLAS_SRC := $(wildcard tests/generated/test_blas.c)
HAND_TEST_SRCS := $(sort $(wildcard tests/test_*.c))
HEADERS := $(sort $(wildcard c_wrappers/include/*.h))

INCDIRS := c_wrappers/include c_wrappers/core c_wrappers/thunk c_wrappers/host c_wrappers/cuda \
           c_wrappers/generated c_wrappers/f77 kernels

OBJ := $(BUILD)/obj
LIB := $(BUILD)/lib
TESTBIN := $(BUILD)/tests
EXBIN := $(BUILD)/examples

obj_of = $(patsubst %.c,$(OBJ)/%.o,$(patsubst %.cu,$(OBJ)/%.cu.o,$1))
CORE_OBJS := $(call obj_of,$(CORE_SRCS) $(KERNEL_SRCS))
F77_COMMON_OBJS := $(call obj_of,$(F77_COMMON_SRCS))
F77_DEVICE_OBJS := $(call obj_of,$(F77_DEVICE_SRCS))
F77_THUNK_OBJS := $(call obj_of,$(F77_THUNK_SRCS))

# ---- flags --------------------------------------------------------------------------------------------
F77_DEFS := $(if $(F77_MANGLING),-DCUFORT_F77_MANGLING=$(F77_MANGLING)) \
            $(if $(filter 1 yes true,$(F77_INT64)),-DCUFORT_F77_INT64)
# -fopenmp: the thunk engine copies out of pageable host arrays on several threads
C_BASE := -std=c11 $(CFLAGS) -fPIC -Wall -Wextra -pthread -fopenmp
ALL_CFLAGS = $(C_BASE) $(addprefix -I,$(INCDIRS)) $(if $(CUDA_INCDIR),-isystem $(CUDA_INCDIR)) $(F77_DEFS) $(CPPFLAGS) \
             -MMD -MP
GENCODE := -gencode arch=compute_$(CUDA_ARCH),code=sm_$(CUDA_ARCH) \
           -gencode arch=compute_$(CUDA_ARCH),code=compute_$(CUDA_ARCH)
ALL_NVCCFLAGS = $(NVCCFLAGS) $(GENCODE) -Xcompiler -fPIC,-Wall $(addprefix -I,$(INCDIRS)) -MMD -MP

CUDA_LIBS = -L$(CUDA_LIBDIR) -lcufft -lcublas -lcudart -Wl,-rpath,$(CUDA_LIBDIR)
# FFTW3 (single and double precision libraries): the tests' oracle.  The host backend's FFT opens it
# at run time (c_wrappers/host/cpu_fftw.c), so libcufort does not link it.
FFTW_LIBS = -lfftw3f -lfftw3
CORE_LDLIBS = $(CUDA_LIBS) $(if $(KERNEL_SRCS),-lstdc++) -fopenmp -ldl -lpthread -lm

# Fortran flags of the examples that call cufort, matched to the F77 layer's external names and
# INTEGER size (CPU_FFLAGS: those that call the CPU BLAS only).  FC_*: flags of FC's compiler family
# (gfortran or flang, mk/fortran_flags.mk).
include mk/fortran_flags.mk
F77_FC_FLAGS := $(FC_F77_FLAGS)
CPU_FFLAGS = $(FFLAGS) $(FC_WARN) $(FC_FIXED_CHECKS)
ALL_FFLAGS = $(CPU_FFLAGS) $(F77_FC_FLAGS)

# Binaries in build/<dir>/ find build/lib through $ORIGIN, so the tree can be moved (gpu-bundle).
RPATH_BIN := -Wl,-rpath,'$$ORIGIN/../lib'
RPATH_LIB := -Wl,-rpath,'$$ORIGIN'

# $(eval $(call signature_file,FILE_VAR,TEXT_VAR)): the file named by FILE_VAR holds the text of
# TEXT_VAR, rewritten only when that text changes, so that what depends on the file rebuilds exactly
# then.  Variable names, not values, go in: flags hold commas and dollars.
NO_BUILD_GOALS := clean generate check-generated check-docs coverage help uninstall version
define signature_file
ifneq ($$(filter-out $$(NO_BUILD_GOALS),$$(or $$(MAKECMDGOALS),all)),)
$$(shell mkdir -p $$(dir $$($1)) && { [ "$$$$(cat $$($1) 2>/dev/null)" = '$$($2)' ] || \
        printf '%s\n' '$$($2)' > $$($1); })
endif
$$($1):
	@mkdir -p $$(@D)
	@printf '%s\n' '$$($2)' > $$@
endef

# Rebuild everything when flags that change objects change.
FLAGS_SIG := $(CC)|$(C_BASE)|$(F77_DEFS)|$(CPPFLAGS)|$(NVCC)|$(NVCCFLAGS)|$(CUDA_ARCH)|$(FC)|$(FFLAGS)|$(F77_FC_FLAGS)
FLAGS_FILE := $(BUILD)/.flags
$(eval $(call signature_file,FLAGS_FILE,FLAGS_SIG))
DEPS_STAMP := $(BUILD)/.deps.stamp

# ---- libraries ----------------------------------------------------------------------------------------
LIBS := $(LIB)/libcufort.a $(LIB)/libcufort.so \
        $(LIB)/libcufort_f77.a $(LIB)/libcufort_f77.so \
        $(LIB)/libcufort_f77_thunking.a $(LIB)/libcufort_f77_thunking.so

# Modern Fortran API (`use cufort`): fortran/*.f90 + fortran/generated/*.f90 in module
# dependency order; .mod files into $(BUILD)/include.  Link: -I$(BUILD)/include -lcufort_fortran -lcufort.
FORTRAN_MOD_SRCS := fortran/cufort_core.f90 fortran/cufort_streams.f90 fortran/generated/cufort_c_blas.f90 \
                    fortran/generated/cufort_memory.f90 fortran/generated/cufort_blas.f90 \
                    fortran/generated/cufort_kernels.f90 fortran/generated/cufort_fft.f90 fortran/cufort.f90
FORTRAN_MOD_OBJS := $(patsubst %.f90,$(OBJ)/%.o,$(FORTRAN_MOD_SRCS))
MODDIR := $(BUILD)/include
MOD_FFLAGS = $(FFLAGS) $(FC_STD) $(FC_WARN) -fPIC
FORTRAN_LIBS := $(LIB)/libcufort_fortran.a $(LIB)/libcufort_fortran.so
LIBS += $(FORTRAN_LIBS)

.PHONY: all libs tests examples check demo install clean generate check-generated check-docs gpu-bundle \
        coverage help deps uninstall
all: libs

libs: $(LIBS)

deps: $(DEPS_STAMP)
$(DEPS_STAMP): scripts/deps.sh
	@mkdir -p $(@D)
	bash scripts/deps.sh
	@touch $@

$(OBJ)/%.o: %.c $(FLAGS_FILE) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

$(OBJ)/%.cu.o: %.cu $(FLAGS_FILE) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(NVCC) $(ALL_NVCCFLAGS) -c $< -o $@

$(LIB)/libcufort.a: $(CORE_OBJS)
	@mkdir -p $(@D)
	rm -f $@ && $(AR) rcs $@ $^

# Shared libraries: lib<name>.so.X.Y.Z with the SONAME lib<name>.so.X (SO_OUTPUT, SO_LINKS: mk/install.mk)
# -z nodelete: libcufort starts helper threads and thread-exit handlers that run its code, so it
# must stay mapped even if a program dlclose()s it
$(LIB)/libcufort.so: $(CORE_OBJS)
	@mkdir -p $(@D) && $(SO_CLEAN)
	$(CC) -shared -pthread $(SO_OUTPUT) -Wl,--no-undefined -Wl,-z,nodelete $(filter %.o,$^) $(CORE_LDLIBS)
	@$(SO_LINKS)

$(LIB)/libcufort_f77.a: $(F77_COMMON_OBJS) $(F77_DEVICE_OBJS)
	@mkdir -p $(@D)
	rm -f $@ && $(AR) rcs $@ $^

$(LIB)/libcufort_f77_thunking.a: $(F77_COMMON_OBJS) $(F77_THUNK_OBJS)
	@mkdir -p $(@D)
	rm -f $@ && $(AR) rcs $@ $^

$(LIB)/libcufort_f77.so $(LIB)/libcufort_f77_thunking.so: $(LIB)/%.so: $(LIB)/libcufort.so
	@mkdir -p $(@D) && $(SO_CLEAN)
	$(CC) -shared -pthread $(SO_OUTPUT) -Wl,--no-undefined $(filter %.o,$^) \
	    -L$(LIB) -lcufort $(RPATH_LIB) -lm
	@$(SO_LINKS)
$(LIB)/libcufort_f77.so: $(F77_COMMON_OBJS) $(F77_DEVICE_OBJS)
$(LIB)/libcufort_f77_thunking.so: $(F77_COMMON_OBJS) $(F77_THUNK_OBJS)

$(OBJ)/fortran/%.o: fortran/%.f90 $(FLAGS_FILE) | $(DEPS_STAMP)
	@mkdir -p $(@D) $(MODDIR)
	$(FC) $(MOD_FFLAGS) -J$(MODDIR) -c $< -o $@
# each module needs the .mod files of the one before it in FORTRAN_MOD_SRCS
FMOD_O = $(OBJ)/fortran/$1.o
$(call FMOD_O,cufort_streams): $(call FMOD_O,cufort_core)
$(call FMOD_O,generated/cufort_c_blas): $(call FMOD_O,cufort_streams)
$(call FMOD_O,generated/cufort_memory): $(call FMOD_O,generated/cufort_c_blas)
$(call FMOD_O,generated/cufort_blas): $(call FMOD_O,generated/cufort_memory)
$(call FMOD_O,generated/cufort_kernels): $(call FMOD_O,generated/cufort_blas)
$(call FMOD_O,generated/cufort_fft): $(call FMOD_O,generated/cufort_blas)
$(call FMOD_O,cufort): $(call FMOD_O,generated/cufort_kernels) $(call FMOD_O,generated/cufort_fft)

$(LIB)/libcufort_fortran.a: $(FORTRAN_MOD_OBJS)
	@mkdir -p $(@D)
	rm -f $@ && $(AR) rcs $@ $^

$(LIB)/libcufort_fortran.so: $(FORTRAN_MOD_OBJS) $(LIB)/libcufort.so
	@mkdir -p $(@D) && $(SO_CLEAN)
	$(FC_SO_LINK) $(SO_OUTPUT) $(filter %.o,$^) -L$(LIB) -lcufort $(RPATH_LIB) $(FC_SO_LIBS)
	@$(SO_LINKS)

# ---- tests --------------------------------------------------------------------------------------------
# tests/generated/test_blas.c is built once per layer, with tests/support/*.c compiled for that layer.
# Every tests/test_*.c (header-only helpers in tests/) and every tests/generated/*.f90, tests/test_*.f90
# is one binary; its name picks the libraries: "f77_thunking" in it links libcufort_f77_thunking,
# otherwise "f77" links libcufort_f77, otherwise libcufort alone (the F77 ones add libcufort).
# Each binary lands in build/tests/ and links the netlib reference BLAS as its oracle.
TEST_LAYERS := device host f77_device f77_thunking
LAYER_DEF_device := -DLAYER_DEVICE
LAYER_DEF_host := -DLAYER_HOST
LAYER_DEF_f77_device := -DLAYER_F77_DEVICE
LAYER_DEF_f77_thunking := -DLAYER_F77_THUNKING
LAYER_LIBS_device := -lcufort
LAYER_LIBS_host := -lcufort
LAYER_LIBS_f77_device := -lcufort_f77 -lcufort
LAYER_LIBS_f77_thunking := -lcufort_f77_thunking -lcufort
LAYER_DEPLIBS_device := $(LIB)/libcufort.so
LAYER_DEPLIBS_host := $(LIB)/libcufort.so
LAYER_DEPLIBS_f77_device := $(LIB)/libcufort_f77.so $(LIB)/libcufort.so
LAYER_DEPLIBS_f77_thunking := $(LIB)/libcufort_f77_thunking.so $(LIB)/libcufort.so

TEST_CFLAGS = $(ALL_CFLAGS) -Itests/support -Itests
# The oracle comes after the cufort libraries: reference BLAS names are resolved from it.
TEST_LDLIBS = $(RPATH_BIN) $(ORACLE_BLAS) -lgfortran -L$(CUDA_LIBDIR) -Wl,--as-needed -lcudart \
              $(FFTW_LIBS) -Wl,--no-as-needed -Wl,-rpath,$(CUDA_LIBDIR) -lm -pthread
# Fortran test drivers pass one buffer as several types to cublas_set_vector (as fortran.c allows).
# -I/usr/include: fftw3.f, for tests that call FFTW through its Fortran interface
TEST_FFLAGS = $(FFLAGS) $(FC_ARG_MISMATCH) -w $(F77_FC_FLAGS) -I/usr/include

BLAS_TEST_BINS := $(if $(TEST_BLAS_SRC),$(patsubst %,$(TESTBIN)/test_blas_%,$(TEST_LAYERS)))
HAND_TEST_BINS := $(patsubst tests/%.c,$(TESTBIN)/%,$(HAND_TEST_SRCS))
F90_TEST_SRCS := $(filter-out $(wildcard tests/test_fortran_*.f90 tests/generated/test_fortran_*.f90),$(sort \
                   $(wildcard tests/generated/*.f90 tests/test_*.f90)))
F90_TEST_BINS := $(foreach f,$(F90_TEST_SRCS),$(TESTBIN)/$(basename $(notdir $(f))))
TEST_BINS := $(BLAS_TEST_BINS) $(HAND_TEST_BINS) $(F90_TEST_BINS)
name_layer = $(if $(findstring f77_thunking,$1),f77_thunking,$(if $(findstring f77,$1),f77_device,device))
$(foreach f,$(F90_TEST_SRCS),$(eval F90SRC_$(basename $(notdir $(f))) := $(f)))

$(OBJ)/tests/generated/test_blas.%.o: tests/generated/test_blas.c $(FLAGS_FILE) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) $(LAYER_DEF_$*) -c $< -o $@

# tests/support/<x>.c, once per layer: $(OBJ)/tests/support/<x>.<layer>.o
define support_rule
$(OBJ)/tests/support/%.$(1).o: tests/support/%.c $(FLAGS_FILE) | $(DEPS_STAMP)
	@mkdir -p $$(@D)
	$$(CC) $$(TEST_CFLAGS) $(LAYER_DEF_$(1)) -c $$< -o $$@
endef
$(foreach l,$(TEST_LAYERS),$(eval $(call support_rule,$(l))))
support_objs = $(patsubst tests/support/%.c,$(OBJ)/tests/support/%.$1.o,$(SUPPORT_SRCS))

$(OBJ)/tests/%.o: tests/%.c $(FLAGS_FILE) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) -c $< -o $@

.SECONDEXPANSION:
$(BLAS_TEST_BINS): $(TESTBIN)/test_blas_%: $(OBJ)/tests/generated/test_blas.%.o \
                   $$(call support_objs,$$*) $$(LAYER_DEPLIBS_$$*)
	@mkdir -p $(@D)
	$(CC) -pthread -o $@ $(filter %.o,$^) -L$(LIB) $(LAYER_LIBS_$*) $(TEST_LDLIBS)

$(HAND_TEST_BINS): $(TESTBIN)/%: $(OBJ)/tests/%.o $$(LAYER_DEPLIBS_$$(call name_layer,$$*))
	@mkdir -p $(@D)
	$(CC) -pthread -fopenmp -o $@ $(filter %.o,$^) -L$(LIB) $(LAYER_LIBS_$(call name_layer,$*)) $(TEST_LDLIBS)

# A CPU BLAS of one wrong routine, for test_cpu_blas_check; in lib/, where the runner takes no binary.
$(TESTBIN)/lib/libscasum_off.so: tests/cpu_blas/scasum_off.c $(FLAGS_FILE)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -fPIC -shared -o $@ $< -lm
$(TESTBIN)/test_cpu_blas_check: $(TESTBIN)/lib/libscasum_off.so

# tests/generated/test_blas_edges.c (gen/emit_edge_tests.py): the C ABI's argument edges, one binary.
EDGE_TEST_BINS := $(if $(wildcard tests/generated/test_blas_edges.c),$(TESTBIN)/test_blas_edges)
$(EDGE_TEST_BINS): $(TESTBIN)/%: $(OBJ)/tests/generated/%.o $(LIB)/libcufort.so
	@mkdir -p $(@D)
	$(CC) -pthread -o $@ $(filter %.o,$^) -L$(LIB) -lcufort $(TEST_LDLIBS)
TEST_BINS += $(EDGE_TEST_BINS)

# Fortran drivers: modules go to a directory of their own per binary (several define the same one).
$(F90_TEST_BINS): $(TESTBIN)/%: $$(F90SRC_$$*) \
                  $$(LAYER_DEPLIBS_$$(call name_layer,$$*)) $(FLAGS_FILE) | $(DEPS_STAMP)
	@mkdir -p $(@D) $(OBJ)/tests/mod/$*
	$(FC) $(TEST_FFLAGS) -J$(OBJ)/tests/mod/$* -o $@ $(filter %.f90,$^) \
	    -L$(LIB) $(LAYER_LIBS_$(call name_layer,$*)) $(RPATH_BIN) $(ORACLE_BLAS) $(FFTW_LIBS) -lm

# Modern Fortran tests (tests/test_fortran_*.f90, tests/generated/test_fortran_*.f90): use cufort.
# -O0: the generated tests run to ~30k lines, which gfortran -O2 takes minutes over.
FORTRAN_TEST_SRCS := $(sort $(wildcard tests/test_fortran_*.f90 tests/generated/test_fortran_*.f90))
FORTRAN_TEST_BINS := $(foreach f,$(FORTRAN_TEST_SRCS),$(TESTBIN)/$(basename $(notdir $(f))))
$(foreach f,$(FORTRAN_TEST_SRCS),$(eval F90SRC_$(basename $(notdir $(f))) := $(f)))
FC_LINK_MODERN = -I$(MODDIR) -L$(LIB) -lcufort_fortran -lcufort $(RPATH_BIN)
$(FORTRAN_TEST_BINS): $(TESTBIN)/%: $$(F90SRC_$$*) $(FORTRAN_LIBS) $(FLAGS_FILE) | $(DEPS_STAMP)
	@mkdir -p $(@D) $(OBJ)/tests/mod/$*
	$(FC) $(FFLAGS) -O0 $(FC_STD) $(FC_TEST_WARN) -J$(OBJ)/tests/mod/$* -o $@ \
	    $(filter %.f90,$^) $(FC_LINK_MODERN)
TEST_BINS += $(FORTRAN_TEST_BINS)

tests: $(TEST_BINS)

# ---- the fuzzer over the C ABI (tests/fuzz) ----------------------------------------------------------
include mk/fuzz.mk

# ---- examples -----------------------------------------------------------------------------------------
# F77 examples need FC to make the F77 layer's external names: none can for scheme 4 (UPPER).
ifeq ($(FC_F77_OK),)
FORTRAN_EXAMPLES :=
else
FORTRAN_EXAMPLES := $(EXBIN)/matrixmod_thunking $(EXBIN)/matrixmod_device $(EXBIN)/matrixmod_cpu \
                    $(EXBIN)/sgemm_example_host $(EXBIN)/sgemm_example_cublas
endif
EXAMPLE_BINS := $(EXBIN)/cufort_info $(FORTRAN_EXAMPLES)
# examples/modern/*.f90 (use cufort): each checks its own result and is also run by make check
MODERN_EXAMPLES := $(patsubst examples/modern/%.f90,$(EXBIN)/modern_%,$(sort $(wildcard examples/modern/*.f90)))
EXAMPLE_BINS += $(MODERN_EXAMPLES)
tests: $(patsubst $(EXBIN)/%,$(TESTBIN)/example_%,$(MODERN_EXAMPLES))
$(MODERN_EXAMPLES): $(EXBIN)/modern_%: examples/modern/%.f90 $(FORTRAN_LIBS) $(FLAGS_FILE) | $(DEPS_STAMP)
	@mkdir -p $(@D) $(OBJ)/examples/mod/$*
	$(FC) $(FFLAGS) $(FC_STD) $(FC_WARN) -J$(OBJ)/examples/mod/$* -o $@ $< $(FC_LINK_MODERN)
$(TESTBIN)/example_modern_%: $(EXBIN)/modern_%
	@mkdir -p $(@D)
	cp $< $@
FC_LINK_THUNK = -L$(LIB) -lcufort_f77_thunking -lcufort $(RPATH_BIN)
FC_LINK_DEVICE = -L$(LIB) -lcufort_f77 -lcufort $(RPATH_BIN)

$(EXBIN)/cufort_info: examples/cufort_info.c $(LIB)/libcufort.so $(FLAGS_FILE) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(C_BASE) -Ic_wrappers/include -o $@ $< -L$(LIB) -lcufort $(RPATH_BIN)

$(EXBIN)/matrixmod_thunking: examples/matrixmod_thunking.f $(LIB)/libcufort_f77_thunking.so \
                             $(FLAGS_FILE) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(FC) $(ALL_FFLAGS) -o $@ $< $(FC_LINK_THUNK)

$(EXBIN)/matrixmod_device: examples/matrixmod_device.F $(LIB)/libcufort_f77.so \
                           $(FLAGS_FILE) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(FC) $(ALL_FFLAGS) -o $@ $< $(FC_LINK_DEVICE)

$(EXBIN)/matrixmod_cpu: examples/matrixmod_cpu.f $(FLAGS_FILE) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(FC) $(CPU_FFLAGS) -o $@ $< $(CPU_BLAS_LIBS)

$(EXBIN)/sgemm_example_host: examples/sgemm_example.F90 $(FLAGS_FILE) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(FC) $(CPU_FFLAGS) -o $@ $< $(CPU_BLAS_LIBS)

$(EXBIN)/sgemm_example_cublas: examples/sgemm_example.F90 $(LIB)/libcufort_f77_thunking.so \
                               $(FLAGS_FILE) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(FC) $(ALL_FFLAGS) -DCUBLAS -o $@ $< $(FC_LINK_THUNK)

# examples/user_kernel: a user's own CUDA kernel (csquare.cu, nvcc) called from Fortran (main.f90,
# bind(C)) on cufort's device memory and stream, linked with libcufort
EXAMPLE_BINS += $(EXBIN)/user_kernel
$(EXBIN)/user_kernel: examples/user_kernel/main.f90 $(OBJ)/examples/user_kernel/csquare.cu.o \
                      $(LIB)/libcufort.so $(FLAGS_FILE) | $(DEPS_STAMP)
	@mkdir -p $(@D) $(OBJ)/examples/mod/user_kernel
	$(FC) $(FFLAGS) $(FC_WARN) -J$(OBJ)/examples/mod/user_kernel -o $@ $< $(filter %.cu.o,$^) -L$(LIB) -lcufort \
	    $(RPATH_BIN) -L$(CUDA_LIBDIR) -lcudart -lstdc++ -Wl,-rpath,$(CUDA_LIBDIR)

examples: $(EXAMPLE_BINS)

demo: libs examples
	@bash scripts/demo.sh $(BUILD)
	@for x in $(MODERN_EXAMPLES); do echo; echo "== $$x: examples/modern (use cufort)"; \
	    LD_LIBRARY_PATH=$(LIB) $$x || exit 1; done

# ---- bench (needs a GPU) ------------------------------------------------------------------------------
# `make bench` builds and runs, each printing a table and writing a CSV (in $OUT when set, else .):
#   bench_kernels  cufort's reductions and transposes against CUB, cuBLAS and a D2D copy
#   fft_bench      cufort's FFT against cuFFT called directly; thunked FFTs against the PCIe floor
#   bench_gemm     GEMM on host arrays through the engine and every alternative (bench/gemm_run.sh)
#   vec_bench      level-1 BLAS on host arrays against fortran.c-style thunking and the PCIe floor
# docs/performance.md has the figures and the command behind each.
BENCH_BIN := $(BUILD)/bench/bench_kernels
FFT_BENCH_BIN := $(BUILD)/bench/fft_bench
$(BENCH_BIN): bench/bench_kernels.cu $(LIB)/libcufort.so $(FLAGS_FILE) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) $(GENCODE) -Ic_wrappers/include -Ikernels -o $@ $< -L$(LIB) -lcufort -lcublas \
	    -Xlinker -rpath,'$$ORIGIN/../lib' -Xlinker -rpath,$(CUDA_LIBDIR)
$(FFT_BENCH_BIN): bench/fft_bench.c $(LIB)/libcufort.so $(FLAGS_FILE) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(C_BASE) -Ic_wrappers/include $(if $(CUDA_INCDIR),-isystem $(CUDA_INCDIR)) -o $@ $< \
	    -L$(LIB) -lcufort -L$(CUDA_LIBDIR) -lcufft -lcudart -Wl,-rpath,'$$ORIGIN/../lib' \
	    -Wl,-rpath,$(CUDA_LIBDIR)
# bench_gemm: the thunk engine's GEMM against naive thunking, cublasXt, NVBLAS, the CPU BLAS, the
# drop-in library and device-pointer cuBLAS; ooc_gemm: one SGEMM larger than the GPU.
# bench/gemm_run.sh runs both with NVBLAS set up; bench/plot_gemm.py turns the CSV into the table
# and the PNG.  No BLAS is linked: NVBLAS's sgemm_ must win under LD_PRELOAD.  vec_bench: level-1
# BLAS on host arrays against fortran.c-style thunking and the pinned floor; built the same way.
GEMM_BENCH_BIN := $(BUILD)/bench/bench_gemm
OOC_BENCH_BIN := $(BUILD)/bench/ooc_gemm
VEC_BENCH_BIN := $(BUILD)/bench/vec_bench
# bench_l3: the other Level-3 routines on host arrays (the panel engine, the whole-array path, the
# device routine, the roofline), and with --ooc one call larger than the GPU, checked
L3_BENCH_BIN := $(BUILD)/bench/bench_l3
$(GEMM_BENCH_BIN) $(OOC_BENCH_BIN) $(VEC_BENCH_BIN) $(L3_BENCH_BIN): $(BUILD)/bench/%: bench/%.c bench/bench_util.h $(LIB)/libcufort.so $(FLAGS_FILE) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(C_BASE) -fopenmp -Ic_wrappers/include -Ic_wrappers/core -Ic_wrappers/thunk $(if $(CUDA_INCDIR),-isystem $(CUDA_INCDIR)) \
	    -o $@ $< -L$(LIB) -lcufort -L$(CUDA_LIBDIR) -lcublas -lcudart -ldl -lm \
	    -Wl,-rpath,'$$ORIGIN/../lib' -Wl,-rpath,$(CUDA_LIBDIR)

# lapack_factor: LAPACK's factorizations as a legacy program calls them, linked against the system's
# liblapack and libblas only (bench/lapack_run.sh chooses what runs: reference LAPACK on the drop-in,
# or OpenBLAS); cusolver_factor: cuSOLVER on device arrays, the limit they are judged against
LAPACK_BENCH_BIN := $(BUILD)/bench/lapack_factor
CUSOLVER_BENCH_BIN := $(BUILD)/bench/cusolver_factor
$(LAPACK_BENCH_BIN): bench/lapack_factor.f90 $(FLAGS_FILE) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(FC) $(FFLAGS) -J$(@D) -o $@ $< -llapack -lblas
$(CUSOLVER_BENCH_BIN): bench/cusolver_factor.c bench/bench_util.h $(FLAGS_FILE) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(C_BASE) $(if $(CUDA_INCDIR),-isystem $(CUDA_INCDIR)) -o $@ $< -L$(CUDA_LIBDIR) -lcusolver \
	    -lcublas -lcudart -Wl,-rpath,$(CUDA_LIBDIR)

# Probes (bench/probes/, into $(BUILD)/bench/probes): the experiments behind design decisions, kept
# to rerun on another machine (docs/performance.md says what each answered).
PROBE_DIR := $(BUILD)/bench/probes
# trace_calls: thunked calls timed one by one; against the trace build (make trace-build) it also
# writes the staging timeline, which bench/probes/trace_report.py reads
TRACE_CALLS_BIN := $(PROBE_DIR)/trace_calls
# first_calls: a program's first calls on new arrays, one by one (what watching and pinning cost)
FIRST_CALLS_BIN := $(PROBE_DIR)/first_calls
$(TRACE_CALLS_BIN) $(FIRST_CALLS_BIN): $(PROBE_DIR)/%: bench/probes/%.c bench/bench_util.h $(LIB)/libcufort.so $(FLAGS_FILE) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(C_BASE) -Ic_wrappers/include $(if $(CUDA_INCDIR),-isystem $(CUDA_INCDIR)) \
	    -o $@ $< -L$(LIB) -lcufort -L$(CUDA_LIBDIR) -lcudart -lm \
	    -Wl,-rpath,'$$ORIGIN/../../lib' -Wl,-rpath,$(CUDA_LIBDIR)
# stage_bench: pageable arrays to and from the GPU, every staging scheme tried
STAGE_BENCH_BIN := $(PROBE_DIR)/stage_bench
$(STAGE_BENCH_BIN): bench/probes/stage_bench.c bench/bench_util.h c_wrappers/thunk/copy_streaming.h $(FLAGS_FILE) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(C_BASE) -Ic_wrappers/thunk $(if $(CUDA_INCDIR),-isystem $(CUDA_INCDIR)) -o $@ $< -L$(CUDA_LIBDIR) -lcudart \
	    -Wl,-rpath,$(CUDA_LIBDIR)
# hmm_probe: can the GPU read and write pageable arrays itself (HMM), and how fast
HMM_PROBE_BIN := $(PROBE_DIR)/hmm_probe
$(HMM_PROBE_BIN): bench/probes/hmm_probe.cu $(FLAGS_FILE) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) $(GENCODE) -o $@ $< -lcufft -Xlinker -rpath,$(CUDA_LIBDIR)
# link_probe: the DMA engine against a copy kernel on slots just packed, the packing's stores, and
# the DMA rate of 1..N GPUs at once
LINK_PROBE_BIN := $(PROBE_DIR)/link_probe
$(LINK_PROBE_BIN): bench/probes/link_probe.cu bench/bench_util.h c_wrappers/thunk/copy_streaming.h $(FLAGS_FILE) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) $(GENCODE) -Ic_wrappers/thunk -Xcompiler -fopenmp -o $@ $< -lcublas -lgomp -Xlinker -rpath,$(CUDA_LIBDIR)
# pin_probe: can a pageable array stay pinned between calls, safely (userfaultfd events), and what
# pinning and DMA from it cost
PIN_PROBE_BIN := $(PROBE_DIR)/pin_probe
$(PIN_PROBE_BIN): bench/probes/pin_probe.c $(FLAGS_FILE) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(C_BASE) $(if $(CUDA_INCDIR),-isystem $(CUDA_INCDIR)) -o $@ $< -L$(CUDA_LIBDIR) -lcudart \
	    -Wl,-rpath,$(CUDA_LIBDIR)
# host_floor: the host memory traffic alone that a first GEMM call on pageable arrays must make
FLOOR_BIN := $(PROBE_DIR)/host_floor
$(FLOOR_BIN): bench/probes/host_floor.c bench/bench_util.h $(FLAGS_FILE) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(C_BASE) -o $@ $<
# cpu_noise: bursts of busy threads beside a benchmark, as a shared host's other guests make them
NOISE_BIN := $(PROBE_DIR)/cpu_noise
$(NOISE_BIN): bench/probes/cpu_noise.c $(FLAGS_FILE) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(C_BASE) -o $@ $<
.PHONY: bench bench-build
bench-build: $(BENCH_BIN) $(FFT_BENCH_BIN) $(GEMM_BENCH_BIN) $(OOC_BENCH_BIN) $(L3_BENCH_BIN) $(STAGE_BENCH_BIN) $(NOISE_BIN) \
             $(FLOOR_BIN) $(LAPACK_BENCH_BIN) $(CUSOLVER_BENCH_BIN) $(HMM_PROBE_BIN) $(LINK_PROBE_BIN) $(PIN_PROBE_BIN) $(VEC_BENCH_BIN) $(TRACE_CALLS_BIN) \
             $(FIRST_CALLS_BIN)
# trace-build: the library with the staging timeline (c_wrappers/thunk/stage_trace.h), and trace_calls and bench_l3
# against it, in $(BUILD)/trace; bench/probes/trace_report.py reads the timeline
.PHONY: trace-build
trace-build:
	$(MAKE) BUILD=$(BUILD)/trace CFLAGS="$(CFLAGS) -DCUFORT_STAGE_TRACE" $(BUILD)/trace/bench/probes/trace_calls \
		$(BUILD)/trace/bench/bench_l3
bench: bench-build
	$(BENCH_BIN) $(BENCH_ARGS)
	$(FFT_BENCH_BIN)
	$(VEC_BENCH_BIN)
	bash bench/gemm_run.sh $(BUILD)

# ---- drop-in BLAS library --------------------------------------------------------------------
include mk/dropin.mk
include mk/fftw.mk
include mk/mpi.mk
include mk/doc_programs.mk

# ---- the Fortran side again with LLVM flang, beside gfortran's (mk/flang.mk) ------------------------
include mk/flang.mk

# ---- check --------------------------------------------------------------------------------------------
check: libs tests examples
	@bash tests/run_tests.sh $(BUILD)

check-generated:
	@bash scripts/check_generated.sh

check-docs:
	@$(PYTHON) scripts/check_docs.py

generate:
	$(PYTHON) gen/generate.py

coverage:
	@$(PYTHON) scripts/coverage.py

# ---- install, uninstall, version, versioned shared libraries (mk/install.mk) ------------------------------
include mk/install.mk

# ---- GPU machine bundle -------------------------------------------------------------------------------
gpu-bundle: libs tests examples
	@bash scripts/gpu_bundle.sh $(BUILD)

clean:
	rm -rf $(BUILD)

help:
	@sed -n '2,/^$$/p' Makefile | sed 's/^# \{0,1\}//'

-include $(wildcard $(OBJ)/*/*.d $(OBJ)/*/*/*.d $(OBJ)/*/*/*/*.d)
