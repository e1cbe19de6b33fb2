"""The BLAS routine table: the single source of truth for every generated BLAS surface.

Each routine lists its arguments in reference-BLAS order (so an argument's 1-based position is the
parameter number that xerbla reports) and, per precision variant, the concrete name.  Conditions are C
expressions over the argument names; helpers usable in them:  NOTR(c) (c is 'N'), LEFT(c) (c is 'L'),
IMAX(a, b), MUL_WIDE(a, b) (a * b exactly, in 128 bits: no int64 stride passes a product past
INT64_MAX).  Extents of arrays are given by their shape:
  mat(rows, cols, ld)        column-major matrix, rows x cols inside leading dimension ld
  vec(n, inc)                BLAS vector of n elements at stride inc (negative: reversed, 0: one element)
  pack(count[, order])       contiguous run of count elements (a packed triangle of that order)
  bmat(rows, cols, ld, stride, batch)   batch matrices, matrix i starting stride*i elements in
A routine's quick= condition (an empty dimension, where reference BLAS does nothing) returns before any
array is looked at; no_alias= lists (output, input, exact) pairs whose arrays may share no element,
except the very same array when exact (a C condition, checked with invalid_if) allows it in place.

Types: 'T' the element type of the precision, 'R' its real type, 'I' a 0-based index (C ABI).
"""

SDCZ = "sdcz"


class Arg:
    """One Fortran-visible argument; kind is opt | int | scalar | array | hostref."""

    def __init__(self, name, kind, **kw):
        self.name, self.kind = name, kind
        self.check = kw.get("check")          # C condition that must hold, else xerbla(position)
        self.opts = kw.get("opts")            # allowed option letters, e.g. "NTC"
        self.optkind = kw.get("optkind")      # trans | uplo | diag | side
        self.type = kw.get("type", "T")       # T | R
        self.io = kw.get("io", "in")          # in | out | inout
        self.shape = kw.get("shape")          # ("mat", rows, cols, ld) | ("vec", n, inc) | ...
        self.count = kw.get("count", 1)       # hostref: number of elements
        self.step = kw.get("step", False)     # an increment: INT64_MIN (no magnitude) is refused


def Opt(name, opts, optkind):
    return Arg(name, "opt", opts=opts, optkind=optkind)


def Trans(name="trans", opts="NTC"):
    return Opt(name, opts, "trans")


def Uplo(name="uplo"):
    return Opt(name, "UL", "uplo")


def Diag(name="diag"):
    return Opt(name, "NU", "diag")


def Side(name="side"):
    return Opt(name, "LR", "side")


def Dim(name):
    return Arg(name, "int", check=f"{name} >= 0")


def N1(name="n"):
    """Level-1 length: reference BLAS quick-returns on n <= 0 instead of complaining."""
    return Arg(name, "int")


def Ld(name, rows):
    return Arg(name, "int", check=f"{name} >= IMAX(1, {rows})")


def LdMin(name, minimum):
    return Arg(name, "int", check=f"{name} >= {minimum}")


def Inc(name):
    """Level-1 increment: any value, negative walks backwards, 0 repeats one element."""
    return Arg(name, "int", step=True)


def Inc0(name):
    """Level-2 increment: zero is illegal (reference BLAS calls xerbla)."""
    return Arg(name, "int", check=f"{name} != 0", step=True)


def Int(name, check=None):
    return Arg(name, "int", check=check)


def Scalar(name, type="T"):
    return Arg(name, "scalar", type=type)


def Mat(name, io, rows, cols, ld, type="T"):
    return Arg(name, "array", io=io, type=type, shape=("mat", rows, cols, ld))


def Vec(name, io, n, inc, type="T"):
    return Arg(name, "array", io=io, type=type, shape=("vec", n, inc))


def Pack(name, io, count, type="T"):
    return Arg(name, "array", io=io, type=type, shape=("pack", count))


