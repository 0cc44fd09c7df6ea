"""The release report's checks: defects that users of published GEC sets keep finding
(duplicate sources, test sentences that also occur in train, special labels written as
reference text, ...), found before anyone downloads the release.

Pure functions over plain rows (no ORM), so the same checks run on a release, on an uploaded
file and in tests. Every finding lists each sentence it concerns (position and id): nothing is
summarised away.

Normalisation (``normalise``) for the "normalised" duplicate checks: Unicode NFKC (full-width
letters, digits and punctuation become half-width), all whitespace removed, traditional
characters mapped to simplified with OpenCC ``t2s`` (the table the char metric uses, one
character at a time), and
case folded. Two sources that differ only in those respects read the same to a person.

Near duplicates: character 5-gram shingles of the normalised text (3-grams for texts of 5 to
9 characters; shorter texts only match exactly), MinHash with 128 permutations and an LSH
index at Jaccard 0.8 (datasketch), and every candidate pair confirmed by the exact Jaccard
of the two shingle sets (>= 0.8) so a hash collision never becomes a finding. The thresholds
are ``NEAR_DUPLICATE_JACCARD`` and ``SHINGLE``.
"""

from __future__ import annotations

import hashlib
import itertools
import unicodedata
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from gecscore import to_simplified

NEAR_DUPLICATE_JACCARD = 0.8
SHINGLE = 5
SHORT_SHINGLE = 3
MINHASH_PERMUTATIONS = 128
MINHASH_SEED = 1
MINHASH_BLOCK = 2000  # sets hashed per numpy expression (bounded memory: ~40 shingles a set)
# Distinct shingles whose sha1 is remembered while a release is hashed (~170 bytes each); the
# memo is emptied when full, so a release of any size hashes in bounded memory.
MINHASH_MEMO_SHINGLES = 1_000_000
MERSENNE_PRIME = (1 << 61) - 1  # datasketch's legacy MinHash constants
MAX_HASH = (1 << 32) - 1
# A sentence longer than this (in characters) is reported as over-long: far beyond any GEC
# corpus's sentences (MuCGEC's longest is ~200), usually several sentences pasted together.
OVERLONG_CHARACTERS = 512

# Markers that are labels, not text. A reference that IS the canonical marker is the
# MuCGEC convention for an error-free / not-annotatable sentence; a reference that only looks
# like one (punctuation or spaces added, an English label, or beside real corrections of the
# same sentence) is a label written as reference text.
CANONICAL_MARKERS = ("没有错误", "无法标注")
LABEL_FORMS = frozenset(
    {
        "没有错误",
        "无法标注",
        "无错误",
        "正确",
        "errorfree",
        "noerror",
        "noerrors",
        "notannotatable",
        "unannotatable",
        "na",
        "-none-",
    }
)

CHECKS: dict[str, str] = {
    "duplicate_sources": "The same source text twice in a split",
    "normalised_duplicate_sources": "Sources of a split equal after normalisation (width, spaces, script, case)",
    "near_duplicate_sources": "Near-duplicate sources within the release",
    "cross_split_sources": "Sources that occur in more than one split",
    "overlap_exact": "Sources that occur in another dataset or an uploaded reference file",
    "overlap_near": "Near duplicates of another dataset's or an uploaded file's sentences",
    "special_label_references": "Special labels written as reference text",
    "reference_equals_source": "References identical to the source",
    "empty_sentences": "Empty sources or references",
    "overlong_sentences": f"Sources or references over {OVERLONG_CHARACTERS} characters",
    "without_references": "Sentences left out of the release: no reference",
}


@dataclass(frozen=True)
class ReleaseRow:
    position: int
    external_id: str
    text: str
    split: str
    references: tuple[str, ...]


@dataclass(frozen=True)
class OtherText:
    """A sentence of another corpus the release is checked against."""

    corpus: str  # "dataset mucgec" or "file conll14-test.txt"
    line: str  # the sentence's id or line number there
    text: str


