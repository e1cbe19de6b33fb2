# mk/fortran_flags.mk — the Fortran flags that differ between compiler families, so that FC may be GNU
# gfortran or LLVM flang (flang-new), and so that mk/flang.mk can build with flang beside gfortran.
# Included by the Makefile before any rule.
#
#   fc_family FC     flang when FC's name or `FC --version` says flang, else gnu (the flags cufort has
#                    always used; other compilers are not tested)
#   fc_flags P,FAM   defines, for a compiler of family FAM:
#     P_STD          the standard the modules and modern tests are checked against: gfortran -std=f2008;
#                    flang accepts -std=f2018 only (Fortran 2018 contains 2008)
#     P_WARN         -Wall for gfortran; flang has no such group (it would warn that -Wall is unused)
#     P_TEST_WARN    P_WARN for the modern tests (gfortran: not -Wmaybe-uninitialized, which the
#                    30k-line generated tests trip over falsely)
#     P_FIXED_CHECKS fixed-form sources: text past column 72 is an error for gfortran; flang has no
#                    such check and ignores it silently
#     P_ARG_MISMATCH the F77 test drivers pass one buffer as several types (as fortran.c allows): an
#                    error in gfortran 10+ without -fallow-argument-mismatch, a warning in flang
#     P_F77_FLAGS    the F77 layer's external names (F77_MANGLING) and INTEGER size (F77_INT64), as
#                    the callers of libcufort_f77* must be compiled
#     P_F77_OK       1 where such callers can be compiled: not for F77_MANGLING=4 (upper case, no
#                    flag for it), nor for 2 with flang (no -fsecond-underscore)
#     P_SO_LINK      the command that links a shared library of Fortran objects (-o, objects and
#     P_SO_LIBS      libraries follow; P_SO_LIBS last).  gfortran: FC itself, every symbol resolved
#                    (libgfortran is shared).  flang: its runtime is a static archive only, so the
#                    library leaves the runtime's symbols to the program, which links the one copy
#                    of it that both use (a copy in each would keep two sets of I/O units)

fc_family = $(if $(or $(findstring flang,$(notdir $(firstword $1))),$(findstring flang,$(shell \
              $1 --version 2>/dev/null | head -n1))),flang,gnu)

FF_STD_gnu := -std=f2008
FF_STD_flang := -std=f2018
FF_WARN_gnu := -Wall
FF_WARN_flang :=
FF_TEST_WARN_gnu := -Wall -Wno-maybe-uninitialized
FF_TEST_WARN_flang :=
FF_FIXED_CHECKS_gnu := -Werror=line-truncation
FF_FIXED_CHECKS_flang :=
FF_ARG_MISMATCH_gnu := -fallow-argument-mismatch
FF_ARG_MISMATCH_flang :=
FF_MANGLING2_gnu := -fsecond-underscore
FF_MANGLING2_flang :=
FF_SO_LINK_gnu = $(FC) -shared -Wl,--no-undefined
FF_SO_LINK_flang = $(CC) -shared
FF_SO_LIBS_gnu :=
FF_SO_LIBS_flang := -lm

define fc_flags
$1_FAMILY := $2
$1_STD := $$(FF_STD_$2)
$1_WARN := $$(FF_WARN_$2)
$1_TEST_WARN := $$(FF_TEST_WARN_$2)
$1_FIXED_CHECKS := $$(FF_FIXED_CHECKS_$2)
$1_ARG_MISMATCH := $$(FF_ARG_MISMATCH_$2)
$1_F77_FLAGS := $$(if $$(filter 2,$$(F77_MANGLING)),$$(FF_MANGLING2_$2)) \
                $$(if $$(filter 3,$$(F77_MANGLING)),-fno-underscoring) \
                $$(if $$(filter 1 yes true,$$(F77_INT64)),-fdefault-integer-8)
$1_F77_OK := $$(if $$(or $$(filter 4,$$(F77_MANGLING)),$$(and $$(filter 2,$$(F77_MANGLING)),$$(if \
               $$(FF_MANGLING2_$2),,1))),,1)
$1_SO_LINK = $$(FF_SO_LINK_$2)
$1_SO_LIBS := $$(FF_SO_LIBS_$2)
endef

$(eval $(call fc_flags,FC,$(call fc_family,$(FC))))
