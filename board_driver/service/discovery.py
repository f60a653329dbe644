"""Finding the extensions: every ``magboard.extensions`` entry point installed, magboard's
own and any other package's, each an :class:`~board_driver.door.extension.Extension` that
owns a config section.

A package registers an extension in its ``pyproject.toml``; the entry point names the
module-level extension object (magboard's own are registered the same way)::

    [project.entry-points."magboard.extensions"]
    clubscreen = "magboard_clubscreen:extension"

The extension's own ``name`` is its section and its name in the log; an entry point named
otherwise is taken, with a note naming both (the extension's name wins).

An extension from another package is refused, with the reason and the package named, when
it cannot be imported, is not an ``Extension``, or takes a section that is magboard's
(its own sections, ``[sensing]`` ... ``[sim]``, or a built-in extension's) or another
package's: the board runs on without it, and a built-in is never shadowed.

magboard's own entry points come from its installed metadata. Run from a source checkout
(an editable install, ``make run``), the checkout's ``pyproject.toml`` is what the code
beside it was written for: if the metadata lists other built-ins (installed before a pull
added one, and not installed again), the checkout's list is used and a note says to
install again (``make`` does it by itself: its stamp depends on ``pyproject.toml``), so
the board never silently loses a built-in.

>>> found = installed()
>>> [f.name for f in found.found if f.builtin][:3]
['broadcast', 'emulation', 'engine']
>>> found.owner("web").distribution.split()[0]
'magboard'
"""

from __future__ import annotations

import dataclasses
import functools
import importlib.metadata as metadata
import re
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import board_driver
from board_driver.door.extension import Extension

#: The entry-point group every extension is registered under.
GROUP = "magboard.extensions"
#: magboard's own distribution: its entry points are the built-ins.
OWN = "magboard"
#: A section name, as a TOML bare key that reads well in ``[name]``.
SECTION_NAME = re.compile(r"[a-z][a-z0-9_]*\Z")


@dataclass(frozen=True)
class Found:
    """An extension found and accepted: ``entry_point`` as written (``"web =
    board_driver.connectors.web:extension"``), the ``distribution`` that registered it
    (``"magboard 0.1.0"``), and whether it is one of magboard's own."""

    extension: Extension
    entry_point: str
    distribution: str
    builtin: bool

    @property
    def name(self) -> str:
        """Its config section (``[name]``) and its name in the log."""
        return self.extension.name


@dataclass(frozen=True)
class Refused:
    """An entry point that was not accepted, and why (the board runs on without it).
    ``section`` is the section it would have read (the entry point's name when the
    object could not be had)."""

    entry_point: str
    distribution: str
    section: str
    why: str

    def __str__(self) -> str:
        return (
            f"extension {self.entry_point!r} of {self.distribution} refused: {self.why} "
            "(the board runs on without it)"
        )


@dataclass(frozen=True)
class Installed:
    """The extensions found (built-ins first, then the others by name), those refused, and
    notes about magboard's own metadata (stale, or missing)."""

    found: tuple[Found, ...] = ()
    refused: tuple[Refused, ...] = ()
    notes: tuple[str, ...] = ()

    def extensions(self) -> list[Extension]:
        return [found.extension for found in self.found]

    def owner(self, section: str) -> Found | None:
        """The extension that owns ``[section]``, or None."""
        return next((found for found in self.found if found.name == section), None)

    def refused_section(self, section: str) -> Refused | None:
        """The refused entry point that would have read ``[section]`` (a config section
        then unused, rather than unknown), or None."""
        return next((r for r in self.refused if r.section == section), None)

    def summary(self) -> str:
        """Which extensions were found, by distribution, for the log:
        ``"broadcast, emulation, engine, ... (magboard 0.1.0)"``."""
        by_distribution: dict[str, list[str]] = {}
        for found in self.found:
            by_distribution.setdefault(found.distribution, []).append(found.name)
        return "; ".join(f"{', '.join(names)} ({dist})" for dist, names in by_distribution.items())


@functools.cache
def installed() -> Installed:
    """The extensions of this environment, found once per process."""
    return find(metadata.entry_points(group=GROUP), source_entry_points())


def extensions() -> list[Extension]:
    """Every extension found and accepted, in the order they start."""
    return installed().extensions()


def find(
    entry_points: Iterable[metadata.EntryPoint],
    source: Mapping[str, str] | None = None,
    reserved: Iterable[str] | None = None,
) -> Installed:
    """Load and check ``entry_points`` (see the module docstring). ``source``: the
    built-ins as a source checkout's ``pyproject.toml`` lists them (name -> value), None
    when magboard does not run from one; ``reserved``: the daemon's own sections."""
    if reserved is None:
        from board_driver.service.config.sections import SECTIONS

        reserved = SECTIONS
    own: list[metadata.EntryPoint] = []
    others: list[metadata.EntryPoint] = []
    for entry_point in entry_points:
        (own if _is_own(entry_point) else others).append(entry_point)
    own, notes = _builtin_entry_points(own, source)
    taken = {name: "magboard's own" for name in reserved}
    found: list[Found] = []
    refused: list[Refused] = []
    others.sort(key=lambda ep: (_distribution(ep), ep.name))
    ordered = [(ep, True) for ep in sorted(own, key=lambda ep: ep.name)]
    for entry_point, builtin in ordered + [(ep, False) for ep in others]:
        distribution = _own_distribution() if builtin else _distribution(entry_point)
        written = f"{entry_point.name} = {entry_point.value}"
        extension, why = _load(entry_point)
        if extension is not None:
            why = _section_problem(extension, taken)
        if why is not None or extension is None:
            section = extension.name if extension is not None else entry_point.name
            refused.append(Refused(written, distribution, str(section), why or ""))
            continue
        taken[extension.name] = (
            "a built-in extension's" if builtin else f"the extension of {distribution}"
        )
        found.append(Found(extension, written, distribution, builtin))
        if entry_point.name != extension.name:
            notes.append(
                f"extension {written!r} of {distribution}: the entry point is named "
                f"{entry_point.name!r} but the extension's name is {extension.name!r}: the "
                f"extension's name wins (its section is [{extension.name}], and the log "
                f"names it {extension.name}); name the entry point {extension.name} too"
            )
    return Installed(tuple(found), tuple(refused), tuple(notes))