@dataclass
class Finding:
    check: str
    items: list[dict[str, Any]] = field(default_factory=list)

    @property
    def title(self) -> str:
        return CHECKS[self.check]

    def as_dict(self) -> dict[str, Any]:
        return {
            "check": self.check,
            "title": self.title,
            "count": len(self.items),
            "items": self.items,
        }


@lru_cache(maxsize=1)
def _traditional_to_simplified() -> dict[int, str]:
    """OpenCC t2s character by character, as a str.translate table. Converting text phrase
    by phrase costs ~0.2 ms a sentence (20 s on a 100k-sentence release); for telling whether
    two sources are the same text, the character table is enough."""
    blocks = [range(0x3400, 0x4DC0), range(0x4E00, 0xA000), range(0xF900, 0xFB00)]
    characters = [chr(code) for block in blocks for code in block]
    converted = to_simplified("\n".join(characters)).split("\n")
    return {
        ord(before): after
        for before, after in zip(characters, converted, strict=True)
        if after != before and len(after) == 1
    }


def normalise(text: str) -> str:
    text = unicodedata.normalize("NFKC", text)
    text = "".join(text.split())
    return text.translate(_traditional_to_simplified()).casefold()


def shingles(normalised: str) -> set[str]:
    if len(normalised) >= 2 * SHINGLE:
        size = SHINGLE
    elif len(normalised) >= SHORT_SHINGLE + 2:
        size = SHORT_SHINGLE
    else:
        return set()
    return {normalised[i : i + size] for i in range(len(normalised) - size + 1)}


def jaccard(a: set[str], b: set[str]) -> float:
    if not a or not b:
        return 0.0
    return len(a & b) / len(a | b)


def _ref(row: ReleaseRow) -> dict[str, Any]:
    return {"position": row.position, "id": row.external_id, "split": row.split}


def _groups(rows: Sequence[ReleaseRow], key: Any) -> list[list[ReleaseRow]]:
    by_key: dict[str, list[ReleaseRow]] = defaultdict(list)
    for row in rows:
        by_key[key(row)].append(row)
    return [group for group in by_key.values() if len(group) > 1]


@dataclass
class PreparedRows:
    """What several checks need of the release's sources, computed once: each row's
    normalised key, the rows of each key, and the MinHash of every key that has shingles
    (normalising, shingling and hashing are most of the report's time). The shingle sets
    themselves are made again for the few candidate pairs the LSH index returns: kept for a
    whole release they were ~11 KB a sentence (11 GB for a million sentences)."""

    rows: Sequence[ReleaseRow]
    normalised: list[str]  # per row, in row order
    by_key: dict[str, list[ReleaseRow]]  # normalised key -> its rows, keys in first-seen order
    keys: list[str]  # the keys with shingles (shorter texts only match exactly)
    minhashes: list[Any]  # MinHash of shingles(keys[i])
    # The LSH index of all minhashes, left by near_duplicate_findings (which fills it as it
    # goes) for overlap_findings: inserting 100k MinHashes costs ~10 s, so once.
    index: Any = None

    def shingle_set(self, index: int) -> set[str]:
        return shingles(self.keys[index])

    def lsh(self) -> Any:
        if self.index is None:
            self.index = _lsh(NEAR_DUPLICATE_JACCARD)
            for position, minhash in enumerate(self.minhashes):
                self.index.insert(position, minhash)
        return self.index


def prepare(rows: Sequence[ReleaseRow]) -> PreparedRows:
    normalised = [normalise(row.text) for row in rows]
    by_key: dict[str, list[ReleaseRow]] = defaultdict(list)
    for row, key in zip(rows, normalised, strict=True):
        by_key[key].append(row)
    keys: list[str] = []

    def shingled_keys() -> Iterable[set[str]]:
        for key in by_key:
            if shingled := shingles(key):
                keys.append(key)
                yield shingled

    minhashes = _minhashes(shingled_keys())
    return PreparedRows(rows, normalised, dict(by_key), keys, minhashes)


