"""Extensions installed from packages of their own (issue 33, items 1 and 2), as a user
installs them: pip installs the packages of ``outside/``, and the one written out in
``docs/architecture.md`` ("Write your own connector"), from a temporary directory into a
virtual environment where magboard is installed, and magboard runs there.

The environment is made once for the module: ``python -m venv --without-pip``, with the
tests' own environment (magboard, installed editable, and its libraries) added as a site
directory by a ``.pth`` file, as ``--system-site-packages`` adds a system's; pip (the tests')
then installs the packages into it, built with setuptools and no download. A working
connector (``magboard-clubscreen``), three that are refused (``magboard-broken``,
``-notone``, ``-shadow``) and one that needs a device (``magboard-lamp``) are installed
side by side: the board runs with the first and on without the refused ones.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import sysconfig
import tomllib
import urllib.request
from pathlib import Path

import pytest

from board_driver.physical.leds import Renderer
from board_driver.physical.squares import square
from board_driver.service.config.sections import DEFAULT_COLOURS
from board_driver.service.discovery import source_entry_points
from tests.board_driver.daemon_process import (
    ROOT,
    DaemonProcess,
    free_port,
    no_daemon_left_running,  # noqa: F401 - an autouse fixture
    run_magboard,
    write_config,
)

PACKAGES = Path(__file__).resolve().parent / "outside"
#: magboard's own extensions, as `config check` lists them.
BUILT_INS = ", ".join(sorted(source_entry_points(ROOT) or ()))
ARCHITECTURE = ROOT / "docs" / "architecture.md"
CYAN = Renderer().correct(DEFAULT_COLOURS["cyan"])

SCHOLARS_MATE = [
    "gap 80",
    "lift e2", "place e4", "wait 300", "lift e7", "place e5", "wait 300",
    "lift d1", "place h5", "wait 300", "lift b8", "place c6", "wait 300",
    "lift f1", "place c4", "wait 300", "lift g8", "place f6", "wait 300",
    "lift f7", "lift h5", "place f7",
]  # fmt: skip

REFUSED = {
    "broken": (
        "extension 'broken = magboard_broken:extension' of magboard-broken 0.1.0 refused: "
        "cannot be imported (ModuleNotFoundError: No module named "
        "'magboard_broken_needs_this_library') (the board runs on without it)"
    ),
    "notone": (
        "extension 'notone = magboard_notone:extension' of magboard-notone 0.1.0 refused: "
        "magboard_notone:extension is a function (extension), not an extension object (an "
        "instance of a subclass of board_driver.door.extension.Extension) (the board runs on "
        "without it)"
    ),
    "shadow": (
        "extension 'shadow = magboard_shadow:extension' of magboard-shadow 0.1.0 refused: "
        "it takes the section [web], which is a built-in extension's (the board runs on "
        "without it)"
    ),
}


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The interpreter of a virtual environment with magboard and the outside packages."""
    root = tmp_path_factory.mktemp("outside")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", root / "venv"], check=True)
    python = root / "venv" / "bin" / "python"
    site = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True, capture_output=True, text=True,
    ).stdout.strip()  # fmt: skip
    ours = sysconfig.get_paths()["purelib"]
    Path(site, "magboard-beside.pth").write_text(f"import site; site.addsitedir({ours!r})\n")
    sources = root / "src"
    shutil.copytree(PACKAGES, sources, ignore=shutil.ignore_patterns("*.egg-info", "build"))
    for name, text in page_files().items():
        if name in TRIAL:
            continue
        (sources / "movelog" / name).parent.mkdir(parents=True, exist_ok=True)
        (sources / "movelog" / name).write_text(text)
    names = ("clubscreen", "broken", "notone", "shadow", "lamp", "movelog")
    installed = subprocess.run(
        [python, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
         "--no-index", "--disable-pip-version-check", *(str(sources / name) for name in names)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert installed.returncode == 0, installed.stdout + installed.stderr
    return python


def started_names(log: str) -> list[str]:
    """The extensions the log says were started (``extensions started: a, b``)."""
    line = log.split("extensions started: ", 1)[1].splitlines()[0]
    return line.split(", ")


def page_files() -> dict[str, str]:
    """The files of the connector that docs/architecture.md writes out, by path: each
    fenced block of its "Write your own connector" that starts with a ``# path`` line."""
    text = ARCHITECTURE.read_text(encoding="utf-8")
    section = text.split("## Write your own connector", 1)[1].split("\n## ", 1)[0]
    files = {}
    for block in section.split("```")[1::2]:
        body = block.split("\n", 1)[1]
        first = body.split("\n", 1)[0]
        if first.startswith("# ") and first[2:].strip().endswith((".py", ".toml", ".script")):
            files[first[2:].strip()] = body
    return files


#: What the page writes besides the package: its trial's config and script.
TRIAL = ("config.toml", "game.script")


def config(directory: Path, extra: str) -> Path:
    return write_config(directory, extra)


def test_config_check_reads_the_outside_section_with_its_own_checks(venv: Path, tmp_path: Path):
    good = config(tmp_path / "good", '[clubscreen]\nenabled = true\nseen_file = "/tmp/x"\n')
    checked = run_magboard("config", "check", "--config", str(good), python=venv)
    assert checked.returncode == 0, checked.stderr
    assert "clubscreen (magboard-clubscreen 0.1.0)" in checked.stdout
    assert f"{BUILT_INS} (magboard " in checked.stdout

    bad = config(tmp_path / "bad", '[clubscreen]\nenabled = true\ncolour = "purple"\n')
    checked = run_magboard("config", "check", "--config", str(bad), python=venv)
    assert checked.returncode == 2
    assert (
        '[clubscreen] colour: "purple" is not one of "r", "o", "y", "g", "b", "c", "w"'
        in checked.stderr
    )
    assert "Traceback" not in checked.stderr
    across = config(tmp_path / "across", "[clubscreen]\nenabled = true\n")
    checked = run_magboard("config", "check", "--config", str(across), python=venv)
    assert checked.returncode == 2
    assert "[clubscreen] seen_file: needed when enabled" in checked.stderr  # its check across

    # Without the package, the same section is one nobody reads: said so, not a traceback.
    plain = run_magboard("config", "check", "--config", str(good))
    assert plain.returncode == 2
    assert "[clubscreen]: unknown section" in plain.stderr
    assert "not installed" in plain.stderr


def test_config_show_shows_the_outside_section_with_its_secret_masked(venv: Path, tmp_path: Path):
    path = config(tmp_path, '[clubscreen]\ntoken = "club-secret-123"\ncolour = "g"\n')
    shown = run_magboard("config", "show", "--config", str(path), python=venv)
    assert shown.returncode == 0, shown.stderr
    assert "club-secret-123" not in shown.stdout
    section = tomllib.loads(shown.stdout)["clubscreen"]
    assert section["colour"] == "g" and section["enabled"] is False
    assert section["token"] != "club-secret-123" and section["token"]  # masked, not dropped
    assert section["event"] == "Club night"


def test_run_starts_it_when_ready_it_follows_a_game_lights_and_acts_and_stops_first(
    venv: Path, tmp_path: Path
):
    seen = tmp_path / "seen.txt"
    port = free_port()
    write_config(
        tmp_path,
        f'[web]\nport = {port}\n[clubscreen]\nenabled = true\nseen_file = "{seen}"\n'
        "[broken]\nenabled = true\n",  # its extension refused: run runs on without it
    )
    daemon = DaemonProcess(tmp_path, python=venv)
    daemon.wait_ready()  # the log's lines come on their own pipe: waited for too
    assert daemon.wait_for(lambda: "ready: game" in daemon.output()), daemon.output()
    lines = daemon.output().splitlines()
    found = next(line for line in lines if "extensions found:" in line)
    assert "clubscreen (magboard-clubscreen 0.1.0)" in found
    assert "web (magboard " in found
    # Started once the board's own path runs (its game resumed from the store), before
    # systemd is told the service is ready (the page and the extensions up).
    assert {"clubscreen", "engine", "web"} <= set(started_names(daemon.output()))
    off = "extensions left off (their config sections do not turn them on): broadcast, "
    assert off + "emulation, hall, lichess" in daemon.output()
    assert "[broken]: not used: the extension that reads it" in daemon.output()
    started = next(i for i, line in enumerate(lines) if "clubscreen: started" in line)
    board = next(i for i, line in enumerate(lines) if "new game 1" in line)
    ready = next(i for i, line in enumerate(lines) if "ready: game" in line)
    assert board < started < ready, lines

    # The three refused, each named with its package; the board runs on without them.
    for words in REFUSED.values():
        assert words in daemon.output()

    daemon.send(*SCHOLARS_MATE[:4])  # 1. e4: the layer lights e4 once the flash is over
    assert daemon.wait_for(lambda: daemon.leds()[square("e4")] == CYAN, 5), daemon.leds()
    daemon.send(*SCHOLARS_MATE[4:])
    assert daemon.wait_for(lambda: "game over" in daemon.output()), daemon.output()
    assert daemon.wait_for(lambda: daemon.leds()[square("f7")] == CYAN, 5), daemon.leds()
    assert daemon.wait_for(lambda: "over 1-0 checkmate" in seen.read_text()), seen.read_text()

    # The built-in page is served: [web] was not taken by magboard-shadow.
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10) as page:
        assert page.status == 200 and b"<html" in page.read().lower()

    daemon.terminate()
    assert daemon.proc.returncode == 0, daemon.output()
    assert seen.read_text().splitlines() == [
        "started at ply 0",
        "move 1 e4 e2e4", "move 2 e5 e7e5", "move 3 Qh5 d1h5", "move 4 Nc6 b8c6",
        "move 5 Bc4 f1c4", "move 6 Nf6 g8f6", "move 7 Qxf7# h5f7",
        "over 1-0 checkmate",
        "stopped at ply 7",  # stopped while the board was still there to ask
    ]  # fmt: skip
    lines = daemon.output().splitlines()
    stopped = next(i for i, line in enumerate(lines) if "clubscreen: stopped" in line)
    assert stopped < len(lines) - 1 and "stopped" in lines[-1], lines[stopped:]
    pgn = run_magboard("pgn", "--config", str(daemon.config), python=venv)
    assert '[Event "Club night"]' in pgn.stdout, pgn.stdout + pgn.stderr
    assert "Traceback" not in daemon.output()


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_a_bad_outside_extension_is_refused_naming_its_package(
    venv: Path, tmp_path: Path, name: str
):
    """One that cannot be imported, one that is not an Extension, one that takes a
    built-in's section: refused and named. A config without a section of theirs stays
    usable; one with such a section fails `config check` (what it asks would not happen;
    run runs on without it: the run test above)."""
    path = config(tmp_path / "without", "")
    checked = run_magboard("config", "check", "--config", str(path), python=venv)
    assert checked.returncode == 0, checked.stderr
    assert f"magboard: warning: {REFUSED[name]}" in checked.stderr
    assert "Traceback" not in checked.stderr
    if name == "shadow":
        return  # its section is [web]: magboard's own, read by the built-in
    path = config(tmp_path / "with", f"[{name}]\nenabled = true\n")
    checked = run_magboard("config", "check", "--config", str(path), python=venv)
    assert checked.returncode == 2, checked.stderr
    assert "config names an extension that was refused" in checked.stderr
    assert (
        f"{path}: [{name}]: not used: the extension that reads it "
        f"('{name} = magboard_{name}:extension' of magboard-{name} 0.1.0) was refused: "
    ) in checked.stderr
    assert ": ok" not in checked.stdout
    assert "Traceback" not in checked.stderr


def test_an_install_that_predates_a_new_built_in_loses_none(venv: Path, tmp_path: Path):
    """magboard's metadata written before a pull added a built-in (a developer who did not
    install again): the source checkout's pyproject.toml is used, and a note says to
    install again."""
    stale = tmp_path / "stale"
    dist = stale / "magboard-0.1.0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: magboard\nVersion: 0.1.0\n")
    (dist / "entry_points.txt").write_text(
        "[magboard.extensions]\nengine = board_driver.players.engine:extension\n"
    )
    # Run from elsewhere than the checkout, the stale metadata first on the path.
    path = config(tmp_path / "c", "")
    checked = run_magboard(
        "config", "check", "--config", str(path), python=venv, cwd=tmp_path,
        env={"PYTHONPATH": str(stale)},
    )  # fmt: skip
    assert checked.returncode == 0, checked.stderr
    assert f"{BUILT_INS} (magboard 0.1.0)" in checked.stdout
    assert "magboard's installed metadata is older than its pyproject.toml (missing: " in (
        checked.stderr
    )
    assert "`make`, or `pip install -e .`" in checked.stderr



