"""The system tests' own parts that need no machine, in the default suite: the WS2812
decoder, the strip walk the LED check expects, the board simulator's columns, the cache.

(They are checked here so that a mistake in a stand-in is found in seconds, not after a
machine has booted.)"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from board_driver.physical.leds.layout import StripLayout
from tests.system.harness.cache import LEDGER, Cache

GUEST = Path(__file__).resolve().parents[1] / "guest"


def _guest(name: str):
    spec = importlib.util.spec_from_file_location(f"guest_{name}", GUEST / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


ws2812 = _guest("ws2812")
BIT0, BIT1 = 0b11000000, 0b11110000  # what neopixel_spi sends at 6.4 MHz


def _line(*colours_grb: tuple[int, int, int], reset: int = 64) -> bytes:
    data = bytearray(reset)
    for colour in colours_grb:
        for channel in colour:
            data += bytes(BIT1 if channel >> bit & 1 else BIT0 for bit in range(7, -1, -1))
    return bytes(data) + bytes(reset)


def test_the_decoder_reads_colours_in_the_chips_order():
    strip = ws2812.decode(_line((255, 0, 0), (0, 0, 7)), 6_400_000)
    assert strip.colours == [(0, 255, 0), (0, 0, 7)]  # GRB on the wire: green, then blue
    assert strip.high_ns == (312.5, 625.0)
    assert strip.reset_before_us == pytest.approx(80.0)
    rgb = ws2812.decode(_line((255, 0, 0)), 6_400_000, order="RGB")
    assert rgb.colours == [(255, 0, 0)]


@pytest.mark.parametrize(
    ("data", "frequency", "problem"),
    [
        (_line((1, 2, 3), reset=10), 6_400_000, "under 50"),  # a reset too short to latch
        (_line((1, 2, 3))[:-70] + bytes(64), 6_400_000, "not a whole number"),
        (bytes(64) + bytes([0b10100000] * 24) + bytes(64), 6_400_000, "not one high pulse"),
        (bytes(64) + bytes([0b11111110] * 24) + bytes(64), 6_400_000, "neither a 0 nor a 1"),
        (_line((1, 2, 3)), 3_200_000, "not one LED bit"),  # 400 kHz timing on 800 kHz LEDs
    ],
)
def test_the_decoder_refuses_what_leds_would_not_read(data, frequency, problem):
    with pytest.raises(ws2812.LineError, match=problem):
        ws2812.decode(data, frequency)


@pytest.mark.parametrize("count", [64, 81])
@pytest.mark.parametrize("order", ["rows", "serpentine"])
@pytest.mark.parametrize("first", ["a1", "h1", "a8", "h8"])
@pytest.mark.parametrize("along", ["rank", "file"])
def test_the_led_checks_walk_of_the_strip_agrees_with_the_products_layout(
    count, order, first, along
):
    # Two independent descriptions of one wiring: if they disagree, one of them is wrong.
    walk = _guest("leds").pixel_squares(count, order, first, along)
    layout = StripLayout(count=count, order=order, first=first, along=along)
    assert [tuple(sorted(s)) for s in walk] == [tuple(sorted(s)) for s in layout.squares_of_pixel]


def test_the_board_simulator_closes_the_columns_of_the_selected_rows_pieces():
    boardsim = _guest("boardsim")
    start = 0xFFFF00000000FFFF
    down, up = boardsim.PULL_DOWN, boardsim.PULL_UP
    assert boardsim.column_pulls(start, [1]) == [down] * 8
    assert boardsim.column_pulls(start, [3]) == [up] * 8
    assert boardsim.column_pulls(1 << 12, [1]) == [up] * 4 + [down] + [up] * 3  # e2
    assert boardsim.column_pulls(start, []) == [up] * 8  # no row selected: nothing closes


def test_the_radio_relay_passes_on_whole_hci_packets_only():
    relay = _guest("radio_relay")
    reset = b"\x01\x03\x0c\x00"  # HCI_Reset
    acl = b"\x02\x40\x00\x07\x00" + b"\x03\x00\x04\x00\x02\x17\x00"  # an ATT MTU request
    pending = bytearray(reset + acl[:3])
    assert relay.packets(pending) == [reset] and pending == acl[:3]  # its header split
    pending += acl[3:] + reset[:2]
    assert relay.packets(pending) == [acl] and pending == reset[:2]
    with pytest.raises(ValueError, match="type 0x04"):  # an event: a host never sends one
        relay.packets(bytearray(b"\x04\x0e\x04\x01\x03\x0c\x00"))


def test_a_pegasus_app_tells_a_capture_by_where_the_piece_was_put_down():
    import chess

    views = _guest("ble_views")
    board = chess.Board()
    for san in ("f4", "h5", "e3", "Nf6", "g4", "hxg4", "b4", "Nd5", "c4"):
        board.push_san(san)
    view = views.PegasusView()
    dump = bytes((1 if board.piece_at(views._a1(f)) else 0) for f in range(64))
    view.feed(bytes([0x86, 0, 3 + 64]) + dump)

    def update(square: str, down: int) -> bytes:
        return bytes([0x8E, 0, 5, views._dgt(chess.parse_square(square)), down])

    # Nxb4, the victim lifted first: occupancy alone fits Nxb4, Nxe3 and Nxf4.
    view.feed(update("b4", 0) + update("d5", 0) + update("b4", 1))
    assert [m.uci() for m in views.pegasus_moves(board, view)] == ["d5b4"]
    assert view.placed == set()  # the next move starts afresh
    assert len(views.pegasus_moves(board, view)) == 3


def test_a_chessnut_app_reads_the_boards_own_bytes_and_lights_what_the_board_lights():
    from board_driver.connectors.emulation.chessnut import ChessnutSession, lit_squares
    from board_driver.connectors.emulation.view import BoardView
    from board_driver.physical.squares import square

    views = _guest("ble_views")
    view = BoardView()
    view.resync("r3k2r/8/8/3Pp3/8/8/8/R3K2R w KQkq e6 0 1", occupancy=0x9100001800000091)
    session = ChessnutSession(view)
    app = views.ChessnutView()
    for message in session.split(session.receive(b"".join(app.OPENING))):
        app.feed(message)  # one message a notification, as the board sends them
    assert app.board == "r3k2r/8/8/3Pp3/8/8/8/R3K2R" and app.cut == 0
    assert app.battery == [100, False] and app.version.startswith("magboard")
    lights = app.lights([square("a1"), square("e5")])
    assert lit_squares(lights[2:]) == {square("a1"), square("e5")}
    app.feed(session.position()[:20])  # a position cut at the smallest MTU: not read
    assert app.cut == 1 and app.board == "r3k2r/8/8/3Pp3/8/8/8/R3K2R"


def test_a_stage_is_built_once_for_its_inputs_and_again_when_they_change(tmp_path):
    cache = Cache(tmp_path)
    built = []

    def build(out: Path) -> None:
        built.append(out)
        (out / "made").write_text("x")

    first = cache.stage("demo", {"a": "1"}, build)
    assert cache.stage("demo", {"a": "1"}, build) == first and len(built) == 1
    assert not LEDGER[-1].cold
    second = cache.stage("demo", {"a": "2"}, build)
    assert second != first and len(built) == 2
    assert not first.exists()  # the older version is removed


def test_a_failed_build_leaves_no_stage_that_looks_finished(tmp_path):
    cache = Cache(tmp_path)

    def broken(out: Path) -> None:
        (out / "half").write_text("x")
        raise RuntimeError("the build failed")

    with pytest.raises(RuntimeError):
        cache.stage("demo", {"a": "1"}, broken)
    assert [p.name for p in tmp_path.iterdir() if not p.name.startswith(".")] == []


def _module(name: str, source: str):
    import types

    module = types.ModuleType(name)
    exec(compile(source, name, "exec"), module.__dict__)
    return module


def test_the_signature_check_finds_a_fake_that_drifted_from_its_library():
    signatures = _guest("signatures")
    real = _module("real", """
import enum
LOW = 0
class Drive(enum.Enum):
    PUSH_PULL = 1
    OPEN_DRAIN = 2
def setup(channel, direction, *, pull=None): ...
class Chip:
    def request(self, config, *, consumer=None): ...
""")  # fmt: skip
    fake = _module("fake", """
import enum
LOW = 1
class Drive(enum.Enum):
    PUSH_PULL = 1
    OPEN_COLLECTOR = 2
def setup(channel, direction, *, pull=None, initial=None): ...
def gone(): ...
class Chip:
    def request(self, config=None, *, consumer=None): ...
""")  # fmt: skip
    problems, notes = [], []
    signatures.compare("lib", fake, real, problems, notes)
    text = "\n".join(problems)
    assert "lib.LOW = 1 in the fake, 0 in the real" in text
    assert "lib.Drive.OPEN_COLLECTOR: not a member of the real enum" in text
    assert "takes no keyword 'initial'" in text
    assert "lib.gone: not in the real" in text
    assert "'config' is optional in the fake, required in the real" in text
    assert len(problems) == 5
    # The same module against itself: nothing to say.
    problems.clear()
    signatures.compare("lib", real, real, problems, notes)
    assert problems == []
