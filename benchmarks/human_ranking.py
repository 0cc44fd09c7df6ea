"""Benchmark: human rankings of imported judgment campaigns against the published values.

    .venv/bin/python benchmarks/human_ranking.py [--shared ../shared] [--runs 1000]
        [--workers 2] [--cases gjg15 seeda-sent seeda-edit] [--json OUT.json]

For each judgment set (GJG15 CoNLL-14, SEEDA-sent, SEEDA-edit) it runs the product's own
commands in a fresh SQLite database: ``import_judgments FILE.xml --campaign NAME`` and then
``human_ranking --campaign NAME --method both --json`` (TrueSkill averaged over ``--runs``
seeded orders on ``--workers`` processes), timing the whole ``human_ranking`` process (wall seconds; the load average before each case is printed,
since on a shared machine it dominates the wall time). It
checks EW within 0.001 and TrueSkill within 0.003 of the published scores, the published
TrueSkill order (pairs closer than 0.001 may swap) and the kappas (2 decimals).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SEEDA_SYSTEMS_MODULE = "gecscore.meta.scorefiles"


def _wmt(path: Path) -> dict[str, float]:
    with gzip.open(path, "rt") as handle:
        return {f[3]: float(f[4]) for f in (line.rstrip("\n").split("\t") for line in handle)}


def _seeda(path: Path) -> dict[str, float]:
    sys.path.insert(0, str(REPO))
    from gecscore.meta.scorefiles import SEEDA_SYSTEMS

    values = [float(x) for x in path.read_text().split()]
    return dict(zip(SEEDA_SYSTEMS, values, strict=True))


def cases(shared: Path) -> dict[str, tuple[Path, dict[str, float], dict[str, float], str, str]]:
    conll = shared / "data" / "conll14" / "human"
    human = shared / "data" / "seeda" / "scores" / "human"
    seeda = shared / "data" / "seeda" / "data"
    return {
        "gjg15": (
            conll / "judgments.xml",
            _wmt(conll / "expected_wins.txt.gz"),
            _wmt(conll / "trueskill.txt.gz"),
            "0.29",
            "0.46",
        ),
        "seeda-sent": (
            seeda / "judgments_sent.xml",
            _seeda(human / "EW_sent.txt"),
            _seeda(human / "TS_sent.txt"),
            "0.40",
            "0.72",
        ),
        "seeda-edit": (
            seeda / "judgments_edit.xml",
            _seeda(human / "EW_edit.txt"),
            _seeda(human / "TS_edit.txt"),
            "0.28",
            "0.62",
        ),
    }


def manage(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(REPO / "manage.py"), *args],
        env=env,
        check=True,
        capture_output=True,
        text=True,
        cwd=REPO,
    )


def order_ok(ours: dict[str, float], published: dict[str, float]) -> bool:
    """The published order, except for pairs closer than 0.001: the published values are
    rounded to 3 decimals, so a printed gap of exactly 0.001 may be a true gap near 0 (the
    rule of gecscore/tests/meta/test_rankings.py)."""
    names = sorted(published, key=lambda s: -published[s])
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            if published[a] - published[b] > 0.001 + 1e-9 and ours[a] <= ours[b]:
                return False
    return True


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--shared", type=Path, default=REPO.parent / "shared")
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--cases", nargs="*", default=["gjg15", "seeda-sent", "seeda-edit"])
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    results = []
    ok = True
    with tempfile.TemporaryDirectory(prefix="gec-human-ranking-") as var:
        env = {**os.environ, "GEC_VAR_DIR": var}
        env.pop("DATABASE_URL", None)
        manage(env, "migrate", "-v0")
        for name in args.cases:
            path, ew, ts, inter, intra = cases(args.shared)[name]
            load = os.getloadavg()[0]
            started = time.perf_counter()
            manage(env, "import_judgments", str(path), "--campaign", name)
            imported = time.perf_counter() - started
            started = time.perf_counter()
            out = manage(
                env,
                "human_ranking",
                "--campaign",
                name,
                "--method",
                "both",
                "--runs",
                str(args.runs),
                "--workers",
                str(args.workers),
                "--json",
            )
            seconds = time.perf_counter() - started
            report = json.loads(out.stdout)
            rows = report["systems"]
            ours_ts = {s: rows[s]["trueskill"] for s in ts}
            ew_gap = max(abs(rows[s]["expected_wins"] - v) for s, v in ew.items())
            ts_gap = max(abs(ours_ts[s] - v) for s, v in ts.items())
            kappa = report["agreement"]
            kappas = (f"{kappa['inter_kappa']:.2f}", f"{kappa['intra_kappa']:.2f}")
            passed = (
                ew_gap <= 0.001
                and ts_gap <= 0.003
                and order_ok(ours_ts, ts)
                and kappas == (inter, intra)
            )
            ok &= passed
            row = {
                "case": name,
                "import_s": round(imported, 2),
                "human_ranking_s": round(seconds, 2),
                "load_before": round(load, 1),
                "runs": args.runs,
                "workers": args.workers,
                "max_ew_gap": round(ew_gap, 6),
                "max_trueskill_gap": round(ts_gap, 6),
                "trueskill_order_ok": order_ok(ours_ts, ts),
                "kappa": kappas,
                "published_kappa": (inter, intra),
                "passed": passed,
            }
            results.append(row)
            print(json.dumps(row))
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
