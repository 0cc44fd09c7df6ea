"""Metric meta-evaluation: human judgments and rankings, system- and sentence-level correlation
with significance. No Django import below this folder."""

__all__: list[str] = []  # a namespace: import the modules