def duplicate_findings(prepared: PreparedRows) -> list[Finding]:
    """Exact and normalised duplicates within a split, and sources shared across splits
    (each pair of sentences is reported by one of the three checks only)."""
    rows = prepared.rows
    exact = Finding("duplicate_sources")
    exact_groups = _groups(rows, lambda row: f"{row.split}\t{row.text}")
    for group in exact_groups:
        exact.items.append({"text": group[0].text, "sentences": [_ref(r) for r in group]})
    normalised = Finding("normalised_duplicate_sources")
    by_split_key: dict[str, list[ReleaseRow]] = defaultdict(list)
    for row, key in zip(rows, prepared.normalised, strict=True):
        by_split_key[f"{row.split}\t{key}"].append(row)
    for group in by_split_key.values():
        if len(group) > 1 and len({row.text for row in group}) > 1:
            normalised.items.append(
                {"texts": sorted({r.text for r in group}), "sentences": [_ref(r) for r in group]}
            )
    cross = Finding("cross_split_sources")
    for group in prepared.by_key.values():
        splits = sorted({row.split for row in group})
        if len(group) > 1 and len(splits) > 1:
            cross.items.append(
                {
                    "text": group[0].text,
                    "splits": splits,
                    "sentences": [_ref(r) for r in group],
                }
            )
    return [exact, normalised, cross]


class ShingleHashes(dict[str, int]):
    """The 32-bit sha1 of each shingle, computed on first sight and remembered (a sentence's
    shingles recur across a corpus) up to ``limit`` shingles: when full the memo is emptied
    and fills again, so its size never passes ``limit`` whatever the release's size. Hits are
    plain dict lookups (``__missing__`` runs only for a shingle not in the memo)."""

    def __init__(self, limit: int | None = None) -> None:
        super().__init__()
        self.limit = max(1, MINHASH_MEMO_SHINGLES if limit is None else limit)
        self.largest = 0  # the most shingles held at once
        self.emptied = 0

    def __missing__(self, shingle: str) -> int:
        if len(self) >= self.limit:
            self.clear()
            self.emptied += 1
        value = self[shingle] = _sha1_32(shingle)
        self.largest = max(self.largest, len(self))
        return value


def _minhashes(texts: Iterable[set[str]], memo: ShingleHashes | None = None) -> list[Any]:
    """datasketch MinHashes (legacy scheme, sha1 of each shingle: its defaults) of every set,
    computed for many sets at once. ``MinHash.bulk`` hashes one set at a time (0.75 ms per
    sentence on this machine, 75 s for a 100k-sentence release); the same arithmetic on a
    block of sets in numpy takes a fraction of that. Shingles are hashed through a bounded
    memo (``ShingleHashes``); the sets are consumed a block at a time, so only one block's
    sets are held; the blocks' arithmetic (``_block_minima``) runs in two threads while this
    one hashes the next block (numpy releases the GIL in its loops). The values equal
    ``MinHash(num_perm, seed, scheme="legacy").update_batch`` (tests/publishing checks it)."""
    from concurrent.futures import ThreadPoolExecutor

    import numpy as np
    from datasketch import LeanMinHash, MinHash

    permutations = MinHash(num_perm=MINHASH_PERMUTATIONS, seed=MINHASH_SEED, scheme="legacy")
    a, b = (column[:, None] for column in permutations.permutations)
    hashed = ShingleHashes() if memo is None else memo
    sets = iter(texts)
    with ThreadPoolExecutor(max_workers=2) as pool:
        blocks = []
        while block := list(itertools.islice(sets, MINHASH_BLOCK)):
            values = np.fromiter(
                (hashed[shingle] for shingles_ in block for shingle in shingles_),
                dtype=np.uint64,
            )
            offsets = np.cumsum([0] + [len(shingles_) for shingles_ in block[:-1]])
            blocks.append(pool.submit(_block_minima, values, offsets, a, b))
        return [
            LeanMinHash(seed=MINHASH_SEED, hashvalues=row, scheme="legacy")
            for minima in blocks
            for row in minima.result()
        ]


