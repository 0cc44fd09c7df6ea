"""Signals the judgments app sends; higher apps answer them (judgments never imports upward).

`release_system_outputs(version=DatasetVersion)`: each receiver returns
{system name: [one output line per released sentence]} of the systems stored for that
release (the scoring app answers with its uploaded and scored system outputs). The campaign
page offers these systems to judge.
"""

from __future__ import annotations

from django.dispatch import Signal

release_system_outputs = Signal()
