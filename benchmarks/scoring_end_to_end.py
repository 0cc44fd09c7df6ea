"""End-to-end system scoring on MuCGEC dev: upload -> stored results, one worker.

Runs the real services against a fresh SQLite database in a temporary folder (never the
quick-start database): imports ../shared/data/mucgec-dev/MuCGEC_dev.txt through the
datasets import service, releases it, then times

* cold:  upload example_pred_dev.txt and score it, the release's references not yet
         extracted (the first score of a release pays for them);
* warm:  the references extracted when the release was made (what a Celery worker does on
         release), then upload + score another output;
* rescore: re-running the same scoring job (idempotent: rows replaced).

Celery runs in-process (no broker): one worker, one process. The ChERRANT reference times
are those measured by our team (spec char-metric.md section 9: ~60 ms per sentence, 69 s
for the 1,137 hypotheses, 151 s for the 2,467 references, 0.17 s comparison).

    .venv/bin/python benchmarks/scoring_end_to_end.py [--shared ../shared]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

from _quickstart_db import setup_quickstart_django  # noqa: E402  (beside this script)

CHERRANT_HYP_SECONDS = 69.0
CHERRANT_REF_SECONDS = 151.0
CHERRANT_COMPARE_SECONDS = 0.17


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", default=str(REPO.parent / "shared"))
    args = parser.parse_args()
    data = Path(args.shared) / "data"
    if not (data / "mucgec-dev").is_dir():
        print(f"no MuCGEC dev data under {data}", file=sys.stderr)
        return 2
    setup_quickstart_django(data, prefix="gec-bench-")
    from datasets.formats import ImportFile
    from datasets.services.imports import import_dataset
    from datasets.services.releases import release_dataset
    from scoring import services
    from scoring.models import SentenceResult

    dev = data / "mucgec-dev"
    imported = import_dataset(
        name="mucgec-dev",
        fmt="mucgec",
        source_name="mucgec",
        split="dev",
        files=[ImportFile.from_path(dev / "MuCGEC_dev.txt")],
    )
    version = release_dataset(dataset=imported.dataset)

    def upload_and_score(name: str, path: Path) -> tuple[float, object]:
        start = time.perf_counter()
        system = services.upload_system_output(
            version=version, name=name, data=path.read_bytes(), file_name=path.name, user=None
        )
        score = services.request_scoring(
            system=system, user=None
        )  # task runs on commit, in-process
        score.refresh_from_db()
        return time.perf_counter() - start, score

    cold, score = upload_and_score("example-cold", dev / "example_pred_dev.txt")
    assert score.status == "done", score.error
    assert (score.tp, score.fp, score.fn, score.f05) == (1084, 1635, 3003, 0.3622), score
    rows = SentenceResult.objects.filter(score=score).count()

    # A second release of the same data: its references are prepared as a worker does on release.
    version = release_dataset(dataset=imported.dataset, note="warm")
    start = time.perf_counter()
    services.prepare_release_references(version_id=version.pk)
    prepare = time.perf_counter() - start
    warm, score2 = upload_and_score("example-warm", dev / "example_pred_dev.txt")
    assert (score2.tp, score2.fp, score2.fn, score2.f05) == (1084, 1635, 3003, 0.3622)

    start = time.perf_counter()
    again = services.run_scoring(score_id=score2.pk)
    rescore = time.perf_counter() - start
    assert SentenceResult.objects.filter(score=again).count() == rows == 1137

    cherrant_cold = CHERRANT_HYP_SECONDS + CHERRANT_REF_SECONDS + CHERRANT_COMPARE_SECONDS
    cherrant_warm = CHERRANT_HYP_SECONDS + CHERRANT_COMPARE_SECONDS
    print("MuCGEC dev, 1,137 sentences, example system, one in-process worker, SQLite")
    print(
        f"  cold  (upload + references + hypotheses + compare + store): {cold:6.2f} s"
        f"   ChERRANT ~{cherrant_cold:.0f} s  -> {cherrant_cold / cold:5.1f}x"
    )
    print(f"  release: reference M2 prepared once:                        {prepare:6.2f} s")
    print(
        f"  warm  (upload + hypotheses + compare + store):              {warm:6.2f} s"
        f"   ChERRANT ~{cherrant_warm:.0f} s  -> {cherrant_warm / warm:5.1f}x"
    )
    print(f"  re-run of the same job (rows replaced):                     {rescore:6.2f} s")
    print(
        f"  stored: {rows} sentence results; F0.5 {score.f05} (TP {score.tp}, FP {score.fp}, FN {score.fn})"
    )
    target = 10.0
    print(
        f"  target < {target:.0f} s end to end: cold {'met' if cold < target else 'NOT met'}, "
        f"warm {'met' if warm < target else 'NOT met'}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
