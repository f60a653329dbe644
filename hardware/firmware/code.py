# magboard bridge firmware: CircuitPython's entry point (runs after boot.py).
# The pin map and timings are in magboard_fw/config.py; the protocol is in
# firmware_bridge/PROTOCOL.md of the magboard repository.
from magboard_fw.app import main

main()
