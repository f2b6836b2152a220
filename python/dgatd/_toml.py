"""Configuration tables (dicts and lists) written as the TOML text `dgatd run` reads.

Floats are written with repr, the shortest text that reads back as the same double, so a
simulation described in Python runs exactly what its TOML file runs.
"""

import json
import math
import re

_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


def _key(name):
    name = str(name)
    return name if _BARE_KEY.match(name) else _string(name)


def _string(text):
    # JSON's escapes are TOML's, but for DEL, which TOML wants escaped too.
    return json.dumps(text, ensure_ascii=False).replace("\x7f", "\\u007F")


def _plain(value):
    """numpy scalars and arrays as Python numbers and lists."""
    if hasattr(value, "tolist") and not isinstance(value, (str, bytes)):
        return value.tolist()
    if hasattr(value, "__fspath__"):
        return value.__fspath__()
    return value


def value(item):
    item = _plain(item)
    if isinstance(item, bool):
        return "true" if item else "false"
    if isinstance(item, int):
        return str(item)
    if isinstance(item, float):
        if math.isnan(item):
            return "nan"
        if math.isinf(item):
            return "inf" if item > 0 else "-inf"
        return repr(item)
    if isinstance(item, str):
        return _string(item)
    if isinstance(item, dict):
        return "{ " + ", ".join(f"{_key(k)} = {value(v)}" for k, v in item.items() if v is not None) + " }"
    if isinstance(item, (list, tuple)):
        return "[" + ", ".join(value(v) for v in item) + "]"
    raise TypeError(f"{type(item).__name__} {item!r} has no TOML form (numbers, strings, booleans, lists, dicts)")


def _table_body(table):
    return "".join(f"{_key(k)} = {value(v)}\n" for k, v in table.items() if v is not None)


def dumps(tables):
    """TOML text of {table name: dict (a [table]) or list of dicts (a [[table]] each)}."""
    parts = []
    for name, content in tables.items():
        content = _plain(content)
        if content is None:
            continue
        if isinstance(content, dict):
            parts.append(f"[{_key(name)}]\n" + _table_body(content))
        elif isinstance(content, (list, tuple)):
            for entry in content:
                if not isinstance(entry, dict):
                    raise TypeError(f"[[{name}]] entries must be dicts, not {type(entry).__name__}")
                parts.append(f"[[{_key(name)}]]\n" + _table_body(entry))
        else:
            raise TypeError(f"table {name!r} must be a dict ([{name}]) or a list of dicts ([[{name}]])")
    return "\n".join(parts)
