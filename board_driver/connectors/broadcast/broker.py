"""One MQTT connection to the hall's broker, as the board and the hall both make it.

The MQTT library is ``aiomqtt``: asyncio-native (the daemon is one asyncio loop, so the
publisher needs no thread of its own), a thin layer over ``paho-mqtt``, the Eclipse
reference client, for the protocol itself. A QoS 1 ``publish`` returns once the broker
has acknowledged the message, which is what "the broker has it" means for the board's
bookkeeping. Imported only where a connection is made.
"""

from __future__ import annotations

import logging
import ssl
from pathlib import Path
from typing import Any

import aiomqtt

#: Seconds between keep-alive pings: a board that vanishes is announced offline (its last
#: will) by the broker within 1.5 times this.
KEEPALIVE_S = 15
#: Seconds to wait for the broker to connect, acknowledge a message or a subscription.
TIMEOUT_S = 10.0
#: Seconds between two attempts to reach a lost broker: doubling from the first to the last.
RETRY_S = (0.5, 4.0)
#: Seconds between two attempts after the broker refused the user name or password: it
#: will not change its mind until someone mends them (in the config, or on the broker).
REFUSED_RETRY_S = 30.0
#: The broker's answers to a connection that mean "not with these credentials": MQTT
#: 3.1.1's 4 and 5, and the reason codes paho gives them (134, 135).
_REFUSED_CODES = frozenset({4, 5, 134, 135})


def tls_context(ca_file: str) -> ssl.SSLContext | None:
    """A TLS context trusting ``ca_file`` (None when it is empty: plain TCP)."""
    if not ca_file:
        return None
    return ssl.create_default_context(cafile=str(Path(ca_file).expanduser()))


def client(
    section: Any,
    *,
    identifier: str,
    will: aiomqtt.Will | None = None,
    max_queued_incoming: int = 0,
) -> aiomqtt.Client:
    """A client for the broker a ``[broadcast]`` or ``[hall]`` section names (``host``,
    ``port``, ``username``, ``password``, ``tls_ca``). Use it as ``async with``."""
    return aiomqtt.Client(
        hostname=section.host,
        port=section.port,
        username=section.username or None,
        password=section.password or None,
        identifier=identifier,
        will=will,
        tls_context=tls_context(section.tls_ca),
        keepalive=KEEPALIVE_S,
        timeout=TIMEOUT_S,
        clean_session=True,
        max_queued_incoming_messages=max_queued_incoming,
        logger=logging.getLogger("magboard.mqtt"),
    )


def describe(section: Any) -> str:
    """The broker as a log line names it (never the password)."""
    who = f"{section.username}@" if section.username else ""
    tls = " (TLS)" if section.tls_ca else ""
    return f"mqtt://{who}{section.host}:{section.port}{tls}"


def refused(exc: BaseException) -> bool:
    """Whether ``exc`` is the broker refusing the user name or password (it is reachable:
    trying again soon will not help).

    >>> refused(aiomqtt.MqttCodeError(5)), refused(aiomqtt.MqttError("timed out"))
    (True, False)
    """
    code = getattr(exc, "rc", None)
    return isinstance(exc, aiomqtt.MqttCodeError) and getattr(code, "value", code) in (
        _REFUSED_CODES
    )


class Backoff:
    """How long to wait before the next attempt to connect: doubling from
    ``RETRY_S[0]`` to ``RETRY_S[1]`` while the broker cannot be reached, and
    :data:`REFUSED_RETRY_S` when it refused the credentials.

    >>> backoff = Backoff()
    >>> [backoff.after(aiomqtt.MqttError("lost")) for _ in range(5)]
    [0.5, 1.0, 2.0, 4.0, 4.0]
    >>> backoff.after(aiomqtt.MqttCodeError(5))
    30.0
    """

    def __init__(self) -> None:
        self._next = RETRY_S[0]

    def reset(self) -> None:
        """Connected: the next loss starts from the shortest wait again."""
        self._next = RETRY_S[0]

    def after(self, exc: BaseException) -> float:
        if refused(exc):
            return REFUSED_RETRY_S
        wait, self._next = self._next, min(self._next * 2, RETRY_S[1])
        return wait


def refusal(section: Any, name: str, exc: BaseException) -> str:
    """What to say when the broker refused the credentials of section ``[name]``."""
    who = f'user "{section.username}"' if section.username else "a client without a user name"
    return (f"the broker {section.host}:{section.port} refused {who} ({exc}): check "
            f"[{name}] username and password against the broker's password file; trying "
            f"again every {REFUSED_RETRY_S:.0f} s")
