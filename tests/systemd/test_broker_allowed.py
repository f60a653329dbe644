"""The service may reach the hall's broker ([broadcast]) on the local network, and the
unit stays rated at most 1.5 by ``systemd-analyze security`` (test_install.py)."""

from __future__ import annotations

import ipaddress
from pathlib import Path

UNIT = Path(__file__).resolve().parents[2] / "systemd" / "magboard.service"


def _values(key: str) -> list[str]:
    out = []
    for line in UNIT.read_text().splitlines():
        if line.startswith(f"{key}="):
            out += line.split("=", 1)[1].split()
    return out


def _allowed(address: str) -> bool:
    named = {"localhost": ["127.0.0.0/8", "::1/128"], "link-local": ["169.254.0.0/16",
             "fe80::/10"], "multicast": ["224.0.0.0/4", "ff00::/8"]}
    ip = ipaddress.ip_address(address)
    for entry in _values("IPAddressAllow"):
        for network in named.get(entry, [entry]):
            net = ipaddress.ip_network(network)
            if ip.version == net.version and ip in net:
                return True
    return False


def test_a_broker_on_the_hall_network_is_allowed_and_the_internet_is_not():
    assert _values("IPAddressDeny") == ["any"]
    for broker in ("192.168.1.20", "10.0.0.5", "172.20.1.1", "127.0.0.1", "fd12::7"):
        assert _allowed(broker), broker
    assert not _allowed("8.8.8.8")
    assert {"AF_INET", "AF_INET6"} <= set(_values("RestrictAddressFamilies"))
