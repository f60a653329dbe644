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
import __future__

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
#: A fake class standing for a real factory: ``board.SPI()`` (a function) returns a
#: ``busio.SPI``, whose methods the fake class has.
STANDS_FOR = {"board.SPI": "busio.SPI"}
#: Classes the libraries make themselves (``Chip.request_lines`` makes a ``LineRequest``):
#: their constructors are not an API, their methods are.
NOT_CONSTRUCTED = {"gpiod.LineRequest"}
#: The fakes' own helpers, not part of any real API (Blinka's pins are of another class).
FAKE_ONLY = {"board.Pin"}


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


def compare_callable(where: str, fake, real, problems: list[str], notes: list[str]) -> None:
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
        # Passed by position, a parameter's name does not matter (RPi.GPIO's C module and
        # rpi-lgpio differ here themselves); noted, for code that would pass it by name.
        if f.name != r.name:
            notes.append(f"{where}: positional {f.name!r} is {r.name!r} in the real {rs}")
        if f.default is not f.empty and r.default is r.empty:
            problems.append(f"{where}: {r.name!r} is optional in the fake, required in the "
                            f"real {rs}")  # fmt: skip
    for f in fs.parameters.values():
        if f.kind is f.KEYWORD_ONLY and f.name not in rs.parameters and not rvar_kw:
            problems.append(f"{where}: the real {rs} takes no keyword {f.name!r}")
    for index, r in enumerate(rs.parameters.values()):
        if r.default is not r.empty or r.kind in (r.VAR_POSITIONAL, r.VAR_KEYWORD):
            continue
        covered = r.kind in positional and index < len(fpos)
        if not covered and r.name not in fs.parameters:
            problems.append(f"{where}: the real {rs} requires {r.name!r}, the fake does not")


def defined_here(module: types.ModuleType, name: str) -> bool:
    """Whether ``name`` is the fake's own (not imported into it: ``annotations``, ``errno``,
    a base class from another fake)."""
    value = getattr(module, name)
    if isinstance(value, types.ModuleType | __future__._Feature):
        return False
    if not isinstance(value, type | types.FunctionType):
        return True  # a constant, an instance: the fake's
    return value.__module__ == module.__name__


def compare(where: str, fake, real, problems: list[str], notes: list[str], depth: int = 0) -> int:
    """Compare ``fake`` with ``real``; the number of names compared."""
    count = 0
    for name in public(fake):
        if f"{where}.{name}" in FAKE_ONLY:
            continue
        if isinstance(fake, types.ModuleType) and not defined_here(fake, name):
            continue
        f = getattr(fake, name)
        stands = STANDS_FOR.get(f"{where}.{name}")
        if stands:
            module, _, attr = stands.rpartition(".")
            members = getattr(importlib.import_module(module), attr)
            compare_callable(f"{where}.{name}", f, getattr(real, name), problems, notes)
            count += 1 + compare(f"{where}.{name}", f, members, problems, notes, depth + 1)
            continue
        if not hasattr(real, name):
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
                if here not in NOT_CONSTRUCTED:
                    compare_callable(here, f, r, problems, notes)
                if depth < 1:
                    count += compare(here, f, r, problems, notes, depth + 1)
            elif callable(r):
                compare_callable(here, f, r, problems, notes)
        elif isinstance(f, property):
            if not isinstance(getattr(real, name, None), property):
                problems.append(f"{here}: a property in the fake, not in the real class")
        elif callable(f) and not isinstance(f, types.ModuleType):
            if callable(r):
                compare_callable(here, f, r, problems, notes)
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
    # Then the fakes, from behind: ``_pixelbuf`` (the fakes' own) must be found, the real
    # modules already imported must not be shadowed. ``tests.fakes.world`` is found through
    # bare packages: the real ``tests/fakes/__init__.py`` is the fast suite's fixtures
    # (pytest), which the installed venv has not.
    sys.path.append(str(root))
    for name, path in (("tests", root.parents[1]), ("tests.fakes", root.parent)):
        package = types.ModuleType(name)
        package.__path__ = [str(path)]
        sys.modules[name] = package
    report, problems, notes = {}, [], []
    for relative, real_name in PAIRS.items():
        fake = load_fake(root, relative)
        report[real_name] = compare(real_name, fake, reals[real_name], problems, notes)
    print(json.dumps({"compared": report, "problems": problems, "notes": notes}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
