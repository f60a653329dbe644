"""Import a hardware library only when its backend is selected, with an error that helps.

``magboard`` runs on laptops without any GPIO or NeoPixel library; a backend imports its
library when it is opened, and a missing one names the package to install.

>>> require_library("json", backend="demo", package="json").__name__
'json'
"""

from __future__ import annotations

import importlib
from types import ModuleType


class MissingLibraryError(ImportError):
    """A hardware backend was selected but its Python library is not installed."""


def require_library(
    module: str,
    *,
    backend: str,
    package: str,
    apt: str | None = None,
    in_pi_extra: bool = True,
) -> ModuleType:
    """Import ``module`` for ``backend``; MissingLibraryError naming ``package`` if absent.

    ``in_pi_extra``: whether ``pip install 'magboard[pi]'`` brings the package.
    """
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        hint = f"pip install {package!r}"
        if in_pi_extra:
            hint += " (or: pip install 'magboard[pi]')"
        if apt:
            hint += f", or on Raspberry Pi OS: sudo apt install {apt}"
        raise MissingLibraryError(
            f"the {backend!r} backend needs the Python module {module!r}, which is not "
            f"installed ({exc}). Install it: {hint}; or choose another backend "
            f'(the simulator: backend = "sim").'
        ) from exc
