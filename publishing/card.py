"""The dataset card (``README.md`` of the published folder), in the sections of Hugging
Face's dataset card template, filled from what the platform knows.

A pure function of a facts dictionary (publishing.services.card_facts gathers it), so the
card of a release can be read and tested without a database. What only a person can say
(intended uses, known biases, personal information) is marked ``[TO WRITE]`` in bold and in
an HTML comment a reviewer can search for; nothing is invented.
"""

from __future__ import annotations

from typing import Any

TO_WRITE = "**[TO WRITE]**"
LANGUAGE_NAMES = {"zh": "Chinese", "en": "English"}
EDIT_TYPE_NAMES = {"M": "missing", "R": "redundant", "S": "substitution", "W": "word order"}
ERRANT_OPERATIONS = {"M": "missing", "R": "replacement", "U": "unnecessary"}
ERRANT_TYPES_SHOWN = 15
NO_SOURCE_NAME = "(no source name)"


def _todo(what: str) -> str:
    return f"{TO_WRITE} {what} <!-- TO WRITE: {what} -->"


def _size_category(n: int) -> str:
    for limit, label in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K")):
        if n < limit:
            return label
    return "100K<n<1M" if n < 1_000_000 else "n>1M"


def _front_matter(facts: dict[str, Any]) -> list[str]:
    meta = facts["metadata"]
    lines = ["---"]
    if meta.get("license"):
        lines.append(f"license: {meta['license'].lower()}")
    lines += [
        "language:",
        f"- {facts['language']}",
        "task_categories:",
        "- text2text-generation",
        "tags:",
        "- grammatical-error-correction",
        f"pretty_name: {facts['release']}",
        "size_categories:",
        f"- {_size_category(facts['statistics']['sentences'])}",
        "configs:",
        "- config_name: default",
        "  data_files:",
    ]
    for split in sorted(facts["splits"]):
        lines += [f"  - split: {split}", f"    path: data/{split}.parquet"]
    lines.append("---")
    return lines


def _table(header: list[str], rows: list[list[Any]]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "| " + " | ".join("---" for _ in header) + " |"]
    out += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return out


def _statistics(facts: dict[str, Any]) -> list[str]:
    stats = facts["statistics"]
    rows = [
        ["sentences", stats["sentences"]],
        ["references", stats["references"]],
        ["references per sentence", stats["refs_per_sentence"]],
        [
            "sentences with errors",
            f"{stats['erroneous_sentences']} ({stats['erroneous_share']:.1%})",
        ],
        ["error-free sentences", stats["error_free_sentences"]],
        ["not annotatable", stats["not_annotatable_sentences"]],
        # ERRANT reads English as whitespace-separated tokens; Chinese is read by character.
        ["tokens per sentence", stats.get("tokens_per_sentence", 0)]
        if facts["language"] == "en"
        else ["characters per sentence", stats["chars_per_sentence"]],
        ["edits per reference", stats["edits_per_reference"]],
    ]
    lines = _table(["", facts["release"]], rows)
    lines += ["", "Sentences per split:", ""]
    lines += _table(["split", "sentences"], [[k, v] for k, v in sorted(facts["splits"].items())])
    histogram = stats.get("refs_per_sentence_histogram", {})
    if histogram:
        total = sum(histogram.values()) or 1
        lines += [
            "",
            "Reference-count distribution (as Figure 1 of the MuCGEC paper):",
            "",
            "![Sentences by number of references](figures/reference_counts.svg)",
            "",
        ]
        lines += _table(
            ["references", "sentences", "share"],
            [
                [k, v, f"{v / total:.1%}"]
                for k, v in sorted(histogram.items(), key=lambda i: int(i[0]))
            ],
        )
    if facts["language"] == "en":
        return lines + _errant_types(stats)
    types = stats.get("edit_types", {})
    if any(types.values()):
        total_edits = sum(types.values()) or 1
        lines += ["", "Edit types (of the first alignment of each distinct reference):", ""]
        lines += _table(
            ["type", "edits", "share"],
            [
                [f"{t} ({EDIT_TYPE_NAMES.get(t, t)})", n, f"{n / total_edits:.1%}"]
                for t, n in types.items()
            ],
        )
    return lines


def _errant_types(stats: dict[str, Any]) -> list[str]:
    """English edits by ERRANT's operation (M / R / U) and by its most frequent types, as the
    release's M2 writes them."""
    types: dict[str, int] = stats.get("extractor_types", {})
    total = sum(types.values())
    if not total:
        return []
    operations: dict[str, int] = {}
    for name, count in types.items():
        operation = name.split(":", 1)[0]
        operations[operation] = operations.get(operation, 0) + count
    lines = ["", "Edit types (ERRANT, of the first alignment of each distinct reference):", ""]
    lines += _table(
        ["operation", "edits", "share"],
        [
            [f"{op} ({ERRANT_OPERATIONS.get(op, op)})", n, f"{n / total:.1%}"]
            for op, n in sorted(operations.items(), key=lambda item: (-item[1], item[0]))
        ],
    )
    shown = list(types.items())[:ERRANT_TYPES_SHOWN]
    lines += ["", f"The {len(shown)} most frequent ERRANT types:", ""]
    lines += _table(["type", "edits", "share"], [[t, n, f"{n / total:.1%}"] for t, n in shown])
    return lines


