import pytest

from tests.fakes.lichess import FakeLichess


@pytest.fixture
def fake():
    server = FakeLichess(keepalive_s=1.0).start()
    server.token = server.add_account("Ann", rating=1600)
    server.add_account("Bob", rating=1700)
    yield server
    server.stop()
