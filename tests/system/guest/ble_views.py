"""The app's view of the board, from the notifications it gets: a Pegasus app's occupancy (and
where pieces were put down), a Millennium app's statuses, a Chessnut app's positions. Used by
``ble_game.py`` in the phone's machine; no Bluetooth here, so the default suite checks it
(``tests/system/unit/test_guest_parts.py``)."""

from __future__ import annotations

from typing import ClassVar

import chess


def occupancy(board: chess.Board) -> int:
    return int(board.occupied)


# ------------------------------------------------------------------ the protocols


class PegasusView:
    """DGT's framing (a header byte with bit 7 set, a 14-bit length), occupancy dumps and
    field updates (0 or 1), as dgtdriver reads a Pegasus."""

    #: dgtdriver's DGTBoard.reset for a Pegasus, one write each; then update mode.
    OPENING: ClassVar[list[bytes]] = [
        b"\x40", b"\x45", b"\x4d", bytes([0x63, 7, 190, 245, 174, 221, 169, 95, 0]),
        b"\x47", b"\x40", b"\x42", b"\x44",
    ]  # fmt: skip

    def __init__(self) -> None:
        self.buffer = bytearray()
        self.kinds: list[int] = []
        self.occupied = 0
        #: Where pieces were put down since the app last took a move (a1 = 0).
        self.placed: set[int] = set()
        self.version = ""
        self.trademark = ""

    def feed(self, data: bytes) -> None:
        self.buffer += data
        while len(self.buffer) >= 3:
            if not self.buffer[0] & 0x80:
                del self.buffer[0]  # not a message's start: skip to one
                continue
            size = self.buffer[1] << 7 | self.buffer[2]
            if len(self.buffer) < size:
                return
            kind, body = self.buffer[0], bytes(self.buffer[3:size])
            del self.buffer[:size]
            self.kinds.append(kind)
            if kind == 0x86:
                self.occupied = sum(1 << _a1(i) for i, b in enumerate(body) if b)
                self.placed.clear()
            elif kind == 0x8E:
                bit = 1 << _a1(body[0])
                self.occupied = self.occupied | bit if body[1] else self.occupied & ~bit
                if body[1]:
                    self.placed.add(_a1(body[0]))
            elif kind == 0x93:
                self.version = f"{body[0]}.{body[1]}"
            elif kind == 0x92:
                self.trademark = body.decode(errors="replace")

    def ready(self) -> bool:
        return 0x86 in self.kinds

    @staticmethod
    def lights(squares: list[int]) -> bytes:
        body = [5, 2, 0, 2, *(_dgt(sq) for sq in squares), 0]
        return bytes([0x60, len(body), *body])

    OFF = bytes([0x60, 0x02, 0x00, 0x00])


class ChessLinkView:
    """Millennium's ChessLink: 7-bit characters with odd parity, each answer's length
    known from its letter, the block check verified (python-mchess's rules)."""

    LENGTHS: ClassVar[dict[str, int]] = {"v": 7, "s": 67, "l": 3, "x": 3, "w": 7, "r": 7, "i": 10}
    #: Version, the status on every change, the status.
    OPENING: ClassVar[list[str]] = ["V", "W0203", "S"]

    def __init__(self) -> None:
        self.chars = ""
        self.status = ""
        self.answers: list[str] = []
        self.bad = 0

    def feed(self, data: bytes) -> None:
        self.chars += "".join(chr(b & 0x7F) for b in data)
        while self.chars:
            length = self.LENGTHS.get(self.chars[0])
            if length is None:
                self.chars = self.chars[1:]
                self.bad += 1
                continue
            if len(self.chars) < length:
                return
            answer, self.chars = self.chars[:length], self.chars[length:]
            xor = 0
            for char in answer[:-2]:
                xor ^= ord(char)
            if answer[-2:] != f"{xor:02X}":
                self.bad += 1
                continue
            self.answers.append(answer[:-2])
            if answer[0] == "s":
                self.status = answer[1:65]

    def ready(self) -> bool:
        return bool(self.status)

    def board_fen(self) -> str:
        rows = []
        for rank in range(8):
            row, empty = "", 0
            for char in self.status[rank * 8 : rank * 8 + 8]:
                if char == ".":
                    empty += 1
                else:
                    row += (str(empty) if empty else "") + char
                    empty = 0
            rows.append(row + (str(empty) if empty else ""))
        return "/".join(rows)

    @staticmethod
    def command(body: str) -> bytes:
        xor = 0
        for char in body:
            xor ^= ord(char)
        body += f"{xor:02X}"
        return bytes(ord(c) | (0x80 if bin(ord(c)).count("1") % 2 == 0 else 0) for c in body)

    @classmethod
    def lights(cls, squares: list[int]) -> bytes:
        codes = ["00"] * 81
        for sq in squares:
            file, rank = sq & 7, sq >> 3
            for f in (file, file + 1):
                for r in (rank, rank + 1):
                    codes[f * 9 + (8 - r)] = "FF"  # LED 0 at a8's outer corner
        return cls.command("L32" + "".join(codes))

    OFF = b""  # set in main (X with its block check)


