"""An entry point that names a function, not an Extension (a test package)."""


def extension() -> None:
    """Not an extension object."""
