"""The config's rules across keys: values each good alone that do not go together."""

from __future__ import annotations

from typing import Any


def check_across(config: Any, problems: list[str], bad: set[str] | frozenset = frozenset()) -> None:
    """Add a ``[section] key: ...`` problem for each rule broken. A rule that involves a
    key in ``bad`` is left out: that key is named already, and stands at its default."""

    def good(*keys: str) -> bool:
        return not bad.intersection(keys)

    s = config.sensing
    if good("sensing.rows", "sensing.columns") and set(s.rows) & set(s.columns):
        both = sorted(set(s.rows) & set(s.columns), key=str)
        problems.append(f"[sensing] columns: {both} also rows")
    pins = {k: v for k, v in config.buttons.pins().items() if good(f"buttons.{k}")}
    repeated = sorted({p for p in pins.values() if list(pins.values()).count(p) > 1})
    if repeated:
        problems.append(f"[buttons]: pins {repeated} are given to more than one button")
    if config.buttons.backend == "gpio":
        if not pins and len(config.buttons.pins()) == len(pins):
            problems.append('[buttons] backend: "gpio" but no button has a pin')
        if s.backend in ("gpiod", "rpigpio") and good("sensing.rows", "sensing.columns"):
            clash = sorted(set(pins.values()) & (set(s.rows) | set(s.columns)), key=str)
            if clash:
                problems.append(f"[buttons]: pins {clash} are also used by the switch matrix")
    game = config.game
    if good("game.pass_ms", "game.settle_ms") and game.pass_ms > game.settle_ms:
        problems.append(
            f"[game] pass_ms: {game.pass_ms} is longer than settle_ms ({game.settle_ms})"
        )
