"""The NeoPixels under the squares, through the ``neopixel`` library's API."""

import neopixel

#: Shown when the Pi has been silent too long: a1, h1, a8, h8 dim red.
HOST_LOST_SQUARES = (0, 7, 56, 63)
HOST_LOST_COLOUR = (24, 0, 0)


def pixel_index(square, order="serpentine", first="a1"):
    """The strip position of ``square`` (a1 = 0 .. h8 = 63).

    The strip starts at ``first`` and runs along its rank; ``serpentine`` turns back at the
    end of each rank, ``rows`` starts each rank on the same side.
    """
    if order not in ("serpentine", "rows") or first not in ("a1", "h1", "a8", "h8"):
        raise ValueError("pixel layout: order rows|serpentine, first a1|h1|a8|h8")
    rank, file = divmod(square, 8)
    row = rank if first[1] == "1" else 7 - rank
    column = file if first[0] == "a" else 7 - file
    if order == "serpentine" and row % 2:
        column = 7 - column
    return row * 8 + column


class Pixels:
    """64 pixels, written only by :meth:`show` (``auto_write`` off)."""

    def __init__(self, pin, order="serpentine", first="a1"):
        self._strip = neopixel.NeoPixel(pin, 64, brightness=1.0, auto_write=False)
        self._index = [pixel_index(square, order, first) for square in range(64)]
        self.frames_shown = 0

    def show(self, rgb):
        """Show 192 bytes: r, g, b for square 0 (a1) .. square 63 (h8)."""
        strip = self._strip
        index = self._index
        for square in range(64):
            at = square * 3
            strip[index[square]] = (rgb[at], rgb[at + 1], rgb[at + 2])
        strip.show()
        self.frames_shown += 1

    def show_host_lost(self):
        frame = bytearray(192)
        for square in HOST_LOST_SQUARES:
            frame[square * 3 : square * 3 + 3] = bytes(HOST_LOST_COLOUR)
        self.show(frame)

    def off(self):
        self.show(bytes(192))

    def deinit(self):
        self._strip.deinit()
