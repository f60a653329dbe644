"""COBS encoding and decoding (no zero bytes inside a frame; 0x00 ends it)."""


def encode(data):
    """``data`` COBS-encoded, without the delimiter."""
    out = bytearray(1)
    code_at = 0
    code = 1
    size = len(data)
    for index in range(size):
        byte = data[index]
        if byte == 0:
            out[code_at] = code
            code_at = len(out)
            out.append(0)
            code = 1
            continue
        out.append(byte)
        code += 1
        # A full block (254 data bytes) carries no implied zero; open a new block only if
        # more data follows, so the encoding is the canonical one.
        if code == 0xFF and index + 1 < size:
            out[code_at] = code
            code_at = len(out)
            out.append(0)
            code = 1
    out[code_at] = code
    return bytes(out)


def decode(encoded):
    """The data a COBS frame stands for; ``ValueError`` if the encoding is broken."""
    out = bytearray()
    size = len(encoded)
    index = 0
    while index < size:
        code = encoded[index]
        if code == 0:
            raise ValueError("COBS: zero byte inside the frame")
        end = index + code
        if end > size:
            raise ValueError("COBS: block runs past the end")
        for position in range(index + 1, end):
            byte = encoded[position]
            if byte == 0:
                raise ValueError("COBS: zero byte inside the frame")
            out.append(byte)
        index = end
        if code != 0xFF and index < size:
            out.append(0)
    return bytes(out)
