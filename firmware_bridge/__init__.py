"""Host side of the serial link to a microcontroller that scans the matrix and drives the LEDs."""
