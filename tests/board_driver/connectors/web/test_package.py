"""The page ships whole inside the package: no CDN, no build step, nothing from outside."""

from __future__ import annotations

import fnmatch
import re
import tomllib

import pytest

from board_driver.connectors.web.server import STATIC_FILES
from board_driver.service.config import ConfigError, parse_config
from tests.board_driver.connectors.web.daemon import ROOT

STATIC = ROOT / "board_driver" / "connectors" / "web" / "static"


def test_every_page_file_is_package_data_and_served():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    globs = project["tool"]["setuptools"]["package-data"]["board_driver.connectors.web"]
    files = sorted(p.name for p in STATIC.iterdir())
    assert files == sorted(STATIC_FILES)
    for name in files:
        assert any(fnmatch.fnmatch(f"static/{name}", g) for g in globs), name


def test_the_page_loads_nothing_from_another_site():
    for path in STATIC.iterdir():
        text = path.read_text()
        assert not re.search(r"(src|href)\s*=\s*[\"']?(https?:)?//", text), path.name
        assert "@import" not in text and "url(http" not in text, path.name


def test_the_pages_protocols_are_dependencies_and_zeroconf_only_for_the_pi():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    for name in ("h11", "wsproto"):
        assert any(d.startswith(name) for d in project["dependencies"])
    # A web framework does not fit the daemon's memory: only the tests' fakes use one.
    assert not any(d.startswith("aiohttp") for d in project["dependencies"])
    assert any(d.startswith("zeroconf") for d in project["optional-dependencies"]["pi"])
    assert not any(d.startswith("zeroconf") for d in project["dependencies"])


def test_the_pages_language_is_read_and_a_bad_one_named():
    assert parse_config("").web.language == "en"
    assert parse_config('[web]\nlanguage = "de"\n').web.language == "de"
    with pytest.raises(ConfigError) as caught:
        parse_config('[web]\nlanguage = "it"\n', source="config.toml")
    assert '[web] language: "it" is not one of "en", "fr", "de", "es"' in str(caught.value)
