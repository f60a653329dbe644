"""sd_notify over a real datagram socket, as systemd listens."""

from __future__ import annotations

import os
import socket

from board_driver.service.notify import Notifier


def test_messages_reach_a_path_socket_and_an_abstract_one(tmp_path):
    path = tmp_path / "notify"
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    listener.bind(str(path))
    notifier = Notifier(environ={"NOTIFY_SOCKET": str(path)})
    assert notifier.ready("game 1")
    assert notifier.watchdog() and notifier.stopping()
    assert listener.recv(100) == b"READY=1\nSTATUS=game 1"
    assert listener.recv(100) == b"WATCHDOG=1"
    assert listener.recv(100) == b"STOPPING=1"
    listener.close()

    name = f"magboard-test-{os.getpid()}"
    abstract = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    abstract.bind("\0" + name)
    assert Notifier(environ={"NOTIFY_SOCKET": "@" + name}).status("idle")
    assert abstract.recv(100) == b"STATUS=idle"
    abstract.close()


def test_no_manager_or_a_gone_one_is_not_an_error(tmp_path):
    assert not Notifier(environ={}).ready()
    assert not Notifier(environ={"NOTIFY_SOCKET": str(tmp_path / "gone")}).ready()


def test_watchdog_interval_is_half_the_timeout_and_only_for_this_process():
    assert Notifier(environ={"WATCHDOG_USEC": "10000000"}).watchdog_interval() == 5.0
    mine = {"WATCHDOG_USEC": "4000000", "WATCHDOG_PID": str(os.getpid())}
    assert Notifier(environ=mine).watchdog_interval() == 2.0
    other = {"WATCHDOG_USEC": "4000000", "WATCHDOG_PID": "1"}
    assert Notifier(environ=other).watchdog_interval() is None
