"""The device's half of the bridge protocol: scan, report, obey.

``Device.poll(now_ms)`` does one round: read what the host sent, scan the matrix when due,
send the board on a change and as a heartbeat, report button presses. It never blocks.
"""

from magboard_fw import protocol as p

_FAULT_INTERVAL_MS = 100


class Device:
    """One bridge device over ``serial`` (a ``usb_cdc.Serial``-like object)."""

    def __init__(
        self,
        serial,
        matrix,
        pixels,
        buttons=None,
        boot_id=0,
        firmware="magboard-fw",
        scan_period_ms=5,
        heartbeat_ms=1000,
        host_lost_ms=3000,
    ):
        self.serial = serial
        self.matrix = matrix
        self.pixels = pixels
        self.buttons = buttons
        self.boot_id = boot_id
        self.firmware = firmware
        self.scan_period_ms = scan_period_ms
        self.heartbeat_ms = heartbeat_ms
        self.host_lost_ms = host_lost_ms
        self.reader = p.FrameReader()
        self.tx_seq = 0
        self.rx_seq = None
        self.host_version = None  # the version of the last HELLO; None before one
        self.seq_gaps = 0
        self.unknown_types = 0
        self.internal_errors = 0
        self.writes_dropped = 0
        self._next_scan = 0
        self._last_board_ms = 0
        self._last_host_ms = 0
        self._host_lost = False
        self._bad_reported = 0
        self._last_fault_ms = {}

    # ---------------------------------------------------------------- the round

    def start(self, now_ms):
        """At boot: announce ourselves (the host may be listening already)."""
        self._last_host_ms = now_ms
        self._next_scan = now_ms
        self._send(p.WELCOME, self._welcome_payload())
        self.send_board(p.BOARD_REQUESTED, now_ms)

    def poll(self, now_ms):
        self._receive(now_ms)
        if now_ms >= self._next_scan:
            # Keep the cadence; if we fell far behind, start again from now.
            self._next_scan += self.scan_period_ms
            if self._next_scan < now_ms:
                self._next_scan = now_ms + self.scan_period_ms
            if self.matrix.scan(now_ms):
                self.send_board(p.BOARD_CHANGED, now_ms)
        if self.buttons is not None:
            for name in self.buttons.poll(now_ms):
                if self._host_compatible():
                    self._send(p.BUTTON, bytes((p.BUTTON_CODES[name],)))
        if now_ms - self._last_board_ms >= self.heartbeat_ms:
            self.send_board(p.BOARD_HEARTBEAT, now_ms)
        if not self._host_lost and now_ms - self._last_host_ms >= self.host_lost_ms:
            self._host_lost = True
            self.pixels.show_host_lost()

    def next_due_ms(self):
        """When the next scan is due (the main loop may sleep until then)."""
        return self._next_scan

    def send_board(self, reason, now_ms):
        self._last_board_ms = now_ms
        if self._host_compatible():
            self._send(p.BOARD, self.matrix.stable.to_bytes(8, "little") + bytes((reason,)))

    def report_internal(self, error, now_ms):
        """The main loop caught ``error``: tell the host, at most every 100 ms."""
        self.internal_errors += 1
        text = (type(error).__name__ + ": " + str(error)).encode()[:64]
        self._fault(p.FAULT_INTERNAL, text, now_ms)

    # ---------------------------------------------------------------- receiving

    def _receive(self, now_ms):
        waiting = self.serial.in_waiting
        if not waiting:
            return
        data = self.serial.read(waiting)
        if not data:
            return
        bad_before = self.reader.bad_frames
        for packet_type, seq, payload in self.reader.feed(data):
            self._handle(packet_type, seq, payload, now_ms)
        if self.reader.bad_frames != bad_before:
            count = self.reader.bad_frames & 0xFFFF
            self._fault(p.FAULT_BAD_FRAME, count.to_bytes(2, "little"), now_ms)

    def _handle(self, packet_type, seq, payload, now_ms):
        self._last_host_ms = now_ms
        if packet_type == p.HELLO:
            self.rx_seq = seq
            self.host_version = payload[0]
            self._send(p.WELCOME, self._welcome_payload())
            if self._host_compatible():
                self.send_board(p.BOARD_REQUESTED, now_ms)
            else:
                self._fault(p.FAULT_VERSION, bytes((p.PROTOCOL_VERSION,)), now_ms, force=True)
            return
        if self.rx_seq is not None and seq != (self.rx_seq + 1) & 0xFF:
            self.seq_gaps += 1
            self._fault(p.FAULT_SEQ_GAP, bytes(((self.rx_seq + 1) & 0xFF, seq)), now_ms)
        self.rx_seq = seq
        if not p.is_known(packet_type):
            self.unknown_types += 1
            self._fault(p.FAULT_UNKNOWN_TYPE, bytes((packet_type,)), now_ms)
        elif packet_type == p.PING:
            self._send(p.PONG, payload)
        elif packet_type == p.GET_BOARD:
            self.send_board(p.BOARD_REQUESTED, now_ms)
        elif packet_type == p.LEDS and self._host_compatible():
            self._host_lost = False
            self.pixels.show(payload)

    # ---------------------------------------------------------------- sending

    def _host_compatible(self):
        return self.host_version is None or self.host_version == p.PROTOCOL_VERSION

    def _welcome_payload(self):
        payload = bytearray((p.PROTOCOL_VERSION,))
        payload.extend((self.boot_id & 0xFFFFFFFF).to_bytes(4, "little"))
        payload.extend(self.firmware.encode()[:32])
        return payload

    def _fault(self, code, detail, now_ms, force=False):
        last = self._last_fault_ms.get(code)
        if not force and last is not None and now_ms - last < _FAULT_INTERVAL_MS:
            return
        self._last_fault_ms[code] = now_ms
        self._send(p.FAULT, bytes((code,)) + bytes(detail))

    def _send(self, packet_type, payload=b""):
        frame = p.encode_frame(packet_type, self.tx_seq, payload)
        self.tx_seq = (self.tx_seq + 1) & 0xFF
        # With no host on the other end, writes would only fill the USB buffer: drop them.
        # The sequence number still advances, so the host sees the gap if one ever shows.
        if not self.serial.connected:
            self.writes_dropped += 1
            return
        written = self.serial.write(frame)
        if written is not None and written < len(frame):
            self.writes_dropped += 1
