"""The generics of module cufort_kernels (fortran/generated/cufort_kernels.f90, written by
gen/emit_fortran_kernels.py): cufort's own reductions and transposes (cufort_kernels.h) on device
arrays and on host arrays.  One row per C entry point the module binds and one row per generic;
the emitter writes one specific per kind and mode (d: device arrays, h: host arrays, thunked;
dev: device arrays and a result left in device memory)."""

from collections import namedtuple

ALL = ("r32", "r64", "c32", "c64")
REAL = ("r32", "r64")

# The C entry points cufort_<p><name><suffix>, p the precision letter of each kind (s d c z), and
# their Fortran interface: i_red1 / i_red2 take one / two vectors and a result by c_ptr, so one
# interface serves every kind; the others ({k}) have a scalar argument of the kind.
Entry = namedtuple("Entry", "name kinds suffixes iface")
ENTRIES = [
    Entry("reduce_sum", ALL, ("", "_dev", "_host"), "i_red1"),
    Entry("reduce_sumk", REAL, ("", "_dev", "_host"), "i_red1"),
    Entry("reduce_asum", ALL, ("", "_host"), "i_red1"),
    Entry("reduce_dot", REAL, ("", "_dev", "_host"), "i_red2"),
    Entry("reduce_dotc", ("c32", "c64"), ("", "_dev", "_host"), "i_red2"),
    Entry("reduce_nrm2", ALL, ("", "_host"), "i_red1"),
    Entry("reduce_min", REAL, ("", "_host"), "i_red1"),
    Entry("reduce_max", REAL, ("", "_host"), "i_red1"),
    Entry("reduce_minloc", REAL, ("", "_host"), "i_red1"),
    Entry("reduce_maxloc", REAL, ("", "_host"), "i_red1"),
    Entry("reduce_count", REAL, ("", "_host"), "i_count_{k}"),
    Entry("transpose", ALL, ("", "_host"), "i_tr_{k}"),
    Entry("transpose_inplace", ALL, ("", "_host"), "i_tri_{k}"),
]

# The generics, in the order of their specifics in the module.
#   form     the emitter's template: reduce (a function of the vector arguments), reduce_to (a
#            subroutine leaving the result in the one-element device vector res), count, transpose,
#            transpose_inplace
#   kernel   the entry point; {c}: "c" for complex kinds (the conjugating dot product)
#   vectors  the vector arguments of a reduction
#   result   T: the kind, R: its real kind, index: a 0-based location from C, 1-based here
#            (0 when x is empty)
#   compensated  the entry point cf_sum(..., compensated=.true.) calls instead: real-only, so a
#            complex vector is summed as two real ones, its real and its imaginary parts
#   doc      the comment above the generic's specifics
Generic = namedtuple("Generic", "name prefix form kinds kernel vectors result compensated doc",
                     defaults=(("x",), "T", None, None))
GENERICS = [
    Generic("cf_sum", "sum", "reduce", ALL, "reduce_sum", compensated="reduce_sumk",
            doc="cf_sum(x [, compensated]): SUM(x); compensated: the sumk kernel, about one ulp"),
    Generic("cf_sum_to", "sum_to", "reduce_to", ALL, "reduce_sum", compensated="reduce_sumk",
            doc="cf_sum_to(x, res [, compensated]): res(1) = SUM(x) in device memory, ordered on "
                "this thread's stream without waiting; res is a one-element device vector (a view "
                "such as v%elem(i) will do)"),
    Generic("cf_sum_abs", "asum", "reduce", ALL, "reduce_asum", result="R",
            doc="cf_sum_abs(x): SUM(ABS(x)); complex: |re| + |im| summed, as BLAS asum"),
    Generic("cf_dot_product", "dot", "reduce", ALL, "reduce_dot{c}", vectors=("x", "y"),
            doc="cf_dot_product(x, y): DOT_PRODUCT(x, y), x conjugated when complex"),
    Generic("cf_dot_product_to", "dot_to", "reduce_to", ALL, "reduce_dot{c}", vectors=("x", "y"),
            doc="cf_dot_product_to(x, y, res): as cf_sum_to"),
    Generic("cf_norm2", "nrm2", "reduce", ALL, "reduce_nrm2", result="R",
            doc="cf_norm2(x): NORM2(x) (complex too), without overflow or harmful underflow"),
    Generic("cf_minval", "min", "reduce", REAL, "reduce_min",
            doc="cf_minval, cf_maxval, cf_minloc, cf_maxloc: the intrinsics on a real vector; NaNs "
                "are ignored unless all are NaN; locations are 1-based, the first of ties, 0 when "
                "x is empty"),
    Generic("cf_maxval", "max", "reduce", REAL, "reduce_max"),
    Generic("cf_minloc", "minloc", "reduce", REAL, "reduce_minloc", result="index"),
    Generic("cf_maxloc", "maxloc", "reduce", REAL, "reduce_maxloc", result="index"),
    Generic("cf_count", "count", "count", REAL, "reduce_count",
            doc='cf_count(x, pred, value): COUNT(x <pred> value), pred "lt", "le", "gt", "ge", '
                '"eq", "ne" or "<", "<=", ">", ">=", "==", "/=", any case'),
    Generic("cf_transpose", "transpose", "transpose", ALL, "transpose",
            doc='cf_transpose(a, b [, trans, alpha]): b = alpha*op(a), op by trans: "T" (default), '
                '"C" (conjugate transpose) or "N"; a and b must not overlap'),
    Generic("cf_transpose_inplace", "transpose_inplace", "transpose_inplace", ALL,
            "transpose_inplace", doc="cf_transpose_inplace(a [, trans, alpha]): a = alpha*op(a) for "
                                     "a square a"),
]