def _annotation(facts: dict[str, Any]) -> list[str]:
    process = facts["annotation"]
    lines = [
        f"- Annotators per sentence (k): {process['k']}",
        f"- Annotators: {process['annotators']}; reviewers: {process['reviewers']}",
    ]
    if process.get("guideline"):
        g = process["guideline"]
        lines.append(f'- Guideline: "{g["title"]}", version {g["version"]}')
    else:
        lines.append(f"- Guideline: {_todo('the guideline annotators followed')}")
    hours = process.get("time_spent_seconds", 0) / 3600
    lines.append(f"- Time spent annotating (recorded by the platform): {hours:.1f} hours")
    human = process.get("human")
    if human and human.get("samples"):
        lines.append(
            "- Agreement with the final references: the annotators' own corrections scored "
            f"against this release's references ({human.get('metric', 'ChERRANT char-level')}, "
            f"all {human['samples']} corrections pooled): P {human['p']:.4f}, R {human['r']:.4f}, "
            f"F0.5 {human['f05']:.4f}"
        )
    else:
        lines.append(
            "- Agreement: the references were imported, not annotated on the platform; "
            "no agreement figure is available"
        )
    lines += _styles(facts)
    lines += _provenance(facts)
    return lines


ENTRY_LABELS = (
    ("typed", "typed from the source (or imported)"),
    ("post-edited", "post-edited from a suggestion"),
    ("accepted-unchanged", "a suggestion accepted unchanged"),
)


def _provenance(facts: dict[str, Any]) -> list[str]:
    """How the references came to be (the `origin` and `suggestion_source` columns), and
    the blind control share of a post-edit project."""
    provenance = facts.get("provenance") or {}
    entries: dict[str, int] = provenance.get("entries") or {}
    total = sum(entries.values())
    if not total:
        return []
    lines = [
        "- Provenance of the references (per reference; the `origin` column): "
        + ", ".join(
            f"{label} {entries.get(key, 0)} ({entries.get(key, 0) / total:.1%})"
            for key, label in ENTRY_LABELS
        )
    ]
    sources = provenance.get("suggestion_sources") or {}
    if sources:
        lines.append(
            "- Suggestions the annotators post-edited (the `suggestion_source` column): "
            + ", ".join(f"`{name}` {count} references" for name, count in sources.items())
        )
    items = provenance.get("items") or {}
    if provenance.get("blind_share") is not None:
        lines.append(
            f"- Blind control: {items.get('blind', 0)} of "
            f"{items.get('blind', 0) + items.get('prefilled', 0)} post-edit items "
            f"({provenance['blind_share']:.1%}) opened with the source and no suggestion, "
            "to measure how far the suggestions anchor the references"
        )
    return lines


def _styles(facts: dict[str, Any]) -> list[str]:
    """Each reference's style as published (its import's or annotator pool's, else the
    release's default for its position), counted."""
    counts = facts.get("reference_style_counts") or {}
    total = sum(counts.values())
    lines = []
    if total:
        shown = [
            f"{label} {counts[key]} ({counts[key] / total:.1%})"
            for key, label in (("minimal", "minimal"), ("fluency", "fluency"), ("", "unspecified"))
            if counts.get(key)
        ]
        lines.append(
            "- Reference styles (per reference; the `reference_styles` column): " + ", ".join(shown)
        )
    defaults = facts["metadata"].get("reference_styles") or {}
    if defaults:
        lines.append(
            "- Default style by position, for references without their own: "
            + ", ".join(
                f"reference {k}: {v or 'unspecified'}"
                for k, v in sorted(defaults.items(), key=lambda kv: int(kv[0]))
            )
        )
    if facts["annotation"].get("pseudonymised_annotators"):
        lines.append(
            f"- Annotator ids: {facts['annotation']['pseudonymised_annotators']} annotators, "
            "pseudonymised per release (`annotator-N`, numbered by first appearance)"
        )
    return lines


def _report(facts: dict[str, Any]) -> list[str]:
    report = facts.get("report")
    if not report:
        return [_todo("run the release report and state what it found")]
    lines = [f"Checks run by the platform on {report['created_at']}:", ""]
    lines += _table(["check", "findings"], [[f["title"], f["count"]] for f in report["findings"]])
    return lines


