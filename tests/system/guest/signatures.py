"""Each fake hardware library of the fast suite against the real one it stands in for.

The fakes (``tests/fakes/modules/``: ``gpiod``, ``RPi.GPIO``, ``board``, ``neopixel``,
``neopixel_spi``, ``_pixelbuf``) are loaded under other names beside the real libraries of
the installed venv, and every public name a fake offers is looked up in the real module:

* it must exist there (a module, class, function, constant or enum member);
* a callable's parameters must fit the real one's: the same positional parameters in the
  same order, every keyword the fake takes taken by the real one too, and every parameter
  the real one requires required by the fake too (so code that passes the fake passes
  the real library's checks of names and arguments);
* an enum's members must be real members; an integer constant must have the real value;
* a class's public methods and properties are compared the same way.

Run inside the machine, where the libraries that need a Raspberry Pi's GPIO chip to import
at all (Blinka's ``board``, ``neopixel``, ``RPi.GPIO`` from rpi-lgpio) find one.

    BLINKA_FORCEBOARD=RASPBERRY_PI_4B BLINKA_FORCECHIP=BCM2XXX \\
        /opt/magboard/bin/python signatures.py /root/magboard/tests/fakes/modules

Prints one JSON line: the names compared per library and the mismatches found.
"""

from __future__ import annotations

import enum
import importlib
import importlib.util
import inspect
import json
import sys
import types
from pathlib import Path

#: fake module (file under the fakes' directory) -> the real module it stands in for.
PAIRS = {
    "gpiod/__init__.py": "gpiod",
    "gpiod/line.py": "gpiod.line",
    "RPi/GPIO.py": "RPi.GPIO",
    "board.py": "board",
    "neopixel.py": "neopixel",
    "neopixel_spi.py": "neopixel_spi",
    "_pixelbuf.py": "adafruit_pixelbuf",
}
#: Real objects that stand where the fake has a class of the same surface.
STANDS_FOR = {("board", "SPI"): "busio.SPI"}
#: The fakes' own helpers, not part of any real API.
FAKE_ONLY = {"world", "current", "Pin.id"}


def load_fake(root: Path, relative: str) -> types.ModuleType:
    """A fake module under the name ``fake_<...>``, with its package's siblings importable."""
    path = root / relative
    name = "fake_" + relative.removesuffix(".py").replace("/__init__", "").replace("/", "_")
    package = path.parent if path.name == "__init__.py" else None
    spec = importlib.util.spec_from_file_location(
        name, path, submodule_search_locations=[str(package)] if package else None
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def public(obj) -> list[str]:
    names = getattr(obj, "__all__", None) if isinstance(obj, types.ModuleType) else None
    if names is None:
        names = [n for n in vars(obj) if not n.startswith("_")]
    return [n for n in names if not n.startswith("_")]


def compare_callable(where: str, fake, real, problems: list[str]) -> None:
    try:
        fs, rs = inspect.signature(fake), inspect.signature(real)
    except (TypeError, ValueError):
        return  # a builtin without a signature: existence is all we can check
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    fpos = [p for p in fs.parameters.values() if p.kind in positional]
    rpos = [p for p in rs.parameters.values() if p.kind in positional]
    rvar_pos = any(p.kind is p.VAR_POSITIONAL for p in rs.parameters.values())
    rvar_kw = any(p.kind is p.VAR_KEYWORD for p in rs.parameters.values())
    if len(fpos) > len(rpos) and not rvar_pos:
        problems.append(f"{where}{fs}: more positional parameters than the real {rs}")
    for f, r in zip(fpos, rpos, strict=False):
        if f.name != r.name and r.kind is not r.POSITIONAL_ONLY:
            problems.append(f"{where}: positional parameter {f.name!r} is {r.name!r} in the "
                            f"real {rs}")  # fmt: skip
    for f in fs.parameters.values():
        if f.kind in (f.VAR_POSITIONAL, f.VAR_KEYWORD) or f.kind is f.POSITIONAL_ONLY:
            continue
        if f.name not in rs.parameters and not rvar_kw:
            problems.append(f"{where}: the real {rs} takes no {f.name!r}")
    for r in rs.parameters.values():
        required = r.default is r.empty and r.kind not in (r.VAR_POSITIONAL, r.VAR_KEYWORD)
        if required and r.name not in fs.parameters and r.kind is not r.POSITIONAL_ONLY:
            problems.append(f"{where}: the real {rs} requires {r.name!r}, the fake does not")
        elif required and r.name in fs.parameters and fs.parameters[r.name].default is not r.empty:
            problems.append(f"{where}: {r.name!r} is optional in the fake, required in the "
                            f"real {rs}")  # fmt: skip


def compare(where: str, fake, real, problems: list[str], depth: int = 0) -> int:
    """Compare ``fake`` with ``real``; the number of names compared."""
    count = 0
    for name in public(fake):
        if f"{where.split('.')[-1]}.{name}" in FAKE_ONLY or name in FAKE_ONLY:
            continue
        f = getattr(fake, name)
        if isinstance(f, types.ModuleType) and depth:
            continue
        stands = STANDS_FOR.get((where, name))
        if stands:
            module, _, attr = stands.rpartition(".")
            r = getattr(importlib.import_module(module), attr)
        elif not hasattr(real, name):
            problems.append(f"{where}.{name}: not in the real {getattr(real, '__name__', real)}")
            continue
        else:
            r = getattr(real, name)
        count += 1
        here = f"{where}.{name}"
        if isinstance(f, type) and issubclass(f, enum.Enum):
            members = set(getattr(r, "__members__", {}))
            for member in f.__members__:
                if member not in members:
                    problems.append(f"{here}.{member}: not a member of the real enum")
        elif isinstance(f, type):
            if inspect.isclass(r):
                compare_callable(here, f, r, problems)
                if depth < 1:
                    count += compare(here, f, r, problems, depth + 1)
            elif callable(r):
                compare_callable(here, f, r, problems)
        elif isinstance(f, property):
            if not isinstance(getattr(real, name, None), property):
                problems.append(f"{here}: a property in the fake, not in the real class")
        elif callable(f) and not isinstance(f, types.ModuleType):
            if callable(r):
                compare_callable(here, f, r, problems)
            else:
                problems.append(f"{here}: callable in the fake, {type(r).__name__} in the real")
        elif isinstance(f, int) and not isinstance(f, bool) and isinstance(r, int) and f != r:
            problems.append(f"{here} = {f} in the fake, {r} in the real")
    return count


def main() -> int:
    root = Path(sys.argv[1])
    # neopixel's module imports Blinka's neopixel_write, which on a Pi 4 needs the
    # rpi_ws281x DMA driver (root, /dev/mem): a signature check needs only its name.
    if "neopixel_write" not in sys.modules:
        try:
            importlib.import_module("neopixel_write")
        except (ImportError, RuntimeError):
            stand_in = types.ModuleType("neopixel_write")
            stand_in.neopixel_write = lambda pin, buf: None
            sys.modules["neopixel_write"] = stand_in
    reals = {name: importlib.import_module(name) for name in PAIRS.values()}
    # Then the fakes, from behind: ``_pixelbuf`` (the fakes' own) and ``tests.fakes.world``
    # must be found, the real modules already imported must not be shadowed.
    sys.path += [str(root), str(root.parents[2])]
    report, problems = {}, []
    for relative, real_name in PAIRS.items():
        fake = load_fake(root, relative)
        report[real_name] = compare(real_name, fake, reals[real_name], problems)
    print(json.dumps({"compared": report, "problems": problems}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
