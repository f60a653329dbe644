"""The page's Lichess actions (``POST /api/player/lichess/<action>``) and what it shows.

Each action checks its arguments (a ValueError names the bad one), then asks the server
in a thread beside the loop; the server's refusal or silence comes back as an
:class:`~board_driver.door.ActionRefused` with the reason. Games that start because of an
action (a seek answered, a challenge accepted, the AI) come on the event stream and are
put on the board from there.

=================== ==================================================================
``login``           ``redirect_uri`` (the page's address): answers ``url``, Lichess's
                    page to approve the login (OAuth2 with PKCE)
``authorized``      ``code``, ``state`` (or ``error``) from Lichess's answer: the token
                    is fetched, kept, and used
``logout``          the token is revoked at Lichess and forgotten here
``seek``            ``minutes`` and ``increment`` (rapid or slower), or ``days``;
                    ``rated``, ``color``, ``variant`` (``standard`` or ``chess960``)
``cancel_seek``     stop seeking
``challenge``       ``username``; ``minutes`` and ``increment`` (any pace), or ``days``
                    (neither: no clock); ``rated``, ``color``, ``variant`` (``standard``
                    or ``chess960``)
``ai``              ``level`` 1..8; ``minutes`` and ``increment``, or ``days``; ``color``,
                    ``variant``
``accept``          ``id`` (an incoming challenge)
``decline``         ``id``, ``reason`` (Lichess's keys: ``generic``, ``later``, ...)
``cancel``          ``id`` (a challenge we sent)
``play``            ``id``: put that ongoing game on the board (a correspondence game)
``draw``            ``answer``: ``yes`` (offer, or accept theirs) or ``no`` (decline)
``takeback``        ``answer``: ``yes`` (propose, or accept theirs) or ``no``
``resign``, ``abort``, ``claim_victory``, ``claim_draw``
=================== ==================================================================
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from typing import Any

from board_driver.door import ActionRefused
from board_driver.players.lichess.api import BoardApi, LichessError, TokenRejected
from board_driver.players.lichess.online import PLAYABLE_VARIANTS
from board_driver.players.lichess.parts import PlayerParts

COLORS = ("white", "black", "random")
#: The variants a seek or a challenge we send may ask for (Lichess draws a Chess960 start
#: position).
VARIANTS = ("standard", "chess960")
DAYS = (1, 2, 3, 5, 7, 10, 14)
DECLINE_REASONS = (
    "generic", "later", "tooFast", "tooSlow", "timeControl", "rated", "casual",
    "standard", "variant", "noBot", "onlyBot",
)  # fmt: skip


def state(player: PlayerParts) -> dict[str, Any]:
    """The player's state for the page (JSON-able); never the token."""
    game = player.game
    game_json = None
    if game is not None:
        game_json = {
            "id": game.id,
            "url": f"{player.base_url}/{game.id}",
            "color": game.color,
            "white": game.white.json(),
            "black": game.black.json(),
            "speed": game.speed,
            "rated": game.rated,
            "time_control": game.time_control(),
            "pace": game.pace(),
            "clock": game.clock_json(player.state_at, player.door.now_ms()),
            "status": game.status,
            "winner": game.winner,
            "turn": game.turn(),
            "draw_offer": game.draw_offer,
            "takeback_offer": game.takeback_offer,
            "opponent_gone": player.opponent_gone,
            "on_board": player.on_board.holds(game),
            "sending": player.on_board.ours.in_flight,
            "chat": list(player.chat),
        }
    account = player.account
    return {
        "connection": player.connection,
        "message": player.message,
        "base_url": player.base_url,
        "account": None
        if account is None
        else {
            "username": account.get("username"),
            "ratings": {
                speed: (account.get("perfs") or {}).get(speed, {}).get("rating")
                for speed in ("blitz", "rapid", "classical", "correspondence")
            },
        },
        "seeking": player.seeking,
        "challenges": [_challenge_json(c) for c in player.challenges.values()],
        "games": [_ongoing(player, info) for info in player.ongoing.values()],
        "game": game_json,
    }


