"""`corpora diff`: what a change does to the rows of two exports (docs/diff.md). rows: the rows
matched in DuckDB; sides: the two exports; report: what was found, said; shown: values as a diff shows them."""

from corpora.diff.report import render
from corpora.diff.rows import compare
from corpora.diff.rows import summary

__all__ = ["compare", "render", "summary"]
