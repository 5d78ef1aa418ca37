"""corpora: Hugging Face `datasets` builders for five corpora of human judgments, and the tools
that build, export, document, validate and publish them."""

from corpora.build import load

__all__ = ["load"]
__version__ = "0.1.0"