LAMP_NOTE = (
    "extension 'lamps = magboard_lamp:extension' of magboard-lamp 0.1.0: the entry point is "
    "named 'lamps' but the extension's name is 'lamp': the extension's name wins (its "
    "section is [lamp], and the log names it lamp); name the entry point lamp too"
)


def test_an_entry_point_named_otherwise_than_its_extension_is_said_and_the_name_wins(
    venv: Path, tmp_path: Path
):
    path = config(tmp_path, "[lamp]\nenabled = true\n")
    checked = run_magboard("config", "check", "--config", str(path), python=venv)
    assert checked.returncode == 0, checked.stderr
    assert f"magboard: warning: {LAMP_NOTE}" in checked.stderr
    assert "lamp (magboard-lamp 0.1.0)" in checked.stdout
    lamps = config(tmp_path / "lamps", "[lamps]\nenabled = true\n")
    checked = run_magboard("config", "check", "--config", str(lamps), python=venv)
    assert checked.returncode == 2 and "[lamps]: unknown section: did you mean [lamp]?" in (
        checked.stderr
    )

    daemon = DaemonProcess(tmp_path, python=venv)
    daemon.wait_ready()
    assert daemon.wait_for(lambda: "lamp: started" in daemon.output()), daemon.output()
    assert LAMP_NOTE in daemon.output()
    assert "lamp" in started_names(daemon.output())
    daemon.terminate()
    assert daemon.proc.returncode == 0, daemon.output()


