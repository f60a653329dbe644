"""LED rendering, strip layouts, and the NeoPixel backends against fakes of their libraries."""

import pytest

from board_driver.physical.frame import Frame
from board_driver.physical.hwlib import MissingLibraryError
from board_driver.physical.leds import LedConfigError, open_leds
from board_driver.physical.leds.layout import LayoutConfigError, StripLayout
from board_driver.physical.leds.render import RenderConfigError, Renderer, render
from board_driver.physical.leds.sim import SimulatedLeds, render_terminal
from board_driver.physical.squares import square, square_name
from tests.fakes import fake_hw_fixture, no_hw_libs_fixture  # noqa: F401

OFF = (0, 0, 0)


def one_lit(name: str, colour=(255, 0, 0)):
    colours = [OFF] * 64
    colours[square(name)] = colour
    return colours


# -- render ----------------------------------------------------------------------------


def test_brightness_cap_and_gamma_are_applied_to_the_palette():
    frame = Frame.off().with_square(square("e4"), "r").with_square(square("d4"), "o")
    colours = Renderer().render(frame)  # defaults: brightness 0.3, gamma 2.2
    assert colours[square("e4")] == (76, 0, 0)  # 255 * 1.0 ** 2.2 * 0.3
    # orange (255, 96, 0): 96 -> 255 * (96/255) ** 2.2 * 0.3 = 8.5
    assert colours[square("d4")] == (76, 9, 0)
    assert colours[square("a1")] == OFF
    full = Renderer(brightness=1.0, gamma=1.0).render(frame)
    assert full[square("d4")] == (255, 96, 0)


def test_blinking_squares_go_dark_in_the_off_phase_only():
    frame = Frame.off().with_square(0, "b", blink=True).with_square(1, "g")
    on = render(frame, True)
    off = render(frame, False)
    assert on[0] == (0, 0, 76) and off[0] == OFF
    assert on[1] == off[1] == (0, 76, 0)


def test_palette_from_config_and_its_errors():
    renderer = Renderer.from_config({"colours": {"red": [200, 0, 50]}, "gamma": 1.0, "count": 64})
    assert renderer.render(Frame.off().with_square(0, "r"))[0] == (60, 0, 15)
    with pytest.raises(RenderConfigError, match=r"\[leds.colours\] pink: not a colour name"):
        Renderer(colours={"pink": [1, 2, 3]})
    with pytest.raises(RenderConfigError, match=r"\[leds.colours\] red: expected \[red, green"):
        Renderer(colours={"red": [256, 0, 0]})
    with pytest.raises(RenderConfigError, match=r"brightness must be 0.0..1.0, got 1.5"):
        Renderer(brightness=1.5)


# -- layout ----------------------------------------------------------------------------


def names(layout: StripLayout, pixels) -> list[str]:
    return [square_name(layout.square_of_pixel[p]) for p in pixels]


@pytest.mark.parametrize(
    ("order", "first", "along", "expected"),
    [
        ("rows", "a1", "rank", ["a1", "b1", "h1", "a2", "b2", "h8"]),
        ("serpentine", "a1", "rank", ["a1", "b1", "h1", "h2", "g2", "a8"]),
        ("rows", "h1", "rank", ["h1", "g1", "a1", "h2", "g2", "a8"]),
        ("serpentine", "h1", "rank", ["h1", "g1", "a1", "a2", "b2", "h8"]),
        ("rows", "a8", "rank", ["a8", "b8", "h8", "a7", "b7", "h1"]),
        ("serpentine", "a8", "rank", ["a8", "b8", "h8", "h7", "g7", "a1"]),
        ("rows", "h8", "rank", ["h8", "g8", "a8", "h7", "g7", "a1"]),
        ("serpentine", "h8", "rank", ["h8", "g8", "a8", "a7", "b7", "h1"]),
        ("serpentine", "a1", "file", ["a1", "a2", "a8", "b8", "b7", "h1"]),
        ("rows", "h8", "file", ["h8", "h7", "h1", "g8", "g7", "a1"]),
    ],
)
def test_pixel_order_for_each_mapping(order, first, along, expected):
    layout = StripLayout(order=order, first=first, along=along)
    assert names(layout, [0, 1, 7, 8, 9, 63]) == expected
    assert sorted(layout.square_of_pixel) == list(range(64))


def test_81_corner_leds_light_the_four_corners_of_a_square():
    layout = StripLayout(count=81, order="rows", first="a1")
    pixels = layout.pixels(one_lit("a1"))
    # 9 points per row: a1's corners are points (0,0) (1,0) (0,1) (1,1) = pixels 0, 1, 9, 10
    assert [i for i, c in enumerate(pixels) if c != OFF] == [0, 1, 9, 10]
    assert layout.describe_pixel(10) == "a1 b1 a2 b2"
    both = one_lit("a1", (100, 0, 0))
    both[square("b1")] = (0, 0, 100)
    assert layout.pixels(both)[1] == (100, 0, 100)  # shared corner: the brighter of each


def test_layout_errors_name_the_key():
    with pytest.raises(LayoutConfigError, match=r"\[leds\] count must be 64 .* or 81"):
        StripLayout(count=100)
    with pytest.raises(LayoutConfigError, match=r"\[leds\] first must be a corner square"):
        StripLayout(first="e4")
    with pytest.raises(LayoutConfigError, match=r"\[leds\] order must be 'rows' or 'serpentine'"):
        StripLayout(order="zigzag")


