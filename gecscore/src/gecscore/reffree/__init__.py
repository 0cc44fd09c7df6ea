"""Model-based metrics: SOME, IMPARA, the Scribendi score and the LLM judges (LLM-S, LLM-E).

Importing this package is cheap: torch and transformers load when a metric is built. Every
model is a local folder named by a Config field or an environment variable
(``gecscore.reffree.models``); a missing one is a GECError naming the setting. Install the
dependencies with ``pip install 'gecscore[reffree]'``. See docs/metrics/reference-free.md.
"""

__all__ = []