class ChessnutView:
    """Chessnut's eBoards, as Chessnut's public API document (``chessnutech/Chessnut_eBoards``)
    describes them: every message a kind byte, a length byte and that many bytes; the
    position (``01 24``) read as the document's JavaScript reads it; the battery (``2a``)
    as it says. Each notification is read alone, as the public drivers read them (a
    position cut in two would be two bad positions: ``cut`` counts them). The version
    (``28``, answering ``27``) is read as Chessnut's SDK reads it: the text from the fourth
    byte on."""

    POSITION = "1b7e8262-2877-41c3-b46e-cf057c562023"
    ANSWERS = "1b7e8273-2877-41c3-b46e-cf057c562023"
    PIECES: ClassVar[list[str]] = ["", "q", "k", "b", "p", "n", "R", "P", "r", "B", "N", "Q", "K"]
    #: The real-time report on (as the document says), the battery, the MCU's version.
    OPENING: ClassVar[list[bytes]] = [b"\x21\x01\x00", b"\x29\x01\x00", b"\x27\x01\x01"]
    OFF = bytes([0x0A, 0x08, 0, 0, 0, 0, 0, 0, 0, 0])

    def __init__(self) -> None:
        self.board = ""
        self.positions = 0
        self.cut = 0
        self.battery: list | None = None
        self.version = ""
        self.kinds: list[int] = []

    def feed(self, data: bytes) -> None:
        while len(data) >= 2:
            kind, size = data[0], 2 + data[1]
            message, data = data[:size], data[size:]
            self.kinds.append(kind)
            if kind == 0x01:
                if len(message) != 38:
                    self.cut += 1
                    continue
                self.board = self.read_position(message)
                self.positions += 1
            elif kind == 0x2A and len(message) == 4:
                self.battery = [message[2] & 0x7F, bool(message[2] & 0x80)]
            elif kind == 0x28 and len(message) > 3:
                self.version = message[3:].decode(errors="replace")

    @classmethod
    def read_position(cls, data: bytes) -> str:
        rows = []
        for row in range(8):
            text, empty = "", 0
            for col in range(7, -1, -1):
                index = (row * 8 + col) // 2 + 2
                piece = cls.PIECES[data[index] & 0x0F if col % 2 == 0 else data[index] >> 4]
                if not piece:
                    empty += 1
                    continue
                text += (str(empty) if empty else "") + piece
                empty = 0
            rows.append(text + (str(empty) if empty else ""))
        return "/".join(rows)

    def ready(self) -> bool:
        """The opening answered: the position, the battery and the version."""
        return bool(self.board) and self.battery is not None and bool(self.version)

    def board_fen(self) -> str:
        return self.board

    @staticmethod
    def lights(squares: list[int]) -> bytes:
        """The document's LED command: a byte a rank, rank 8 first; the a-file in bit 7 (as
        Chessnut's SDK and the public drivers set it)."""
        rows = [0] * 8
        for sq in squares:
            rows[7 - sq // 8] |= 0x80 >> (sq % 8)
        return bytes([0x0A, 0x08, *rows])


def _a1(dgt_field: int) -> int:
    """DGT's field (a8 = 0) as a square a1 = 0."""
    return (7 - dgt_field // 8) * 8 + dgt_field % 8


_dgt = _a1  # the same mapping both ways


def pegasus_moves(board: chess.Board, view: PegasusView) -> list[chess.Move]:
    """The legal moves in ``board`` that fit what a Pegasus app saw: the occupancy now and,
    since a capture leaves the taken piece's square occupied (occupancy alone cannot tell
    Nxb4 from Nxc3), where a piece was put down. DGT's app follows the field updates as they
    come. Takes the squares put down (the next move starts afresh); several moves are left
    only for a promotion, which the app asks its user to name."""
    fits = []
    for legal in board.legal_moves:
        after = board.copy(stack=False)
        after.push(legal)
        if occupancy(after) == view.occupied:
            fits.append(legal)
    placed, view.placed = view.placed, set()
    return [m for m in fits if m.to_square in placed] or fits
