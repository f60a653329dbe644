"""What an app makes of the bytes it receives: small readers written from the protocol
documents (DGT's ``dgtbrd13.h``, Millennium's ChessLink description), independent of the
emulation's own encoders, so that the tests check the bytes, not our reading of them.
"""

from __future__ import annotations

from typing import ClassVar

DGT_PIECES = {
    1: "P", 2: "R", 3: "N", 4: "B", 5: "K", 6: "Q",
    7: "p", 8: "r", 9: "n", 10: "b", 11: "k", 12: "q",
}  # fmt: skip


def board_fen(rows: list[list[str | None]]) -> str:
    """FEN placement from 8 rows of 8 (rank 8 first, file a first), None = empty."""
    out = []
    for row in rows:
        text, empty = "", 0
        for piece in row:
            if piece is None:
                empty += 1
            else:
                text += (str(empty) if empty else "") + piece
                empty = 0
        out.append(text + (str(empty) if empty else ""))
    return "/".join(out)


class DgtApp:
    """An app's side of DGT: it splits the stream into messages (header byte with bit 7
    set, 14-bit total length) and keeps the board from dumps and field updates."""

    def __init__(self) -> None:
        self.buffer = bytearray()
        self.messages: list[tuple[int, bytes]] = []
        self.fields: list[str | None] = [None] * 64  # DGT order: a8 = 0 .. h1 = 63

    def feed(self, data: bytes) -> list[tuple[int, bytes]]:
        self.buffer += data
        found = []
        while len(self.buffer) >= 3:
            assert self.buffer[0] & 0x80, f"a message starts with bit 7 set: {self.buffer.hex()}"
            assert not self.buffer[1] & 0x80 and not self.buffer[2] & 0x80
            size = (self.buffer[1] << 7) | self.buffer[2]
            if len(self.buffer) < size:
                break
            kind, body = self.buffer[0], bytes(self.buffer[3:size])
            assert all(b < 0x80 for b in body), f"data bytes below 0x80: {body.hex()}"
            del self.buffer[:size]
            found.append((kind, body))
            if kind == 0x86:
                assert len(body) == 64
                self.fields = [DGT_PIECES.get(code) for code in body]
            elif kind == 0x8E:
                assert len(body) == 2
                self.fields[body[0]] = DGT_PIECES.get(body[1])
        self.messages += found
        return found

    def fen(self) -> str:
        return board_fen([self.fields[r * 8 : r * 8 + 8] for r in range(8)])


def odd(byte: int) -> bool:
    return bin(byte).count("1") % 2 == 1


class ChessLinkApp:
    """An app's side of ChessLink: 7-bit characters with odd parity, each answer's length
    known from its letter, the block check verified; the board kept from ``s`` messages."""

    LENGTHS: ClassVar[dict[str, int]] = {"v": 7, "s": 67, "l": 3, "x": 3, "w": 7, "r": 7, "i": 10}

    def __init__(self) -> None:
        self.chars = ""
        self.messages: list[str] = []
        self.status: str | None = None

    def feed(self, data: bytes) -> list[str]:
        for byte in data:
            assert odd(byte), f"odd parity in bit 7: 0x{byte:02x}"
        self.chars += "".join(chr(b & 0x7F) for b in data)
        found = []
        while self.chars:
            length = self.LENGTHS.get(self.chars[0])
            assert length is not None, f"an answer starts with a known letter: {self.chars!r}"
            if len(self.chars) < length:
                break
            message, self.chars = self.chars[:length], self.chars[length:]
            xor = 0
            for char in message[:-2]:
                xor ^= ord(char)
            assert message[-2:] == f"{xor:02X}", f"block check of {message!r}"
            found.append(message[:-2])
            if message[0] == "s":
                self.status = message[1:65]
        self.messages += found
        return found

    def fen(self) -> str:
        assert self.status is not None
        rows = [[None if c == "." else c for c in self.status[r * 8 : r * 8 + 8]] for r in range(8)]
        return board_fen(rows)


def chesslink_command(body: str, *, parity: bool = True) -> bytes:
    """A command as an app sends it: block check, odd parity in bit 7 (or plain 7-bit)."""
    xor = 0
    for char in body:
        xor ^= ord(char)
    body += f"{xor:02X}"
    out = []
    for char in body:
        byte = ord(char)
        if parity and not odd(byte):
            byte |= 0x80
        out.append(byte)
    return bytes(out)


