"""The language tables: the same sentences in every language, each filled in without a
missing field, and none of them a copy of the English."""

from __future__ import annotations

import string

import pytest

from board_driver.spoken import LANGUAGES
from board_driver.spoken.words import PIECE_KINDS, table

ENGLISH = table("en")


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_language_has_every_sentence_and_every_form(language):
    words = table(language)
    assert set(words.WORDS) == set(ENGLISH.WORDS), language
    assert set(words.PIECES) == {*PIECE_KINDS, "piece"}
    for kind, forms in words.PIECES.items():
        assert {"bare", "the", "the_acc", "a", "plural", "the_plural", "one"} <= set(forms), kind
    for side in ("white", "black"):
        assert set(words.COLOURED[side]) == set(PIECE_KINDS)
        for kind, forms in words.COLOURED[side].items():
            assert set(forms) == {"bare", "the", "the_acc"}, (language, side, kind)
        assert set(words.SIDES[side]) == {"side", "of", "to"}
    assert set(words.UNITS) == set(ENGLISH.UNITS)
    assert language == words.CODE and words.NAME


@pytest.mark.parametrize("language", [lang for lang in LANGUAGES if lang != "en"])
def test_no_sentence_is_left_in_english(language):
    """A sentence the same as English's is only fields and stops (``{Move}.``) or a word
    every language uses (*J'adoube*)."""
    words = table(language)
    same = {key for key, text in words.WORDS.items() if text == ENGLISH.WORDS[key]}
    wordless = {k for k in same if not any(c.isalpha() for c in strip_fields(ENGLISH.WORDS[k]))}
    assert same - wordless <= {"adjust"}, same - wordless


def strip_fields(text: str) -> str:
    return "".join(literal for literal, *_ in string.Formatter().parse(text))
