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
