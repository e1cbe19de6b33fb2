# mk/install.mk — the version, versioned shared libraries, make install / uninstall, and what build
# systems find an installed cufort by (pkg-config files, a CMake package).  Included by the Makefile.
#
#   make install PREFIX=/opt/cufort [DESTDIR=/stage] [LIBDIR=...] [INCLUDEDIR=...]
#   make uninstall PREFIX=/opt/cufort [DESTDIR=/stage]   removes what install put there, no more
#
# Installed (PREFIX/lib and PREFIX/include unless LIBDIR, INCLUDEDIR say otherwise):
#   lib/lib<name>.so.X.Y.Z, lib<name>.so.X (the SONAME), lib<name>.so (for -l<name>), lib<name>.a
#       for libcufort, libcufort_f77, libcufort_f77_thunking, libcufort_fortran (libcufort_blas, libcufort_fftw: shared only)
#   include/cufort.h cufort_blas.h cufort_fft.h cufort_kernels.h cufort_dropin.h
#   include/cufort/<compiler>-mod-<n>/*.mod   the Fortran modules, in a directory of the compiler and
#       module file format that wrote them (FORTRAN_MODDIR; scripts/fortran_mod_id.sh names it: gfortran
#       8 to 14 all read gfortran-mod-15), so that a second compiler's modules can sit beside them
#   lib/libcufort_fortran_flang.*, include/cufort/flang-mod-<n>/*.mod, lib/pkgconfig/cufort-fortran-flang.pc
#       where LLVM flang built the modules as well (mk/flang.mk): its flavour of libcufort_fortran, the
#       library named after the compiler as Debian names a Fortran library's flavours (libfoo-flang);
#       the CMake package's cufort::fortran is the flavour of the project's Fortran compiler
#   lib/pkgconfig/cufort.pc cufort-f77.pc cufort-f77-thunking.pc cufort-fortran.pc cufort-blas.pc
#       cufort-fftw.pc
#   lib/cmake/cufort/cufortConfig.cmake cufortConfigVersion.cmake   (find_package(cufort), cufort::*)
#   share/cufort/install_manifest.txt   every file and directory install made, for uninstall
# The CMake package finds everything relative to its own directory, so the installed tree can be moved
# as a whole.  The pkg-config files name PREFIX, as is usual (pkg-config --define-variable=prefix=DIR
# reads them where the tree is staged or moved).
#
# make check installs into $(BUILD)/install-check (DESTDIR staging of PREFIX=/opt/cufort); the test
# tests/examples/install.sh builds programs against that tree through pkg-config and CMake.
# A build with F77_MANGLING or F77_INT64 records the Fortran flags its F77 layer's callers need: the
# pkg-config variable fflags of cufort-f77 and cufort-f77-thunking, and the compile options of the
# CMake targets cufort::f77 and cufort::f77_thunking.

# ---- the version: set in c_wrappers/include/cufort.h, read here --------------------------------------
version_part = $(shell sed -n 's/^\#define CUFORT_VERSION_$1 \([0-9][0-9]*\)$$/\1/p' c_wrappers/include/cufort.h)
CUFORT_VERSION_MAJOR := $(call version_part,MAJOR)
CUFORT_VERSION_MINOR := $(call version_part,MINOR)
CUFORT_VERSION_PATCH := $(call version_part,PATCH)
CUFORT_VERSION := $(CUFORT_VERSION_MAJOR).$(CUFORT_VERSION_MINOR).$(CUFORT_VERSION_PATCH)
ifneq ($(words $(CUFORT_VERSION_MAJOR) $(CUFORT_VERSION_MINOR) $(CUFORT_VERSION_PATCH)),3)
$(error c_wrappers/include/cufort.h: no "#define CUFORT_VERSION_MAJOR|MINOR|PATCH <number>" lines)
endif

# ---- shared libraries: lib<name>.so.X.Y.Z, its SONAME lib<name>.so.X and lib<name>.so beside it --------
# A shared library's rule names lib<name>.so (the link that -l<name> finds) as its target and links with
# $(SO_OUTPUT) instead of -o $@, then runs $(SO_LINKS).  Earlier versions' files go first, so that
# build/lib (which gpu-bundle carries) holds one version.
SO_OUTPUT = -Wl,-soname,$(notdir $@).$(CUFORT_VERSION_MAJOR) -o $@.$(CUFORT_VERSION)
SO_CLEAN = rm -f $@.[0-9]*
SO_LINKS = ln -sfn $(notdir $@).$(CUFORT_VERSION) $@.$(CUFORT_VERSION_MAJOR) && \
           ln -sfn $(notdir $@).$(CUFORT_VERSION_MAJOR) $@

.PHONY: version
version:
	@echo $(CUFORT_VERSION)

