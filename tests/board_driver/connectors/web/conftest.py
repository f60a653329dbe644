"""Fixtures for the web page's tests: a running daemon serving the page."""

from __future__ import annotations

import pytest

from tests.board_driver.connectors.web.daemon import WebDaemon


@pytest.fixture(scope="module")
def web_daemon(tmp_path_factory):
    daemon = WebDaemon(tmp_path_factory.mktemp("web"))
    yield daemon
    daemon.stop()