def Tri(name, io, order="n", type="T"):
    """A packed triangle of the given order: order * (order + 1) / 2 elements."""
    return Arg(name, "array", io=io, type=type,
               shape=("pack", f"{order} * ({order} + 1) / 2", order))


def BMat(name, io, rows, cols, ld, stride, batch, type="T"):
    return Arg(name, "array", io=io, type=type, shape=("bmat", rows, cols, ld, stride, batch))


def HostRef(name, io, type="T", count=1):
    """A scalar (or small array, e.g. rotm's param) that always lives on the host."""
    return Arg(name, "hostref", io=io, type=type, count=count)


class Variant:
    def __init__(self, name, prec, types=None, opts=None, cpu=None):
        self.name = name              # reference / cuBLAS name without prefix, e.g. "sgemm", "csscal"
        self.prec = prec              # s | d | c | z
        self.types = types or {}      # per-argument type overrides, e.g. {"alpha": "R"}
        self.opts = opts or {}        # per-argument allowed-option overrides, e.g. {"trans": "NT"}
        self.cpu = cpu                # overrides the routine's cpu= for this variant


def std(template, precs=SDCZ, **kw):
    return [Variant(template.format(p), p, **kw) for p in precs]


class Routine:
    def __init__(self, group, level, variants, args, result=None, quick=None, cublas=None,
                 cublas_args=None, doc="", cpu="blas", invalid_if=(), no_alias=()):
        self.group, self.level = group, level
        self.variants, self.args = variants, args
        self.result = result          # None | "T" | "R" | "I": the function value, returned via pointer
        self.quick = quick            # C condition under which the call returns at once (result set)
        self.cublas = cublas          # cuBLAS function name template ({P} = capitalised variant name)
        self.cublas_args = cublas_args  # cuBLAS argument list when it differs from the BLAS one
        self.doc = doc
        self.invalid_if = invalid_if  # (C condition over all arguments, position, name) rejections
        self.no_alias = no_alias      # (output, input, exact in place allowed) array pairs
        self.cpu = cpu                # "blas": the CPU BLAS has <name>_; "c": hand-written host code;
        #                               "blas:sd": the CPU BLAS has the listed precisions only;
        #                               "blas+c": the CPU BLAS has it (the drop-in and the tests
        #                               use it) but the host backend runs hand-written code


def _rot_variants():
    return [Variant("srot", "s"), Variant("drot", "d"),
            Variant("csrot", "c", types={"s": "R"}), Variant("zdrot", "z", types={"s": "R"}),
            Variant("crot", "c", cpu="c"), Variant("zrot", "z", cpu="c")]


