"""One module per metric, named after its registry name (``-`` written ``_``): the metric's
class and its ``Config``, as ``get_metric(name)`` returns them::

    from gecscore.metrics.cherrant import ChERRANT, ChERRANTConfig
    from gecscore.metrics.ptm2_m2 import PTM2M2      # registry name "ptm2-m2"

The modules re-export; the code stays where each metric family lives (``cherrant.py``,
``maxmatch/``, ``english/``, ``cleme/``, ``ptm2_metric.py``, ``reffree/``, ...;
ARCHITECTURE.md). Importing this package imports no metric: each module loads only its own.
"""

from __future__ import annotations

__all__: list[str] = []
