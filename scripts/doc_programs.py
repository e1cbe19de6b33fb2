#!/usr/bin/env python3
"""scripts/doc_programs.py OUTDIR -- the Fortran and C examples of README.md and docs/ as programs,
so that the test suite (tests/examples/doc_programs.sh) can show that what a user copies compiles,
links with the libraries the documentation names, and computes what the documentation says.

Each ```fortran block of README.md is recognised by what it calls and written to OUTDIR:
  readme_thunking.f   the thunking fragment (cublas_sscal on a host array), inside a program that
                      fills a(6,5) first and then checks every element: row 2 from column 3 scaled
                      by 16, the rest as it was
  readme_device.f     the non-thunking fragment (cublas_alloc ... cublas_get_matrix), inside a
                      program that declares only the array the thunking fragment declared, so the
                      fragment must declare what else it uses; the same check, and the status
                      cublas_alloc returned must be 0
  readme_dropin.f90   the unchanged dgemm call, inside a program with random A and B (n = 400, over
                      the drop-in's GPU threshold) and C poisoned with NaN (beta is 0), checked
                      against matmul
  readme_modern.f90   the `use cufort` program as it stands
with OUTDIR/<name>.libs, the -l flags of the gfortran line in the ```sh block under it.  The
complete programs of docs/ (a ```fortran block that is a `program`, a ```c block with `main`) are
written as they stand, one per page of DOC_PAGES, with the libraries of their language's
in-tree command line (-lcufort_fortran -lcufort; -lcufort).  OUTDIR/<name>.expect says what the
output must be: "ok" (the program prints its own ok/FAIL lines), "small" (every number it prints is
under 1e-5: the documented programs print errors "~1e-7"), or "values X Y ..." (each within 1e-5
relative).  A page without its example is an error: the documentation changed, and this script,
mk/doc_programs.mk and the test must follow.
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DECLARATION = re.compile(r"^\s+(real|integer|double\s*precision|complex|logical|character|external)\b",
                         re.I)


def blocks(text):
    """[(language, body)] of the fenced blocks, in order"""
    return re.findall(r"^```(\w*)\n(.*?)^```", text, re.M | re.S)


def split_fragment(body):
    lines = [line for line in body.splitlines() if line.strip()]
    decls = [line for line in lines if DECLARATION.match(line)]
    return decls, [line for line in lines if line not in decls]


def fixed_form_check(name, extra_decls, fill_and_fragment, after):
    """a fixed-form program around a fragment that scales row 2 of a(6,5) from column 3 by 16"""
    return "\n".join([
        f"      program readme_{name}",
        *extra_decls,
        "      integer ii, jj, nbad",
        "      real*4 expect",
        *fill_and_fragment,
        *after,
        "      nbad = 0",
        "      do jj = 1, 5",
        "         do ii = 1, 6",
        "            expect = (ii-1)*6 + jj",
        "            if (ii .eq. 2 .and. jj .ge. 3) expect = 16*expect",
        "            if (a(ii,jj) .ne. expect) nbad = nbad + 1",
        "         enddo",
        "      enddo",
        "      if (nbad .eq. 0) then",
        f"         print '(a)', 'ok readme {name}: a(2,3:5) x 16, rest kept'",
        "      else",
        f"         print '(a,i0,a)', 'FAIL readme {name}: ', nbad, ' wrong'",
        "      endif",
        "      end",
        ""])


FILL = ["      do jj = 1, 5",
        "         do ii = 1, 6",
        "            a(ii,jj) = (ii-1)*6 + jj",
        "         enddo",
        "      enddo"]


def thunking(body):
    decls, code = split_fragment(body)
    return fixed_form_check("thunking", decls, FILL + code, [])


def device(body):
    decls, code = split_fragment(body)
    return fixed_form_check("device", ["      real*4 a(6,5)"] + decls, FILL + code, [
        "      if (stat .ne. 0) then",
        "         print '(a)', 'FAIL readme device: cublas_alloc status not 0'",
        "      else",
        "         print '(a)', 'ok readme device: cublas_alloc status 0'",
        "      endif"])


def dropin(body):
    return "\n".join([
        "program readme_dropin",
        "  use, intrinsic :: ieee_arithmetic, only: ieee_value, ieee_quiet_nan",
        "  integer, parameter :: n = 400",
        "  double precision :: a(n,n), b(n,n), c(n,n), ref(n,n), err",
        "  call random_number(a)",
        "  call random_number(b)",
        "  a = a - 0.5d0",
        "  c = ieee_value(0d0, ieee_quiet_nan)",
        *[line for line in body.splitlines() if line.strip()],
        "  ref = matmul(a, b)",
        "  err = maxval(abs(c - ref)) / maxval(abs(ref))",
        "  if (err < 1d-12) then",
        "    print '(a,es9.2)', 'ok readme dropin: dgemm against matmul, relative error ', err",
        "  else",
        "    print '(a,es9.2)', 'FAIL readme dropin: dgemm against matmul, relative error ', err",
        "  end if",
        "end program readme_dropin",
        ""])


KINDS = [  # (name, extension, recognised by, writer, expected output)
    ("readme_modern", "f90", re.compile(r"^\s*use cufort\b", re.M), lambda body: body, "small"),
    ("readme_device", "f", re.compile(r"cublas_alloc"), device, "ok"),
    ("readme_thunking", "f", re.compile(r"cublas_sscal"), thunking, "ok"),
    ("readme_dropin", "f90", re.compile(r"call dgemm\b"), dropin, "ok"),
]

# (name, page, language, libraries, expected output)
DOC_PAGES = [
    ("doc_modern_fortran", "docs/modern-fortran.md", "fortran", "-lcufort_fortran -lcufort", "small"),
    ("doc_fft", "docs/fft.md", "fortran", "-lcufort_fortran -lcufort", "small"),
    # x scaled by 2 in place, then the 2-norm of 2, 4, ..., 2000
    ("doc_c_abi", "docs/c-abi.md", "c", "-lcufort",
     "values 2000 %r" % (2 * sum(k * k for k in range(1, 1001)) ** 0.5)),
]


def write(out, name, ext, text, libs, expect):
    for suffix, content in ((ext, text), ("libs", libs + "\n"), ("expect", expect + "\n")):
        with open(os.path.join(out, f"{name}.{suffix}"), "w", encoding="utf-8") as f:
            f.write(content)


def doc_programs(out):
    for name, page, lang, libs, expect in DOC_PAGES:
        with open(os.path.join(ROOT, page), encoding="utf-8") as f:
            programs = [body for lang2, body in blocks(f.read()) if lang2 == lang and
                        (re.match(r"\s*program\s+\w+", body) if lang == "fortran" else "int main(" in body)]
        if len(programs) != 1:
            sys.exit(f"doc_programs.py: {page} has {len(programs)} complete {lang} programs, not 1")
        write(out, name, "f90" if lang == "fortran" else "c", programs[0], libs, expect)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: doc_programs.py OUTDIR")
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        found = blocks(f.read())
    written = set()
    for i, (lang, body) in enumerate(found):
        if lang != "fortran":
            continue
        kind = next((k for k in KINDS if k[2].search(body)), None)
        if kind is None:
            sys.exit(f"doc_programs.py: a fortran block of README.md that no test knows:\n{body}")
        name, ext, _, writer, expect = kind
        if name in written:
            sys.exit(f"doc_programs.py: two README blocks read as the {name} example")
        command = next((b for lang2, b in found[i + 1:] if lang2 == "sh"), "")
        line = next((ln for ln in command.splitlines() if ln.startswith("gfortran")), "")
        line = line.split("#")[0]
        libs = re.findall(r"(?<!\S)-l\S+", line)
        if not libs:
            sys.exit(f"doc_programs.py: no gfortran line with -l flags under the {name} example")
        write(out, name, ext, writer(body), " ".join(libs), expect)
        written.add(name)
    missing = [k[0] for k in KINDS if k[0] not in written]
    if missing:
        sys.exit("doc_programs.py: README.md has no " + ", ".join(missing) + " example")
    doc_programs(out)


if __name__ == "__main__":
    main()
