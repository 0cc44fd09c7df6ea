"""Scale benchmark of the datasets part: import N sentences with 3 references each, release
them, export them as M2 (and MuCGEC), on the configured database (PostgreSQL for the
recorded numbers).

Data: MuCGEC dev (`../shared/data/mucgec-dev/MuCGEC_dev.txt`) repeated with new ids until
N sentences; every sentence gets exactly 3 references (its first three; when it has fewer,
extra ones are made by deleting the middle character of its first reference, the rule of
`mix_pred_dev.txt`, so they carry real edits). Extraction results are never reused between
sentences, so the repetition does not make the export faster.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/gec_bench_datasets \\
        .venv/bin/python benchmarks/datasets_scale.py --sentences 100000 --workers 2

Compared with: for the import, the naive way (one ORM `create()` per sentence and per
reference, timed on a sample and scaled linearly); for the M2 export, ChERRANT's own speed
as the spec records it (151 s for the 2,467 MuCGEC-dev references on one core).
The benchmark database is created if missing and its datasets named `bench-*` are deleted
before and after the run.

`--publish` times `publish_release` instead of the exports: import, release, the
release's reference M2 (extracted here as the release's background job extracts it when
Celery workers run, and timed on its own; in-process the first export would do it), then
the release report (every check, the MinHash near-duplicate check included, against an
uploaded reference file: MuCGEC dev's sources), each export format, the Parquet files, the
card, Croissant and the checksums, each phase's wall time with the 1-minute load average
beside it. `--distinct-sources` makes every source different (sentence i joins two MuCGEC
dev sentences, its references the matching references), so the report's normalising,
shingling and near-duplicate search see N different sources rather than 1,137 repeated:

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/gec_bench_datasets \\
        .venv/bin/python benchmarks/datasets_scale.py --sentences 100000 --publish --distinct-sources

`--platform` runs the whole path of one release instead, each step timed with the peak
memory (RSS) of each process it used (this one, the extractor's pool processes, the
PostgreSQL backends of the database; `_process_memory.py`) and the load average during it:
import; assignment with k = 3 (3 annotators and a reviewer in the pools: `assign_dataset`,
every sentence put back to pending first, as a corpus imported to be annotated again);
release; the first M2 export (it extracts the release's reference M2 with `--workers`
processes); `publish_release` with its report (every check, the near-duplicate one
included, against MuCGEC dev's sources as an uploaded reference file) and its folder; one
system scored (MuCGEC dev's example prediction, repeated as the sources are, uploaded and
scored as the scoring task does). The services run in this process, as a Celery worker
runs them. The rows are left behind (deleting a million sentences' assignments through the
ORM would be a step of its own): give it a database of its own and drop it afterwards.

    GEC_SHARED_DIR=../shared DATABASE_URL=postgres://postgres@127.0.0.1:5432/gec_bench_platform \\
        .venv/bin/python benchmarks/datasets_scale.py --sentences 1000000 --platform \\
        --distinct-sources --workers 2
"""

from __future__ import annotations

import argparse
import itertools
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
SHARED = Path(os.environ.get("GEC_SHARED_DIR", REPO.parent / "shared"))
CHERRANT_SECONDS_PER_REFERENCE = 151 / 2467  # spec char-metric.md section 9, one core


def _machine_busy_seconds() -> float:
    """CPU seconds all processes of the machine have used so far (/proc/stat, Linux).

    The extractor's pool workers are children of a fork server, not of this process, so
    os.times() does not see them; the machine-wide count does (it includes PostgreSQL and any
    other load, so it is an upper bound of the export's CPU time).
    """
    with open("/proc/stat", encoding="ascii") as stat:
        fields = [int(x) for x in stat.readline().split()[1:]]
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def _cpu_since(before: os.times_result) -> float:
    now = os.times()
    return (
        now.user
        - before.user
        + now.system
        - before.system
        + now.children_user
        - before.children_user
        + now.children_system
        - before.children_system
    )