# -- backends against the fake libraries --------------------------------------------------


def test_neopixel_spi_lights_the_pixel_under_the_square_in_the_right_colour(fake_hw):
    leds = open_leds("neopixel_spi", order="serpentine", first="a1")
    leds.show(one_lit("a2", (76, 0, 0)))
    strip = fake_hw.strip.shown  # decoded by the strip's own GRB order
    assert strip[15] == (76, 0, 0)  # serpentine: a2 is the 16th pixel
    assert [i for i, c in enumerate(strip) if c != OFF] == [15]


def test_our_values_reach_the_leds_unscaled_by_the_library(fake_hw):
    leds = open_leds("neopixel_spi", order="rows")
    colours = Renderer().render(Frame.off().with_square(square("c3"), "w"))
    leds.show(colours)
    assert fake_hw.strip.shown[square("c3")] == (76, 76, 76)  # cap applied exactly once


def test_nothing_is_written_when_nothing_changed(fake_hw):
    leds = open_leds("neopixel_spi")
    frame = one_lit("e4")
    leds.show(frame)
    leds.show(list(frame))
    leds.show(one_lit("e4"))
    assert fake_hw.strip.writes == 1
    leds.show(one_lit("e5"))
    assert fake_hw.strip.writes == 2


def test_closing_turns_every_led_off(fake_hw):
    leds = open_leds("neopixel_spi")
    leds.show(one_lit("h8", (10, 20, 30)))
    leds.close()
    assert fake_hw.strip.shown == [OFF] * 64


def test_the_pwm_backend_drives_gpio18(fake_hw):
    fake_hw.strip_pin = 18
    leds = open_leds("neopixel", order="rows", first="h1")
    leds.show(one_lit("a1", (0, 0, 50)))
    assert fake_hw.strip.shown[7] == (0, 0, 50)


def test_a_wrong_pixel_order_shows_wrong_colours_so_it_is_configurable(fake_hw):
    leds = open_leds("neopixel_spi", order="rows", pixel_order="RGB")
    leds.show(one_lit("a1", (50, 0, 0)))
    assert fake_hw.strip.shown[0] == (0, 50, 0)  # an RGB stream read by GRB chips
    leds.close()
    leds = open_leds("neopixel_spi", order="rows", pixel_order="GRB")
    leds.show(one_lit("a1", (50, 0, 0)))
    assert fake_hw.strip.shown[0] == (50, 0, 0)


def test_the_81_led_layout_goes_through_the_backend(fake_hw):
    fake_hw.strip.count = 81
    leds = open_leds("neopixel_spi", count=81, order="rows")
    leds.show(one_lit("h8", (9, 9, 9)))
    assert [i for i, c in enumerate(fake_hw.strip.shown) if c != OFF] == [70, 71, 79, 80]


def test_spi_disabled_says_how_to_enable_it(fake_hw):
    fake_hw.spi_enabled = False
    with pytest.raises(RuntimeError, match=r"enable SPI .*'spi' group"):
        open_leds("neopixel_spi")


def test_pwm_without_root_on_a_pi_4_points_to_the_spi_backend(tmp_path, fake_hw):
    fake_hw.model = 4
    fake_hw.root = False
    with pytest.raises(RuntimeError, match=r"needs root.*neopixel_spi"):
        open_leds("neopixel")


@pytest.mark.parametrize(
    ("backend", "package"),
    [("neopixel_spi", "adafruit-circuitpython-neopixel-spi"),
     ("neopixel", "adafruit-circuitpython-neopixel")],
)  # fmt: skip
def test_a_missing_library_names_the_package(no_hw_libs, backend, package):
    with pytest.raises(MissingLibraryError, match=rf"pip install '{package}'"):
        open_leds(backend)


def test_open_leds_rejects_unknown_backends_and_options():
    with pytest.raises(LedConfigError, match="'dmx' is not one of neopixel_spi, neopixel, sim"):
        open_leds("dmx")
    with pytest.raises(LedConfigError, match="unknown option 'colour'"):
        open_leds("sim", colour="red")
    with pytest.raises(LedConfigError, match="pixel_order must be one of"):
        open_leds("sim", pixel_order="BGR")


def test_simulated_leds_keep_the_last_colours_and_tell_listeners():
    leds = open_leds("sim", brightness=0.3, gamma=2.2, colours={})  # renderer keys ignored
    assert isinstance(leds, SimulatedLeds)
    heard = []
    leds.listeners.append(heard.append)
    leds.show(one_lit("e4"))
    leds.show(one_lit("e4"))
    assert leds.colours[square("e4")] == (255, 0, 0)
    assert leds.writes == 1 and len(heard) == 1
    text = leds.render_terminal(colour=False, pieces=1 << square("e4"))
    assert text.splitlines()[4] == "4 . . . . @ . . ."


def test_the_terminal_view_shows_lit_squares_in_colour_on_the_board_pattern():
    colours = [OFF] * 64
    colours[square("e4")] = (0, 76, 0)
    rows = render_terminal(colours, pieces=1 << square("a1")).splitlines()
    assert "\x1b[48;2;0;255;0m" in rows[4]  # e4, stretched to full scale for a screen
    assert rows[7].startswith("1 \x1b[48;2;40;40;40m ● ")  # a1: a dark square with a piece
    assert rows[0].startswith("8 \x1b[48;2;80;80;80m")  # a8: a light square
