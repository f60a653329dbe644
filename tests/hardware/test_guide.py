"""The builder's guide (hardware/README.md) matches what the software does by default."""

import re
import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path

from board_driver.physical.buttons import PROMOTION_CYCLE, ButtonPresses
from board_driver.physical.leds.layout import StripLayout
from board_driver.physical.leds.render import DEFAULT_BRIGHTNESS, DEFAULT_GAMMA, Renderer
from board_driver.physical.pinmap import (
    DEFAULT_BUTTON_PINS,
    DEFAULT_COLUMNS,
    DEFAULT_ROWS,
    HEADER_PIN,
    LED_PWM_PIN,
    LED_SPI_PIN,
)
from board_driver.physical.sensing.gpiod import GpiodMatrix

HARDWARE = Path(__file__).resolve().parents[2] / "hardware"
GUIDE = (HARDWARE / "README.md").read_text(encoding="utf-8")


def pin_table() -> dict[str, tuple[int, int]]:
    """function -> (BCM, header pin) from the guide's pin map table."""
    table = {}
    for function, bcm, header in re.findall(r"^\| ([^|]+?) \| GPIO(\d+) \| (\d+) \|$", GUIDE, re.M):
        table[function] = (int(bcm), int(header))
    return table


def test_the_pin_map_table_is_the_software_default():
    table = pin_table()
    for rank, bcm in enumerate(DEFAULT_ROWS, start=1):
        assert table[f"row {rank} (rank {rank})"] == (bcm, HEADER_PIN[bcm])
    for file, bcm in zip("abcdefgh", DEFAULT_COLUMNS, strict=True):
        assert table[f"column {file}"] == (bcm, HEADER_PIN[bcm])
    for name, bcm in DEFAULT_BUTTON_PINS.items():
        assert table[f"button {name}"] == (bcm, HEADER_PIN[bcm])
    assert table["LED data (`neopixel_spi`, default)"] == (LED_SPI_PIN, 19)
    assert table["LED data (`neopixel`, alternative)"] == (LED_PWM_PIN, 12)


def test_the_header_pin_numbers_are_the_raspberry_pi_ones():
    # A few well-known ones: GPIO2 is pin 3, GPIO10 (MOSI) pin 19, GPIO18 pin 12, GPIO21 pin 40.
    assert (HEADER_PIN[2], HEADER_PIN[10], HEADER_PIN[18], HEADER_PIN[21]) == (3, 19, 12, 40)
    assert len(set(HEADER_PIN.values())) == len(HEADER_PIN)


def test_the_matrix_stays_off_spi_pwm_i2c_uart_and_the_hat_eeprom():
    matrix = set(DEFAULT_ROWS) | set(DEFAULT_COLUMNS)
    assert len(matrix) == 16
    assert not matrix & {0, 1, 2, 3, 7, 8, 9, 10, 11, 14, 15, 18}
    everything = [*matrix, *DEFAULT_BUTTON_PINS.values(), LED_SPI_PIN]
    assert len(everything) == len(set(everything))  # no pin used twice with the default LEDs


def test_the_config_example_parses_and_is_the_default():
    block = re.search(r"```toml\n(.*?)```", GUIDE, re.S).group(1)
    config = tomllib.loads(block)
    sensing, leds = config["sensing"], config["leds"]
    assert tuple(sensing["rows"]) == DEFAULT_ROWS
    assert tuple(sensing["columns"]) == DEFAULT_COLUMNS
    defaults = GpiodMatrix.__init__.__kwdefaults__
    for key in ("chip", "active_low", "settle_us", "rotation", "mirror"):
        assert sensing[key] == defaults[key], key
    layout = StripLayout()
    assert (leds["count"], leds["order"], leds["first"]) == (
        layout.count,
        layout.order,
        layout.first,
    )
    assert (leds["brightness"], leds["gamma"]) == (DEFAULT_BRIGHTNESS, DEFAULT_GAMMA)
    assert leds["pin"] == LED_PWM_PIN
    buttons = {k: v for k, v in config["buttons"].items() if k != "backend"}
    assert buttons == DEFAULT_BUTTON_PINS
    # "The values shown are the defaults": buttons are off until configured (issue 16, 2).
    from board_driver.service.config.sections import ButtonsConfig

    assert config["buttons"]["backend"] == ButtonsConfig().backend == "none"


def test_the_power_budget_matches_the_brightness_cap():
    level = Renderer().correct((255, 255, 255))[0]  # full white after the default cap
    capped_amps = 64 * 0.060 * level / 255
    assert f"64 × 60 mA × {level}/255 = **{capped_amps:.2f} A**" in GUIDE
    assert f"**{capped_amps + 0.064:.2f} A**" in GUIDE
    assert f"64 × 60 mA = **{64 * 0.060:.2f} A**" in GUIDE
    assert "at least 4 A" in GUIDE  # the supply covers the uncapped worst case


def test_the_promote_button_is_described_as_it_behaves():
    events = []
    presses = ButtonPresses(events.append)
    for t in range(4):
        presses.press("promote", t)
    names = {"q": "queen", "n": "knight", "r": "rook", "b": "bishop"}
    described = " → ".join(names[e.piece] for e in events)
    assert described in GUIDE
    assert PROMOTION_CYCLE[0] == "q"  # with no press, a queen


def test_the_schematic_says_which_way_the_diodes_go_and_the_svg_is_well_formed():
    assert "band towards the row" in GUIDE.lower()
    root = ET.parse(HARDWARE / "matrix.svg").getroot()
    assert root.tag.endswith("svg")
    text = " ".join(t.text or "" for t in root.iter() if t.tag.endswith("text"))
    for needed in ("GPIO23", "GPIO24", "GPIO4", "GPIO17", "band to row", "pull-up"):
        assert needed in text
