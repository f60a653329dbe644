"""The house kept to its own rules (issue 33, item 3): the folders tell the flow, the top of
``board_driver/`` holds almost nothing, and a module that grows long is split where it holds
two ideas (or is named here, with the reason it is one)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("rules", "board_driver", "firmware_bridge")
#: A module past this many lines is looked at: most hold two ideas by then.
LONG = 600
#: The modules allowed past it, and why each is still one idea.
LONG_ONES = {
    "rules/position.py": "the position and its legal moves: one class, its move generator "
    "inlined for speed (bench/)",
    "firmware_bridge/link.py": "the serial link's state machine (handshake, resync, "
    "reconnect): one loop",
}
#: The folders of board_driver/, in the order of the flow, then what stands beside it.
FOLDERS = {
    "physical", "arbiter", "clock", "service", "door", "players", "connectors",  # the flow
    "hall", "boardscript", "commands", "spoken",  # beside it
}  # fmt: skip
#: The modules at the top of board_driver/: the package, ``python -m board_driver``, and
#: the one reader of files a person names (used from the simulator to the store).
TOP_MODULES = {"__init__.py", "__main__.py", "user_files.py"}


def lines_of(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def test_the_top_of_board_driver_is_its_folders_and_three_modules():
    top = ROOT / "board_driver"
    modules = {p.name for p in top.glob("*.py")}
    folders = {p.name for p in top.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert modules == TOP_MODULES, "put a new module in the folder of its idea"
    assert folders == FOLDERS, "a new folder of board_driver/ belongs in docs/architecture.md"


def test_the_architecture_page_names_every_folder():
    page = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    missing = [name for name in FOLDERS if f"`board_driver/{name}/`" not in page]
    assert not missing, f"docs/architecture.md says nothing of {missing}"


def test_no_module_grows_past_600_lines_unless_named_with_its_reason():
    long = {
        str(path.relative_to(ROOT)): lines_of(path)
        for package in PACKAGES
        for path in (ROOT / package).rglob("*.py")
        if lines_of(path) > LONG
    }
    unnamed = {path: n for path, n in long.items() if path not in LONG_ONES}
    assert not unnamed, f"past {LONG} lines: split where they hold two ideas: {unnamed}"
    short_again = sorted(set(LONG_ONES) - set(long))
    assert not short_again, f"no longer past {LONG} lines: out of LONG_ONES: {short_again}"
