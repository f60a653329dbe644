"""A language's words put together: a move read aloud, a side, a piece, a list, a time.

The sentences are data (one module per language: :mod:`.en`, :mod:`.fr`, :mod:`.de`,
:mod:`.es`); this module only fills them in. A field whose value is a :class:`PieceWords`
or :class:`SideWords` gives the sentence every form the language has for it (``{piece}``,
``{the_piece}``, ``{the_piece_acc}``, ``{a_piece}``, ``{piece_plural}``,
``{the_piece_plural}``, ``{piece_it}`` ...;
``{side}``, ``{side_of}``, ``{side_to}``), and a field written with a capital (``{Side}``)
is the same words beginning a sentence:

>>> en, fr = Words("en"), Words("fr")
>>> en.move("Nf3"), fr.move("Nf3"), Words("de").move("Nxe5+"), Words("es").move("O-O-O")
('knight to f3', 'cavalier f3', 'Springer schlägt e5, Schach', 'enroque largo')
>>> fr.say("move.said", move=fr.move("Nf3+"))
'Cavalier f3, échec.'
>>> en.say("why.cannot_go", piece=PieceWords("rook"), **{"from": "a1", "to": "a4"})
'the rook on a1 cannot go to a4'
>>> fr.say("to_move", side=SideWords("black"))
'Trait aux noirs.'
>>> en.duration(272_400), fr.duration(61_000)
('4 minutes 32 seconds', '1 minute 1 seconde')
"""

from __future__ import annotations

import importlib
import re
import string
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any

#: The languages the board speaks, by code.
LANGUAGES = ("en", "fr", "de", "es")
#: SAN letters -> the pieces' names in the tables.
PIECE_LETTERS = {"N": "knight", "B": "bishop", "R": "rook", "Q": "queen", "K": "king"}
PIECE_KINDS = ("pawn", "knight", "bishop", "rook", "queen", "king")

_CASTLING = re.compile(r"^(O-O(?:-O)?)([+#]?)$")
_PIECE_MOVE = re.compile(r"^([NBRQK])([a-h]?[1-8]?)(x?)([a-h][1-8])([+#]?)$")
_PAWN_MOVE = re.compile(r"^([a-h])(?:x([a-h][1-8])|([1-8]))(?:=?([NBRQ]))?([+#]?)$")
#: Text that begins with a square or a file letter keeps its small letter ("e4", "d takes").
_LOWER_START = re.compile(r"^[a-h](?:[1-8]|\s|$)")


@dataclass(frozen=True)
class PieceWords:
    """A piece to name: its ``kind`` (``"knight"``), and ``colour`` (``"white"``) when its
    colour is said too (*the black knight*)."""

    kind: str
    colour: str | None = None


@dataclass(frozen=True)
class SideWords:
    """A side to name: ``"white"`` or ``"black"``."""

    side: str


def capitalized(text: str) -> str:
    """``text`` beginning a sentence: its first letter a capital, unless it begins with a
    square or a file (``e4`` stays ``e4``).

    >>> capitalized("knight to f3"), capitalized("e4"), capitalized("d takes e5")
    ('Knight to f3', 'e4', 'd takes e5')
    """
    if not text or _LOWER_START.match(text):
        return text
    return text[0].upper() + text[1:]


class _Fields(string.Formatter):
    """``{Name}`` is ``{name}`` beginning a sentence."""

    def get_value(self, key: int | str, args: Sequence[Any], kwargs: Mapping[str, Any]) -> Any:
        if isinstance(key, str) and key not in kwargs and key[:1].isupper():
            lower = key[0].lower() + key[1:]
            if lower in kwargs:
                return capitalized(str(kwargs[lower]))
        return super().get_value(key, args, kwargs)


_FORMATTER = _Fields()


def table(language: str) -> ModuleType:
    """The module of a language's words (ValueError naming the languages for another)."""
    if language not in LANGUAGES:
        known = ", ".join(LANGUAGES)
        raise ValueError(f"{language!r} is not one of the board's languages ({known})")
    return importlib.import_module(f"board_driver.spoken.{language}")


