"""Benchmark: char-level M2 extraction of all MuCGEC-dev references and the example system.

    .venv/bin/python benchmarks/char_metric.py [--shared ../shared] [--workers 2] [--repeat 1]

Prints wall and CPU time, peak memory (max RSS) and sentences per second, single process and
with --workers, the ratio to ChERRANT's measured ~220 s for the same work (spec
char-metric.md section 9: 151 s references + 69 s hypotheses on one core), and checks the
output is byte-identical to ChERRANT's M2 files. Each configuration runs in a fresh process
so caches (substitution costs, pinyin) start cold, as they would in a real run.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CHERRANT_SECONDS = 151.0 + 69.0  # references + example hypotheses, one core
JOBS = (("MuCGEC_dev.txt", "MuCGEC_dev.m2"), ("example_pred_dev.txt", "example_pred_dev.m2"))


def _child(shared: Path, workers: int) -> dict[str, object]:
    sys.path.insert(0, str(REPO))
    from scoring.gec.extract import parallel_to_m2, read_parallel
    from scoring.gec.m2 import write_m2
    from scoring.gec.resources import load_resources

    data = shared / "data" / "mucgec-dev"
    wall0, cpu0 = time.perf_counter(), time.process_time()
    resources = load_resources(shared / "data" / "cherrant-resources")
    sentences = pairs = 0
    identical = True
    for source_name, m2_name in JOBS:
        lines = read_parallel(data / source_name)
        blocks, truncated = parallel_to_m2(lines, resources=resources, workers=workers)
        sentences += len(lines)
        pairs += sum(len(line.targets) for line in lines)
        expected = (data / m2_name).read_text(encoding="utf-8")
        identical = identical and write_m2(blocks) == expected and not truncated
    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    from scoring.gec.compare import compare_m2
    from scoring.gec.m2 import read_m2

    hyp, ref = read_m2(data / "example_pred_dev.m2"), read_m2(data / "MuCGEC_dev.m2")
    compare0 = time.perf_counter()
    result = compare_m2(hyp, ref)
    compare_s = time.perf_counter() - compare0
    identical = identical and (result.tp, result.fp, result.fn, result.f) == (
        1084,
        1635,
        3003,
        0.3622,
    )
    usage_self = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    usage_children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return {
        "workers": workers,
        "wall_s": round(wall, 3),
        "cpu_s_main": round(cpu, 3),
        "sentences": sentences,
        "pairs": pairs,
        "peak_rss_mb": round(max(usage_self, usage_children) / 1024, 1),
        "identical": identical,
        "compare_s": round(compare_s, 3),
    }


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--shared", default=str(REPO.parent / "shared"))
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--repeat", type=int, default=1, help="runs per configuration (best is kept)"
    )
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    shared = Path(args.shared)
    if args.child is not None:
        print(json.dumps(_child(shared, args.child)))
        return 0
    if not (shared / "data" / "mucgec-dev").is_dir():
        print(f"error: {shared}/data/mucgec-dev not found (use --shared)", file=sys.stderr)
        return 2
    print(f"ChERRANT reference: {CHERRANT_SECONDS:.0f} s on one core (spec section 9)")
    for workers in (1, args.workers):
        runs = []
        for _ in range(args.repeat):
            out = subprocess.run(
                [sys.executable, __file__, "--shared", str(shared), "--child", str(workers)],
                check=True,
                capture_output=True,
                text=True,
            )
            runs.append(json.loads(out.stdout))
        best = min(runs, key=lambda run: float(run["wall_s"]))
        wall = float(best["wall_s"])
        print(
            f"workers={workers}: {wall:.2f} s wall ({best['cpu_s_main']} s CPU in the main process), "
            f"{best['sentences']} lines / {best['pairs']} sentence pairs, "
            f"{float(best['pairs']) / wall:.0f} pairs/s, peak RSS {best['peak_rss_mb']} MB, "
            f"{CHERRANT_SECONDS / wall:.0f}x faster than ChERRANT, "
            f"byte-identical M2 and public F0.5: {best['identical']}; "
            f"compare (ChERRANT 0.17 s): {best['compare_s']} s"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