# ---- install locations --------------------------------------------------------------------------------
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
CMAKEDIR ?= $(LIBDIR)/cmake/cufort
INSTALL_MANIFEST = $(PREFIX)/share/cufort/install_manifest.txt
# the modules' directory: a function of FC, read off a module it wrote (evaluated once the modules exist)
FC_MOD_ID = $(call memo,FC_MOD_ID,$(shell bash scripts/fortran_mod_id.sh '$(FC)' $(MODDIR)/cufort_core.mod))
FORTRAN_MODDIR ?= $(INCLUDEDIR)/cufort/$(FC_MOD_ID)
FLANG_FORTRAN_MODDIR ?= $(INCLUDEDIR)/cufort/$(FLANG_MOD_ID)

# relpath TO,FROM: TO relative to the directory FROM, lexically (no symbolic links followed)
relpath = $(shell realpath -m -s --relative-to='$2' '$1')

# ---- pkg-config and CMake files, from pkgconfig/*.pc.in and cmake/*.cmake.in -----------------------------
INSTALL_STAGE := $(BUILD)/install
PC_NAMES := cufort cufort-f77 cufort-f77-thunking cufort-fortran cufort-blas cufort-fftw $(if $(FLANG_ON),cufort-fortran-flang)
PC_FILES := $(patsubst %,$(INSTALL_STAGE)/%.pc,$(PC_NAMES))
CMAKE_FILES := $(INSTALL_STAGE)/cufortConfig.cmake $(INSTALL_STAGE)/cufortConfigVersion.cmake
# What a static libcufort.a needs after it: the shared library's own link line, without its run path.
PRIVATE_LIBS = $(filter-out -Wl%,$(subst -fopenmp,-lgomp,$(CORE_LDLIBS)))
# CMake's names of a module format's compiler (for the warning when another compiler uses the package)
FC_CMAKE_ID = $(if $(filter gfortran-%,$(FC_MOD_ID)),GNU,$(if $(filter flang-%,$(FC_MOD_ID)),LLVMFlang))
install_empty :=
install_space := $(install_empty) $(install_empty)
semicolons = $(subst $(install_space),;,$(strip $1))

INSTALL_SUBST = sed -e 's|@VERSION@|$(CUFORT_VERSION)|g' \
    -e 's|@VERSION_MAJOR@|$(CUFORT_VERSION_MAJOR)|g' \
    -e 's|@PREFIX@|$(PREFIX)|g' \
    -e 's|@CMAKE_TO_PREFIX@|$(call relpath,$(PREFIX),$(CMAKEDIR))|g' \
    -e 's|@LIBDIR@|$(call relpath,$(LIBDIR),$(PREFIX))|g' \
    -e 's|@INCLUDEDIR@|$(call relpath,$(INCLUDEDIR),$(PREFIX))|g' \
    -e 's|@FORTRAN_MODDIR@|$(call relpath,$(FORTRAN_MODDIR),$(PREFIX))|g' \
    -e 's|@FC_MOD_ID@|$(FC_MOD_ID)|g' \
    -e 's|@FLANG_FORTRAN_MODDIR@|$(if $(FLANG_ON),$(call relpath,$(FLANG_FORTRAN_MODDIR),$(PREFIX)))|g' \
    -e 's|@FLANG_MOD_ID@|$(FLANG_MOD_ID)|g' \
    -e 's|@FC_CMAKE_ID@|$(FC_CMAKE_ID)|g' \
    -e 's|@PRIVATE_LIBS@|$(PRIVATE_LIBS)|g' \
    -e 's|@F77_FFLAGS@|$(strip $(F77_FC_FLAGS))|g' \
    -e 's|@CMAKE_PRIVATE_LIBS@|$(call semicolons,$(patsubst -l%,%,$(filter -l%,$(PRIVATE_LIBS))))|g' \
    -e 's|@CMAKE_PRIVATE_DIRS@|$(call semicolons,$(patsubst -L%,%,$(filter -L%,$(PRIVATE_LIBS))))|g'

# Regenerated on every install: they depend on PREFIX and the other locations.
.PHONY: install-files
install-files: libs
	$(if $(filter /%,$(PREFIX)),,$(error PREFIX must be an absolute path, not '$(PREFIX)'))
	@mkdir -p $(INSTALL_STAGE)
	@for n in $(PC_NAMES); do $(INSTALL_SUBST) pkgconfig/$$n.pc.in > $(INSTALL_STAGE)/$$n.pc || exit 1; done
	@for f in cufortConfig cufortConfigVersion; do \
	    $(INSTALL_SUBST) cmake/$$f.cmake.in > $(INSTALL_STAGE)/$$f.cmake || exit 1; done
	@if grep -n '@[A-Z_]*@' $(PC_FILES) $(CMAKE_FILES); then echo "install: unreplaced @...@ above" >&2; exit 1; fi

