"""The daemon in this process, on the simulated board and lights, with its store under a
test's directory and no web page: for tests that reach into its door and its log."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from board_driver.physical.leds import Renderer, SimulatedLeds
from board_driver.physical.sensing.sim import SimulatedBoard
from board_driver.service.config import parse_config
from board_driver.service.daemon import Daemon, Hardware
from board_driver.service.notify import Notifier


def sim_daemon(directory: Path, board: SimulatedBoard, extra: str = "") -> Daemon:
    """A daemon whose store is ``directory/g.sqlite`` (``extra``: more config)."""
    config = parse_config(
        '[sensing]\nbackend = "sim"\n[leds]\nbackend = "sim"\n[web]\nenabled = false\n'
        f'[store]\npath = "{directory / "g.sqlite"}"\n{extra}'
    )
    hardware = Hardware(board, SimulatedLeds(), Renderer().render, sim_board=board)
    return Daemon(config, hardware, notifier=Notifier(environ={}))


async def until(predicate: Callable[[], object], timeout: float = 8.0) -> None:
    """Wait until ``predicate()`` holds (AssertionError after ``timeout`` seconds)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError("timed out")
        await asyncio.sleep(0.01)


async def start(daemon: Daemon) -> asyncio.Task:
    """Run ``daemon`` in a task; returns once it is ready (its starting lights gone)."""
    task = asyncio.create_task(daemon.run())
    ready = lambda: daemon.tracker is not None and daemon.lights.pattern is None  # noqa: E731
    await until(lambda: task.done() or ready())
    if task.done():
        task.result()  # its failure, raised here
    return task