def _block_minima(values: Any, offsets: Any, a: Any, b: Any) -> Any:
    """Sets x permutations: each set's minimum of (a * h + b) mod p, masked to 32 bits, over
    its shingles' hashes h (``values``, the sets' shingles one after another from
    ``offsets``). Laid out permutations x shingles so each set's minimum is a contiguous
    reduction; the modulo by the Mersenne prime is done with shifts (``_mod_mersenne``):
    about 3x less time than a `%` over shingles x permutations."""
    import numpy as np

    # uint64 products wrap modulo 2**64, as they do in datasketch.
    permuted = a * values[None, :]
    permuted += b
    permuted = _mod_mersenne(permuted)
    permuted &= np.uint64(MAX_HASH)
    return np.minimum.reduceat(permuted, offsets, axis=1).T


def _mod_mersenne(values: Any) -> Any:
    """``values % (2**61 - 1)`` for a uint64 array, without a division: x = hi * 2**61 + lo
    is congruent to hi + lo, which is below 2 * (2**61 - 1), so one conditional subtraction
    finishes it. ``values`` is overwritten."""
    import numpy as np

    prime = np.uint64(MERSENNE_PRIME)
    reduced = values & prime
    values >>= np.uint64(61)
    reduced += values
    np.subtract(reduced, prime, out=reduced, where=reduced >= prime)
    return reduced


def _sha1_32(shingle: str) -> int:
    return int.from_bytes(hashlib.sha1(shingle.encode("utf-8")).digest()[:4], "little")


def _lsh(threshold: float) -> Any:
    from datasketch import MinHashLSH

    return MinHashLSH(threshold=threshold, num_perm=MINHASH_PERMUTATIONS)


def near_duplicate_findings(prepared: PreparedRows) -> Finding:
    """Groups of different normalised sources joined by confirmed near-duplicate pairs
    (Jaccard >= the threshold); one item per group, listing every sentence in it."""
    finding = Finding("near_duplicate_sources")
    keyed, keys, shingle_set = prepared.by_key, prepared.keys, prepared.shingle_set
    parent = list(range(len(keys)))

    def root(index: int) -> int:
        while parent[index] != index:
            parent[index] = parent[parent[index]]
            index = parent[index]
        return index

    lsh = _lsh(NEAR_DUPLICATE_JACCARD)
    for index, minhash in enumerate(prepared.minhashes):
        # One confirmed match joins this source to a group; later members of a large group
        # need not be compared with all earlier ones.
        for other in lsh.query(minhash):
            if (
                root(other) != root(index)
                and jaccard(shingle_set(index), shingle_set(other)) >= NEAR_DUPLICATE_JACCARD
            ):
                parent[root(index)] = root(other)
                break
        lsh.insert(index, minhash)
    prepared.index = lsh
    groups: dict[int, list[int]] = defaultdict(list)
    for index in range(len(keys)):
        groups[root(index)].append(index)
    for members in groups.values():
        if len(members) < 2:
            continue
        group_rows = [row for index in members for row in keyed[keys[index]]]
        finding.items.append(
            {
                "texts": [keyed[keys[index]][0].text for index in members],
                "sentences": [_ref(row) for row in group_rows],
            }
        )
    return finding


