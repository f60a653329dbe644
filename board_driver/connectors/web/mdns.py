"""Announcing the page on the local network over mDNS, so a phone finds ``magboard.local``.

Only when the page listens on a non-loopback address (the Pi service), and only with the
``zeroconf`` package installed (the ``pi`` extra): without it the page is still served,
the log says how to reach it by address, and a warning says what to install.
"""

from __future__ import annotations

import ipaddress
import logging
import socket
from typing import Any

log = logging.getLogger("magboard")

SERVICE_TYPE = "_http._tcp.local."
HOST_NAME = "magboard"


def is_loopback(host: str) -> bool:
    """``127.0.0.1``, ``::1`` and ``localhost`` are; ``0.0.0.0`` and LAN addresses are not."""
    if host in ("localhost", ""):
        return host == "localhost"
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def lan_addresses(host: str) -> list[str]:
    """The IPv4 addresses a listener on ``host`` can be reached at (not loopback)."""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        address = None
    if address is not None and not address.is_unspecified:
        return [host]
    found: list[str] = []
    try:
        from zeroconf import get_all_addresses  # via ifaddr: every interface

        found = list(get_all_addresses())
    except ImportError:
        # The address the default route leaves from (a UDP connect sends no packet).
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            try:
                probe.connect(("192.0.2.1", 9))
                found = [probe.getsockname()[0]]
            except OSError:
                found = []
    return [a for a in found if not ipaddress.ip_address(a).is_loopback]


class Announcer:
    """Registers ``magboard._http._tcp.local.`` on host ``magboard.local``; closes it again."""

    def __init__(self) -> None:
        self._zeroconf: Any = None
        self._info: Any = None

    async def start(self, port: int, addresses: list[str]) -> bool:
        """True if announced; a missing package or a network error is a warning."""
        try:
            from zeroconf.asyncio import AsyncServiceInfo, AsyncZeroconf
        except ImportError:
            log.warning(
                "web page: not announced over mDNS (the zeroconf package is missing: "
                "pip install 'magboard[pi]'); reach it at %s",
                ", ".join(f"http://{a}:{port}/" for a in addresses) or "this machine's address",
            )
            return False
        if not addresses:
            log.warning("web page: no network address to announce over mDNS")
            return False
        try:
            self._info = AsyncServiceInfo(
                SERVICE_TYPE,
                f"{HOST_NAME}.{SERVICE_TYPE}",
                port=port,
                properties={"path": "/"},
                server=f"{HOST_NAME}.local.",
                addresses=[socket.inet_aton(a) for a in addresses],
            )
            self._zeroconf = AsyncZeroconf()
            await self._zeroconf.async_register_service(self._info, allow_name_change=True)
        except Exception as exc:  # the network's fault, not the board's
            log.warning("web page: mDNS announcement failed: %s", exc)
            await self.stop()
            return False
        log.info("web page announced over mDNS: http://%s.local:%d/", HOST_NAME, port)
        return True

    async def stop(self) -> None:
        zc, info = self._zeroconf, self._info
        self._zeroconf = self._info = None
        if zc is None:
            return
        try:
            if info is not None:
                await zc.async_unregister_service(info)
        except Exception:
            pass
        try:
            await zc.async_close()
        except Exception:
            pass
