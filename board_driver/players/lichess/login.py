"""The token: from the config, from a file, or from "Log in with Lichess" on the page.

Lichess lets any application use OAuth2's authorization code flow with PKCE without
registering (any ``client_id``; the challenge method ``S256``). The page asks for a
login, the player answers with Lichess's address to send the browser to (the
``code_verifier`` stays in the daemon: only its hash travels), Lichess sends the browser
back to the page with a ``code``, and the player trades the code and the verifier for a
token (``POST /api/token``), which it keeps in a file only the service can read.

>>> pkce = Pkce.new()
>>> len(pkce.verifier) >= 43 and pkce.challenge != pkce.verifier
True
>>> url = pkce.authorize_url("https://lichess.org", "http://magboard.local:8080/")
>>> url.startswith("https://lichess.org/oauth?response_type=code&client_id=magboard&")
True
>>> "board%3Aplay" in url and pkce.verifier not in url
True
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import os
import secrets
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlencode

from board_driver.user_files import UnusableFile, read_private_text

#: Our ``client_id`` at Lichess (any unique text will do for an unregistered client).
CLIENT_ID = "magboard"
SCOPES = ("board:play",)
#: The token kept after a login on the page, in the state directory.
SAVED_TOKEN_NAME = "lichess-token"


class TokenFileError(ValueError):
    """The token file cannot be used; the message says why and what to do."""


@dataclass(frozen=True)
class Pkce:
    """One login's secrets: the ``verifier`` (kept here), its ``challenge`` (sent) and the
    ``state`` that the answer must carry back."""

    verifier: str
    challenge: str
    state: str

    @classmethod
    def new(cls) -> Pkce:
        verifier = secrets.token_urlsafe(48)
        digest = hashlib.sha256(verifier.encode("ascii")).digest()
        challenge = base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")
        return cls(verifier, challenge, secrets.token_urlsafe(16))

    def authorize_url(self, base_url: str, redirect_uri: str) -> str:
        """Where to send the browser to log in (``GET /oauth``)."""
        query = {
            "response_type": "code",
            "client_id": CLIENT_ID,
            "redirect_uri": redirect_uri,
            "code_challenge_method": "S256",
            "code_challenge": self.challenge,
            "scope": " ".join(SCOPES),
            "state": self.state,
        }
        return f"{base_url.rstrip('/')}/oauth?{urlencode(query)}"


def exchange_code(base_url: str, code: str, verifier: str, redirect_uri: str) -> str:
    """Trade an authorization code for a token (``POST /api/token``); blocking.

    ValueError with Lichess's reason when refused, OSError when it cannot be reached.
    The form holds the verifier: it is never logged."""
    import requests

    form = {
        "grant_type": "authorization_code",
        "code": code,
        "code_verifier": verifier,
        "redirect_uri": redirect_uri,
        "client_id": CLIENT_ID,
    }
    try:
        response = requests.post(f"{base_url.rstrip('/')}/api/token", data=form, timeout=15)
    except requests.RequestException as exc:
        raise OSError(f"cannot reach Lichess to finish the login: {exc}") from exc
    try:
        answer = response.json()
    except ValueError:
        answer = {}
    if not response.ok or not answer.get("access_token"):
        reason = answer.get("error_description") or answer.get("error") or response.reason
        raise ValueError(f"Lichess refused the login: {reason}")
    return str(answer["access_token"])


def read_token_file(path: Path) -> str:
    """The token in ``path`` (first line). TokenFileError if the file cannot be read (no
    regular file, far too large for a token, not UTF-8), is empty, or others than its owner
    may read it (the token plays in your name)."""
    try:
        text = read_private_text(path)
    except UnusableFile as exc:
        raise TokenFileError(f"[lichess] token_file: {exc}") from None
    token = text.strip().splitlines()[0].strip() if text.strip() else ""
    if not token:
        raise TokenFileError(f"[lichess] token_file: {path} is empty")
    return token


def save_token(path: Path, token: str) -> None:
    """Write ``token`` to ``path``, readable by this user alone, replacing it at once."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".new")
    with contextlib.suppress(FileNotFoundError):
        temporary.unlink()
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as file:
        file.write(token + "\n")
        file.flush()
        os.fsync(file.fileno())
    os.replace(temporary, path)


def forget_token(path: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
