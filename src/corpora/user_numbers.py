"""Numbers the user gives in an option or an environment variable, read one way."""

from __future__ import annotations

import math
import os

from corpora.errors import CorporaError


def number(text: str, kind: type[int] | type[float], minimum: float, *, above: bool = False) -> int | float | None:
    """`text` as a finite `kind` of at least `minimum` (more, if `above`); None if it is not one."""
    try:
        value = kind(text)
    except ValueError:
        return None
    if not math.isfinite(value) or value < minimum or (above and value == minimum):
        return None
    return value


def from_environment(variable: str, default, kind: type[int] | type[float], minimum: float, *, above: bool = False):
    """The number in the environment variable `variable`; `default` when it is unset or empty."""
    text = os.environ.get(variable, "")
    if not text:
        return default
    value = number(text, kind, minimum, above=above)
    if value is None:
        raise CorporaError(f"{variable}={text!r}: expected a positive number")
    return value
