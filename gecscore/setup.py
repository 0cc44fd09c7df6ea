"""The optional compiled aligner (src/gecscore/_alignfill.c) and TrueSkill player
(src/gecscore/_trueskill.c), built into the wheel.

Everything else about the package is in pyproject.toml. The extension is ``optional``: without a
C compiler or the Python headers the build warns and the package uses its pure-Python fill,
which gives the same results about 4x slower (README). ``GEC_REQUIRE_NATIVE=1`` makes a failed
compile fail the build (CI and the Docker image set it). ``pip install -e .`` builds it in place
(next to the source) the same way.
"""

import os

from setuptools import Extension, setup

# -O2 without -ffast-math: IEEE double arithmetic in source order, as CPython's floats.
# -ffp-contract=off: no fused multiply-add (the fill only adds, but keep it explicit). These
# come after the interpreter's own CFLAGS, so they win over an -O3 there.
ALIGNFILL = Extension(
    "gecscore._alignfill",
    sources=["src/gecscore/_alignfill.c"],
    extra_compile_args=["-O2", "-ffp-contract=off"],
    optional=os.environ.get("GEC_REQUIRE_NATIVE") != "1",
)

# The TrueSkill player (src/gecscore/_trueskill.c): the numpy player's operations in the same
# order, so the same flags matter (no fused multiply-add); without it numpy plays (slower).
TRUESKILL = Extension(
    "gecscore._trueskill",
    sources=["src/gecscore/_trueskill.c"],
    extra_compile_args=["-O2", "-ffp-contract=off"],
    libraries=["m"],
    optional=os.environ.get("GEC_REQUIRE_NATIVE") != "1",
)

setup(ext_modules=[ALIGNFILL, TRUESKILL])
