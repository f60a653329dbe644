"""Finding extensions through entry points, in process: each refusal and its reason, the
built-ins never shadowed, and magboard's own list when its metadata is stale.

Distributions are made as ``.dist-info`` folders in a temporary directory (what pip
writes), their modules beside them; ``test_outside_extensions.py`` installs real packages
with pip and runs magboard on them.
"""

from __future__ import annotations

import importlib.metadata as metadata
import sys
from pathlib import Path

import pytest

from board_driver.door.extension import Extension
from board_driver.service.config import ConfigError, parse_config
from board_driver.service.discovery import GROUP, find, installed, source_entry_points

ROOT = Path(__file__).resolve().parents[3]

GOOD = '''
from dataclasses import dataclass
from board_driver.door.config_values import boolean
from board_driver.door.extension import Extension

@dataclass(frozen=True)
class Config:
    enabled: bool = False

class Good(Extension):
    name = "{section}"
    config_class = Config
    checks = {{"enabled": boolean}}

extension = Good()
'''


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Make distributions in a directory on sys.path; returns a function that makes one
    and gives its entry points."""
    monkeypatch.syspath_prepend(str(tmp_path))
    made: list[str] = []

    def distribution(
        name: str, entry_points: dict[str, str], modules: dict[str, str] | None = None
    ) -> list[metadata.EntryPoint]:
        info = tmp_path / f"{name.replace('-', '_')}-0.1.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n")
        lines = "".join(f"{key} = {value}\n" for key, value in entry_points.items())
        (info / "entry_points.txt").write_text(f"[{GROUP}]\n{lines}")
        for module, source in (modules or {}).items():
            (tmp_path / f"{module}.py").write_text(source)
            made.append(module)
        return [
            ep
            for dist in metadata.distributions(path=[str(tmp_path)])
            if dist.name == name
            for ep in dist.entry_points
            if ep.group == GROUP
        ]

    yield distribution
    for module in made:
        sys.modules.pop(module, None)


def builtins_eps() -> list[metadata.EntryPoint]:
    """magboard's own entry points as installed (the test's distributions left out)."""
    return [ep for ep in metadata.entry_points(group=GROUP) if ep.dist.name == "magboard"]


def test_the_built_ins_come_from_our_own_pyproject():
    found = installed()
    assert {f.name for f in found.found if f.builtin} == set(source_entry_points(ROOT))
    assert not found.refused and not found.notes
    assert found.owner("engine").entry_point == "engine = board_driver.players.engine:extension"


def test_a_good_outside_extension_is_found_after_the_built_ins(site):
    eps = site("club-screen", {"club": "club_ext:extension"},
               {"club_ext": GOOD.format(section="club")})  # fmt: skip
    found = find(builtins_eps() + eps)
    assert [f.name for f in found.found][-1] == "club"
    club = found.owner("club")
    assert club.distribution == "club-screen 0.1" and not club.builtin
    assert "club (club-screen 0.1)" in found.summary()
    assert isinstance(club.extension, Extension)



def test_an_entry_point_named_otherwise_is_taken_under_the_extensions_name_with_a_note(site):
    eps = site("club-screen", {"screen": "club_ext:extension"},
               {"club_ext": GOOD.format(section="club")})  # fmt: skip
    found = find(builtins_eps() + eps)
    assert found.owner("club") is not None and found.owner("screen") is None
    (note,) = found.notes
    assert note == (
        "extension 'screen = club_ext:extension' of club-screen 0.1: the entry point is "
        "named 'screen' but the extension's name is 'club': the extension's name wins (its "
        "section is [club], and the log names it club); name the entry point club too"
    )
    # magboard's own are named alike: no note about them.
    assert not find(builtins_eps()).notes

@pytest.mark.parametrize(
    ("source", "value", "why"),
    [
        ("import not_installed_anywhere\n", "bad_mod:extension",
         "cannot be imported (ModuleNotFoundError: No module named 'not_installed_anywhere')"),
        ("raise RuntimeError('boom at import')\n", "bad_mod:extension",
         "cannot be imported (RuntimeError: boom at import)"),
        ("import sys\nsys.exit(3)\n", "bad_mod:extension", "cannot be imported (SystemExit: 3)"),
        ("x = 1\n", "bad_mod:extension",
         "cannot be imported (AttributeError: module 'bad_mod' has no attribute 'extension')"),
        ("extension = {'name': 'x'}\n", "bad_mod:extension",
         "bad_mod:extension is a dict ({'name': 'x'}), not an extension object"),
        (GOOD.format(section="bad") + "Cls = Good\n", "bad_mod:Cls",
         "bad_mod:Cls is the class Good, not an extension object: name a module-level "
         "instance (extension = Good())"),
    ],
)  # fmt: skip
def test_an_entry_point_that_is_no_extension_is_refused_naming_its_package(
    site, source, value, why
):
    eps = site("magboard-bad", {"bad": value}, {"bad_mod": source})
    found = find(builtins_eps() + eps)
    assert found.owner("bad") is None
    (refused,) = found.refused
    assert refused.distribution == "magboard-bad 0.1"
    assert refused.section == "bad"
    assert why in refused.why
    assert str(refused).startswith(f"extension 'bad = {value}' of magboard-bad 0.1 refused: ")
    assert {f.name for f in found.found} == {f.name for f in installed().found}  # runs on


@pytest.mark.parametrize(
    ("section", "why"),
    [
        ("web", "it takes the section [web], which is a built-in extension's"),
        ("game", "it takes the section [game], which is magboard's own"),
        ("Club Screen", "its name 'Club Screen' cannot be a config section"),
    ],
)
def test_a_section_that_is_not_the_packages_to_take_is_refused(site, section, why):
    eps = site("magboard-taker", {"taker": "taker_mod:extension"},
               {"taker_mod": GOOD.format(section=section)})  # fmt: skip
    found = find(builtins_eps() + eps)
    (refused,) = found.refused
    assert why in refused.why
    if section == "web":  # the built-in stays
        assert found.owner("web").builtin
        assert found.owner("web").extension is installed().owner("web").extension


def test_two_packages_taking_one_section_the_first_by_name_keeps_it(site):
    first = site("aaa-club", {"club": "club_a:extension"}, {"club_a": GOOD.format(section="club")})
    second = site("zzz-club", {"club": "club_z:extension"}, {"club_z": GOOD.format(section="club")})
    found = find(builtins_eps() + second + first)
    assert found.owner("club").distribution == "aaa-club 0.1"
    (refused,) = found.refused
    assert refused.distribution == "zzz-club 0.1"
    assert "which is the extension of aaa-club 0.1" in refused.why


def test_an_extension_whose_section_cannot_be_read_is_refused(site):
    source = GOOD.format(section="odd").replace(
        'checks = {"enabled": boolean}', 'checks = {"enabled": boolean, "colour": boolean}'
    )
    eps = site("magboard-odd", {"odd": "odd_mod:extension"}, {"odd_mod": source})
    (refused,) = find(eps).refused
    assert "its checks or secrets name keys its config_class Config has not: colour" in (
        refused.why
    )


def test_stale_metadata_never_loses_a_built_in(site):
    """An install from before a pull that added a built-in: pyproject.toml's list wins."""
    stale = site("magboard", {"engine": "board_driver.players.engine:extension"})
    found = find(stale, source=source_entry_points(ROOT))
    assert {f.name for f in found.found} == {f.name for f in installed().found}
    (note,) = found.notes
    assert note.startswith("magboard's installed metadata is older than its pyproject.toml")
    missing = sorted(set(source_entry_points(ROOT) or ()) - {"engine"})
    assert f"missing: {', '.join(missing)}" in note
    assert "install it again (`make`, or `pip install -e .`)" in note


