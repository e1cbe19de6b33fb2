"""The variants of module cufort_fft (fortran/generated/cufort_fft.f90, written by
gen/emit_fortran_fft.py): the kinds and ranks a plan is made from and executed on, and the generics
that take them.  Each generic gets one specific per rank, kind and mode (h: host arrays, d: device
arrays), each only describing its arrays to one procedure that serves them all."""

from collections import namedtuple

# The kind of a plan's physical-space array and the kind of its spectral side: the same for a
# complex transform, complex for a real one (R2C forward, C2R inverse).  In the module each kind
# is also an integer code named after it in upper case (C32, ...).
Kind = namedtuple("Kind", "name spectral")
KINDS = [Kind("c32", "c32"), Kind("c64", "c64"), Kind("r32", "c32"), Kind("r64", "c64")]

# Transform ranks: the host array's dummy shape, the device array type (cf_<device>_<kind>), and
# when a device array {a} is contiguous, as a transform needs (a view with one column, or one
# matrix of columns, is contiguous whatever its leading dimension).
Rank = namedtuple("Rank", "rank dims device contiguous")
RANKS = [
    Rank(1, ":", "vector", "{a}%inc() == 1"),
    Rank(2, ":,:", "matrix", "{a}%ld() == {a}%size(1) .or. {a}%size(2) <= 1"),
    Rank(3, ":,:,:", "array3", "{a}%ld() == {a}%size(1) .or. {a}%size(2) * {a}%size(3) <= 1"),
]

# The generics over arrays: the specifics' prefix and the direction (None: plan creation).  A
# transform's x is the physical side going forward, the spectral side going back; the inverse
# takes normalize=.  Complex transforms also have an in-place host specific (x only) and an
# optional device y (absent: in place).
Generic = namedtuple("Generic", "name prefix direction")
GENERICS = [
    Generic("cf_fft_plan_create", "plan", None),
    Generic("cf_fft_forward", "fwd", "FWD"),
    Generic("cf_fft_inverse", "inv", "INV"),
]

# Specifics of cf_fft_plan_create from a shape and a transform type instead of an array (written
# once in the emitter's shared part); they come first in the generic.
SHAPE_SPECIFICS = ["plan_n", "plan_n64"]
