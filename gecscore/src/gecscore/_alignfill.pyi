# Type stub of the compiled module built from _alignfill.c (see that file and setup.py).
from collections.abc import Sequence

Op = tuple[str, int, int, int, int]

class PairCosts:
    def add(self, keys: Sequence[int], values: Sequence[float], /) -> None: ...
    def get(self, key: int, /) -> float | None: ...
    def __len__(self) -> int: ...

def fill(
    costs: PairCosts, src_ids: Sequence[int], tgt_ids: Sequence[int], low: int, high: int, /
) -> tuple[bytearray, bytearray] | list[int]: ...
def align(
    costs: PairCosts,
    src_ids: Sequence[int],
    tgt_ids: Sequence[int],
    band: int,
    first_only: bool,
    max_paths: int,
    max_slots: int,
    /,
) -> tuple[list[list[Op]], bool, float] | list[int] | int: ...

class CharFeatures:
    def append(
        self,
        sem0: int,
        sem1: int,
        sem2: int,
        flags: int,
        codepoint: int,
        reading_ids: Sequence[int],
        compact_confusion_set: str,
        /,
    ) -> None: ...
    def __len__(self) -> int: ...

def char_costs(costs: PairCosts, features: CharFeatures, keys: Sequence[int], /) -> list[int]: ...