def overlap_findings(prepared: PreparedRows, others: Iterable[OtherText]) -> list[Finding]:
    """Release sources that occur (normalised) or nearly occur in other corpora."""
    exact = Finding("overlap_exact")
    near = Finding("overlap_near")
    by_key, keys = prepared.by_key, prepared.keys
    other_list = list(others)
    other_keys = [normalise(other.text) for other in other_list]
    near_candidates: list[tuple[int, set[str]]] = []
    for position, (other, key) in enumerate(zip(other_list, other_keys, strict=True)):
        if key in by_key:
            exact.items.append(
                {
                    "text": other.text,
                    "corpus": other.corpus,
                    "line": other.line,
                    "sentences": [_ref(r) for r in by_key[key]],
                }
            )
        elif (other_set := shingles(key)) and keys:
            near_candidates.append((position, other_set))
    if near_candidates:
        hashes = _minhashes([other_set for _, other_set in near_candidates])
        for (position, other_set), minhash in zip(near_candidates, hashes, strict=True):
            other = other_list[position]
            # The most similar confirmed release source (each other sentence listed once).
            best, best_similarity = -1, 0.0
            for index in prepared.lsh().query(minhash):
                similarity = jaccard(prepared.shingle_set(index), other_set)
                if similarity >= NEAR_DUPLICATE_JACCARD and similarity > best_similarity:
                    best, best_similarity = index, similarity
            if best >= 0:
                row = by_key[keys[best]][0]
                near.items.append(
                    {
                        "jaccard": round(best_similarity, 4),
                        "texts": [row.text, other.text],
                        "corpus": other.corpus,
                        "line": other.line,
                        "sentences": [_ref(r) for r in by_key[keys[best]]],
                    }
                )
    return [exact, near]


def _label_form(text: str) -> str:
    # Spaces and punctuation dropped ("没有错误。", "Error free!"), hyphens kept ("-NONE-").
    return unicodedata.normalize("NFKC", text).casefold().translate(_LABEL_NOISE)


class _LabelNoise(dict[int, int | None]):
    """str.translate table deleting every whitespace and punctuation (Unicode category P*)
    character but the hyphen, filled per character on first sight: then one C-level pass
    per text instead of a category lookup per character in Python (8 s of a 20k-sentence
    report before), and no scan of all 1.1M code points up front (2 s)."""

    def __missing__(self, code: int) -> int | None:
        character = chr(code)
        drop = character != "-" and (
            character.isspace() or unicodedata.category(character).startswith("P")
        )
        self[code] = None if drop else code
        return self[code]


_LABEL_NOISE = _LabelNoise()


def reference_findings(rows: Sequence[ReleaseRow], skipped: int = 0) -> list[Finding]:
    """Labels as reference text, references equal to the source, empty and over-long text."""
    labels = Finding("special_label_references")
    same = Finding("reference_equals_source")
    empty = Finding("empty_sentences")
    overlong = Finding("overlong_sentences")
    for row in rows:
        if not row.text.strip():
            empty.items.append({**_ref(row), "what": "source"})
        if len(row.text) > OVERLONG_CHARACTERS:
            overlong.items.append({**_ref(row), "what": "source", "characters": len(row.text)})
        for number, reference in enumerate(row.references, start=1):
            where = {**_ref(row), "reference": number, "text": reference}
            if reference in CANONICAL_MARKERS:
                if len(row.references) > 1 and any(
                    r not in CANONICAL_MARKERS for r in row.references
                ):
                    labels.items.append({**where, "why": "a marker beside corrections"})
                continue
            if _label_form(reference) in LABEL_FORMS:
                labels.items.append({**where, "why": "a label written as a correction"})
            if not reference.strip():
                empty.items.append({**where, "what": "reference"})
            elif reference == row.text:
                same.items.append(where)
            if len(reference) > OVERLONG_CHARACTERS:
                overlong.items.append({**where, "what": "reference", "characters": len(reference)})
    without = Finding("without_references")
    if skipped:
        without.items.append({"sentences": skipped})
    return [labels, same, empty, overlong, without]


def release_findings(
    rows: Sequence[ReleaseRow], others: Iterable[OtherText] = (), *, skipped: int = 0
) -> list[Finding]:
    """Every check, in the order of ``CHECKS``. The sources are normalised, shingled and
    MinHashed once (``prepare``) for the duplicate, near-duplicate and overlap checks."""
    prepared = prepare(rows)
    findings = [
        *duplicate_findings(prepared),
        near_duplicate_findings(prepared),
        *overlap_findings(prepared, others),
        *reference_findings(rows, skipped),
    ]
    order = list(CHECKS)
    return sorted(findings, key=lambda finding: order.index(finding.check))
