"""Emits the generated test drivers (filled in below)."""


def emit(write):
    pass
