"""The reed-switch matrix: one row driven low at a time, columns read with pull-ups.

Every switch has a diode (anode to the column), so a closed switch pulls its column low only
while its own row is driven low: a full board reads no ghosts. Rows not being read float
(inputs without pull), which the diodes make harmless.
"""

import digitalio


class Matrix:
    """Scans 8 rows (rank 1 first) by 8 columns (file a first) into a 64-bit bitmap.

    ``scan(now_ms)`` reads the switches and debounces each square: a square changes only after
    reading its new value for ``debounce_ms``. ``stable`` is the debounced board.
    """

    def __init__(self, row_pins, column_pins, debounce_ms=10):
        if len(row_pins) != 8 or len(column_pins) != 8:
            raise ValueError("the matrix needs 8 row pins and 8 column pins")
        self.debounce_ms = debounce_ms
        self._rows = []
        for pin in row_pins:
            row = digitalio.DigitalInOut(pin)
            row.switch_to_input(pull=None)
            self._rows.append(row)
        self._columns = []
        for pin in column_pins:
            column = digitalio.DigitalInOut(pin)
            column.switch_to_input(pull=digitalio.Pull.UP)
            self._columns.append(column)
        self.stable = self.read()
        self._pending = 0  # squares whose reading differs from stable
        self._since = {}  # square -> the time it started to differ

    def read(self):
        """One raw pass over the matrix: bit *i* set when square *i*'s switch is closed."""
        bits = 0
        columns = self._columns
        for rank in range(8):
            row = self._rows[rank]
            row.switch_to_output(value=False)
            base = rank * 8
            for file in range(8):
                if not columns[file].value:
                    bits |= 1 << (base + file)
            row.switch_to_input(pull=None)
        return bits

    def scan(self, now_ms):
        """Read and debounce; return True when :attr:`stable` changed."""
        differ = self.read() ^ self.stable
        since = self._since
        # Squares that went back to the stable value stop counting.
        for square in _squares(self._pending & ~differ):
            del since[square]
        for square in _squares(differ & ~self._pending):
            since[square] = now_ms
        self._pending = differ
        matured = 0
        for square in _squares(differ):
            if now_ms - since[square] >= self.debounce_ms:
                matured |= 1 << square
        if not matured:
            return False
        for square in _squares(matured):
            del since[square]
        self.stable ^= matured
        self._pending &= ~matured
        return True

    def deinit(self):
        for pin in self._rows + self._columns:
            pin.deinit()


def _squares(bits):
    square = 0
    while bits:
        if bits & 1:
            yield square
        bits >>= 1
        square += 1
