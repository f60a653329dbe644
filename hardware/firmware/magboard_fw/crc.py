"""CRC-16/CCITT-FALSE (polynomial 0x1021, initial value 0xFFFF), table driven.

The same checksum as the host's ``binascii.crc_hqx(data, 0xFFFF)``; CircuitPython's
``binascii`` has no ``crc_hqx``, so the firmware computes it itself.
"""

CRC_INIT = 0xFFFF


def _make_table():
    table = []
    for byte in range(256):
        crc = byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021 if crc & 0x8000 else crc << 1) & 0xFFFF
        table.append(crc)
    return tuple(table)


_TABLE = _make_table()


def crc16(data, crc=CRC_INIT):
    """CRC-16/CCITT-FALSE of ``data`` (bytes or bytearray): ``crc16(b"123456789") == 0x29B1``."""
    table = _TABLE
    for byte in data:
        crc = ((crc << 8) & 0xFF00) ^ table[(crc >> 8) ^ byte]
    return crc
