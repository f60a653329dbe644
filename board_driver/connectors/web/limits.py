"""Limits on what a page may send: JSON bodies no deeper than a page ever sends.

>>> json_depth({"a": [1, {"b": 2}]}, 10)
3
"""

from __future__ import annotations

from typing import Any


def json_depth(value: Any, limit: int) -> int:
    """How deeply ``value``'s objects and lists nest, counting no further than ``limit`` + 1."""
    depth, level = 0, [value]
    while depth <= limit:
        containers = [item for item in level if isinstance(item, dict | list)]
        if not containers:
            break
        depth += 1
        level = [
            child
            for item in containers
            for child in (item.values() if isinstance(item, dict) else item)
        ]
    return depth
