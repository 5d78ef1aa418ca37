"""Field descriptions that name many fields at once: a key of a card source's `fields:` may be a
pattern, where `*` stands for any part of a dotted name between two dots, and may list several
patterns separated by ", " ("statistics.*.char_count, members.statistics.*.char_count"). A field
described by its own name takes that description, else the one pattern that matches it: a table of
312 statistics columns is then a row per statistic, not a row per column."""

from __future__ import annotations

import functools
import re

SEPARATOR = ", "


def is_pattern(key: str) -> bool:
    return "*" in key or SEPARATOR in key


def patterns(key: str) -> list[str]:
    return key.split(SEPARATOR)


@functools.cache
def _regex(key: str) -> re.Pattern:
    one = ["[^.]*".join(re.escape(part) for part in pattern.split("*")) for pattern in patterns(key)]
    return re.compile("|".join(f"(?:{regex})" for regex in one))


def matches(key: str, name: str) -> bool:
    return _regex(key).fullmatch(name) is not None


def keys_of(descriptions: dict, name: str) -> list[str]:
    """The keys describing a field: its own name, else every pattern matching it (one, in a right card source)."""
    if name in descriptions:
        return [name]
    return [key for key in descriptions if is_pattern(key) and matches(key, name)]


def resolve(descriptions: dict, names) -> dict[str, str]:
    """{name: key of its description} for each field of `names` described (by name or one pattern)."""
    found = {}
    for name in names:
        keys = keys_of(descriptions, name)
        if len(keys) == 1:
            found[name] = keys[0]
    return found


def problems(descriptions: dict, names) -> list[str]:
    """A field that several patterns describe, and a pattern that describes no field."""
    found, used = [], set()
    for name in names:
        keys = keys_of(descriptions, name)
        used.update(keys)
        if len(keys) > 1:
            found.append(f"field {name!r} matches more than one pattern in fields: {', '.join(map(repr, keys))}")
    found += [f"fields: {key!r} is not a field of any config" for key in descriptions
              if is_pattern(key) and key not in used]
    return found
