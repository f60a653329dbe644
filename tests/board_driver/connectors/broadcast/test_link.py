"""The board's link to the hall's broker, as the log and the board's page say it: a broker
that refuses the board's user name or password (said so, tried again slowly, and connected
once the password is mended on the broker), and an account that does not own the board's
number (under the hall's access rules the broker takes its messages and drops them
without a word: the board sees its probe never come back, and says so).
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

from board_driver.connectors.broadcast import BroadcastConfig, broker
from board_driver.connectors.broadcast import publisher as publisher_module
from board_driver.connectors.broadcast.publisher import Publisher
from board_driver.connectors.broadcast.topics import Topics
from tests.board_driver.connectors.broadcast.fake_door import FakeDoor
from tests.board_driver.connectors.broadcast.listener import Listener
from tests.board_driver.connectors.web.daemon import WebDaemon
from tests.board_driver.connectors.web.test_browser import browser  # noqa: F401
from tests.mosquitto import Mosquitto

ACL = (Path(__file__).resolve().parents[4] / "docs" / "hall" / "aclfile").read_text()
T = Topics("magboard")


def accounts_broker(tmp_path) -> Mosquitto:
    users = {"3": "three", "7": "seven", "hall": "hall-pw"}
    return Mosquitto(tmp_path / "broker", users=users, acl=ACL).start()


def section(broker_: Mosquitto, **keys) -> BroadcastConfig:
    return BroadcastConfig(enabled=True, host=broker_.host, port=broker_.port,
                           prefix="magboard", **keys)


def states(door: FakeDoor) -> list[str]:
    return [e["state"] for e in door.announced if e["type"] == "broadcast"]


async def until(predicate, timeout: float = 15.0) -> bool:
    async with asyncio.timeout(timeout):
        while not predicate():
            await asyncio.sleep(0.02)
    return True


def test_refused_credentials_are_said_retried_slowly_and_mended_on_the_broker(
    tmp_path, monkeypatch, caplog
):
    monkeypatch.setattr(broker, "REFUSED_RETRY_S", 0.5)  # 30 s in the field
    brokers = accounts_broker(tmp_path)

    async def main():
        door = FakeDoor()
        with caplog.at_level(logging.INFO, logger="magboard"):
            publisher = await Publisher(door, section(brokers, board=7, username="7",
                                                      password="wrong")).start()
            await until(lambda: "refused" in states(door))
            assert publisher.state == "refused" and not publisher.connected
            assert 'refused user "7"' in publisher.message
            assert "[broadcast] username and password" in publisher.message
            await asyncio.sleep(1.2)  # a few attempts, said once
            refusals = [r for r in caplog.records if "refused" in r.getMessage()]
            assert len(refusals) == 1 and refusals[0].levelno == logging.ERROR
            assert not any("unreachable" in r.getMessage() for r in caplog.records)
            brokers.set_password("7", "wrong")  # the arbiter mends the broker's password file
            async with Listener(brokers, "magboard/#", username="hall",
                                password="hall-pw") as got:
                await until(lambda: publisher.state == "connected")
                door.play("e4")
                assert await got.until(lambda g: len(g.on("/game/1/move")) == 1)
            await publisher.stop()
        assert states(door) == ["refused", "connected"]

    try:
        asyncio.run(main())
    finally:
        brokers.stop()


def test_an_account_that_does_not_own_its_board_number_is_not_connected(
    tmp_path, monkeypatch, caplog
):
    """``username = "3"`` with ``board = 7``: the broker accepts the login and drops every
    message for board 7 (the docs' ACL); the board says so instead of "connected"."""
    monkeypatch.setattr(publisher_module, "PROBE_S", 1.0)  # 10 s in the field
    brokers = accounts_broker(tmp_path)

    async def main():
        door = FakeDoor()
        async with Listener(brokers, "magboard/#", username="hall", password="hall-pw") as got:
            with caplog.at_level(logging.INFO, logger="magboard"):
                wrong = await Publisher(door, section(brokers, board=7, username="3",
                                                      password="three")).start()
                await until(lambda: wrong.state == "not_delivered")
                door.play("e4")
                await asyncio.sleep(0.5)
                assert wrong.connected and wrong.published > 0  # the broker took them ...
                assert not got.messages  # ... and passed none on
                assert 'account "3" may not publish board 7' in wrong.message
                await wrong.stop()
            said = [r.getMessage() for r in caplog.records]
            assert not any("connected to" in line for line in said), said
            assert sum("passes none of them on" in line for line in said) == 1
            right = await Publisher(door, section(brokers, board=7, username="7",
                                                  password="seven")).start()
            await until(lambda: right.state == "connected")
            assert await got.until(lambda g: g.last(T.record(7, 1)) is not None)
            await right.stop()
        assert states(door) == ["not_delivered", "connected"]

    try:
        asyncio.run(main())
    finally:
        brokers.stop()


def test_the_boards_page_shows_the_broadcasts_state(tmp_path, browser):  # noqa: F811
    """A board whose broker refuses its password: its log says so, and so does its page."""
    brokers = accounts_broker(tmp_path)
    daemon = WebDaemon(tmp_path / "daemon", extra_config=f"""
[broadcast]
enabled = true
host = "{brokers.host}"
port = {brokers.port}
username = "7"
password = "not-seven"
board = 7
""")
    try:
        assert daemon.wait_for(lambda: 'broadcast: the broker' in daemon.output()
                               and 'refused user "7"' in daemon.output())
        assert daemon.state()["broadcast"]["state"] == "refused"
        page = browser.new_page()
        page.goto(daemon.url)
        page.wait_for_selector("#broadcast-status[data-status='refused']")
        text = page.locator("#broadcast-status").inner_text()
        assert "Hall broadcast not reaching the hall" in text and 'refused user "7"' in text
        page.close()
    finally:
        daemon.stop()
        brokers.stop()
