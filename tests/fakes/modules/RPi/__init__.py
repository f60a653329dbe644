"""Fake ``RPi`` package: only ``RPi.GPIO``."""