def test_an_environment_the_config_cannot_have_fails_check_and_run_alike_naming_it(
    venv: Path, tmp_path: Path
):
    """validate_environment's ExtensionConfigError: `config check` asks it too, and both
    name the extension; run's log says the status it exits with."""
    missing = tmp_path / "no-such-lamp"
    path = config(tmp_path, f'[lamp]\nenabled = true\ndevice = "{missing}"\n')
    said = f"lamp: its device {missing} does not exist (plug the lamp in"
    checked = run_magboard("config", "check", "--config", str(path), python=venv)
    assert checked.returncode == 2, checked.stdout + checked.stderr
    assert f"magboard: config is not usable:\n{path}: {said}" in checked.stderr
    ran = run_magboard("run", "--sim", "--config", str(path), python=venv, timeout=60)
    assert ran.returncode == 2, ran.stderr
    assert said in ran.stderr
    assert "stopped (exit 2)" in ran.stderr and "exit 1" not in ran.stderr
    assert "Traceback" not in ran.stderr

    missing.touch()  # plugged in: both agree again
    checked = run_magboard("config", "check", "--config", str(path), python=venv)
    assert checked.returncode == 0, checked.stderr


def test_a_file_in_folders_not_made_yet_passes_check_and_run_makes_them_from_its_folder(
    venv: Path, tmp_path: Path
):
    """A written file's folders are made before the extension starts, as the store's are;
    a relative path is taken from the folder magboard runs in, like [store] path's."""
    here = tmp_path / "here"
    here.mkdir()
    path = config(tmp_path, '[movelog]\nenabled = true\npath = "log/by/night/moves.txt"\n')
    checked = run_magboard("config", "check", "--config", str(path), python=venv, cwd=here)
    assert checked.returncode == 0, checked.stderr
    (tmp_path / "game.script").write_text(page_files()["game.script"])
    daemon = DaemonProcess(tmp_path, "--script", str(tmp_path / "game.script"), script=None,
                           python=venv, cwd=here)  # fmt: skip
    daemon.wait_ready()
    assert daemon.wait_for(lambda: "script finished" in daemon.output()), daemon.output()
    daemon.terminate()
    assert daemon.proc.returncode == 0, daemon.output()
    moves = here / "log" / "by" / "night" / "moves.txt"
    assert moves.read_text().splitlines() == ["# game 1 at ply 0: ", "1 e4", "2 e5"]
    assert "movelog: failed to start" not in daemon.output()

    # A folder that cannot be made (a file stands where it would be): check says so.
    (here / "taken").write_text("not a folder")
    path = config(tmp_path / "c", '[movelog]\nenabled = true\npath = "taken/moves.txt"\n')
    checked = run_magboard("config", "check", "--config", str(path), python=venv, cwd=here)
    assert checked.returncode == 2
    assert "[movelog] path: taken/moves.txt cannot be made: taken is not a directory" in (
        checked.stderr
    )