def test_an_installed_copy_has_no_source_list(tmp_path):
    assert source_entry_points(tmp_path) is None  # no pyproject.toml beside the package
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "other"\n')
    assert source_entry_points(tmp_path) is None  # another project's


def test_a_section_nobody_reads_is_named_with_a_guess():
    with pytest.raises(ConfigError) as caught:
        parse_config('[engien]\nside = "white"\n', source="c.toml")
    (problem,) = caught.value.problems
    assert problem.startswith("[engien]: unknown section: did you mean [engine]? Or the "
                              "package of an extension that reads [engien] is not installed")


class _Config:
    """A config as start_extensions reads it: each section by name."""

    def __init__(self, **sections: object) -> None:
        self.sections = sections

    def section(self, name: str) -> object:
        return self.sections[name]


def test_start_and_stop_in_order_a_plain_def_too_and_the_log_names_those_off(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
):
    """The daemon's side: each enabled extension started (a plain ``def start`` and
    ``def stop`` are taken as well as ``async def``), stopped the last first; the log says
    which were found, started, and not turned on; one failing to start is logged and the
    others run."""
    import asyncio
    import logging
    from dataclasses import dataclass

    from board_driver.service import extensions as service
    from board_driver.service.discovery import Found, Installed

    said: list[str] = []

    @dataclass(frozen=True)
    class On:
        enabled: bool = True

    class Running:
        def __init__(self, name: str) -> None:
            self.name = name

        def stop(self) -> None:  # a plain def
            said.append(f"stop {self.name}")

    class Plain(Extension):
        name, config_class = "plain", On

        def start(self, door, section):  # a plain def: taken too
            said.append("start plain")
            return Running("plain")

    class Async(Extension):
        name, config_class = "asynchronous", On

        async def start(self, door, section):
            said.append("start asynchronous")
            return Running("asynchronous")

    class Broken(Extension):
        name, config_class = "broken", On

        async def start(self, door, section):
            raise RuntimeError("its own bug")

    class Off(Extension):
        name, config_class = "off", On

        def enabled(self, section, config):
            return False

    exts = [Plain(), Async(), Broken(), Off()]
    found = Installed(tuple(Found(e, f"{e.name} = m:x", "pkg 1", False) for e in exts))
    monkeypatch.setattr(service, "installed", lambda: found)
    config = _Config(**{e.name: On() for e in exts})

    async def run() -> None:
        running = await service.start_extensions(object(), config)
        assert [name for name, _ in running] == ["plain", "asynchronous"]
        await service.stop_extensions(running)

    with caplog.at_level(logging.INFO, logger="magboard"):
        asyncio.run(run())
    assert said == ["start plain", "start asynchronous", "stop asynchronous", "stop plain"]
    text = caplog.text
    assert "extensions found: plain, asynchronous, broken, off (pkg 1)" in text
    assert "broken: failed to start (the board works on without it)" in text
    assert "extensions started: plain, asynchronous\n" in text
    assert "extensions left off (their config sections do not turn them on): off" in text
