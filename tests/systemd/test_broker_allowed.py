"""The service may reach the hall's broker ([broadcast]) wherever it is, and the unit
stays rated at most 1.5 by ``systemd-analyze security`` (test_install.py)."""

from __future__ import annotations

import ipaddress
from pathlib import Path

UNIT = Path(__file__).resolve().parents[2] / "systemd" / "magboard.service"
NAMED = {
    "any": ["0.0.0.0/0", "::/0"],
    "localhost": ["127.0.0.0/8", "::1/128"],
    "link-local": ["169.254.0.0/16", "fe80::/10"],
    "multicast": ["224.0.0.0/4", "ff00::/8"],
}


def _values(key: str) -> list[str]:
    out = []
    for line in UNIT.read_text().splitlines():
        if line.startswith(f"{key}="):
            out += line.split("=", 1)[1].split()
    return out


def _in(address: str, entries: list[str]) -> bool:
    ip = ipaddress.ip_address(address)
    for entry in entries:
        for network in NAMED.get(entry, [entry]):
            net = ipaddress.ip_network(network)
            if ip.version == net.version and ip in net:
                return True
    return False


def _allowed(address: str) -> bool:
    # systemd: an address in IPAddressAllow= is allowed, else one in IPAddressDeny= is not.
    return _in(address, _values("IPAddressAllow")) or not _in(address, _values("IPAddressDeny"))


def test_a_broker_on_the_hall_network_or_beyond_may_be_reached():
    for broker in ("192.168.1.20", "10.0.0.5", "172.20.1.1", "127.0.0.1", "fd12::7",
                   "203.0.113.9"):
        assert _allowed(broker), broker
    assert {"AF_INET", "AF_INET6"} <= set(_values("RestrictAddressFamilies"))
