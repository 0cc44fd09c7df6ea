"""Human rankings of systems from pairwise judgments: Expected Wins, TrueSkill, rank ranges,
clusters, and Cohen's kappa agreement -- computed as Grundkiewicz et al.'s (2015)
``grammatical/evaluation`` scripts compute them (``wmt-trueskill/EW.py``, ``TS.py``,
``eval/cluster.py -by-rank -i 0.95``, ``agreement.pl``).

* Expected Wins (Bojar et al. 2013): for system i, the mean over the other systems j of
  wins(i, j) / (wins(i, j) + wins(j, i)); ties are ignored; a pair never decided adds 0.
* TrueSkill (Sakaguchi et al. 2014, as ``TS.py -n 2 -d 0``): mu = 0, sigma = 0.5, tau = 0,
  draw probability 0.25, beta = 0.5 * (number of pairwise judgments + 1) / 40. One run plays
  ``number of judgments + 1`` matches; each match takes the system with the largest sigma
  (ties: the alphabetically last), an opponent drawn with weight exp(-|mu_a - mu_b|), and one
  of that pair's judgments drawn uniformly, and applies the ``trueskill`` package's two-player
  update. The published scores are the mean mu over many seeded runs (1,000 here). The runs are
  played side by side (the compiled player where built, else numpy); ``gecscore/tests/meta`` checks that the update equals the
  package's ``rate`` on the same matches.
* Rank ranges: for each run, the systems ranked by score; a system's range is the min and max
  rank after dropping ceil(n * 0.025) runs at each end; a new cluster starts after a system
  whose worst rank is better than the best rank of every system below it (``cluster.py``).

Modules: ``ranking`` (the result and rank ranges), ``expected_wins_ranking``, ``trueskill_ranking``
(with the package's math in ``_trueskill_math``),
``judge_agreement``.
"""

from __future__ import annotations

from gecscore.meta.rankings.expected_wins_ranking import (
    expected_wins,
    expected_wins_bootstrap,
    rank_expected_wins,
)
from gecscore.meta.rankings.judge_agreement import (
    MIN_OVERLAP,
    Agreement,
    agreement,
    pooled_kappa,
)
from gecscore.meta.rankings.ranking import (
    CONFIDENCE,
    FloatArray,
    Ranking,
    SystemRank,
    rank_ranges,
)
from gecscore.meta.rankings.trueskill_ranking import (
    TS_CHUNK,
    TS_DRAW_PROBABILITY,
    TS_SIGMA,
    TrueSkillTrace,
    rank_trueskill,
    trueskill_mu,
    trueskill_parameters,
    trueskill_runs,
    trueskill_update,
)

__all__ = [
    "Agreement",
    "CONFIDENCE",
    "FloatArray",
    "MIN_OVERLAP",
    "Ranking",
    "SystemRank",
    "TS_CHUNK",
    "TS_DRAW_PROBABILITY",
    "TS_SIGMA",
    "TrueSkillTrace",
    "agreement",
    "pooled_kappa",
    "expected_wins",
    "expected_wins_bootstrap",
    "rank_expected_wins",
    "rank_ranges",
    "rank_trueskill",
    "trueskill_mu",
    "trueskill_parameters",
    "trueskill_runs",
    "trueskill_update",
]
