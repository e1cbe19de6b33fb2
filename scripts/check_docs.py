#!/usr/bin/env python3
"""scripts/check_docs.py -- the user documentation against the code it describes.

- Environment: every variable the libraries read (a CUFORT_ name given to getenv or the numeric
  parser, a drop-in's <prefix>_<suffix> settings, the MPI launchers' variables) has a row in
  docs/environment.md, and every variable a row there names is read somewhere.  The README's short
  table names only variables of that page.
- Status codes: docs/c-abi.md's table names every status of cufort.h's enum, with its value.
- Links: every relative link in README.md, docs/ and bench/results/ leads to a file of the tree,
  and a link into a Markdown page by #anchor to one of that page's headings (GitHub's anchors).

Prints "ok ..." / "FAIL ..." lines and a last line "N passed, M failed"; exits 1 on a failure.
Python standard library only.
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIBRARY_DIRS = ("c_wrappers", "fortran", "kernels")
PAGES = ["README.md"] + [os.path.join(d, f) for d in ("docs", "bench/results")
                         for f in sorted(os.listdir(os.path.join(ROOT, d))) if f.endswith(".md")]

results = []


def check(ok, what):
    results.append(ok)
    print(("ok " if ok else "FAIL ") + what)


def read(rel):
    with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
        return f.read()


def library_sources():
    for top in LIBRARY_DIRS:
        for dirpath, _, files in os.walk(os.path.join(ROOT, top)):
            for f in sorted(files):
                if f.endswith((".c", ".h", ".cu", ".f90", ".F90")):
                    yield os.path.relpath(os.path.join(dirpath, f), ROOT)


def variables_read():
    """{name: first source file} of the environment variables the libraries read"""
    found, prefixes, suffixes = {}, set(), set()
    for rel in library_sources():
        text = read(rel)
        # an error code's name, returned as text, is not a variable
        names = set(re.findall(r'"(CUFORT_[A-Z0-9_]+)"', text))
        names -= set(re.findall(r'case\s+(CUFORT_[A-Z0-9_]+)\s*:\s*return\s+"\1"', text))
        prefixes |= set(re.findall(r'env_prefix\s*=\s*"(CUFORT_[A-Z0-9_]+)"', text))
        suffixes |= set(re.findall(r'dropin_env_name\([^;]*?"([A-Z0-9_]+)"\)', text))
        # arrays of variable names the launcher looks through (OMPI_..., SLURM_..., PMI...)
        if os.path.basename(rel) == "launcher.c":
            names |= set(re.findall(r'"([A-Z][A-Z0-9]*_[A-Z0-9_]+)"', text))
        names |= set(re.findall(r'setenv\("([A-Z][A-Z0-9_]+)"', text))
        for n in names:
            found.setdefault(n, rel)
    for p in prefixes:
        found.pop(p, None)
        for s in suffixes:
            found.setdefault(p + "_" + s, "c_wrappers/route")
    return found, prefixes, suffixes


def table_names(text, heading=None):
    """the variable names (backticked, upper case) in the first column of the tables of `text`,
    or of the section under `heading` only"""
    if heading is not None:
        m = re.search(r"^## " + re.escape(heading) + r"\s*$(.*?)(?=^## |\Z)", text, re.M | re.S)
        text = m.group(1) if m else ""
    names = set()
    for line in text.splitlines():
        if not line.startswith("| `"):
            continue
        first = re.split(r"(?<!\\)\|", line)[1]
        names |= set(re.findall(r"`([A-Z][A-Z0-9]*_[A-Z0-9_]+)(?:=[^`]*)?`", first))
    return names


def check_environment():
    read_by_code, prefixes, suffixes = variables_read()
    check(len(prefixes) >= 2 and len(suffixes) >= 4,
          f"environment: drop-in settings found ({len(prefixes)} prefixes x {len(suffixes)} suffixes)")
    documented = table_names(read("docs/environment.md"))
    for name in sorted(read_by_code):
        check(name in documented,
              f"environment: {name} (read in {read_by_code[name]}) has a row in docs/environment.md")
    for name in sorted(documented - set(read_by_code)):
        check(False, f"environment: docs/environment.md names {name}, which nothing reads")
    short = table_names(read("README.md"), "Environment")
    check(0 < len(short) <= 16, f"environment: README's table holds {len(short)} variables (1-16)")
    for name in sorted(short - documented):
        check(False, f"environment: README names {name}, which docs/environment.md does not")


def check_statuses():
    header = read("c_wrappers/include/cufort.h")
    enum = re.search(r"enum\s*{([^}]*CUFORT_SUCCESS[^}]*)}", header).group(1)
    codes = {name: int(value) for name, value in re.findall(r"(CUFORT_[A-Z_]+)\s*=\s*(\d+)", enum)}
    table = {name: int(value) for name, value in
             re.findall(r"^\| `(CUFORT_[A-Z_]+)` \| (\d+) \|", read("docs/c-abi.md"), re.M)}
    check(len(codes) >= 10 and table == codes,
          f"status codes: docs/c-abi.md's table has the {len(codes)} of cufort.h, values included" +
          ("" if table == codes else f"; header {codes}, table {table}"))


def slug(heading):
    """GitHub's anchor for a heading's text"""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip()).lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(rel):
    seen, out = {}, set()
    fence = False
    for line in read(rel).splitlines():
        if line.startswith("```"):
            fence = not fence
        if fence:
            continue
        m = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
        if m:
            base = slug(m.group(1))
            n = seen.get(base, 0)
            seen[base] = n + 1
            out.add(base if n == 0 else f"{base}-{n}")
    return out


def check_links():
    for page in PAGES:
        text = re.sub(r"```.*?```", "", read(page), flags=re.S)
        targets = re.findall(r"\]\(([^)\s]+)\)", text)
        bad = []
        for t in targets:
            if re.match(r"[a-z]+:", t):
                continue
            path, _, anchor = t.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
            if not os.path.exists(os.path.join(ROOT, dest)):
                bad.append(f"{t} (no {dest})")
            elif anchor and dest.endswith(".md") and anchor not in anchors(dest):
                bad.append(f"{t} (no heading #{anchor} in {dest})")
        check(not bad, f"links: {page}, {len(targets)} links" + ("; broken: " + ", ".join(bad) if bad else ""))


def main():
    check_environment()
    check_statuses()
    check_links()
    passed = sum(results)
    print(f"{passed} passed, {len(results) - passed} failed")
    return 0 if passed == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
