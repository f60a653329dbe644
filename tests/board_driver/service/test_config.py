"""The config file: defaults, every bad value named by its key, the `magboard config` command."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from board_driver.service.config import (
    Config,
    ConfigError,
    load_config,
    parse_config,
    state_directory,
    to_toml,
)
from tests.board_driver.daemon_process import free_port, run_magboard

ROOT = Path(__file__).resolve().parents[3]


def test_an_empty_file_is_every_default():
    config = parse_config("")
    assert config == Config()
    assert config.sensing.backend == "gpiod"
    assert config.sensing.rate_hz == 200
    assert config.leds.brightness == 0.3
    assert config.leds.colours["red"] == (255, 0, 0)
    assert config.game.touch_move == "warn"
    assert config.game.takeback is True
    assert config.web.host == "127.0.0.1"
    assert config.bridge.device == "/dev/magboard-bridge"


def test_values_are_read_into_typed_sections():
    config = parse_config(
        """
        [sensing]
        backend = "sim"
        rate_hz = 100
        rotation = 180
        [leds]
        brightness = 0.5
        [leds.colours]
        green = [0, 128, 0]
        [game]
        touch_move = "enforce"
        hints = true
        [buttons]
        backend = "gpio"
        resign = 7
        new_game = false
        hint = false
        """
    )
    assert config.sensing.backend == "sim" and config.sensing.rate_hz == 100.0
    assert config.sensing.rotation == 180
    assert config.leds.colours["green"] == (0, 128, 0)
    assert config.leds.colours["red"] == (255, 0, 0)  # the rest of the palette stays
    assert config.game.touch_move == "enforce" and config.game.hints is True
    assert config.buttons.pins()["resign"] == 7
    assert "hint" not in config.buttons.pins() and "new_game" not in config.buttons.pins()
    assert parse_config(to_toml(config)) == config


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[leds]\nbrightness = 1.7", "[leds] brightness: 1.7 is not between 0 and 1"),
        ("[leds]\nbrigthness = 0.5", "[leds] brigthness: unknown key"),
        ('[sensing]\nbackend = "spi"', '[sensing] backend: "spi" is not one of "gpiod"'),
        ('[sensing]\nrate_hz = "fast"', '[sensing] rate_hz: "fast" is not a number'),
        ("[sensing]\nrotation = 45", "[sensing] rotation: 45 is not one of 0, 90, 180, 270"),
        ("[sensing]\nrows = [1, 2, 3]", "[sensing] rows: [1, 2, 3] is not a list of 8"),
        ("[buttons]\nresign = 2", "[buttons]: pins [2] are given to more than one button"),
        ("[buttons]\nresign = 99", "[buttons] resign: 99 is not a BCM GPIO number"),
        ("[leds]\ncount = 60", "[leds] count: 60 is not one of 64, 81"),
        ('[game]\ntakeback = "yes"', '[game] takeback: "yes" is not true or false'),
        ('[game]\ntouch_move = "strict"', '[game] touch_move: "strict" is not one of'),
        ("[web]\nport = 70000", "[web] port: 70000 is not between 1 and 65535"),
        ("[leds.colours]\npink = [1, 2, 3]", "[leds.colours] pink: unknown colour"),
        ("[leds.colours]\nred = [256, 0, 0]", "[leds.colours] red: [256, 0, 0] is not [red, g"),
        ("[display]\nx = 1", "[display]: unknown section"),
        ("leds = 3", "leds: must be a table"),
        ("[leds\nbrightness = 1", "not valid TOML"),
        ("[game]\nsettle_ms = 50\npass_ms = 100", "[game] pass_ms: 100 is longer than settle_ms"),
    ],
)
def test_a_bad_value_is_named_by_its_key(text, message):
    with pytest.raises(ConfigError) as caught:
        parse_config(text, source="my.toml")
    assert message in str(caught.value)
    assert str(caught.value).startswith("my.toml: ")


def test_every_problem_is_listed_at_once():
    with pytest.raises(ConfigError) as caught:
        parse_config("[leds]\nbrightness = 2\ngamma = -1\n[web]\nport = 0\n")
    assert len(caught.value.problems) == 3


def test_show_output_reads_back_as_the_same_config():
    config = parse_config('[sensing]\nbackend = "rpigpio"\n[store]\npath = "a\\"b"\n')
    text = to_toml(config)
    assert tomllib.loads(text)["sensing"]["backend"] == "rpigpio"
    assert parse_config(text) == config


def test_show_masks_secrets_and_reads_back_everything_else():
    config = parse_config('[web]\ntoken = "s3cret-token"\nport = 8081\n')
    text = to_toml(config)
    assert "s3cret" not in text
    assert tomllib.loads(text)["web"]["token"] == "(secret: 12 characters)"
    again = parse_config(text)
    assert again.web.port == 8081 and again.sensing == config.sensing


def test_sim_puts_every_hardware_port_on_the_simulator():
    config = parse_config('[sensing]\nbackend = "gpiod"\n[leds]\nbackend = "neopixel"\n')
    sim = config.with_sim()
    assert (sim.sensing.backend, sim.leds.backend, sim.buttons.backend) == ("sim", "sim", "none")
    assert sim.leds.brightness == config.leds.brightness


def test_state_directory_follows_systemd_then_xdg():
    assert state_directory({"STATE_DIRECTORY": "/var/lib/magboard"}) == Path("/var/lib/magboard")
    assert state_directory({"XDG_STATE_HOME": "/x"}) == Path("/x/magboard")
    # Root outside the service (issue 16, item 4) is a user like any other: not the
    # service's directory, whoever runs this test.
    assert state_directory({"HOME": "/root"}) == Path("/root/.local/state/magboard")


def test_a_named_file_must_exist_and_be_readable(tmp_path, monkeypatch):
    monkeypatch.delenv("MAGBOARD_CONFIG", raising=False)
    with pytest.raises(ConfigError, match="no such file"):
        load_config(tmp_path / "missing.toml")
    monkeypatch.setenv("MAGBOARD_CONFIG", str(tmp_path))
    with pytest.raises(ConfigError, match="is a directory"):
        load_config()
    good = tmp_path / "good.toml"
    good.write_text("[game]\nhints = true\n")
    assert load_config(good).game.hints is True
    assert load_config(good).source == good


def test_config_check_exits_0_for_a_good_file_and_2_naming_the_key(tmp_path):
    good = tmp_path / "good.toml"
    good.write_text("[leds]\nbrightness = 0.5\n")
    result = run_magboard("config", "check", "--config", str(good))
    assert result.returncode == 0, result.stderr
    assert "ok" in result.stdout

    bad = tmp_path / "bad.toml"
    bad.write_text("[leds]\nbrightness = 1.7\n")
    result = run_magboard("config", "check", "--config", str(bad))
    assert result.returncode == 2
    assert "[leds] brightness: 1.7 is not between 0 and 1" in result.stderr
    assert "Traceback" not in result.stderr


def test_config_show_prints_the_effective_config(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text('[game]\ntouch_move = "off"\n')
    result = run_magboard("config", "show", "--config", str(path), "--sim")
    assert result.returncode == 0, result.stderr
    shown = tomllib.loads(result.stdout)
    assert shown["game"]["touch_move"] == "off"
    assert shown["sensing"]["backend"] == "sim"
    assert shown["leds"]["brightness"] == 0.3


@pytest.mark.parametrize(
    "odd",
    ["two\nlines", 'quote " and \\ backslash', "tab\tcr\resc\x1bdel\x7f", "é ♞"],
)
def test_config_show_reads_back_for_odd_strings(tmp_path, odd: str) -> None:
    path = tmp_path / "c.toml"
    written = odd.replace("\\", "\\\\").replace('"', '\\"')
    written = "".join(c if ord(c) >= 0x20 and c != "\x7f" else f"\\u{ord(c):04x}" for c in written)
    path.write_text(f'[store]\npath = "{written}"\n[engine]\npath = "{written}"\n')
    assert tomllib.loads(path.read_text())["store"]["path"] == odd
    result = run_magboard("config", "show", "--config", str(path), "--sim")
    assert result.returncode == 0, result.stderr
    shown = tomllib.loads(result.stdout)
    assert shown["store"]["path"] == odd and shown["engine"]["path"] == odd


def test_a_nul_character_in_a_string_is_refused_by_its_key():
    with pytest.raises(ConfigError, match=r"\[sim\] leds_file: .* holds a NUL character"):
        parse_config('[sim]\nleds_file = "a\\u0000b"\n')


def test_an_unreadable_config_is_a_clear_error(tmp_path):
    path = tmp_path / "binary.toml"
    path.write_bytes(b"\xff\xfe\x00garbage")
    result = run_magboard("config", "check", "--config", str(path))
    assert result.returncode == 2
    assert "not UTF-8" in result.stderr and "Traceback" not in result.stderr


def test_the_module_examples_hold():
    import doctest

    import board_driver.service.config
    import board_driver.service.notify
    import board_driver.service.store

    service = board_driver.service
    for module in (service.config, service.store, service.notify):
        assert doctest.testmod(module).failed == 0, module.__name__


@pytest.mark.parametrize(
    ("section", "text", "message"),
    [
        ("sensing", "rate_hz = 0.5", "[sensing] rate_hz: 0.5 is not between 1 and 5000"),
        ("sensing", "rate_hz = 6000", "[sensing] rate_hz: 6000 is not between 1 and 5000"),
        ("game", "settle_ms = 0", "[game] settle_ms: 0 is not between 1 and 10000"),
    ],
)
def test_config_check_refuses_what_run_could_not_use(
    tmp_path, section: str, text: str, message: str
) -> None:
    from tests.board_driver.daemon_process import write_config

    config = write_config(tmp_path, f"[{section}]\n{text}\n")
    checked = run_magboard("config", "check", "--config", str(config))
    assert checked.returncode != 0 and message in checked.stdout + checked.stderr
    ran = run_magboard("run", "--sim", "--config", str(config), timeout=30)
    assert ran.returncode == 2 and message in ran.stderr
    assert "Traceback" not in ran.stderr


def test_the_smallest_values_config_check_allows_run(tmp_path) -> None:
    from tests.board_driver.daemon_process import DaemonProcess, write_config

    write_config(tmp_path, "[sensing]\nrate_hz = 1\n[game]\nsettle_ms = 1\npass_ms = 0\n")
    proc = DaemonProcess(tmp_path)
    try:
        proc.wait_ready(timeout=30)
    finally:
        proc.terminate()
    assert proc.proc.returncode == 0, proc.output()


def test_a_value_the_parts_refuse_at_start_is_named_without_a_traceback(tmp_path) -> None:
    import asyncio
    import dataclasses

    from board_driver.physical.leds import Renderer, open_leds
    from board_driver.physical.sensing.sim import SimulatedBoard
    from board_driver.service.daemon import Daemon, DaemonConfigError, Hardware
    from board_driver.service.notify import Notifier

    config = parse_config(f'[store]\npath = "{tmp_path / "g.sqlite"}"\n')
    # A value that slipped past the config's checks (a program building its own Config).
    config = dataclasses.replace(config, sensing=dataclasses.replace(config.sensing, rate_hz=0.5))
    board = SimulatedBoard()
    hardware = Hardware(board, open_leds("sim"), Renderer().render, sim_board=board)
    daemon = Daemon(config, hardware, notifier=Notifier(environ={}))
    with pytest.raises(DaemonConfigError, match=r"cannot start: rate_hz must be 1\.\.5000"):
        asyncio.run(daemon.run())


def test_one_check_lists_the_rules_across_keys_beside_a_bad_value(tmp_path) -> None:
    path = tmp_path / "c.toml"
    path.write_text(
        '[sensing]\nrate_hz = "fast"\n[game]\nsettle_ms = 50\npass_ms = 100\n'
        "[engine]\ndepth = -1\nmovetime_ms = 0\n"
    )
    result = run_magboard("config", "check", "--config", str(path))
    assert result.returncode == 2
    assert '[sensing] rate_hz: "fast" is not a number' in result.stderr
    assert "[game] pass_ms: 100 is longer than settle_ms (50)" in result.stderr
    assert "[engine] depth: -1 is not between 0 and 100" in result.stderr
    # depth is already named: no rule is judged on the default standing in for it.
    assert "needs a depth" not in result.stderr


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ('[sim]\nleds_file = "{tmp}"\n', "[sim] leds_file: {tmp} is a directory, not a file"),
        ('[sim]\nleds_file = "/proc/self/status"\n', "is in /proc, the kernel's own files"),
        ('[sim]\nleds_file = "a\\u0000b"\n', "[sim] leds_file: \"a\\x00b\" holds a NUL character"),
        ('[sim]\nstate_file = "/dev/zero"\n', "[sim] state_file: /dev/zero is not a regular file"),
        ('[web]\nport = {port}\nhost = "' + "a" * 300 + '"\n', "[web] host: "),
        ('[web]\nport = {port}\nhost = "bad\\u0000host"\n', "holds a NUL character"),
        (
            '[sensing]\nrows = ["a", "b", "c", "d", "e", "f", "g", 5]\n'
            'columns = [5, 2, 3, 4, "b", 6, 7, 8]\n',
            "[sensing] columns: [5, 'b'] also rows",
        ),
    ],
)
def test_config_check_and_run_agree_on_what_run_cannot_use(tmp_path, config, message) -> None:
    """What the attack run found `config check` passing and `run` dying on (issue 17, 8)."""
    path = tmp_path / "c.toml"
    store = f'[store]\npath = "{tmp_path / "g.sqlite"}"\n'
    if "[web]" not in config:
        store += f"[web]\nport = {free_port()}\n"
    config = config.replace("{tmp}", str(tmp_path)).replace("{port}", str(free_port()))
    path.write_text(store + config)
    expected = message.replace("{tmp}", str(tmp_path))
    check = run_magboard("config", "check", "--sim", "--config", str(path))
    run = run_magboard("run", "--sim", "--config", str(path), timeout=30)
    for result in (check, run):
        assert result.returncode == 2, result.stderr
        assert expected in result.stderr and "Traceback" not in result.stderr
    problem = [line for line in check.stderr.splitlines() if expected in line]
    assert problem and problem[0] in run.stderr  # the same words


# ---------------------------------------------------------------- issue 16: buttons and pins


def test_buttons_are_off_until_configured_and_named_like_the_sensing_backends():
    assert Config().buttons.backend == "none"
    for backend in ("gpiod", "rpigpio", "gpio", "bridge", "none"):  # "gpio": the older name
        assert parse_config(f'[buttons]\nbackend = "{backend}"\n').buttons.backend == backend
    with pytest.raises(ConfigError, match=r'\[buttons\] backend: "usb" is not one of "none"'):
        parse_config('[buttons]\nbackend = "usb"\n')


def test_the_default_button_pins_collide_with_nothing_whatever_the_leds():
    from board_driver.physical.pinmap import (
        DEFAULT_BUTTON_PINS,
        DEFAULT_COLUMNS,
        DEFAULT_ROWS,
        LED_PWM_PIN,
        LED_SPI_PINS,
        UART_PINS,
    )

    pins = set(DEFAULT_BUTTON_PINS.values())
    assert len(pins) == len(DEFAULT_BUTTON_PINS)
    taken = {0, 1, *UART_PINS, LED_PWM_PIN, *LED_SPI_PINS, *DEFAULT_ROWS, *DEFAULT_COLUMNS}
    assert not pins & taken
    for leds in ("neopixel_spi", "neopixel"):
        config = parse_config(
            f'[sensing]\nbackend = "gpiod"\n[leds]\nbackend = "{leds}"\n'
            '[buttons]\nbackend = "gpiod"\n'
        )
        assert set(config.buttons.pins().values()) == pins


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (  # the case: PWM NeoPixels on GPIO18 and a button there too
            '[leds]\nbackend = "neopixel"\n[buttons]\nbackend = "gpio"\nnew_game = 18\n',
            '[buttons] new_game: GPIO18 is also [leds] pin (GPIO18, backend "neopixel")',
        ),
        (
            '[leds]\nbackend = "neopixel"\npin = 21\n[buttons]\nbackend = "gpiod"\nresign = 21\n',
            "[buttons] resign: GPIO21 is also [leds] pin",
        ),
        (
            '[buttons]\nbackend = "gpiod"\nresign = 10\n',
            "[buttons] resign: GPIO10 is also the LEDs' SPI",
        ),
        (
            '[buttons]\nbackend = "rpigpio"\nclaim_draw = 14\n',
            "[buttons] claim_draw: GPIO14 is the UART's",
        ),
        (
            '[leds]\nbackend = "neopixel"\npin = 21\n',
            "[sensing]: GPIO21 of the switch matrix is also [leds] pin",
        ),
    ],
)
def test_config_check_names_a_pin_the_leds_or_the_uart_already_use(tmp_path, text, message):
    path = tmp_path / "c.toml"
    path.write_text(text)
    result = run_magboard("config", "check", "--config", str(path))
    assert result.returncode == 2, result.stdout
    assert message in result.stderr
    assert "ok" not in result.stdout


def test_a_pin_clash_is_no_clash_on_the_simulator_or_with_buttons_off(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text('[leds]\nbackend = "neopixel"\n[buttons]\nnew_game = 18\n')  # buttons off
    assert run_magboard("config", "check", "--config", str(path)).returncode == 0


def test_the_clock_section_is_read_and_a_bad_control_named():
    """Issue 27: ``[clock]``: a time control in its own words, every bad key named."""
    config = parse_config('[clock]\ncontrol = "15 + 10"\nswitch = "buttons"\n')
    assert (config.clock.control, config.clock.switch) == ("15+10", "buttons")
    with pytest.raises(ConfigError) as error:
        parse_config(
            '[clock]\ncontrol = "3 + soon"\nillegal_move = "strict"\nlow_time_s = -1\n'
        )
    text = str(error.value)
    assert "[clock] control: time control '3 + soon': expected minutes+seconds" in text
    assert '[clock] illegal_move: "strict" is not one of "guide", "fide"' in text
    assert "[clock] low_time_s: -1 is not between 0 and 3600" in text


# ---------------------------------------------------------------- issue 32, item 4: numbers

HUGE = "9" * 400


def _number_keys() -> list[tuple[str, str]]:
    """Every key of the config whose value is a number, as ``config show`` prints it (so a
    key added later is checked too)."""
    keys: list[tuple[str, str]] = []

    def walk(prefix: str, table: dict) -> None:
        for key, value in table.items():
            if isinstance(value, dict):
                walk(f"{prefix}.{key}" if prefix else key, value)
            elif isinstance(value, int | float) and not isinstance(value, bool):
                keys.append((prefix, key))

    walk("", tomllib.loads(to_toml(Config())))
    return keys


def test_a_number_of_400_digits_in_any_key_is_named_not_an_overflow() -> None:
    """``[sensing] rate_hz``, ``[leds] brightness`` and ``gamma`` of 400 digits raised
    OverflowError (a NaN check on an int past a float's range): ``config check`` and ``run``
    ended in a traceback. Every number key, either sign, is a bad value named by its key."""
    keys = _number_keys()
    assert ("sensing", "rate_hz") in keys and ("leds", "gamma") in keys
    for section, key in keys:
        for value in (HUGE, "-" + HUGE):
            with pytest.raises(ConfigError) as caught:
                parse_config(f"[{section}]\n{key} = {value}\n")
            assert f"[{section}] {key}: " in str(caught.value), (section, key)


def test_config_check_and_run_name_a_rate_of_400_digits(tmp_path) -> None:
    path = tmp_path / "c.toml"
    path.write_text(
        f'[store]\npath = "{tmp_path / "g.sqlite"}"\n[web]\nport = {free_port()}\n'
        f"[sensing]\nrate_hz = {HUGE}\n[leds]\nbrightness = -{HUGE}\n"
    )
    check = run_magboard("config", "check", "--sim", "--config", str(path))
    run = run_magboard("run", "--sim", "--config", str(path), timeout=30)
    for result in (check, run):
        assert result.returncode == 2, result.stderr
        assert "Traceback" not in result.stderr, result.stderr
        assert "[sensing] rate_hz: 99999999" in result.stderr, result.stderr
        assert "(400 characters) is not between 1 and 5000" in result.stderr, result.stderr
        assert "[leds] brightness: -9999999" in result.stderr, result.stderr
