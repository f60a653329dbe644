"""The simulated electronics behind the fake hardware libraries.

One :class:`World` per test: GPIO pins with their mode, drive and pull; a reed-switch
matrix wired to some of them (with or without diodes); buttons to ground; and a NeoPixel
strip on one data pin that decodes what it is sent. The fake ``gpiod``, ``RPi.GPIO``,
``board``, ``neopixel`` and ``neopixel_spi`` modules all act on the current world, so a
test observes electrical behaviour: which rows were driven, what the columns read, which
colour each LED shows, how many times the strip was written.

This model is written from the electronics, independently of the product's own
simulator (``board_driver.physical.sensing.matrix``), so the two check each other.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

_current: World | None = None
# Bumped on every electrical change, so levels can be cached between changes (the bench
# measures our code, not this model).
_version = 0


def _changed() -> None:
    global _version
    _version += 1


def current() -> World:
    if _current is None:
        raise RuntimeError("no fake hardware world: use the fake_hw fixture")
    return _current


def set_current(world: World | None) -> None:
    global _current
    _current = world


@dataclass
class Pin:
    """One GPIO as the SoC sees it."""

    mode: str = "in"  # "in" | "out"
    drive: str = "push_pull"  # | "open_drain" | "open_source"
    level: int = 0  # the physical level an output drives
    bias: str | None = None  # "up" | "down" | None
    owner: str | None = None

    def __setattr__(self, name: str, value) -> None:
        object.__setattr__(self, name, value)
        _changed()


class Buttons(dict):
    """BCM pin -> held down (shorted to ground)."""

    def __setitem__(self, key, value) -> None:
        super().__setitem__(key, value)
        _changed()


@dataclass
class ChipSpec:
    """A /dev/gpiochipN: its label, its lines' names, and which BCM GPIO each offset is."""

    path: str
    name: str
    label: str
    line_names: list[str]
    bcm: dict[int, int] = field(default_factory=dict)  # offset -> BCM number


@dataclass
class Strip:
    """A chain of WS2812 LEDs on one data pin; decodes bytes with the chips' own order."""

    count: int = 64
    chip_order: str = "GRB"
    shown: list[tuple[int, int, int]] = field(default_factory=list)
    writes: int = 0

    def receive(self, data: bytes) -> None:
        bpp = len(self.chip_order)
        lit = []
        for index in range(self.count):
            chunk = data[index * bpp : index * bpp + bpp]
            if len(chunk) < bpp:
                lit.append(self.shown[index] if index < len(self.shown) else (0, 0, 0))
                continue
            channel = dict(zip(self.chip_order, chunk, strict=True))
            lit.append((channel["R"], channel["G"], channel["B"]))
        self.shown = lit
        self.writes += 1


PI5_NAMES = [f"GPIO{n}" for n in range(28)] + [f"line{n}" for n in range(28, 54)]
PI4_NAMES = [
    "ID_SDA", "ID_SCL", "SDA1", "SCL1", "GPIO_GCLK", "GPIO5", "GPIO6", "SPI_CE1_N",
    "SPI_CE0_N", "SPI_MISO", "SPI_MOSI", "SPI_SCLK", "GPIO12", "GPIO13", "TXD1", "RXD1",
    "GPIO16", "GPIO17", "GPIO18", "GPIO19", "GPIO20", "GPIO21", "GPIO22", "GPIO23",
    "GPIO24", "GPIO25", "GPIO26", "GPIO27",
] + [f"line{n}" for n in range(28, 58)]  # fmt: skip


