"""Fixtures for the web page's tests: a running daemon serving the page."""

from __future__ import annotations

import pytest

from tests.board_driver.connectors.web.daemon import WebDaemon

# The page's browser fixtures (Chromium, a daemon, a page on it), for every test here.
from tests.board_driver.connectors.web.test_browser import (  # noqa: F401
    browser,
    daemon,
    open_page,
)


@pytest.fixture(scope="module")
def web_daemon(tmp_path_factory):
    served = WebDaemon(tmp_path_factory.mktemp("web"))
    yield served
    served.stop()
