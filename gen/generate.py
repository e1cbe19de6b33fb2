#!/usr/bin/env python3
"""Writes every generated file from gen/blas_table.py, and the Fortran FFT and kernels modules from
gen/fft_table.py and gen/kernels_table.py.  `make generate` runs it; the output is deterministic, so
`make generate && git diff --exit-code` proves the tree is up to date."""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

import emit_capi  # noqa: E402
import emit_dropin  # noqa: E402
import emit_edge_tests  # noqa: E402
import emit_f77  # noqa: E402
import emit_f77_tests  # noqa: E402
import emit_fuzz  # noqa: E402
import emit_fuzz_kernels  # noqa: E402
import emit_fortran  # noqa: E402
import emit_fortran_fft  # noqa: E402
import emit_fortran_kernels  # noqa: E402
import emit_tests  # noqa: E402


def write(rel, text):
    path = os.path.join(ROOT, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    old = open(path).read() if os.path.exists(path) else None
    if old != text:
        with open(path, "w") as f:
            f.write(text)
        print(f"generated {rel}")


def main():
    for emitter in (emit_capi, emit_f77, emit_f77_tests, emit_tests, emit_edge_tests, emit_fortran,
                    emit_dropin, emit_fortran_fft, emit_fortran_kernels, emit_fuzz,
                    emit_fuzz_kernels):
        emitter.emit(write)


if __name__ == "__main__":
    main()
