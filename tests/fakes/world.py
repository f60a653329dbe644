"""The simulated electronics behind the fake hardware libraries.

One :class:`World` per test: GPIO pins with their mode, drive and pull; a reed-switch
matrix wired to some of them (with or without diodes); buttons to ground; and a NeoPixel
strip on one data pin that decodes what it is sent. The fake ``gpiod``, ``RPi.GPIO``,
``board``, ``neopixel`` and ``neopixel_spi`` modules all act on the current world, so a
test observes electrical behaviour: which rows were driven, what the columns read, which
colour each LED shows, how many times the strip was written.

This model is written from the electronics, independently of the product's own
simulator (``board_driver.sensing.matrix``), so the two check each other.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

_current: World | None = None


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
        self.buttons: dict[int, bool] = {}  # BCM pin -> held down (shorted to ground)
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
    def _strong(self, pin: int) -> int | None:
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

    def _neighbours(self, pin: int, towards_cathode: bool) -> list[int]:
        """Pins joined to ``pin`` by a closed switch, through which current may flow
        from ``pin`` (towards_cathode) or into ``pin`` (not towards_cathode)."""
        out = []
        if pin in self.rows:
            r = self.rows.index(pin)
            for c, column in enumerate(self.columns):
                if self.closed >> (8 * r + c) & 1:
                    row_is_cathode = self.diode_cathode == "row"
                    # current row -> column needs the row to be the anode
                    ok = not self.diodes or (towards_cathode != row_is_cathode)
                    if ok:
                        out.append(column)
        if pin in self.columns:
            c = self.columns.index(pin)
            for r, row in enumerate(self.rows):
                if self.closed >> (8 * r + c) & 1:
                    column_is_cathode = self.diode_cathode == "column"
                    ok = not self.diodes or (towards_cathode != column_is_cathode)
                    if ok:
                        out.append(row)
        return out

    def _reach(self, pin: int, towards_cathode: bool) -> set[int]:
        seen, todo = {pin}, [pin]
        while todo:
            for nxt in self._neighbours(todo.pop(), towards_cathode):
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        return seen

    def level(self, pin: int) -> int:
        """The physical level read on ``pin``."""
        own = self._strong(pin)
        if own is not None and self.pins[pin].mode == "out":
            return own
        # Pulled low: current can flow from this pin to a node held at 0.
        low = any(self._strong(p) == 0 for p in self._reach(pin, towards_cathode=True))
        # Pulled high: current can flow from a node held at 1 into this pin.
        high = any(self._strong(p) == 1 for p in self._reach(pin, towards_cathode=False))
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
