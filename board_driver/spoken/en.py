# ruff: noqa: E501  (sentences are data: each on one line, as it is said)
"""English: every word the board says, as data (see :mod:`board_driver.spoken`).

Each language's module holds the same names and the same keys with the same ``{fields}``
(``tests/board_driver/spoken`` checks it); no code. ``PIECES`` and ``COLOURED`` give each
piece the forms the sentences need: ``bare`` (``knight``), ``the`` (as a subject), ``the_acc``
(as an object), ``a`` (one of them, as an object), ``plural``, ``the_plural``, ``one`` (one
of them, as a subject: *a queen* in a list of the material).
"""

#: The language's name, in itself, and its code for the voice (espeak-ng, speech-dispatcher).
NAME = "English"
CODE = "en"

PIECES = {
    "pawn": {"bare": "pawn", "the": "the pawn", "the_acc": "the pawn", "a": "a pawn", "plural": "pawns", "the_plural": "the pawns", "one": "a pawn"},
    "knight": {"bare": "knight", "the": "the knight", "the_acc": "the knight", "a": "a knight", "plural": "knights", "the_plural": "the knights", "one": "a knight"},
    "bishop": {"bare": "bishop", "the": "the bishop", "the_acc": "the bishop", "a": "a bishop", "plural": "bishops", "the_plural": "the bishops", "one": "a bishop"},
    "rook": {"bare": "rook", "the": "the rook", "the_acc": "the rook", "a": "a rook", "plural": "rooks", "the_plural": "the rooks", "one": "a rook"},
    "queen": {"bare": "queen", "the": "the queen", "the_acc": "the queen", "a": "a queen", "plural": "queens", "the_plural": "the queens", "one": "a queen"},
    "king": {"bare": "king", "the": "the king", "the_acc": "the king", "a": "a king", "plural": "kings", "the_plural": "the kings", "one": "a king"},
    "piece": {"bare": "piece", "the": "the piece", "the_acc": "the piece", "a": "a piece", "plural": "pieces", "the_plural": "the pieces", "one": "a piece"},
}  # fmt: skip

COLOURED = {
    "white": {
        "pawn": {"bare": "white pawn", "the": "the white pawn", "the_acc": "the white pawn"},
        "knight": {"bare": "white knight", "the": "the white knight", "the_acc": "the white knight"},
        "bishop": {"bare": "white bishop", "the": "the white bishop", "the_acc": "the white bishop"},
        "rook": {"bare": "white rook", "the": "the white rook", "the_acc": "the white rook"},
        "queen": {"bare": "white queen", "the": "the white queen", "the_acc": "the white queen"},
        "king": {"bare": "white king", "the": "the white king", "the_acc": "the white king"},
    },
    "black": {
        "pawn": {"bare": "black pawn", "the": "the black pawn", "the_acc": "the black pawn"},
        "knight": {"bare": "black knight", "the": "the black knight", "the_acc": "the black knight"},
        "bishop": {"bare": "black bishop", "the": "the black bishop", "the_acc": "the black bishop"},
        "rook": {"bare": "black rook", "the": "the black rook", "the_acc": "the black rook"},
        "queen": {"bare": "black queen", "the": "the black queen", "the_acc": "the black queen"},
        "king": {"bare": "black king", "the": "the black king", "the_acc": "the black king"},
    },
}  # fmt: skip

#: A side as a subject (``side``), as an owner (``of``: *White's* flag) and as the one whose
#: turn it is (``to``). A field written with a capital (``{Side}``) begins a sentence.
SIDES = {
    "white": {"side": "White", "of": "White's", "to": "White"},
    "black": {"side": "Black", "of": "Black's", "to": "Black"},
}

#: Units with their singular and plural.
UNITS = {
    "hour": ("hour", "hours"),
    "minute": ("minute", "minutes"),
    "second": ("second", "seconds"),
    "point": ("point", "points"),
}