class PegasusApp(DgtApp):
    """An app's side of a DGT Pegasus: DGT's framing (as ``dgtdriver``'s ``DGTMessage``
    parses it), but the board is occupancy: a dump is 64 bytes of 0 or 1 and a field
    update says 0 or 1; the app knows pieces only from the moves it follows."""

    def __init__(self) -> None:
        super().__init__()
        self.occupied: list[bool] = [False] * 64  # DGT order: a8 = 0 .. h1 = 63

    def feed(self, data: bytes) -> list[tuple[int, bytes]]:
        found = super().feed(data)
        for kind, body in found:
            if kind == 0x86:
                assert set(body) <= {0, 1}, f"a dump of occupancy: {body.hex()}"
                self.occupied = [bool(b) for b in body]
            elif kind == 0x8E:
                assert body[1] in (0, 1), f"a field update of occupancy: {body.hex()}"
                self.occupied[body[0]] = bool(body[1])
        return found

    def occupancy(self) -> int:
        """The occupancy read, as a bitmap (bit i = square i, a1 = 0)."""
        return sum(
            1 << ((7 - index // 8) * 8 + index % 8) for index, on in enumerate(self.occupied) if on
        )


#: Chessnut's piece codes, as its API document lists them (0: empty).
CHESSNUT_PIECES = ["", "q", "k", "b", "p", "n", "R", "P", "r", "B", "N", "Q", "K"]


class ChessnutApp:
    """An app's side of a Chessnut eBoard, written from Chessnut's API document
    (``chessnutech/Chessnut_eBoards``): every message a kind byte, a length byte and that
    many bytes; a position (``01 24``) read as the document's JavaScript reads it (bytes 2
    to 33, h8 first, two squares a byte, the low four bits first); the battery (``2a``);
    the rest kept as they came."""

    def __init__(self) -> None:
        self.buffer = bytearray()
        self.messages: list[tuple[int, bytes]] = []
        self.board = ""
        self.battery: tuple[int, bool] | None = None

    def feed(self, data: bytes) -> list[tuple[int, bytes]]:
        self.buffer += data
        found = []
        while len(self.buffer) >= 2:
            size = 2 + self.buffer[1]
            if len(self.buffer) < size:
                break
            kind, body = self.buffer[0], bytes(self.buffer[2:size])
            del self.buffer[:size]
            found.append((kind, body))
            if kind == 0x01:
                assert len(body) == 36, f"a position is 36 bytes after its header: {body.hex()}"
                self.board = self.read_position(bytes([0x01, 0x24]) + body)
            elif kind == 0x2A:
                assert len(body) == 2
                self.battery = (body[0] & 0x7F, bool(body[0] & 0x80))
        self.messages += found
        return found

    @staticmethod
    def read_position(data: bytes) -> str:
        """The document's FEN conversion (rank 8 first, each rank from the a-file)."""
        fen, empty = "", 0
        for row in range(8):
            for col in range(7, -1, -1):
                index = (row * 8 + col) // 2 + 2
                value = data[index] & 0x0F if col % 2 == 0 else data[index] >> 4
                piece = CHESSNUT_PIECES[value]
                if piece == "":
                    empty += 1
                else:
                    if empty:
                        fen += str(empty)
                    fen += piece
                    empty = 0
            if empty:
                fen += str(empty)
            if row < 7:
                fen += "/"
            empty = 0
        return fen

    def fen(self) -> str:
        assert self.board, "no position read yet"
        return self.board

    def kinds(self) -> list[int]:
        return [kind for kind, _ in self.messages]


def chessnut_leds(*names: str) -> bytes:
    """The document's LED command for the squares ``names`` (e.g. ``"e2"``): ``0a 08`` and a
    byte a rank, rank 8 first; in each, as Chessnut's SDK and the public drivers set it, the
    a-file is bit 7."""
    rows = [0] * 8
    for name in names:
        file, rank = ord(name[0]) - ord("a"), int(name[1])
        rows[8 - rank] |= 0x80 >> file
    return bytes([0x0A, 0x08, *rows])