def _load(entry_point: metadata.EntryPoint) -> tuple[Extension | None, str | None]:
    """The entry point's object if it is an Extension, else None and why."""
    try:
        loaded = entry_point.load()
    except (Exception, SystemExit) as exc:  # its import must not take the board down
        return None, f"cannot be imported ({type(exc).__name__}: {exc})"
    if isinstance(loaded, type) and issubclass(loaded, Extension):
        return None, (
            f"{entry_point.value} is the class {loaded.__name__}, not an extension object: "
            f"name a module-level instance (extension = {loaded.__name__}())"
        )
    if not isinstance(loaded, Extension):
        return None, (
            f"{entry_point.value} is {_describe(loaded)}, not an extension object (an "
            "instance of a subclass of board_driver.door.extension.Extension)"
        )
    return loaded, None


def _section_problem(extension: Extension, taken: Mapping[str, str]) -> str | None:
    """Why an extension cannot own the section it names, or None."""
    name = extension.name
    if not isinstance(name, str) or not SECTION_NAME.match(name):
        return (
            f"its name {name!r} cannot be a config section (lower-case letters, digits and "
            "_, starting with a letter)"
        )
    if name in taken:
        return f"it takes the section [{name}], which is {taken[name]}"
    config_class = extension.config_class
    if not dataclasses.is_dataclass(config_class) or not isinstance(config_class, type):
        return f"its config_class {config_class!r} is not a dataclass"
    fields = {field.name for field in dataclasses.fields(config_class)}
    unknown = sorted(set(extension.checks) - fields) + sorted(set(extension.secrets) - fields)
    if unknown:
        return (
            f"its checks or secrets name keys its config_class {config_class.__name__} has "
            f"not: {', '.join(unknown)}"
        )
    try:
        config_class()
    except Exception as exc:
        return f"its config_class {config_class.__name__}() fails ({exc}): give every key a default"
    return None


# ---------------------------------------------------------------------- magboard's own


def source_entry_points(root: Path | None = None) -> dict[str, str] | None:
    """The built-ins as the source checkout magboard runs from lists them in its
    ``pyproject.toml`` (name -> value), or None when it runs from an installed copy."""
    if root is None:
        root = Path(board_driver.__file__).resolve().parent.parent
    try:
        data = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    project = data.get("project", {})
    if project.get("name") != OWN:
        return None
    table = project.get("entry-points", {}).get(GROUP, {})
    return {str(name): str(value) for name, value in table.items()}


def _builtin_entry_points(
    installed_own: list[metadata.EntryPoint], source: Mapping[str, str] | None
) -> tuple[list[metadata.EntryPoint], list[str]]:
    """The built-ins' entry points, and a note when the installed metadata and the source
    checkout disagree (the checkout wins: its code is what runs)."""
    if source is None:
        return installed_own, []
    listed = {ep.name: ep.value for ep in installed_own}
    if listed == dict(source):
        return installed_own, []
    chosen = [metadata.EntryPoint(name, value, GROUP) for name, value in source.items()]
    if not _own_installed():
        return chosen, [
            "magboard runs from its source tree without being installed: its built-in "
            "extensions are read from pyproject.toml (`pip install -e .` installs it)"
        ]
    missing = sorted(set(source) - set(listed))
    gone = sorted(set(listed) - set(source))
    changed = sorted(name for name in set(source) & set(listed) if source[name] != listed[name])
    differences = "; ".join(
        f"{what}: {', '.join(names)}"
        for what, names in (("missing", missing), ("no longer built in", gone),
                            ("moved", changed))
        if names
    )  # fmt: skip
    return chosen, [
        f"magboard's installed metadata is older than its pyproject.toml ({differences}): "
        "the built-in extensions are read from pyproject.toml; install it again "
        "(`make`, or `pip install -e .`)"
    ]


def _is_own(entry_point: metadata.EntryPoint) -> bool:
    dist = entry_point.dist
    return dist is not None and _normal(dist.name) == OWN


def _own_installed() -> bool:
    try:
        metadata.distribution(OWN)
    except metadata.PackageNotFoundError:
        return False
    return True


def _own_distribution() -> str:
    try:
        return f"{OWN} {metadata.version(OWN)}"
    except metadata.PackageNotFoundError:
        return f"{OWN} (source tree)"


def _distribution(entry_point: metadata.EntryPoint) -> str:
    dist = entry_point.dist
    if dist is None:
        return "an unknown distribution"
    return f"{dist.name} {dist.version}"


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _describe(value: object) -> str:
    """What an object is, in a few words: ``a function (extension)``, ``an int (1)``."""
    kind = type(value).__name__
    article = "an" if kind[:1].lower() in "aeiou" else "a"
    name = getattr(value, "__qualname__", None)
    if isinstance(name, str):
        return f"{article} {kind} ({name})"
    text = repr(value)
    return f"{article} {kind} ({text if len(text) <= 40 else text[:37] + '...'})"
