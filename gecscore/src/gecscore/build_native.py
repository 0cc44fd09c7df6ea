"""Compile the optional C accelerator of the char aligner (``gecscore/src/gecscore/_alignfill.c``).

    python -m gecscore.build_native [--quiet]

Writes ``gecscore/src/gecscore/_alignfill<EXT_SUFFIX>`` next to the source with the C compiler and flags
this Python was built with (``sysconfig``), so no setuptools or build isolation is involved.
``make install`` runs it; the Dockerfile's build stage too. Without a compiler (or the Python
headers) it says so and exits 0: ``gecscore.align`` then uses its pure-Python fill, which
gives the same results about 2-3x slower (docs/benchmarks.md). ``GEC_REQUIRE_NATIVE=1`` turns
that into a failure (CI uses it so the compiled path is always what gets tested there).
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCE = HERE / "_alignfill.c"


def target_path() -> Path:
    return HERE / f"_alignfill{sysconfig.get_config_var('EXT_SUFFIX') or '.so'}"


def compile_command(output: Path) -> list[str]:
    # $CC wins, as in any C build; else the compiler this Python was built with.
    compiler = shlex.split(os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc")
    include = sysconfig.get_paths()["include"]
    # -O2 without -ffast-math: IEEE double arithmetic in source order, as CPython's floats.
    # -ffp-contract=off: no fused multiply-add (the fill only adds, but keep it explicit).
    return [
        *compiler,
        "-O2",
        "-ffp-contract=off",
        "-fPIC",
        "-shared",
        f"-I{include}",
        str(SOURCE),
        "-o",
        str(output),
    ]


def build(*, quiet: bool = False) -> Path | None:
    """Compile into a temporary file, then move it into place (a half-written .so is never seen)."""
    target = target_path()
    if not (Path(sysconfig.get_paths()["include"]) / "Python.h").exists():
        print(
            "build_native: Python headers not found; using the pure-Python aligner", file=sys.stderr
        )
        return None
    with tempfile.TemporaryDirectory(dir=HERE) as scratch:
        output = Path(scratch) / target.name
        command = compile_command(output)
        try:
            done = subprocess.run(command, capture_output=True, text=True, check=False)
        except FileNotFoundError:
            print(
                f"build_native: no C compiler ({command[0]}); using the pure-Python aligner",
                file=sys.stderr,
            )
            return None
        if done.returncode != 0:
            print(
                f"build_native: compiling failed; using the pure-Python aligner\n{done.stderr}",
                file=sys.stderr,
            )
            return None
        os.replace(output, target)
    if not quiet:
        print(f"build_native: built {target.relative_to(HERE.parents[1])}")
    return target


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    built = build(quiet="--quiet" in args)
    if built is None and os.environ.get("GEC_REQUIRE_NATIVE") == "1":
        print(
            "build_native: GEC_REQUIRE_NATIVE=1 but the accelerator could not be built",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