def test_the_page_writes_out_a_whole_connector():
    assert set(page_files()) == {
        "pyproject.toml", "magboard_movelog/__init__.py", "magboard_movelog/watcher.py", *TRIAL
    }  # fmt: skip


def test_the_connector_of_the_architecture_page_works(venv: Path, tmp_path: Path):
    """What docs/architecture.md says a reader gets: checked, shown, started, lit, acting."""
    bad = config(tmp_path / "bad", '[movelog]\nenabled = true\ncolour = "purple"\n')
    checked = run_magboard("config", "check", "--config", str(bad), python=venv)
    assert checked.returncode == 2
    assert '[movelog] colour: "purple" is not one of "r", "o", "y", "g", "b", "c", "w"' in (
        checked.stderr
    )
    long = config(tmp_path / "long", f'[movelog]\nevent = "{"x" * 81}"\n')
    checked = run_magboard("config", "check", "--config", str(long), python=venv)
    assert "[movelog] event: 81 characters is too long for an event's name" in checked.stderr

    # The page's trial, as it writes it: its config (in this test's directory, not /tmp),
    # a token added to see it masked, and its script played by `run --script`.
    # Its folder is not made beforehand: the page has no `mkdir -p`.
    files = page_files()
    folder = tmp_path / "movelog"
    trial = files["config.toml"].replace("/tmp/movelog", str(folder))
    assert not folder.exists() and "mkdir" not in ARCHITECTURE.read_text()
    assert '[engine]\nreview = "off"' in trial  # no Stockfish review of the trial's game
    trial = trial.replace("[sim]\n", f'[sim]\nleds_file = "{tmp_path / "leds.json"}"\n')
    (tmp_path / "config.toml").write_text(
        trial.replace('colour = "c"', 'colour = "c"\ntoken = "s3cret"')
    )
    (tmp_path / "game.script").write_text(files["game.script"])
    shown = run_magboard("config", "show", "--config", str(tmp_path / "config.toml"),
                         python=venv)  # fmt: skip
    assert shown.returncode == 0, shown.stderr
    assert "s3cret" not in shown.stdout
    assert tomllib.loads(shown.stdout)["movelog"]["colour"] == "c"

    daemon = DaemonProcess(tmp_path, "--script", str(tmp_path / "game.script"), script=None,
                           python=venv)  # fmt: skip
    daemon.wait_ready()  # the log's lines come on their own pipe: waited for too
    assert daemon.wait_for(lambda: "extensions started: " in daemon.output()), daemon.output()
    assert "movelog (magboard-movelog 0.1.0)" in daemon.output()
    assert "movelog" in started_names(daemon.output())
    assert daemon.wait_for(lambda: "script finished" in daemon.output()), daemon.output()
    assert daemon.wait_for(lambda: daemon.leds()[square("e5")] == CYAN, 5), daemon.leds()
    daemon.terminate()
    assert daemon.proc.returncode == 0, daemon.output()
    moves = (folder / "moves.txt").read_text().splitlines()
    assert moves == ["# game 1 at ply 0: ", "1 e4", "2 e5"]
    pgn = run_magboard("pgn", "--config", str(daemon.config), python=venv)
    assert '[Event "Club night"]' in pgn.stdout, pgn.stdout + pgn.stderr