class World:
    """The fake hardware of one test. ``model`` 5 looks like a Pi 5, 4 like a Pi 4."""

    def __init__(self, dev_dir: Path, *, model: int = 5) -> None:
        self.dev_dir = Path(dev_dir)
        self.dev_dir.mkdir(parents=True, exist_ok=True)
        self.model = model
        self.pins: dict[int, Pin] = {n: Pin() for n in range(54)}
        self.chips: dict[str, ChipSpec] = {}
        # The matrix as wired: row wire r, column wire c; bit 8*r + c = switch shut.
        self.rows: list[int] = []
        self.columns: list[int] = []
        self.closed = 0
        self.diodes = True
        self.diode_cathode = "row"  # the active-low wiring; "column" for active-high
        self.buttons: dict[int, bool] = Buttons()
        self.strip_pin: int | None = 10
        self.strip = Strip()
        self.spi_enabled = True
        self.root = True
        self.shorts = 0
        self.floating_reads = 0
        self.requested: dict[tuple[str, int], str] = {}  # gpiod: (chip, offset) -> consumer
        self.calls: list[tuple] = []  # (library, call, detail) for tests that count calls
        if model == 5:
            self.add_chip("gpio-brcmstb@107d508500", [f"line{n}" for n in range(32)])
            self.add_chip("gpio-brcmstb@107d508520", [f"line{n}" for n in range(4)])
            self.add_chip("gpio-brcmstb@107d517c00", [f"line{n}" for n in range(17)])
            self.add_chip("gpio-brcmstb@107d517c20", [f"line{n}" for n in range(6)])
            self.add_chip("pinctrl-rp1", PI5_NAMES, bcm=True)
        else:
            self.add_chip("pinctrl-bcm2711", PI4_NAMES, bcm=True)
            self.add_chip("raspberrypi-exp-gpio", [f"line{n}" for n in range(8)])

    def __setattr__(self, name: str, value) -> None:
        object.__setattr__(self, name, value)
        if name in ("closed", "diodes", "diode_cathode", "rows", "columns"):
            _changed()

    def add_chip(self, label: str, line_names: list[str], *, bcm: bool = False) -> ChipSpec:
        name = f"gpiochip{len(self.chips)}"
        path = str(self.dev_dir / name)
        Path(path).touch()
        spec = ChipSpec(path, name, label, list(line_names))
        if bcm:
            spec.bcm = {offset: offset for offset in range(min(len(line_names), 54))}
        self.chips[path] = spec
        return spec

    # -- what a test sets up ---------------------------------------------------------
    def wire_matrix(self, rows, columns, *, diodes: bool = True, cathode: str = "row") -> None:
        self.rows, self.columns = list(rows), list(columns)
        self.diodes = diodes
        self.diode_cathode = cathode

    def shut(self, row: int, column: int) -> None:
        self.closed |= 1 << (8 * row + column)

    # -- the electronics ---------------------------------------------------------------
    def driven(self, pin: int) -> int | None:
        """The level a pin's own driver forces, or None."""
        p = self.pins[pin]
        if self.buttons.get(pin):
            return 0
        if p.mode != "out":
            return None
        if p.drive == "open_drain":
            return 0 if p.level == 0 else None
        if p.drive == "open_source":
            return 1 if p.level == 1 else None
        return p.level

    def _adjacency(self) -> tuple[dict, dict]:
        """For each wired pin, the pins current can flow to (out) and come from (in)."""
        key = (self.closed, self.diodes, self.diode_cathode, tuple(self.rows), tuple(self.columns))
        cached = self.__dict__.get("_adjacency_cache")
        if cached and cached[0] == key:
            return cached[1], cached[2]
        out: dict[int, list[int]] = {p: [] for p in (*self.rows, *self.columns)}
        into: dict[int, list[int]] = {p: [] for p in (*self.rows, *self.columns)}
        for r, row in enumerate(self.rows):
            for c, column in enumerate(self.columns):
                if not self.closed >> (8 * r + c) & 1:
                    continue
                if not self.diodes:
                    for a, b in ((row, column), (column, row)):
                        out[a].append(b)
                        into[a].append(b)
                    continue
                # A diode conducts from its anode to its cathode only.
                anode, cathode = (column, row) if self.diode_cathode == "row" else (row, column)
                out[anode].append(cathode)
                into[cathode].append(anode)
        self.__dict__["_adjacency_cache"] = (key, out, into)
        return out, into

    @staticmethod
    def _spread(starts: list[int], edges: dict) -> set[int]:
        seen, todo = set(starts), list(starts)
        while todo:
            for nxt in edges.get(todo.pop(), ()):
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        return seen

    def _solve(self) -> tuple[set[int], set[int]]:
        """The wired pins pulled low (they can sink current into a line held at 0) and
        pulled high (a line held at 1 can source current to them), for the present state."""
        if self.__dict__.get("_solved_version") == _version:
            return self.__dict__["_solved"]
        out, into = self._adjacency()
        wired = list(out)
        zeros = [p for p in wired if self.driven(p) == 0]
        ones = [p for p in wired if self.driven(p) == 1]
        solved = (self._spread(zeros, into), self._spread(ones, out))
        self.__dict__["_solved"] = solved
        self.__dict__["_solved_version"] = _version
        return solved

    def level(self, pin: int) -> int:
        """The physical level read on ``pin``."""
        own = self.driven(pin)
        if own is not None and (self.pins[pin].mode == "out" or self.buttons.get(pin)):
            return own
        low, high = self._solve()
        low, high = pin in low, pin in high
        if low and high:
            self.shorts += 1
            return 0
        if low:
            return 0
        if high:
            return 1
        bias = self.pins[pin].bias
        if bias is None:
            self.floating_reads += 1
            return 0
        return 1 if bias == "up" else 0

    def send_to_strip(self, pin: int, data: bytes) -> None:
        if pin == self.strip_pin:
            self.strip.receive(data)
