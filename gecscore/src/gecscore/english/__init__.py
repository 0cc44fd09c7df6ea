"""English metrics and edits: ERRANT edit extraction and compare, GLEU, I-measure.

Each module is imported on its own; nothing here loads spaCy until ERRANT edits are asked for.
"""

__all__: list[str] = []  # a namespace: import the modules