def _details(facts: dict[str, Any]) -> list[str]:
    meta = facts["metadata"]
    language = LANGUAGE_NAMES.get(facts["language"], facts["language"])
    lines = [
        "## Dataset Details",
        "",
        "### Dataset Description",
        "",
        f"- Curated by: {facts['curated_by'] or _todo('who built the dataset')}",
        f"- Language: {language} ({facts['language']})",
        f"- License: {meta.get('license') or _todo('an SPDX licence identifier')}",
        f"- Release: {facts['release']}, checksum (sha256 of the MuCGEC text) `{facts['checksum']}`",
        f"- Released: {facts['released_at']}",
        f"- Contact: {meta.get('contact') or _todo('a contact address')}",
    ]
    upstream = meta.get("upstream_licenses") or []
    if upstream:
        lines += ["", "Upstream data and its licences (honour these as well):", ""]
        lines += [
            f"- {item.get('name', '')}: {item.get('license', '')} {item.get('url', '')}".rstrip()
            for item in upstream
        ]
    return lines


def _uses_and_structure(facts: dict[str, Any]) -> list[str]:
    return [
        "## Uses",
        "",
        "### Direct Use",
        "",
        "Training and evaluating grammatical error correction systems (sources with one or "
        "more corrected references; the edits of each reference are included).",
        "",
        "### Out-of-Scope Use",
        "",
        _todo("uses the curators advise against"),
        "",
        "## Dataset Structure",
        "",
        "One record per sentence: `id`, `source`, `references` (list), `reference_styles` "
        "(list, minimal / fluency / empty), `annotator_ids` (list, a per-release pseudonym "
        "or null for imported and reviewer-added references), `origin` (list: typed / "
        "post-edited / accepted-unchanged), `suggestion_source` (list: the suggestion's label, "
        "or empty), `edits` (per reference, a list of `{start, end, "
        "correction, type}`: character offsets into `source` and the text that replaces them; "
        "applying a reference's edits to its source gives the reference), `judgement` "
        "(annotatable / error_free / not_annotatable: an error-free or not-annotatable "
        "sentence's reference is the source itself), `source_name`, `split`. "
        'Load with `datasets.load_dataset("parquet", data_dir="data")`.',
        "",
        *_statistics(facts),
        *_closest_gold(facts.get("closest_gold")),
    ]


def _closest_gold(counts: dict[str, Any] | None) -> list[str]:
    """The card's section on closest-gold references (empty without them)."""
    if not counts:
        return []
    # Counted by publishing/closest_gold.py when the release has closest-gold tasks.
    systems = ", ".join(
        f"{name} ({entry['verified']}/{entry['total']} verified)"
        for name, entry in sorted(counts["by_system"].items())
    )
    decisions = ", ".join(f"{k}: {v}" for k, v in counts["decisions"].items()) or "none"
    return [
        "",
        "### Closest-gold references",
        "",
        "Besides the golden references, this release carries closest-gold references of "
        f"{counts['systems']} systems' outputs: for each output, a correct version written "
        "from the output (not from the source) and verified by a reviewer. They are in "
        f"`closest_gold/closest_gold.parquet` (one record per system and sentence: `kind` = closest-gold, "
        "`system`, `id`, `position`, `source`, `output`, `closest_golds`, `verification`, "
        "`decisions`), never among the golden references in `data/`: they describe one "
        "system's output, and a model trained on them learns that system's choices.",
        "",
        f"- records: {counts['records']} ({counts['verified']} verified, "
        f"{counts['unverified']} not yet), {counts['texts']} closest-gold texts",
        f"- systems: {systems}",
        f"- verification decisions: {decisions}",
    ]


def _creation(facts: dict[str, Any]) -> list[str]:
    sources = ", ".join(
        f"{k or NO_SOURCE_NAME} ({v})" for k, v in sorted(facts["by_source"].items())
    )
    return [
        "## Dataset Creation",
        "",
        "### Curation Rationale",
        "",
        _todo("why the dataset was built"),
        "",
        "### Source Data",
        "",
        "Sentences by source: " + (sources or "(not recorded)"),
        "",
        _todo("where the learner sentences come from and how they were collected"),
        "",
        "### Annotations",
        "",
        "#### Annotation process",
        "",
        *_annotation(facts),
        "",
        "#### Who are the annotators?",
        "",
        _todo("the annotators' background (training, native language, payment)"),
        "",
        "#### Personal and Sensitive Information",
        "",
        _todo("whether sentences can identify their writers, and what was removed"),
    ]


def render_card(facts: dict[str, Any]) -> str:
    meta = facts["metadata"]
    lines = [
        *_front_matter(facts),
        "",
        f"# Dataset Card for {facts['release']}",
        "",
        meta.get("description") or _todo("a one-paragraph summary of the dataset"),
        "",
        *_details(facts),
        "",
        *_uses_and_structure(facts),
        "",
        *_creation(facts),
        "",
        "## Release report",
        "",
        *_report(facts),
        "",
        "## Bias, Risks, and Limitations",
        "",
        _todo("known biases and limitations (learner population, topics, reference styles)"),
        "",
        "## Citation",
        "",
        "```bibtex",
        meta.get("citation") or "% TO WRITE: the BibTeX entry of the dataset's paper",
        "```",
        "",
    ]
    return "\n".join(lines)