# Level 1 -------------------------------------------------------------------------------------------------
VX = Vec("x", "in", "n", "incx")
L1 = [
    # amax: the host backend's own loop, reference BLAS's NaN rule (c_wrappers/host/host_blas_extra.c)
    Routine("amax", 1, [Variant("isamax", "s"), Variant("idamax", "d"), Variant("icamax", "c"),
                        Variant("izamax", "z")],
            [N1(), VX, Inc("incx")], result="I", quick="n <= 0 || incx <= 0", cpu="blas+c",
            doc="index of the first element of largest |re|+|im|"),
    Routine("amin", 1, [Variant("isamin", "s"), Variant("idamin", "d"), Variant("icamin", "c"),
                        Variant("izamin", "z")],
            [N1(), VX, Inc("incx")], result="I", quick="n <= 0 || incx <= 0", cpu="c",
            doc="index of the first element of smallest |re|+|im| (cuBLAS extension)"),
    Routine("asum", 1, [Variant("sasum", "s"), Variant("dasum", "d"), Variant("scasum", "c"),
                        Variant("dzasum", "z")],
            [N1(), VX, Inc("incx")], result="R", quick="n <= 0 || incx <= 0"),
    Routine("axpy", 1, std("{}axpy"),
            [N1(), Scalar("alpha"), VX, Inc("incx"), Vec("y", "inout", "n", "incy"), Inc("incy")],
            quick="n <= 0"),
    Routine("copy", 1, std("{}copy"),
            [N1(), VX, Inc("incx"), Vec("y", "out", "n", "incy"), Inc("incy")], quick="n <= 0"),
    Routine("dot", 1, std("{}dot", "sd"),
            [N1(), VX, Inc("incx"), Vec("y", "in", "n", "incy"), Inc("incy")], result="T",
            quick="n <= 0"),
    # dotu and dotc: OpenBLAS 0.3.21-0.3.23 built by gcc 12 or later reads past their vectors
    # (c_wrappers/host/host_blas_extra.c), so the host backend does not call the CPU BLAS's
    Routine("dotu", 1, std("{}dotu", "cz"),
            [N1(), VX, Inc("incx"), Vec("y", "in", "n", "incy"), Inc("incy")], result="T",
            quick="n <= 0", cpu="blas+c"),
    Routine("dotc", 1, std("{}dotc", "cz"),
            [N1(), VX, Inc("incx"), Vec("y", "in", "n", "incy"), Inc("incy")], result="T",
            quick="n <= 0", cpu="blas+c"),
    Routine("nrm2", 1, [Variant("snrm2", "s"), Variant("dnrm2", "d"), Variant("scnrm2", "c"),
                        Variant("dznrm2", "z")],
            [N1(), VX, Inc("incx")], result="R", quick="n <= 0 || incx <= 0"),
    Routine("rot", 1, _rot_variants(),
            [N1(), Vec("x", "inout", "n", "incx"), Inc("incx"), Vec("y", "inout", "n", "incy"),
             Inc("incy"), Scalar("c", "R"), Scalar("s")], quick="n <= 0"),
    # rotg, rotmg: the host backend's own, safely scaled (c_wrappers/host/host_rotg.c)
    Routine("rotg", 1, [Variant("srotg", "s"), Variant("drotg", "d"), Variant("crotg", "c"),
                        Variant("zrotg", "z")],
            [HostRef("a", "inout"), HostRef("b", "inout"), HostRef("c", "out", "R"),
             HostRef("s", "out")], cublas="cublas{P}_v2", cpu="blas+c"),
    Routine("rotm", 1, std("{}rotm", "sd"),
            [N1(), Vec("x", "inout", "n", "incx"), Inc("incx"), Vec("y", "inout", "n", "incy"),
             Inc("incy"), HostRef("param", "in", count=5)], quick="n <= 0 || param[0] == -2"),
    Routine("rotmg", 1, std("{}rotmg", "sd"),
            [HostRef("d1", "inout"), HostRef("d2", "inout"), HostRef("x1", "inout"),
             HostRef("y1", "in"), HostRef("param", "out", count=5)], cublas="cublas{P}_v2",
            cpu="blas+c"),
    # scal: the host backend multiplies, as reference BLAS (c_wrappers/host/host_blas_extra.c)
    Routine("scal", 1, std("{}scal") + [Variant("csscal", "c", types={"alpha": "R"}),
                                        Variant("zdscal", "z", types={"alpha": "R"})],
            [N1(), Scalar("alpha"), Vec("x", "inout", "n", "incx"), Inc("incx")],
            quick="n <= 0 || incx <= 0", cpu="blas+c"),
    Routine("swap", 1, std("{}swap"),
            [N1(), Vec("x", "inout", "n", "incx"), Inc("incx"), Vec("y", "inout", "n", "incy"),
             Inc("incy")], quick="n <= 0"),
]

