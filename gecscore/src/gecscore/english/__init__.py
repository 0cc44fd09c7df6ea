"""English metrics and edits: ERRANT edit extraction and compare, GLEU, I-measure.

Each module is imported on its own; nothing here loads spaCy until ERRANT edits are asked for.
"""