def _challenge_json(challenge: Mapping[str, Any]) -> dict[str, Any]:
    control = challenge.get("timeControl") or {}
    return {
        "id": challenge.get("id"),
        "direction": challenge.get("direction"),
        "from": (challenge.get("challenger") or {}).get("name"),
        "to": (challenge.get("destUser") or {}).get("name"),
        "rated": challenge.get("rated"),
        "speed": challenge.get("speed"),
        "time_control": control.get("show") or control.get("type"),
        "variant": (challenge.get("variant") or {}).get("key"),
    }


def _ongoing(player: PlayerParts, info: Mapping[str, Any]) -> dict[str, Any]:
    game_id = info.get("gameId") or info.get("id")
    return {
        "id": game_id,
        "opponent": (info.get("opponent") or {}).get("username"),
        "color": info.get("color"),
        "speed": info.get("speed"),
        "my_turn": info.get("isMyTurn"),
        "variant": (info.get("variant") or {}).get("key"),
        "on_board": player.game is not None and player.game.id == game_id,
    }


# ---------------------------------------------------------------------- arguments


def _int(args: Mapping[str, Any], key: str, low: int, high: int) -> int:
    value = args.get(key)
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError(f"{key}: {value!r} is not a whole number from {low} to {high}")
    return value


def _number(args: Mapping[str, Any], key: str, low: float, high: float) -> float:
    value = args.get(key)
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise ValueError(f"{key}: {value!r} is not a number") from None
    if isinstance(value, bool) or not low <= number <= high:
        raise ValueError(f"{key}: {value!r} is not from {low:g} to {high:g}")
    return number


def _choice(args: Mapping[str, Any], key: str, choices: tuple[str, ...], default: str) -> str:
    value = args.get(key, default)
    if value not in choices:
        raise ValueError(f"{key}: {value!r} is not one of {', '.join(choices)}")
    return str(value)


def _bool(args: Mapping[str, Any], key: str) -> bool:
    value = args.get(key, False)
    if not isinstance(value, bool):
        raise ValueError(f"{key}: {value!r} is not true or false")
    return value


def _text(args: Mapping[str, Any], key: str) -> str:
    value = args.get(key)
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{key}: a text is needed")
    return value.strip()


def _pace(args: Mapping[str, Any]) -> tuple[tuple[int, int] | None, int | None]:
    """(clock in seconds, days): ``minutes`` + ``increment``, or ``days``, or neither."""
    if "days" in args and args["days"] is not None:
        days = _int(args, "days", 1, 14)
        if days not in DAYS:
            raise ValueError(f"days: {days} is not one of {', '.join(map(str, DAYS))}")
        return None, days
    if "minutes" in args:
        minutes = _number(args, "minutes", 0, 180)
        seconds = round(minutes * 60)
        if seconds not in (0, 15, 30, 45, 60, 90) and seconds % 60:
            raise ValueError(f"minutes: {minutes:g} is not 0, 1/4, 1/2, 3/4, 1, 1.5 or whole")
        return (seconds, _int(args, "increment", 0, 60)), None
    return None, None


# ---------------------------------------------------------------------- running


async def run(player: PlayerParts, action: str, args: Mapping[str, Any]) -> Mapping[str, Any]:
    """Do the page's ``action`` (see the module docstring)."""
    handler = ACTIONS.get(action)
    if handler is None:
        raise ValueError(f"lichess: no action {action!r} (one of {', '.join(sorted(ACTIONS))})")
    return await handler(player, args)


def _logged_in(player: PlayerParts) -> BoardApi:
    """The player's API, or ActionRefused, saying why, when there is no token that works."""
    if player.api is None or player.connection in ("no_token", "token_rejected"):
        raise ActionRefused(player.message or "not logged in to Lichess: log in on the page")
    return player.api


async def _ask(player: PlayerParts, call: Callable[..., Any], *args: Any) -> Any:
    """A blocking API call in a thread; its failure as an ActionRefused."""
    _logged_in(player)
    try:
        return await asyncio.to_thread(call, *args)
    except TokenRejected as exc:
        player.problem("token_rejected", str(exc))
        raise ActionRefused(str(exc)) from exc
    except LichessError as exc:
        raise ActionRefused(f"Lichess: {exc}") from exc


