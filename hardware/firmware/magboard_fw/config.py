"""The pin map and timings of this board. Edit to match the wiring (see hardware/ docs).

Pins are names on the ``board`` module of a Raspberry Pi Pico (``GP0`` .. ``GP28``).
"""

# The switch matrix: rows are driven low one at a time (rank 1 first), columns read with
# pull-ups (file a first). Each reed switch has a diode, anode on the column side.
ROW_PINS = ("GP0", "GP1", "GP2", "GP3", "GP4", "GP5", "GP6", "GP7")
COLUMN_PINS = ("GP8", "GP9", "GP10", "GP11", "GP12", "GP13", "GP14", "GP15")

# Push buttons between the pin and ground (internal pull-up). Names as in the protocol;
# leave one out if the board does not have it.
BUTTON_PINS = {
    "adjust": "GP17",
    "promote": "GP18",
    "claim_draw": "GP19",
    "resign": "GP20",
    "new_game": "GP21",
    "hint": "GP22",
}

# The NeoPixel strip: its data pin, and how it runs under the squares. ``first`` is the
# square of the first pixel; the strip runs along that rank; ``serpentine`` reverses every
# second rank.
NEOPIXEL_PIN = "GP16"
PIXEL_ORDER = "serpentine"  # or "rows"
PIXEL_FIRST = "a1"  # or "h1", "a8", "h8"

SCAN_PERIOD_MS = 5  # 200 scans a second
DEBOUNCE_MS = 10  # a square must read the same this long before it counts
BUTTON_DEBOUNCE_MS = 20
HEARTBEAT_MS = 1000  # the full board at least this often
HOST_LOST_MS = 3000  # no packet from the Pi for this long: show "host lost"
