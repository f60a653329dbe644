# CircuitPython runs boot.py once at power-up, before USB starts: ask for a second USB serial
# port (usb_cdc.data) for the bridge, so the REPL console stays free for a human.
import usb_cdc

usb_cdc.enable(console=True, data=True)
