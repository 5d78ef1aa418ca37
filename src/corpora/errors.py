class CorporaError(Exception):
    """An error the CLI reports as one line, without a traceback."""


def shorten(items, keep: int = 5, sep: str = ", ") -> str:
    """The first `keep` items, then "and N more": an error line stays readable with 181 paths."""
    items = [str(item) for item in items]
    if len(items) <= keep + 1:
        return sep.join(items)
    return sep.join(items[:keep]) + f"{sep}and {len(items) - keep} more"


class Terminated(BaseException):
    """SIGTERM, raised like KeyboardInterrupt so that cleanup in `finally` blocks runs."""
