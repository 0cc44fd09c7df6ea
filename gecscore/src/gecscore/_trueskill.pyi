# Type stub of the compiled module built from _trueskill.c (see that file and setup.py).
from typing import Any

def play_block(
    mu: Any,
    var: Any,
    uniforms: Any,
    counts: Any,
    offsets: Any,
    sides: Any,
    draws: Any,
    judged: Any,
    n: int,
    two_beta_sq: float,
    draw_margin: float,
    /,
) -> None: ...
def v_w(t: float, eps: float, draw: bool, /) -> tuple[float, float]: ...
