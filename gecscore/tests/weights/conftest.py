"""A tiny randomly initialised BERT with a real char + word vocabulary: no download, seconds.

The vocabulary covers every Chinese character and every English word of the test data
(MuCGEC dev, the ChERRANT demo, CoNLL-14), so the equality tests compare real token
sequences, not sentences of `[UNK]` (`test_tiny_bert_tokenizer.py` checks it).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gecscore.weights.random_model import build_random_bert

os.environ.setdefault("HF_HUB_OFFLINE", "1")

# Blocks of each corpus whose text the tiny model's vocabulary is built from.
MUCGEC_BLOCKS = 80
CONLL_BLOCKS = 60


def build_tiny_bert(directory: Path, text: str, *, seed: int = 0) -> Path:
    """A tiny BERT whose vocabulary covers `text` (words and characters)."""
    return build_random_bert(directory, [text], size="tiny", seed=seed)


def corpus_text(blocks: list) -> str:  # type: ignore[type-arg]
    """Sources, T lines and edit corrections of M2 blocks, one per line."""
    lines = []
    for block in blocks:
        lines.append(block.source)
        for target in block.targets:
            lines.append(target.text or "")
            lines.extend(edit.correction for edit in target.edits if edit.correction != "-NONE-")
    return "\n".join(lines)


@pytest.fixture(scope="session")
def mucgec_blocks(shared_data: Path) -> list:  # type: ignore[type-arg]
    from gecscore.m2 import read_m2

    return read_m2(shared_data / "mucgec-dev" / "MuCGEC_dev.m2")


@pytest.fixture(scope="session")
def conll_blocks(shared_data: Path) -> list:  # type: ignore[type-arg]
    from gecscore.m2 import read_m2

    return read_m2(shared_data / "cleme-conll14" / "conll14.errant")


@pytest.fixture(scope="session")
def tiny_bert_text(
    shared_data: Path,
    mucgec_blocks: list,  # type: ignore[type-arg]
    conll_blocks: list,  # type: ignore[type-arg]
) -> str:
    from gecscore.m2 import read_m2

    demo = shared_data / "cherrant-demo"
    demo_blocks = [block for path in sorted(demo.glob("*.m2.*")) for block in read_m2(path)]
    example = read_m2(shared_data / "mucgec-dev" / "example_pred_dev.m2")
    amu = read_m2(shared_data / "cleme-conll14" / "conll14-AMU.errant")
    return "\n".join(
        [
            corpus_text(mucgec_blocks[:MUCGEC_BLOCKS]),
            corpus_text(example[:MUCGEC_BLOCKS]),
            corpus_text(demo_blocks),
            corpus_text(conll_blocks[:CONLL_BLOCKS]),
            corpus_text(amu[:CONLL_BLOCKS]),
        ]
    )


@pytest.fixture(scope="session")
def tiny_bert(tmp_path_factory: pytest.TempPathFactory, tiny_bert_text: str) -> Path:
    return build_tiny_bert(tmp_path_factory.mktemp("tiny-bert"), tiny_bert_text)


@pytest.fixture(autouse=True)
def _bert_score_idf_pool_without_fork(monkeypatch: pytest.MonkeyPatch) -> None:
    """bert-score counts IDF in a multiprocessing Pool forked from the calling process. In the
    service-backed run the test process has used the broker, and a forked child can hang for
    ever in kombu's after-fork clean-up (the product never forks for that reason, see
    gecscore/src/gecscore/processes.py). bert-score's reference computation runs unchanged here, in a
    pool whose workers come from a fork server instead."""
    import multiprocessing

    import bert_score.utils

    monkeypatch.setattr(bert_score.utils, "Pool", multiprocessing.get_context("forkserver").Pool)