# Level 2 -------------------------------------------------------------------------------------------------
XN, YN = Vec("x", "in", "n", "incx"), Vec("y", "inout", "n", "incy")
L2 = [
    Routine("gbmv", 2, std("{}gbmv"),
            [Trans(), Dim("m"), Dim("n"), Dim("kl"), Dim("ku"), Scalar("alpha"),
             Mat("A", "in", "kl + ku + 1", "n", "lda"), LdMin("lda", "kl + ku + 1"),
             Vec("x", "in", "NOTR(trans) ? n : m", "incx"), Inc0("incx"), Scalar("beta"),
             Vec("y", "inout", "NOTR(trans) ? m : n", "incy"), Inc0("incy")]),
    Routine("gemv", 2, std("{}gemv"),
            [Trans(), Dim("m"), Dim("n"), Scalar("alpha"), Mat("A", "in", "m", "n", "lda"),
             Ld("lda", "m"), Vec("x", "in", "NOTR(trans) ? n : m", "incx"), Inc0("incx"),
             Scalar("beta"), Vec("y", "inout", "NOTR(trans) ? m : n", "incy"), Inc0("incy")]),
    Routine("ger", 2, [Variant("sger", "s"), Variant("dger", "d"), Variant("cgeru", "c"),
                       Variant("cgerc", "c"), Variant("zgeru", "z"), Variant("zgerc", "z")],
            [Dim("m"), Dim("n"), Scalar("alpha"), Vec("x", "in", "m", "incx"), Inc0("incx"),
             Vec("y", "in", "n", "incy"), Inc0("incy"), Mat("A", "inout", "m", "n", "lda"),
             Ld("lda", "m")]),
    Routine("sbmv", 2, std("{}sbmv", "sd"),
            [Uplo(), Dim("n"), Dim("k"), Scalar("alpha"), Mat("A", "in", "k + 1", "n", "lda"),
             LdMin("lda", "k + 1"), XN, Inc0("incx"), Scalar("beta"), YN, Inc0("incy")]),
    Routine("spmv", 2, std("{}spmv", "sd"),
            [Uplo(), Dim("n"), Scalar("alpha"), Tri("AP", "in"), XN,
             Inc0("incx"), Scalar("beta"), YN, Inc0("incy")]),
    Routine("spr", 2, std("{}spr", "sd"),
            [Uplo(), Dim("n"), Scalar("alpha"), XN, Inc0("incx"),
             Tri("AP", "inout")]),
    Routine("spr2", 2, std("{}spr2", "sd"),
            [Uplo(), Dim("n"), Scalar("alpha"), XN, Inc0("incx"), Vec("y", "in", "n", "incy"),
             Inc0("incy"), Tri("AP", "inout")]),
    Routine("symv", 2, std("{}symv"),
            [Uplo(), Dim("n"), Scalar("alpha"), Mat("A", "in", "n", "n", "lda"), Ld("lda", "n"),
             XN, Inc0("incx"), Scalar("beta"), YN, Inc0("incy")],
            cpu="blas:sd"),
    Routine("syr", 2, std("{}syr"),
            [Uplo(), Dim("n"), Scalar("alpha"), XN, Inc0("incx"),
             Mat("A", "inout", "n", "n", "lda"), Ld("lda", "n")], cpu="blas:sd"),
    Routine("syr2", 2, std("{}syr2"),
            [Uplo(), Dim("n"), Scalar("alpha"), XN, Inc0("incx"), Vec("y", "in", "n", "incy"),
             Inc0("incy"), Mat("A", "inout", "n", "n", "lda"), Ld("lda", "n")], cpu="blas:sd"),
    Routine("tbmv", 2, std("{}tbmv"),
            [Uplo(), Trans(), Diag(), Dim("n"), Dim("k"), Mat("A", "in", "k + 1", "n", "lda"),
             LdMin("lda", "k + 1"), Vec("x", "inout", "n", "incx"), Inc0("incx")]),
    Routine("tbsv", 2, std("{}tbsv"),
            [Uplo(), Trans(), Diag(), Dim("n"), Dim("k"), Mat("A", "in", "k + 1", "n", "lda"),
             LdMin("lda", "k + 1"), Vec("x", "inout", "n", "incx"), Inc0("incx")]),
    Routine("tpmv", 2, std("{}tpmv"),
            [Uplo(), Trans(), Diag(), Dim("n"), Tri("AP", "in"),
             Vec("x", "inout", "n", "incx"), Inc0("incx")]),
    Routine("tpsv", 2, std("{}tpsv"),
            [Uplo(), Trans(), Diag(), Dim("n"), Tri("AP", "in"),
             Vec("x", "inout", "n", "incx"), Inc0("incx")]),
    Routine("trmv", 2, std("{}trmv"),
            [Uplo(), Trans(), Diag(), Dim("n"), Mat("A", "in", "n", "n", "lda"), Ld("lda", "n"),
             Vec("x", "inout", "n", "incx"), Inc0("incx")]),
    Routine("trsv", 2, std("{}trsv"),
            [Uplo(), Trans(), Diag(), Dim("n"), Mat("A", "in", "n", "n", "lda"), Ld("lda", "n"),
             Vec("x", "inout", "n", "incx"), Inc0("incx")]),
    Routine("hemv", 2, std("{}hemv", "cz"),
            [Uplo(), Dim("n"), Scalar("alpha"), Mat("A", "in", "n", "n", "lda"), Ld("lda", "n"),
             XN, Inc0("incx"), Scalar("beta"), YN, Inc0("incy")]),
    Routine("hbmv", 2, std("{}hbmv", "cz"),
            [Uplo(), Dim("n"), Dim("k"), Scalar("alpha"), Mat("A", "in", "k + 1", "n", "lda"),
             LdMin("lda", "k + 1"), XN, Inc0("incx"), Scalar("beta"), YN, Inc0("incy")]),
    Routine("hpmv", 2, std("{}hpmv", "cz"),
            [Uplo(), Dim("n"), Scalar("alpha"), Tri("AP", "in"), XN,
             Inc0("incx"), Scalar("beta"), YN, Inc0("incy")]),
    Routine("her", 2, std("{}her", "cz", types={"alpha": "R"}),
            [Uplo(), Dim("n"), Scalar("alpha"), XN, Inc0("incx"),
             Mat("A", "inout", "n", "n", "lda"), Ld("lda", "n")]),
    Routine("her2", 2, std("{}her2", "cz"),
            [Uplo(), Dim("n"), Scalar("alpha"), XN, Inc0("incx"), Vec("y", "in", "n", "incy"),
             Inc0("incy"), Mat("A", "inout", "n", "n", "lda"), Ld("lda", "n")]),
    Routine("hpr", 2, std("{}hpr", "cz", types={"alpha": "R"}),
            [Uplo(), Dim("n"), Scalar("alpha"), XN, Inc0("incx"),
             Tri("AP", "inout")]),
    Routine("hpr2", 2, std("{}hpr2", "cz"),
            [Uplo(), Dim("n"), Scalar("alpha"), XN, Inc0("incx"), Vec("y", "in", "n", "incy"),
             Inc0("incy"), Tri("AP", "inout")]),
]

