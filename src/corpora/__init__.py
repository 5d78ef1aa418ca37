"""corpora: Hugging Face `datasets` builders for five corpora of human judgments, and the tools
that build, export, document, validate and publish them."""

__all__ = ["load"]
__version__ = "0.1.0"


def __getattr__(name: str):
    # `corpora.load` imports datasets on first use only: the `corpora` command starts (and answers
    # Ctrl-C) before that import.
    if name == "load":
        from corpora.pipeline import load

        return load
    raise AttributeError(f"module 'corpora' has no attribute {name!r}")
