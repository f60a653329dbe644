"""A loopback fake of the Lichess Board API (see :mod:`tests.fakes.lichess.server`)."""

from tests.fakes.lichess.server import FakeLichess

__all__ = ["FakeLichess"]