# Level 3 -------------------------------------------------------------------------------------------------
RA = "NOTR(transa) ? m : k"
CA = "NOTR(transa) ? k : m"
RB = "NOTR(transb) ? k : n"
CB = "NOTR(transb) ? n : k"
KA = "LEFT(side) ? m : n"
RK = "NOTR(trans) ? n : k"
CK = "NOTR(trans) ? k : n"


def _gemm_args():
    return [Trans("transa"), Trans("transb"), Dim("m"), Dim("n"), Dim("k"), Scalar("alpha"),
            Mat("A", "in", RA, CA, "lda"), Ld("lda", RA), Mat("B", "in", RB, CB, "ldb"),
            Ld("ldb", RB), Scalar("beta"), Mat("C", "inout", "m", "n", "ldc"), Ld("ldc", "m")]


def _symm_args():
    return [Side(), Uplo(), Dim("m"), Dim("n"), Scalar("alpha"), Mat("A", "in", KA, KA, "lda"),
            Ld("lda", KA), Mat("B", "in", "m", "n", "ldb"), Ld("ldb", "m"), Scalar("beta"),
            Mat("C", "inout", "m", "n", "ldc"), Ld("ldc", "m")]


def _syrk_args():
    return [Uplo(), Trans(), Dim("n"), Dim("k"), Scalar("alpha"), Mat("A", "in", RK, CK, "lda"),
            Ld("lda", RK), Scalar("beta"), Mat("C", "inout", "n", "n", "ldc"), Ld("ldc", "n")]


