"""A real Mosquitto for these tests (tests/mosquitto.py)."""

from tests.mosquitto import mosquitto, no_broker_left_running  # noqa: F401