def _game_id(player: PlayerParts) -> str:
    if player.game is None or player.game.over:
        raise ActionRefused("no Lichess game in progress")
    return player.game.id


async def _login(player: PlayerParts, args: Mapping[str, Any]) -> Mapping[str, Any]:
    from board_driver.players.lichess.login import Pkce

    redirect_uri = _text(args, "redirect_uri")
    if not redirect_uri.startswith(("http://", "https://")):
        raise ValueError(f"redirect_uri: {redirect_uri!r} is not the page's http(s) address")
    pkce = Pkce.new()
    player.logins = {pkce.state: (pkce, redirect_uri)}  # the latest login only
    return {"url": pkce.authorize_url(player.base_url, redirect_uri)}


async def _authorized(player: PlayerParts, args: Mapping[str, Any]) -> Mapping[str, Any]:
    from board_driver.players.lichess.login import exchange_code, save_token

    if args.get("error"):
        raise ActionRefused(f"Lichess login not approved: {args['error']}")
    found = player.logins.pop(str(args.get("state", "")), None)
    if found is None:
        raise ActionRefused("this login answer is not the one asked for (start the login again)")
    pkce, redirect_uri = found
    code = _text(args, "code")
    try:
        token = await asyncio.to_thread(
            exchange_code, player.base_url, code, pkce.verifier, redirect_uri
        )
    except (ValueError, OSError) as exc:
        raise ActionRefused(str(exc)) from exc
    path = player.saved_token_path()
    await asyncio.to_thread(save_token, path, token)
    player.connect(token)
    await asyncio.sleep(0)
    return {"saved": str(path)}


async def _logout(player: PlayerParts, args: Mapping[str, Any]) -> Mapping[str, Any]:
    from board_driver.players.lichess.login import forget_token

    api = player.api
    if api is not None:
        session = api._session

        def revoke() -> None:
            session.delete(api.base_url + "/api/token", timeout=10)

        try:
            await asyncio.to_thread(revoke)
        except Exception:  # revoked or not, it is forgotten here
            pass
        api.close()
    player.stop_streams()
    player.api = None
    player.account = None
    if not player.config.token:
        forget_token(player.saved_token_path())
    player.connection = "no_token"
    player.message = "logged out of Lichess"
    return {}


async def _seek(player: PlayerParts, args: Mapping[str, Any]) -> Mapping[str, Any]:
    rated = _bool(args, "rated")
    variant = _choice(args, "variant", VARIANTS, "standard")
    clock, days = _pace(args)
    if days is not None:
        api = _logged_in(player)
        seek_id = await _ask(
            player, lambda: api.seek_correspondence(days, rated=rated, variant=variant)
        )
        return {"seek": seek_id}
    if clock is None:
        raise ValueError("seek: give minutes and increment, or days")
    limit, increment = clock
    if limit + 40 * increment < 480:
        raise ValueError(
            "seek: the Board API seeks rapid, classical or correspondence games only "
            "(minutes + 40 x increment / 60 of at least 8); challenge a player for blitz"
        )
    color = _choice(args, "color", COLORS, "random")
    api = _logged_in(player)
    if player.seeking:
        raise ActionRefused("a seek is already open")

    async def seek() -> None:
        player.seeking = True
        try:
            await _ask(
                player,
                lambda: api.seek(limit / 60, increment, rated=rated, color=color, variant=variant),
            )
        except ActionRefused as exc:
            if player.seeking:  # not cancelled: a real failure
                player.error(f"the seek ended: {exc}")
        finally:
            player.seeking = False

    player.background(seek())
    await asyncio.sleep(0)
    return {"seeking": True}


async def _cancel_seek(player: PlayerParts, args: Mapping[str, Any]) -> Mapping[str, Any]:
    if player.seeking and player.api is not None:
        player.seeking = False
        player.api.cancel_seek()
    return {"seeking": False}


