#!/usr/bin/env python3
"""scripts/readme_programs.py OUTDIR -- the README's Fortran examples as programs, so that the test
suite (tests/examples/readme.sh) can show that what a user copies from the README compiles, links
with the libraries its command line names, and computes what the README says it does.

Each ```fortran block of README.md is recognised by what it calls and written to OUTDIR:
  thunking.f   the thunking fragment (cublas_sscal on a host array), inside a program that fills
               a(6,5) first and then checks every element: row 2 from column 3 scaled by 16, the
               rest as it was
  device.f     the non-thunking fragment (cublas_alloc ... cublas_get_matrix), inside a program that
               declares only the array the thunking fragment declared, so the fragment must declare
               what else it uses; the same check, and the status cublas_alloc returned must be 0
  dropin.f90   the unchanged dgemm call, inside a program with random A and B (n = 400, over the
               drop-in's GPU threshold) and C poisoned with NaN (beta is 0), checked against matmul
  modern.f90   the `use cufort` program as it stands (it prints the error the test checks)
and OUTDIR/<name>.libs, the -l flags of the gfortran line in the ```sh block under it.  Every
program prints "ok ..." or "FAIL ..." lines (modern.f90: its own output).  A README without one
of the four blocks is an error: the README changed, and this script and the test must follow.
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


KINDS = [  # (name, extension, recognised by, writer)
    ("modern", "f90", re.compile(r"^\s*use cufort\b", re.M), lambda body: body),
    ("device", "f", re.compile(r"cublas_alloc"), device),
    ("thunking", "f", re.compile(r"cublas_sscal"), thunking),
    ("dropin", "f90", re.compile(r"call dgemm\b"), dropin),
]


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: readme_programs.py OUTDIR")
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
            sys.exit(f"readme_programs.py: a fortran block of README.md that no test knows:\n{body}")
        name, ext, _, write = kind
        if name in written:
            sys.exit(f"readme_programs.py: two README blocks read as the {name} example")
        command = next((b for lang2, b in found[i + 1:] if lang2 == "sh"), "")
        line = next((ln for ln in command.splitlines() if ln.startswith("gfortran")), "")
        line = line.split("#")[0]
        libs = re.findall(r"(?<!\S)-l\S+", line)
        if not libs:
            sys.exit(f"readme_programs.py: no gfortran line with -l flags under the {name} example")
        with open(os.path.join(out, f"{name}.{ext}"), "w", encoding="utf-8") as f:
            f.write(write(body))
        with open(os.path.join(out, f"{name}.libs"), "w", encoding="utf-8") as f:
            f.write(" ".join(libs) + "\n")
        written.add(name)
    missing = [k[0] for k in KINDS if k[0] not in written]
    if missing:
        sys.exit("readme_programs.py: README.md has no " + ", ".join(missing) + " example")


if __name__ == "__main__":
    main()
