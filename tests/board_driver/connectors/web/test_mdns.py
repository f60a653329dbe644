"""mDNS: only off loopback, and a missing ``zeroconf`` package is a warning, not a failure."""

from __future__ import annotations

import asyncio
import logging
import sys
import urllib.request

import pytest

from board_driver.connectors.web.mdns import Announcer, is_loopback
from tests.board_driver.connectors.web.daemon import WebDaemon


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("localhost", True),
        ("::1", True),
        ("0.0.0.0", False),
        ("192.168.1.20", False),
        ("::", False),
    ],
)
def test_only_loopback_hosts_stay_unannounced(host, loopback):
    assert is_loopback(host) is loopback


def test_without_the_zeroconf_package_the_page_is_not_announced_and_says_why(monkeypatch, caplog):
    monkeypatch.setitem(sys.modules, "zeroconf", None)  # import zeroconf -> ImportError
    monkeypatch.setitem(sys.modules, "zeroconf.asyncio", None)
    with caplog.at_level(logging.WARNING, logger="magboard"):
        announced = asyncio.run(Announcer().start(8080, ["192.168.1.20"]))
    assert announced is False
    assert "zeroconf package is missing" in caplog.text
    assert "http://192.168.1.20:8080/" in caplog.text


def test_a_daemon_on_every_interface_serves_and_announces_or_says_why_not(tmp_path):
    daemon = WebDaemon(tmp_path, host="0.0.0.0")
    try:
        with urllib.request.urlopen(daemon.url + "api/state", timeout=5) as response:
            assert response.status == 200
        log = daemon.output()
        assert (
            "announced over mDNS: http://magboard.local:" in log
            or "zeroconf package is missing" in log
            or "mDNS announcement failed" in log
            or "no network address to announce" in log
        ), log
        assert daemon.proc.poll() is None  # never a reason to stop the board
    finally:
        daemon.stop()
    assert daemon.proc.returncode == 0
