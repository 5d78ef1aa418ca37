"""Numbers the user gives: in an option (`--lock-timeout`, `--num-proc`) or in an environment
variable (`CORPORA_DOWNLOAD_TIMEOUT`, `CORPORA_HUB_TIMEOUT`, ...). One reading for all of them."""

from __future__ import annotations

import math
import os

from corpora.errors import CorporaError


def number(text: str, kind: type[int] | type[float], minimum: float, *, above: bool = False) -> int | float | None:
    """`text` as a `kind` of at least `minimum` (or more than it, if `above`); None if it is not one.
    float() takes "nan" and "inf" in any case: neither is a count or a number of seconds."""
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
