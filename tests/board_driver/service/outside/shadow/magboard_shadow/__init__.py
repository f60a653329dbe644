"""An extension that takes the built-in [web] section (a test package): refused, and the
built-in page is served as ever."""

from dataclasses import dataclass

from board_driver.door.extension import Extension


@dataclass(frozen=True)
class ShadowConfig:
    enabled: bool = True


class Shadow(Extension):
    name = "web"
    config_class = ShadowConfig


extension = Shadow()