WORDS = {
    # ---- a move in words (SAN read aloud)
    "move.quiet": "{piece}{hint} to {to}",
    "move.capture": "{piece}{hint} takes {to}",
    "move.pawn": "{to}",
    "move.pawn_capture": "{file} takes {to}",
    "move.en_passant": "{file} takes {to} en passant",
    "move.castle_short": "castles short",
    "move.castle_long": "castles long",
    "move.promotion": "{move}, promotes to {a_piece}",
    "move.check": "{move}, check",
    "move.mate": "{move}, checkmate",
    "move.said": "{Move}.",
    "done": "done",
    # ---- the move a player away chose, to be made on the board
    "to_play": "{Side} plays {move}: {how}.",
    "how.move": "move {the_piece} from {from} to {to}",
    "how.capture": "take {the_victim} on {square} off the board, and move {the_piece} from {from} to {to}",
    "how.castle": "move the king from {from} to {to}, and the rook from {rook_from} to {rook_to}",
    "how.promotion": "{how}, then put {a_piece} on {to} instead of the pawn",
    "other_error": "The engine cannot give its move now; it tries again.",
    # ---- check and the end of the game
    "check": "{Side} is in check.",
    "end.checkmate": "Checkmate. {Winner} wins.",
    "end.stalemate": "Stalemate. Draw.",
    "end.insufficient_material": "Draw: neither side can checkmate.",
    "end.dead_position": "Draw: a dead position, neither side can ever checkmate.",
    "end.fivefold_repetition": "Draw by fivefold repetition.",
    "end.seventyfive_moves": "Draw by the seventy-five-move rule.",
    "end.threefold_repetition": "Draw claimed by threefold repetition.",
    "end.fifty_moves": "Draw claimed by the fifty-move rule.",
    "end.resignation": "{Loser} resigns. {Winner} wins.",
    "end.agreement": "Draw by agreement.",
    "end.timeout": "{Loser_of} flag has fallen. {Winner} wins on time.",
    "end.timeout_draw": "{Loser_of} flag has fallen, but {other} cannot checkmate: draw.",
    "end.rules_infraction": "A second illegal move by {loser}. {Winner} wins.",
    "end.rules_infraction_draw": "A second illegal move by {loser}, but {other} cannot checkmate: draw.",
    "end.abandoned": "Game abandoned. {Winner} wins.",
    "end.abandoned_draw": "Game abandoned.",
    "end.aborted": "Game aborted.",
    "end.other": "Game over: {result}.",
    # ---- an illegal position: why, and how to put it right
    "illegal": "Illegal: {why}; {fix}.",
    "illegal.fix": "{Fix}.",
    "why.wrong_side": "it is {side_of} move, not {other_of}",
    "why.cannot_capture": "{the_piece} on {square} cannot be captured",
    "why.cannot_go": "{the_piece} on {from} cannot go to {to}",
    "why.king_in_check": "the king would be in check on {to}",
    "why.in_check": "{side} is in check and this {piece} move does not end it",
    "why.pinned": "{the_piece} on {from} is pinned, the move would leave {side_of} king in check",
    "why.castling": (
        "castling is not allowed here (it needs the rook's right, every square between king"
        " and rook and their final squares empty, and no attack on the king's square, its"
        " path or its final square)"
    ),
    "why.castling_unfinished": "castling was not finished: the rook stands on {square}",
    "why.en_passant_back": "{the_piece} on {square}, taken en passant, was set back on its square",
    "why.no_legal_move": "{the_piece} on {square} has no legal move",
    "why.several_off": "more than one piece is off its square ({squares})",
    "why.several_moves": "the board shows more than one move",
    "why.extra": "a piece stands on {squares}, where none should",
    "why.unknown": "the board shows no legal move",
    "why.touch_move": "touch-move: the piece touched first must be moved or taken",
    "why.touch_move_own": "touch-move: {the_piece} on {square} was touched and must be moved",
    "why.touch_move_capture": "touch-move: {the_piece} on {square} was touched and must be captured",
    "why.refused": "{move} is not the move to play here",
    "why.expected": "the move to play is {move}",
    "why.not_chosen": "{side} has not chosen a move yet",
    "fix.back": "put it back on {square}",
    "fix.move_back": "move {the_piece} from {from} back to {to}",
    "fix.take_off": "take the piece off {square}",
    "fix.take_off_many": "take the pieces off {squares}",
    "fix.put": "put {the_piece} back on {square}",
    "fix.put_many": "put {the_piece_plural} back on {squares}",
    "fix.fill": "put a piece back on {squares}",
    "restored": "The board matches again.",
    # ---- touch-move, the controls, the clock
    "touch_move.warn": "Touch-move: {the_piece} on {square} was touched first.",
    "adjust": "J'adoube.",
    "draw_offer": "{Side} offers a draw.",
    "claim_refused": "Draw claim refused: {reason}.",
    "claim.none": "no threefold repetition and no fifty moves",
    "refused": "Not now: {reason}.",
    "refused.over": "the game is over",
    "refused.setup": "a new game is being set up",
    "refused.no_offer": "no draw offer stands",
    "refused.other": "it cannot be done now",
    "takeback": "Taken back: {move}. {Side} to move.",
    "hint": "Hint: {move}.",
    "puzzle": "Puzzle {number}: {side} to play. Set the position up as the lights show.",
    "puzzle.rated": "Puzzle {number}, rated {rating}: {side} to play. Set the position up as the lights show.",
    "puzzle.right": "Right.",
    "puzzle.hint_piece": "Hint: {the_piece} on {square}.",
    "puzzle.solved": "Solved. Streak: {streak}.",
    "puzzle.helped": "Solved with a hint.",
    "puzzle.failed": "Puzzle failed.",
    "puzzles.over": "The puzzles are over.",
    "puzzles.none_left": "No puzzle left: the puzzles are over.",
    "low_time": "{Side}: {time} left.",
    "clock.pause": "The clock is paused.",
    "clock.resume": "The clock runs.",
    # ---- new games, the board's state, after a restart
    "ready": "The board is ready.",
    "to_move": "{Side} to move.",
    "game_over_already": "The game is over: {result}.",
    "new_game": "New game. {Side} to move.",
    "new_game.chess960": "New game: Chess960, start position {number}. {Side} to move.",
    "resumed": "Game resumed. {Side} to move.",
    "setup": "For a new game, {parts}.",
    "setup.put": "put {the_piece} on {square}",
    "setup.many": "put the pieces on their squares: {count} still missing, on ranks {ranks}",
    "setup.take_off": "take the pieces off {squares}",
    "setup.kind": "Squares for {the_piece_acc}: {squares}.",
    "setup.wrong": "{square} holds {the_held_acc}, not {the_wanted_acc}: take it off.",
    "setup.early": "{square} is for {the_piece_acc}, not due yet: the board cannot tell what stands there.",
    "setup.unchecked": "The board cannot tell which pieces stand on {squares}: make sure they are right.",
    "state.link_lost": "The link to the board is lost; the game waits.",
    "state.fault": "The board cannot be read.",
    "state.store_failing": "The game cannot be stored; it is kept and tried again.",
    "state.ok": "The board works again.",
    "question": "After the restart the board cannot tell what happened: {readings}. Put the pieces back as they were and play the move again, or answer on the page.",
    "question.reading": "{number}: {words}",
    "question.or": "or",
    "question.nothing": "nothing yet",
    "question.in_hand": "the piece from {squares} is in the hand",
    "answered": "Understood.",
    # ---- answers to the board's buttons (and the page)
    "ask.last_move": "{Side} played {move}.",
    "ask.no_move": "No move yet. {Side} to move.",
    "ask.moves": "Last moves: {moves}.",
    "ask.moves.number": "move {number}",
    "ask.moves.ply": "{side}: {move}",
    "ask.clocks": "White: {white}. Black: {black}.",
    "ask.clocks_paused": "White: {white}. Black: {black}. The clock is paused.",
    "ask.no_clock": "No clock in this game.",
    "ask.material": "White: {white}. Black: {black}. {balance}.",
    "ask.material.king": "the king alone",
    "ask.material.count": "{count} {plural}",
    "ask.material.even": "Material is even",
    "ask.material.ahead": "{Side} is ahead by {points}",
    "ask.square": "{Piece} {square}.",
    "ask.empty": "{square} is empty.",
    "ask.rank": "Rank {rank}: {pieces}.",
    "ask.rank_empty": "Rank {rank} is empty.",
    "ask.file": "File {file}: {pieces}.",
    "ask.file_empty": "File {file} is empty.",
    "ask.pieces": "{Side_of} {piece_plural}: {squares}.",
    "ask.piece": "{Side_of} {piece}: {square}.",
    "ask.pieces_none": "{Side} has no {piece_plural}.",
    "ask.piece_moves": "{The_piece} on {square} can go to {squares}.",
    "ask.piece_moves_takes": "{The_piece} on {square} can go to {squares}, and take on {captures}.",
    "ask.piece_takes": "{The_piece} on {square} can take on {captures}.",
    "ask.piece_stuck": "{The_piece} on {square} cannot move.",
    "ask.entry": "{piece} {square}",
    "ask.square_now": "Lift a piece and put it back: the board names it.",
    "ask.rank_now": "Lift a piece and put it back: the board reads its rank.",
    "ask.file_now": "Lift a piece and put it back: the board reads its file.",
    # ---- lists and times
    "list.then": "; ",
    "list.and": "and",
    "time.join": " ",
}