def _syr2k_args():
    return [Uplo(), Trans(), Dim("n"), Dim("k"), Scalar("alpha"), Mat("A", "in", RK, CK, "lda"),
            Ld("lda", RK), Mat("B", "in", RK, CK, "ldb"), Ld("ldb", RK), Scalar("beta"),
            Mat("C", "inout", "n", "n", "ldc"), Ld("ldc", "n")]


def _trmm_args():
    return [Side(), Uplo(), Trans("transa"), Diag(), Dim("m"), Dim("n"), Scalar("alpha"),
            Mat("A", "in", KA, KA, "lda"), Ld("lda", KA), Mat("B", "inout", "m", "n", "ldb"),
            Ld("ldb", "m")]


REAL_NTC_CPLX_NT = {"trans": "NT"}
C_A = [("C", "A", False)]                    # the output C may share no element with A
C_AB = [("C", "A", False), ("C", "B", False)]
HERM = {"alpha": "R", "beta": "R"}
L3 = [
    Routine("gemm", 3, std("{}gemm"), _gemm_args(), no_alias=C_AB),
    Routine("gemm3m", 3, std("{}gemm3m", "cz"), _gemm_args(), cublas="cublas{P}_64", cpu="c",
            no_alias=C_AB,
            doc="complex GEMM by the 3M method (cuBLAS extension); same result as gemm"),
    Routine("symm", 3, std("{}symm"), _symm_args(), no_alias=C_AB),
    Routine("hemm", 3, std("{}hemm", "cz"), _symm_args(), no_alias=C_AB),
    Routine("syrk", 3, std("{}syrk", "sd") + std("{}syrk", "cz", opts=REAL_NTC_CPLX_NT),
            _syrk_args(), no_alias=C_A),
    Routine("herk", 3, std("{}herk", "cz", types=HERM, opts={"trans": "NC"}), _syrk_args(),
            no_alias=C_A),
    Routine("syr2k", 3, std("{}syr2k", "sd") + std("{}syr2k", "cz", opts=REAL_NTC_CPLX_NT),
            _syr2k_args(), no_alias=C_AB),
    Routine("her2k", 3, std("{}her2k", "cz", types={"beta": "R"}, opts={"trans": "NC"}),
            _syr2k_args(), no_alias=C_AB),
    Routine("syrkx", 3, std("{}syrkx", "sd") + std("{}syrkx", "cz", opts=REAL_NTC_CPLX_NT),
            _syr2k_args(), cublas="cublas{P}_64", cpu="c", no_alias=C_AB,
            doc="C = alpha*op(A)*op(B)^T + beta*C, one triangle (cuBLAS extension)"),
    Routine("herkx", 3, std("{}herkx", "cz", types={"beta": "R"}, opts={"trans": "NC"}),
            _syr2k_args(), cublas="cublas{P}_64", cpu="c", no_alias=C_AB,
            doc="C = alpha*op(A)*op(B)^H + beta*C, one triangle (cuBLAS extension)"),
    Routine("trmm", 3, std("{}trmm"), _trmm_args(),
            cublas_args=["side", "uplo", "transa", "diag", "m", "n", "alpha", "A", "lda", "B",
                         "ldb", "B", "ldb"], no_alias=[("B", "A", False)]),
    Routine("trsm", 3, std("{}trsm"), _trmm_args(), no_alias=[("B", "A", False)]),
    Routine("gemm_strided_batched", 3, std("{}gemm_strided_batched"),
            [Trans("transa"), Trans("transb"), Dim("m"), Dim("n"), Dim("k"), Scalar("alpha"),
             BMat("A", "in", RA, CA, "lda", "strideA", "batch"), Ld("lda", RA),
             Int("strideA", "strideA >= 0"),
             BMat("B", "in", RB, CB, "ldb", "strideB", "batch"), Ld("ldb", RB),
             Int("strideB", "strideB >= 0"), Scalar("beta"),
             BMat("C", "inout", "m", "n", "ldc", "strideC", "batch"), Ld("ldc", "m"),
             Int("strideC", "batch <= 1 || strideC >= MUL_WIDE(ldc, n)"), Dim("batch")],
            cublas="cublas{Q}gemmStridedBatched_64", cpu="c", no_alias=C_AB,
            doc="batch GEMMs, matrix i of each operand at stride*i (cuBLAS extension)"),
    Routine("geam", 3, std("{}geam"),
            [Trans("transa"), Trans("transb"), Dim("m"), Dim("n"), Scalar("alpha"),
             Mat("A", "in", "NOTR(transa) ? m : n", "NOTR(transa) ? n : m", "lda"),
             Ld("lda", "NOTR(transa) ? m : n"), Scalar("beta"),
             Mat("B", "in", "NOTR(transb) ? m : n", "NOTR(transb) ? n : m", "ldb"),
             Ld("ldb", "NOTR(transb) ? m : n"), Mat("C", "out", "m", "n", "ldc"), Ld("ldc", "m")],
            cublas="cublas{P}_64", cpu="c",
            invalid_if=[("(const void *)C == (const void *)A && !(NOTR(transa) && ldc == lda)", 12,
                         "ldc (in place over A needs transa = N and ldc = lda)"),
                        ("(const void *)C == (const void *)B && !(NOTR(transb) && ldc == ldb)", 12,
                         "ldc (in place over B needs transb = N and ldc = ldb)")],
            no_alias=[("C", "A", True), ("C", "B", True)],
            doc="C = alpha*op(A) + beta*op(B) (cuBLAS extension); in place as cuBLAS allows"),
    Routine("dgmm", 3, std("{}dgmm"),
            [Side(), Dim("m"), Dim("n"), Mat("A", "in", "m", "n", "lda"), Ld("lda", "m"),
             Vec("x", "in", "LEFT(side) ? m : n", "incx"), Inc("incx"),
             Mat("C", "out", "m", "n", "ldc"), Ld("ldc", "m")],
            cublas="cublas{P}_64", cpu="c",
            invalid_if=[("(const void *)C == (const void *)A && ldc != lda", 9,
                         "ldc (in place over A needs ldc = lda)")],
            no_alias=[("C", "A", True), ("C", "x", False)],
            doc="C = A*diag(x) (side R) or diag(x)*A (side L) (cuBLAS extension)"),
]



def _empty(r):
    """Reference BLAS does nothing when m, n (or the batch) is 0: the quick return of every layer,
    before any array is looked at.  (k = 0 still scales C by beta.)"""
    dims = [a.name for a in r.args if a.kind == "int" and a.check == f"{a.name} >= 0"
            and a.name in ("m", "n", "batch")]
    return " || ".join(f"{d} == 0" for d in dims) or None


for _r in L2 + L3:
    _r.quick = _r.quick or _empty(_r)

ROUTINES = L1 + L2 + L3


def variants():
    """Every (routine, variant) pair in table order."""
    for r in ROUTINES:
        for v in r.variants:
            yield r, v


def on_cpu_blas(r, v):
    """Whether the CPU BLAS has this variant (the drop-in forwards it, the tests compare with it)."""
    cpu = v.cpu or r.cpu
    if cpu.startswith("blas:"):
        return v.prec in cpu[5:]
    return cpu in ("blas", "blas+c")


def host_calls_cpu_blas(r, v):
    """Whether the host backend calls the CPU BLAS for this variant (else hand-written C)."""
    return on_cpu_blas(r, v) and (v.cpu or r.cpu) != "blas+c"