def _three_references(row: list[str]) -> tuple[str, list[str]]:
    source, refs = row[1], list(row[2:5])
    first = refs[0] if refs[0] not in ("没有错误", "无法标注") else source
    while len(refs) < 3:
        middle = len(first) // 2
        candidate = first[:middle] + first[middle + 1 :]
        first = candidate if candidate not in refs and candidate else first + "。"
        refs.append(first)
    return source, refs


def _mucgec_rows() -> list[list[str]]:
    path = SHARED / "data" / "mucgec-dev" / "MuCGEC_dev.txt"
    return [line.split("\t") for line in path.read_text(encoding="utf-8").splitlines()]


def build_input(n: int, path: Path, *, distinct: bool = False) -> int:
    rows = _mucgec_rows()
    references = 0
    with path.open("w", encoding="utf-8") as out:
        for i in range(n):
            source, refs = _three_references(rows[i % len(rows)])
            if distinct:
                # A different second sentence for each repetition: pair (i mod n, b) is new
                # for every i below n * n; markers become the sentence itself.
                second, more = _three_references(
                    rows[(i % len(rows) + 1 + i // len(rows)) % len(rows)]
                )
                refs = [
                    (a if a not in ("没有错误", "无法标注") else source)
                    + (b if b not in ("没有错误", "无法标注") else second)
                    for a, b in zip(refs, more, strict=True)
                ]
                source = source + second
            references += len(refs)
            out.write("\t".join([f"b{i + 1}", source, *refs]) + "\n")
    return references


def build_hypotheses(n: int, path: Path, *, distinct: bool = False) -> None:
    """MuCGEC dev's example prediction for each sentence `build_input` writes (the two
    predictions joined where it joins two sources), one hypothesis a line."""
    predictions = [
        line.split("\t")[2]
        for line in (SHARED / "data" / "mucgec-dev" / "example_pred_dev.txt")
        .read_text(encoding="utf-8")
        .splitlines()
    ]
    count = len(predictions)
    with path.open("w", encoding="utf-8") as out:
        for i in range(n):
            hypothesis = predictions[i % count]
            if distinct:
                hypothesis += predictions[(i % count + 1 + i // count) % count]
            out.write(hypothesis + "\n")


def run_platform(args: argparse.Namespace, source: Path, tmp: Path, n_refs: int) -> None:
    """Import, assign (k = 3), release, M2 export, publish_release (report and folder), one
    system scored: each step's time, load and peak memory per process, printed as a
    Markdown table row as soon as the step ends."""
    from _process_memory import StepMemory, format_row
    from django.conf import settings

    from core.models import User
    from datasets.formats import ImportFile
    from datasets.models import Dataset, DatasetVersion, Sentence, SentenceStatus
    from datasets.reference_m2 import reference_m2
    from datasets.services.exports import export_dataset
    from datasets.services.imports import import_dataset
    from datasets.services.releases import release_dataset
    from publishing.services import add_reference_file, compute_report, publish_release
    from review.workflow import assign_dataset
    from scoring.services import score_now, upload_system_output

    database = str(settings.DATABASES["default"]["NAME"])
    # On a shared machine, should memory run out, the kernel is to take this run first.
    Path("/proc/self/oom_score_adj").write_text("1000", encoding="ascii")
    print(
        "| step | time | load average (1 min) | benchmark process | pool processes | "
        "PostgreSQL backends |"
    )
    print("| --- | --- | --- | --- | --- | --- |", flush=True)
    steps: list[StepMemory] = []

    def step(name: str) -> StepMemory:
        steps.append(StepMemory(name, database, stop_above=int(args.stop_above_gb * 2**30)))
        return steps[-1]

    def done() -> None:
        print(format_row(steps[-1].summary()), flush=True)

    skip = set(args.skip.split(",")) if args.skip else set()
    if "import" in skip:  # the dataset an earlier run left, and its newest release
        dataset = Dataset.objects.get(name="bench-import")
    else:
        with step("import"):
            imported = import_dataset(
                name="bench-import",
                fmt="mucgec",
                files=[ImportFile.from_path(source)],
                source_name="bench",
                split="test",
            )
        done()
        assert imported.sentences == args.sentences and imported.references == n_refs
        dataset = imported.dataset
    if "assign" not in skip:
        users = [
            User.objects.get_or_create(username=f"bench-{role}-{i}")[0]
            for role, i in [("annotator", 1), ("annotator", 2), ("annotator", 3), ("reviewer", 1)]
        ]
        dataset.annotators.set(users[:3])
        dataset.reviewers.set(users[3:])
        dataset.annotators_per_sentence = 3
        dataset.save(update_fields=["annotators_per_sentence"])
        # Sentences imported with references are reviewed; put back to pending (a corpus
        # imported for annotation again) so the assignment has every one to hand out.
        started = time.perf_counter()
        Sentence.objects.filter(dataset=dataset).update(status=SentenceStatus.PENDING)
        print(
            f"  (setup, not a step: sentences set pending in {time.perf_counter() - started:.1f} s)"
        )
        with step("assign, k = 3"):
            assigned = assign_dataset(dataset=dataset, seed=1, by=None)
        done()
        assert assigned.assignments == 3 * args.sentences, assigned
    if "release" in skip:
        version = DatasetVersion.objects.filter(dataset=dataset).order_by("-number").first()
    else:
        with step("release"):
            version = release_dataset(dataset=dataset, note="benchmark")
        done()
    resources = str(SHARED / "data" / "cherrant-resources")
    settings.GEC_CHERRANT_RESOURCES = resources
    if "m2" not in skip:
        with step(f"M2 export (extracts the reference M2, {args.workers} pool processes)"):
            export_dataset(
                dataset=dataset,
                version=version,
                fmt="m2",
                out=tmp / "out.m2",
                resources_dir=resources,
                workers=args.workers,
            )
        done()
    if "report" not in skip:
        known = "\n".join(row[1] for row in _mucgec_rows()) + "\n"
        add_reference_file(
            name="bench-mucgec-dev", upload=known.encode("utf-8"), file_name="dev.txt", user=None
        )
        with step("publish_release: report (every check, near duplicates included)"):
            report = compute_report(version=version)
        done()
        print(
            "  report findings: " + ", ".join(f"{f['check']} {f['count']}" for f in report.findings)
        )
    if "folder" not in skip:
        with step("publish_release: the folder (formats, Parquet, card, checksums)"):
            published = publish_release(version=version, out=tmp / "published")
        done()
        print(f"  published {len(published['files'])} files; splits {published['splits']}")
    if "score" not in skip:
        scored = min(args.score_sentences or args.sentences, args.sentences)
        if scored < args.sentences:
            # The same code path on a release of the first K sentences, its reference M2
            # extracted as the release's background job does (not timed).
            head = tmp / "head.txt"
            with source.open(encoding="utf-8") as lines, head.open("w", encoding="utf-8") as out:
                out.writelines(itertools.islice(lines, scored))
            part = import_dataset(
                name="bench-score", fmt="mucgec", files=[ImportFile.from_path(head)]
            )
            version = release_dataset(dataset=part.dataset, note="benchmark, scored part")
            reference_m2(version, workers=args.workers)
        hypotheses = tmp / "hypotheses.txt"
        build_hypotheses(scored, hypotheses, distinct=args.distinct_sources)
        with step(f"one system scored, {scored:,} sentences (upload + score + store)"):
            system = upload_system_output(
                version=version,
                name="bench-example",
                data=hypotheses,
                file_name="pred.txt",
                user=None,
            )
            score = score_now(system=system)
        done()
        print(
            f"  score {score.status}: F0.5 {score.f05} (TP {score.tp}, FP {score.fp}, FN {score.fn})"
        )
    print(f"  total: {sum(s.seconds for s in steps):.1f} s", flush=True)


def run_publish(version: Any, tmp: Path, phases: list[tuple[str, float, float]]) -> None:
    """The release report, then publish_release (what `manage.py publish_release --report`
    runs), each phase timed with the load average after it."""
    from publishing.services import add_reference_file, compute_report, publish_release

    known = "\n".join(row[1] for row in _mucgec_rows()) + "\n"
    add_reference_file(
        name="bench-mucgec-dev", upload=known.encode("utf-8"), file_name="dev.txt", user=None
    )
    started = time.perf_counter()
    report = compute_report(version=version)
    phases.append(
        (
            "report (all checks, near duplicates included)",
            time.perf_counter() - started,
            os.getloadavg()[0],
        )
    )
    found = {f["check"]: f["count"] for f in report.findings}
    print("  report findings: " + ", ".join(f"{k} {v}" for k, v in found.items()))
    started = time.perf_counter()
    result = publish_release(version=version, out=tmp / "published")
    total = time.perf_counter() - started
    load = os.getloadavg()[0]
    for phase, seconds in result["timings"].items():
        phases.append((phase, seconds, load))
    phases.append(("publish_release after the report (all of the above)", total, load))
    size = sum(p.stat().st_size for p in (tmp / "published").rglob("*") if p.is_file())
    print(
        f"  published {len(result['files'])} files, {size / 1e6:.1f} MB, splits {result['splits']}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sentences", type=int, default=100_000)
    parser.add_argument(
        "--m2-sentences",
        type=int,
        default=None,
        help="export M2 for only the first K sentences (a release of a split) "
        "when the full export would take too long on a shared machine",
    )
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--naive-sample", type=int, default=2000)
    parser.add_argument("--keep", action="store_true", help="keep the benchmark datasets")
    parser.add_argument(
        "--publish",
        action="store_true",
        help="time the release report and publish_release (each phase) instead of the exports",
    )
    parser.add_argument(
        "--platform",
        action="store_true",
        help="import, assign (k = 3), release, M2 export, publish_release and one system "
        "scored, with each process's peak memory (leaves its rows: use a database of its own)",
    )
    parser.add_argument(
        "--score-sentences",
        type=int,
        default=None,
        help="with --platform, score the system on a release of the first K sentences "
        "(scoring holds every sentence's rows and results: ~50 KB a sentence)",
    )
    parser.add_argument(
        "--skip",
        default="",
        help="with --platform, steps to leave out, comma-separated: import, assign, release, "
        "m2, report, folder, score (without import: the dataset bench-import an earlier run "
        "left, and its newest release)",
    )
    parser.add_argument(
        "--stop-above-gb",
        type=float,
        default=8.0,
        help="with --platform, stop the run when one of its processes holds more",
    )
    parser.add_argument(
        "--distinct-sources",
        action="store_true",
        help="every source different (two MuCGEC dev sentences joined), for the report",
    )
    args = parser.parse_args()

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ.setdefault("DJANGO_LOG_LEVEL", "WARNING")
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command
    from django.db import connection, transaction

    from datasets.formats import ImportFile
    from datasets.models import (
        Dataset,
        DatasetVersion,
        GoldenReference,
        ReferenceOrigin,
        ReleasedSentence,
        Sentence,
    )
    from datasets.services.exports import export_dataset
    from datasets.services.imports import import_dataset
    from datasets.services.releases import release_dataset

    call_command("migrate", verbosity=0)
    settings.GEC_MAX_UPLOAD_BYTES = 1 << 40
    resources = SHARED / "data" / "cherrant-resources"

    def cleanup() -> None:
        from publishing.models import ReferenceFile

        ReferenceFile.objects.filter(name__startswith="bench-").delete()
        for dataset in Dataset.objects.filter(name__startswith="bench-"):
            ReleasedSentence.objects.filter(version__dataset=dataset).delete()
            DatasetVersion.objects.filter(dataset=dataset).delete()
            GoldenReference.objects.filter(sentence__dataset=dataset).delete()
            Sentence.objects.filter(dataset=dataset).delete()
            dataset.delete()

    if not (args.platform and "import" in args.skip.split(",")):
        cleanup()
    print(
        f"database: {connection.vendor} {settings.DATABASES['default']['NAME']}; workers: {args.workers}"
    )
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "bench.txt"
        n_refs = build_input(args.sentences, source, distinct=args.distinct_sources)
        print(
            f"input: {args.sentences:,} sentences, {n_refs:,} references, {source.stat().st_size / 1e6:.1f} MB"
        )

        if args.platform:
            # As in production (DJANGO_DEBUG=0): with DEBUG on, Django keeps the text of the
            # last 9,000 queries, megabytes each for bulk INSERTs, in the process's memory.
            settings.DEBUG = False
            settings.GEC_MAX_UPLOAD_DECOMPRESSED_BYTES = 1 << 40
            settings.GEC_MAX_UPLOAD_LINES = 1 << 40
            run_platform(args, source, Path(tmp), n_refs)
            return 0
        cpu = os.times()
        started = time.perf_counter()
        result = import_dataset(
            name="bench-import",
            fmt="mucgec",
            files=[ImportFile.from_path(source)],
            source_name="bench",
            split="test",
        )
        import_seconds = time.perf_counter() - started
        import_cpu = _cpu_since(cpu)
        assert result.sentences == args.sentences and result.references == n_refs
        if args.publish:
            settings.GEC_CHERRANT_RESOURCES = str(resources)
            phases = [("import", import_seconds, os.getloadavg()[0])]
            started = time.perf_counter()
            version = release_dataset(dataset=result.dataset, note="benchmark")
            phases.append(("release", time.perf_counter() - started, os.getloadavg()[0]))
            # With Celery workers the release queues this extraction at once (datasets/jobs.py
            # queue_reference_extraction); in-process it is left to the first M2 export. Run
            # here as that job runs it, timed on its own, so the publish below finds the
            # release as the platform leaves it.
            from datasets.reference_m2 import reference_m2

            started = time.perf_counter()
            reference_m2(version, workers=args.workers)
            phases.append(
                (
                    "reference M2 (the release's background job, 2 workers)",
                    time.perf_counter() - started,
                    os.getloadavg()[0],
                )
            )
            run_publish(version, Path(tmp), phases)
            report_and_publish = phases[3][1] + phases[-1][1]
            for phase, seconds, load in phases:
                print(f"{phase:55s} {seconds:8.1f} s   load {load:.1f}")
            print(
                f"{'publish_release total (report + folder)':55s} {report_and_publish:8.1f} s   load {os.getloadavg()[0]:.1f}"
            )
            print(
                f"{'total (import + release + extraction + report + folder)':55s} "
                f"{phases[0][1] + phases[1][1] + phases[2][1] + report_and_publish:8.1f} s"
            )
            if not args.keep:
                cleanup()
            return 0

        # Naive import, for the ratio: one INSERT per row, in one transaction.
        sample = source.read_text(encoding="utf-8").splitlines()[: args.naive_sample]
        started = time.perf_counter()
        with transaction.atomic():
            dataset = Dataset.objects.create(name="bench-naive")
            for position, line in enumerate(sample):
                fields = line.split("\t")
                sentence = Sentence.objects.create(
                    dataset=dataset, external_id=fields[0], position=position, text=fields[1]
                )
                for index, text in enumerate(fields[2:]):
                    # One INSERT per reference, without save() signals (the scoring app
                    # rescores on saved references, which would not be a fair baseline).
                    GoldenReference.objects.bulk_create(
                        [
                            GoldenReference(
                                sentence=sentence,
                                position=index,
                                text=text,
                                origin=ReferenceOrigin.IMPORTED,
                            )
                        ]
                    )
        naive_seconds = (time.perf_counter() - started) * args.sentences / len(sample)

        bench = Dataset.objects.get(name="bench-import")
        started = time.perf_counter()
        version = release_dataset(dataset=bench, note="benchmark")
        release_seconds = time.perf_counter() - started

        started = time.perf_counter()
        export_dataset(dataset=bench, version=version, fmt="mucgec", out=Path(tmp) / "out.txt")
        mucgec_seconds = time.perf_counter() - started
        assert (Path(tmp) / "out.txt").read_bytes() == source.read_bytes()

        m2_version = version
        m2_sentences = args.sentences
        if args.m2_sentences and args.m2_sentences < args.sentences:
            # The same code path on the first K sentences, imported as their own dataset.
            m2_sentences = args.m2_sentences
            head = Path(tmp) / "head.txt"
            head.write_text(
                "".join(
                    line + "\n"
                    for line in source.read_text(encoding="utf-8").splitlines()[:m2_sentences]
                ),
                encoding="utf-8",
            )
            sub = import_dataset(
                name="bench-m2", fmt="mucgec", files=[ImportFile.from_path(head)]
            ).dataset
            m2_version = release_dataset(dataset=sub)
        cpu = os.times()
        busy = _machine_busy_seconds()
        started = time.perf_counter()
        exported = export_dataset(
            dataset=m2_version.dataset,
            version=m2_version,
            fmt="m2",
            out=Path(tmp) / "out.m2",
            resources_dir=str(resources),
            workers=args.workers,
        )
        m2_seconds = time.perf_counter() - started
        m2_own_cpu = _cpu_since(cpu)  # this process (the exporter) only
        m2_cpu = _machine_busy_seconds() - busy  # everything, workers and PostgreSQL included
        # The extraction is stored per release and resources (shared with the scoring app):
        # exporting the same release again only streams the stored text.
        started = time.perf_counter()
        export_dataset(
            dataset=m2_version.dataset,
            version=m2_version,
            fmt="m2",
            out=Path(tmp) / "again.m2",
            resources_dir=str(resources),
            workers=args.workers,
        )
        m2_again_seconds = time.perf_counter() - started
        assert (Path(tmp) / "again.m2").read_bytes() == (Path(tmp) / "out.m2").read_bytes()
        m2_refs = exported.references
        cherrant_seconds = m2_refs * CHERRANT_SECONDS_PER_REFERENCE

    print(
        f"import (parse + check + write, one transaction): {import_seconds:8.1f} s "
        f"({args.sentences / import_seconds:,.0f} sentences/s); naive per-row ORM (scaled from "
        f"{len(sample):,}): {naive_seconds:8.1f} s; ratio naive/ours {naive_seconds / import_seconds:.1f}x"
    )
    print(
        f"  CPU time of the import process: {import_cpu:.1f} s (PostgreSQL's own work not included)"
    )
    print(f"release (freeze + checksum):                    {release_seconds:8.1f} s")
    print(f"export MuCGEC (streamed):                       {mucgec_seconds:8.1f} s")
    scale = args.sentences / m2_sentences
    print(
        f"export M2 of {m2_sentences:,} sentences / {m2_refs:,} references, {args.workers} workers: "
        f"{m2_seconds:8.1f} s ({m2_refs / m2_seconds:,.0f} references/s); ChERRANT on one core "
        f"(spec speed): {cherrant_seconds:8.1f} s; ratio {cherrant_seconds / m2_seconds:.1f}x"
    )
    print(
        f"  CPU time, whole machine during the export (workers, exporter, PostgreSQL, anything "
        f"else running): {m2_cpu:.1f} s = {m2_cpu / m2_refs * 1000:.2f} ms per reference "
        f"(exporter process alone {m2_own_cpu:.1f} s); on {args.workers} idle cores the wall "
        f"time would be about {m2_cpu / args.workers:.1f} s; load average now {os.getloadavg()[0]:.1f}"
    )
    print(f"export M2 again (stored extraction reused):     {m2_again_seconds:8.1f} s")
    if scale > 1:
        print(
            f"M2 export of all {args.sentences:,} sentences, scaled linearly: {m2_seconds * scale:8.1f} s "
            f"(idle cores: about {m2_cpu * scale / args.workers:.0f} s)"
        )
    if not args.keep:
        cleanup()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
