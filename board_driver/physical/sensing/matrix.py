"""The electrical model of an 8x8 reed-switch matrix, as a scan reads it.

Rows are driven one at a time; each column is read through a pull-up. With a diode in
series with every switch, a column reads closed only through the switch on the driven
row. Without diodes, current also flows backwards through other closed switches: when
three corners of a rectangle are closed, the fourth reads closed too (a *ghost*), and in
general every switch reachable through a chain of closed switches reads closed.

>>> closed = 1 << 0 | 1 << 1 | 1 << 8          # a1, b1, a2
>>> read_matrix(closed, diodes=True) == closed
True
>>> read_matrix(closed, diodes=False) == closed | 1 << 9   # b2 ghosts
True
"""

from __future__ import annotations


def read_matrix(closed: int, *, diodes: bool) -> int:
    """What a full scan reads when the switches in ``closed`` (bit 8*row+column) are shut."""
    if diodes or not closed:
        return closed
    # Without diodes, a row and a column joined by a chain of closed switches are one
    # electrical node: driving the row low pulls every column of that node low.
    row_bytes = [(closed >> (8 * row)) & 0xFF for row in range(8)]
    seen = 0
    result = 0
    for start in range(8):
        if seen >> start & 1 or not row_bytes[start]:
            continue
        rows, columns = 1 << start, row_bytes[start]
        grown = True
        while grown:
            grown = False
            for row in range(8):
                if not rows >> row & 1 and row_bytes[row] & columns:
                    rows |= 1 << row
                    columns |= row_bytes[row]
                    grown = True
        seen |= rows
        for row in range(8):
            if rows >> row & 1:
                result |= columns << (8 * row)
    return result