# What scripts/install_tree.sh installs, one line each: "file MODE SOURCE DIR" or "link TARGET PATH".
SHARED_LIBS = $(filter %.so,$(LIBS))
STATIC_LIBS = $(filter %.a,$(LIBS))
FORTRAN_MODS = $(sort $(wildcard $(MODDIR)/*.mod $(MODDIR)/*.smod))
FLANG_FORTRAN_MODS = $(if $(FLANG_ON),$(sort $(wildcard $(FLANG_MODDIR)/*.mod)))

install: install-files
	@{ for l in $(SHARED_LIBS); do n=$${l##*/}; \
	       echo "file 755 $$l.$(CUFORT_VERSION) $(LIBDIR)"; \
	       echo "link $$n.$(CUFORT_VERSION) $(LIBDIR)/$$n.$(CUFORT_VERSION_MAJOR)"; \
	       echo "link $$n.$(CUFORT_VERSION_MAJOR) $(LIBDIR)/$$n"; done; \
	   for f in $(STATIC_LIBS); do echo "file 644 $$f $(LIBDIR)"; done; \
	   for f in $(HEADERS); do echo "file 644 $$f $(INCLUDEDIR)"; done; \
	   for f in $(FORTRAN_MODS); do echo "file 644 $$f $(FORTRAN_MODDIR)"; done; \
	   for f in $(FLANG_FORTRAN_MODS); do echo "file 644 $$f $(FLANG_FORTRAN_MODDIR)"; done; \
	   for f in $(PC_FILES); do echo "file 644 $$f $(PKGCONFIGDIR)"; done; \
	   for f in $(CMAKE_FILES); do echo "file 644 $$f $(CMAKEDIR)"; done; } > $(INSTALL_STAGE)/list
	@bash scripts/install_tree.sh install '$(DESTDIR)' '$(INSTALL_MANIFEST)' '$(CUFORT_VERSION)' \
	    < $(INSTALL_STAGE)/list

# Needs nothing built: the manifest says what to remove.
.PHONY: uninstall
uninstall:
	@bash scripts/install_tree.sh uninstall '$(DESTDIR)' '$(INSTALL_MANIFEST)'

# ---- make check: an installed tree for tests/examples/install.sh ---------------------------------------
# Staged with DESTDIR, as a package build would; the test moves a copy elsewhere, builds against it and
# uninstalls it.  toolchain.sh: the compilers the tree was built with, for the test's programs.
INSTALL_CHECK_DIR := $(BUILD)/install-check
INSTALL_CHECK_PREFIX := /opt/cufort
.PHONY: install-check-tree
install-check-tree: libs
	@rm -rf $(INSTALL_CHECK_DIR) && mkdir -p $(INSTALL_CHECK_DIR)
	@$(MAKE) --no-print-directory install PREFIX=$(INSTALL_CHECK_PREFIX) DESTDIR=$(abspath $(INSTALL_CHECK_DIR))/stage \
	    LIBDIR=$(INSTALL_CHECK_PREFIX)/lib INCLUDEDIR=$(INSTALL_CHECK_PREFIX)/include \
	    PKGCONFIGDIR=$(INSTALL_CHECK_PREFIX)/lib/pkgconfig CMAKEDIR=$(INSTALL_CHECK_PREFIX)/lib/cmake/cufort \
	    FORTRAN_MODDIR=$(INSTALL_CHECK_PREFIX)/include/cufort/$(FC_MOD_ID) \
	    FLANG_FORTRAN_MODDIR=$(INSTALL_CHECK_PREFIX)/include/cufort/$(FLANG_MOD_ID) >$(INSTALL_CHECK_DIR)/install.log 2>&1 || \
	    { cat $(INSTALL_CHECK_DIR)/install.log; exit 1; }
	@printf "CC='%s'\nFC='%s'\nF77_FFLAGS='%s'\nF77_PROGRAMS=%s\nPREFIX='%s'\nVERSION='%s'\nFC_MOD_ID='%s'\n" \
	    '$(CC)' '$(FC)' '$(strip $(F77_FC_FLAGS))' '$(if $(FORTRAN_EXAMPLES),1,0)' '$(INSTALL_CHECK_PREFIX)' \
	    '$(CUFORT_VERSION)' '$(FC_MOD_ID)' > $(INSTALL_CHECK_DIR)/toolchain.sh
	@printf "FLANG='%s'\nFLANG_MOD_ID='%s'\nFLANG_F77_PROGRAMS=%s\n" '$(FLANG_ON)' '$(FLANG_MOD_ID)' \
	    '$(if $(FLANG_F77_OK),1,0)' >> $(INSTALL_CHECK_DIR)/toolchain.sh
	@echo "install-check-tree: $(INSTALL_CHECK_DIR)/stage$(INSTALL_CHECK_PREFIX)"
check: install-check-tree