class Words:
    """The words of one language (``"en"``, ``"fr"``, ``"de"``, ``"es"``)."""

    def __init__(self, language: str = "en") -> None:
        self.language = language
        self.table = table(language)
        self.words: Mapping[str, str] = self.table.WORDS

    # ------------------------------------------------------------------ sentences

    def say(self, key: str, **fields: Any) -> str:
        """The sentence ``key`` of the table, its fields filled in (pieces and sides in
        every form the language has)."""
        return _FORMATTER.vformat(self.words[key], (), self.fields(fields))

    def fields(self, fields: Mapping[str, Any]) -> dict[str, Any]:
        """``fields`` with each :class:`PieceWords` and :class:`SideWords` spelled out, and
        each list said as a list (*a1, b1 and c1*)."""
        out: dict[str, Any] = {}
        for name, value in fields.items():
            if isinstance(value, list | tuple):
                out[name] = self.listed(value)
            elif isinstance(value, PieceWords):
                out.update(self.piece_fields(name, value))
            elif isinstance(value, SideWords):
                forms = self.table.SIDES[value.side]
                out[name] = forms["side"]
                out.update({f"{name}_{f}": text for f, text in forms.items() if f != "side"})
            else:
                out[name] = value
        return out

    def piece_fields(self, name: str, piece: PieceWords) -> dict[str, str]:
        """Every form of ``piece`` as fields named after ``name``: ``{name}``,
        ``{the_name}``, ``{the_name_acc}``, ``{a_name}``, ``{name_plural}``, ``{name_<form>}``."""
        forms = dict(self.table.PIECES[piece.kind])
        if piece.colour is not None:
            forms.update(self.table.COLOURED[piece.colour][piece.kind])
        out = {
            name: forms["bare"],
            f"the_{name}": forms["the"],
            f"the_{name}_acc": forms["the_acc"],
            f"a_{name}": forms["a"],
            f"{name}_plural": forms["plural"],
            f"the_{name}_plural": forms["the_plural"],
        }
        for form, text in forms.items():
            out.setdefault(f"{name}_{form}", text)
        return out

    def side(self, side: str) -> str:
        """A side's name as a subject (``White``, ``les blancs``)."""
        return self.table.SIDES[side]["side"]

    def listed(self, items: Iterable[str]) -> str:
        """``a``, ``a and b``, ``a, b and c`` in the language."""
        items = list(items)
        if len(items) <= 1:
            return "".join(items)
        return f"{', '.join(items[:-1])} {self.say('list.and')} {items[-1]}"

    def then(self, parts: Iterable[str]) -> str:
        """Clauses one after the other (``a; b``, in French ``a ; b``)."""
        return self.say("list.then").join(parts)

    def unit(self, unit: str, count: int) -> str:
        """``1 minute``, ``2 minutes``."""
        one, many = self.table.UNITS[unit]
        return f"{count} {one if count == 1 else many}"

    def duration(self, ms: int) -> str:
        """A clock's time in words: hours, minutes and whole seconds (``4 minutes 32
        seconds``; under a minute, seconds only).

        >>> Words("de").duration(3_725_000)
        '1 Stunde 2 Minuten 5 Sekunden'
        """
        seconds = max(0, int(ms) // 1000)
        hours, rest = divmod(seconds, 3600)
        minutes, seconds = divmod(rest, 60)
        parts = []
        if hours:
            parts.append(self.unit("hour", hours))
        if minutes:
            parts.append(self.unit("minute", minutes))
        if seconds or not parts:
            parts.append(self.unit("second", seconds))
        return self.say("time.join").join(parts)

    # ------------------------------------------------------------------ moves

    def move(self, san: str, *, en_passant: bool = False, check: bool = True) -> str:
        """A move in SAN read aloud: ``Nxe5+`` is *knight takes e5, check*; castling is
        *castles short*; ``check=False`` leaves check and mate unsaid.

        >>> Words("en").move("exd6", en_passant=True), Words("fr").move("e8=N#")
        ('e takes d6 en passant', 'e8, promotion en cavalier, échec et mat')
        """
        words, suffix = self._move_words(san, en_passant=en_passant)
        if check and suffix == "+":
            return self.say("move.check", move=words)
        if check and suffix == "#":
            return self.say("move.mate", move=words)
        return words

    def _move_words(self, san: str, *, en_passant: bool) -> tuple[str, str]:
        found = _CASTLING.match(san)
        if found:
            key = "move.castle_long" if found[1] == "O-O-O" else "move.castle_short"
            return self.say(key), found[2]
        found = _PIECE_MOVE.match(san)
        if found:
            letter, hint, takes, to, suffix = found.groups()
            piece = PieceWords(PIECE_LETTERS[letter])
            key = "move.capture" if takes else "move.quiet"
            return self.say(key, piece=piece, hint=f" {hint}" if hint else "", to=to), suffix
        found = _PAWN_MOVE.match(san)
        if found:
            file, captured, rank, promotion, suffix = found.groups()
            if captured:
                key = "move.en_passant" if en_passant else "move.pawn_capture"
                words = self.say(key, file=file, to=captured)
                to = captured
            else:
                to = f"{file}{rank}"
                words = self.say("move.pawn", to=to)
            if promotion:
                words = self.say(
                    "move.promotion", move=words, piece=PieceWords(PIECE_LETTERS[promotion])
                )
            return words, suffix
        return san, ""  # not SAN this table reads: said as it is written


def mover_kind(san: str) -> str:
    """The kind of piece a SAN move moves (``king`` for castling).

    >>> mover_kind("Nbd2"), mover_kind("exd5"), mover_kind("O-O")
    ('knight', 'pawn', 'king')
    """
    if san.startswith("O-O"):
        return "king"
    return PIECE_LETTERS.get(san[:1], "pawn")