async def _challenge(player: PlayerParts, args: Mapping[str, Any]) -> Mapping[str, Any]:
    username = _text(args, "username")
    clock, days = _pace(args)
    rated = _bool(args, "rated")
    color = _choice(args, "color", COLORS, "random")
    variant = _choice(args, "variant", VARIANTS, "standard")
    api = _logged_in(player)
    answer = await _ask(
        player,
        lambda: api.challenge(
            username, rated=rated, clock=clock, days=days, color=color, variant=variant
        ),
    )
    return {"challenge": answer.get("id"), "url": answer.get("url")}


async def _ai(player: PlayerParts, args: Mapping[str, Any]) -> Mapping[str, Any]:
    level = _int(args, "level", 1, 8)
    clock, days = _pace(args)
    color = _choice(args, "color", COLORS, "random")
    variant = _choice(args, "variant", VARIANTS, "standard")
    api = _logged_in(player)
    answer = await _ask(
        player,
        lambda: api.challenge_ai(level, clock=clock, days=days, color=color, variant=variant),
    )
    return {"game": answer.get("id")}


async def _accept(player: PlayerParts, args: Mapping[str, Any]) -> Mapping[str, Any]:
    challenge_id = _text(args, "id")
    variant = ((player.challenges.get(challenge_id) or {}).get("variant") or {}).get("key")
    if variant is not None and variant not in PLAYABLE_VARIANTS:
        raise ActionRefused(
            f"challenge {challenge_id} is {variant}: the board plays standard chess and Chess960"
        )
    await _ask(player, player.api.accept, challenge_id)  # type: ignore[union-attr]
    return {}


async def _decline(player: PlayerParts, args: Mapping[str, Any]) -> Mapping[str, Any]:
    challenge_id = _text(args, "id")
    reason = _choice(args, "reason", DECLINE_REASONS, "generic")
    await _ask(player, player.api.decline, challenge_id, reason)  # type: ignore[union-attr]
    player.challenges.pop(challenge_id, None)
    return {}


async def _cancel(player: PlayerParts, args: Mapping[str, Any]) -> Mapping[str, Any]:
    challenge_id = _text(args, "id")
    await _ask(player, player.api.cancel, challenge_id)  # type: ignore[union-attr]
    player.challenges.pop(challenge_id, None)
    return {}


async def _play(player: PlayerParts, args: Mapping[str, Any]) -> Mapping[str, Any]:
    game_id = _text(args, "id")
    if game_id not in player.ongoing:
        raise ActionRefused(f"no ongoing Lichess game {game_id}")
    if player.api is None:
        raise ActionRefused("not logged in to Lichess")
    player.take(game_id)
    return {}


def _answer(args: Mapping[str, Any]) -> bool:
    return _choice(args, "answer", ("yes", "no"), "yes") == "yes"


async def _draw(player: PlayerParts, args: Mapping[str, Any]) -> Mapping[str, Any]:
    game_id, yes = _game_id(player), _answer(args)
    await _ask(player, player.api.draw, game_id, yes)  # type: ignore[union-attr]
    return {}


async def _takeback(player: PlayerParts, args: Mapping[str, Any]) -> Mapping[str, Any]:
    game_id, yes = _game_id(player), _answer(args)
    await _ask(player, player.api.takeback, game_id, yes)  # type: ignore[union-attr]
    return {}


def _simple(name: str) -> Callable[..., Any]:
    async def act(player: PlayerParts, args: Mapping[str, Any]) -> Mapping[str, Any]:
        game_id = _game_id(player)
        await _ask(player, getattr(player.api, name), game_id)
        return {}

    return act


ACTIONS: dict[str, Callable[[PlayerParts, Mapping[str, Any]], Any]] = {
    "login": _login,
    "authorized": _authorized,
    "logout": _logout,
    "seek": _seek,
    "cancel_seek": _cancel_seek,
    "challenge": _challenge,
    "ai": _ai,
    "accept": _accept,
    "decline": _decline,
    "cancel": _cancel,
    "play": _play,
    "draw": _draw,
    "takeback": _takeback,
    "resign": _simple("resign"),
    "abort": _simple("abort"),
    "claim_victory": _simple("claim_victory"),
    "claim_draw": _simple("claim_draw"),
}
