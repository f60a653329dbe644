"""Every kind of utterance, word for word, in English and French; the moves (and a few
more) in German and Spanish; and every sentence of every table said at least once by the
board's own code (``catalogue.py`` makes them from real events and positions)."""

# ruff: noqa: E501  (each expected sentence on one line, as it is said)

from __future__ import annotations

import pytest

from board_driver.arbiter.words import why_illegal as trackers_why
from board_driver.spoken import LANGUAGES, Words
from board_driver.spoken.reasons import why_illegal
from board_driver.spoken.words import table
from rules import Position
from tests.board_driver.spoken.catalogue import catalogue

EN = {
    "knight": 'Knight to f3.',
    "d5": 'd5.',
    "knight2": 'Knight to d4.',
    "e5": 'e5.',
    "knight3": 'Knight to b5.',
    "c6": 'c6.',
    "hint": 'Hint: knight to f3.',
    "pawn_takes": 'c takes b5.',
    "piece_takes": 'Knight takes d5.',
    "queen_takes": 'Queen takes d5.',
    "en_passant": 'e takes f6 en passant.',
    "castles_short": 'Castles short.',
    "castles_long": 'Castles long.',
    "promotion_check": 'e8, promotes to a knight, check.',
    "mate": 'Rook to a8, checkmate.',
    "check_alone": 'Black is in check.',
    "to_play": 'Black plays knight to f6: move the knight from g8 to f6.',
    "done": 'Done.',
    "to_play_capture": 'White plays e takes d5: take the pawn on d5 off the board, and move the pawn from e4 to d5.',
    "to_play_en_passant": 'White plays e takes f6 en passant: take the pawn on f5 off the board, and move the pawn from e5 to f6.',
    "to_play_castle": 'White plays castles long: move the king from e1 to c1, and the rook from a1 to d1.',
    "to_play_promotion": 'White plays e8, promotes to a queen: move the pawn from e7 to e8, then put a queen on e8 instead of the pawn.',
    "done_check": 'Done, check.',
    "engine_error": 'The engine cannot give its move now; it tries again.',
    "end_checkmate": 'Checkmate. White wins.',
    "end_stalemate_draw": 'Stalemate. Draw.',
    "end_insufficient_material_draw": 'Draw: neither side can checkmate.',
    "end_dead_position_draw": 'Draw: a dead position, neither side can ever checkmate.',
    "end_fivefold_repetition_draw": 'Draw by fivefold repetition.',
    "end_seventyfive_moves_draw": 'Draw by the seventy-five-move rule.',
    "end_threefold_repetition_draw": 'Draw claimed by threefold repetition.',
    "end_fifty_moves_draw": 'Draw claimed by the fifty-move rule.',
    "end_resignation": 'White resigns. Black wins.',
    "end_agreement_draw": 'Draw by agreement.',
    "end_timeout": "White's flag has fallen. Black wins on time.",
    "end_timeout_draw": "White's flag has fallen, but Black cannot checkmate: draw.",
    "end_rules_infraction": 'A second illegal move by Black. White wins.',
    "end_rules_infraction_draw": 'A second illegal move by White, but Black cannot checkmate: draw.',
    "end_abandoned": 'Game abandoned. White wins.',
    "end_abandoned_draw": 'Game abandoned.',
    "end_aborted_draw": 'Game aborted.',
    "end_variant_end": 'Game over: 1-0.',
    "illegal_cannot_go": 'Illegal: the pawn on e2 cannot go to e5; put it back on e2.',
    "illegal_wrong_side": "Illegal: it is White's move, not Black's; move the pawn from e5 back to e7.",
    "illegal_cannot_capture": 'Illegal: the black knight on g8 cannot be captured; put the knight back on g8.',
    "illegal_no_legal_move": 'Illegal: the rook on a1 has no legal move; put the rook back on a1.',
    "illegal_several_off": 'Illegal: more than one piece is off its square (d2 and e2); put the pawns back on d2 and e2.',
    "illegal_several_moves": 'Illegal: the board shows more than one move; take the pieces off d4 and e4; put the pawns back on d2 and e2.',
    "illegal_extra": 'Illegal: a piece stands on e4, where none should; take the piece off e4.',
    "illegal_pinned": "Illegal: the bishop on e2 is pinned, the move would leave White's king in check; put it back on e2.",
    "illegal_in_check": 'Illegal: White is in check and this bishop move does not end it; put it back on d2.',
    "illegal_king": 'Illegal: the king would be in check on e2; put it back on e1.',
    "illegal_castling": "Illegal: castling is not allowed here (it needs the rook's right, every square between king and rook and their final squares empty, and no attack on the king's square, its path or its final square); move the king from g1 back to e1.",
    "why_castling_unfinished": 'castling was not finished: the rook stands on h1',
    "why_en_passant_back": 'the black pawn on f5, taken en passant, was set back on its square',
    "why_unknown": 'the board shows no legal move',
    "illegal_touch_move_own": 'Illegal: touch-move: the knight on g1 was touched and must be moved; move the pawn from e4 back to e2.',
    "illegal_touch_move_capture": 'Illegal: touch-move: the black pawn on e5 was touched and must be captured; move the knight from c3 back to b1.',
    "illegal_touch_move": 'Illegal: touch-move: the piece touched first must be moved or taken; move the pawn from e4 back to e2.',
    "illegal_refused": 'Illegal: e3 is not the move to play here; move the pawn from e3 back to e2.',
    "setup_kind_and_wrong": "g1 holds the white rook, not the white knight: take it off. Squares for the white rook: h1.",
    "setup_early": "g8 is for the black knight, not due yet: the board cannot tell what stands there.",
    "setup_unchecked": "The board cannot tell which pieces stand on g8: make sure they are right.",
    "puzzle": "Puzzle 3: Black to play. Set the position up as the lights show.",
    "puzzle_rated": "Puzzle 1, rated 1450: White to play. Set the position up as the lights show.",
    "puzzle_right": "Right.",
    "puzzle_hint_piece": "Hint: the rook on a1.",
    "puzzle_hint_move": "Hint: rook to a7.",
    "puzzle_solved": "Solved. Streak: 4.",
    "puzzle_helped": "Solved with a hint.",
    "puzzle_failed": "Puzzle failed.",
    "puzzles_none_left": "No puzzle left: the puzzles are over.",
    "puzzles_over": "The puzzles are over.",
    "illegal_expected": 'Illegal: the move to play is knight to c6; move the knight from f6 back to b8.',
    "illegal_not_chosen": 'Illegal: Black has not chosen a move yet; move the knight from f6 back to g8.',
    "fix_only": 'Take the pieces off e5 and d5; put the pawns back on e2 and d2.',
    "fix_fill": 'put a piece back on e4',
    "restored": 'The board matches again.',
    "touch_move_warn": 'Touch-move: the knight on g1 was touched first.',
    "adjust": "J'adoube.",
    "draw_offer": 'Black offers a draw.',
    "claim_refused": 'Draw claim refused: no threefold repetition and no fifty moves.',
    "refused_over": 'Not now: the game is over.',
    "refused_setup": 'Not now: a new game is being set up.',
    "refused_no_offer": 'Not now: no draw offer stands.',
    "refused_other": 'Not now: it cannot be done now.',
    "takeback": 'Taken back: knight to f3. White to move.',
    "low_time": 'Black: 20 seconds left.',
    "low_time_long": 'White: 1 hour 2 minutes 5 seconds left.',
    "clock_pause": 'The clock is paused.',
    "clock_resume": 'The clock runs.',
    "ready": 'The board is ready. White to move.',
    "ready_over": 'The board is ready. The game is over: 1-0.',
    "new_game": 'New game. White to move.',
    "resumed": 'Game resumed. Black to move.',
    "setup_few": 'For a new game, put the white rook on a1 and put the black knight on g8; take the pieces off e4 and d5.',
    "setup_many": 'For a new game, put the pieces on their squares: 32 still missing, on ranks 1, 2, 7 and 8.',
    "state_link_lost": 'The link to the board is lost; the game waits.',
    "state_fault": 'The board cannot be read.',
    "state_store_failing": 'The game cannot be stored; it is kept and tried again.',
    "state_ok": 'The board works again.',
    "question": 'After the restart the board cannot tell what happened: 1: nothing yet, the piece from g8 is in the hand or 2: queen takes g7, check or 3: queen takes g7, check, king to e8 or 4: queen to g4, the piece from e8 is in the hand. Put the pieces back as they were and play the move again, or answer on the page.',
    "answered": 'Understood.',
    "ask_move": 'White played bishop to b5.',
    "ask_moves": 'Last moves: move 1, White: e4; Black: e5; move 2, White: knight to f3; Black: knight to c6; move 3, White: bishop to b5.',
    "ask_material": 'White: a queen, 2 rooks, 2 bishops, 2 knights, 8 pawns. Black: a queen, 2 rooks, 2 bishops, 2 knights, 8 pawns. Material is even.',
    "ask_clocks": 'No clock in this game.',
    "ask_move_ply": 'Black played e5.',
    "ask_no_move": 'No move yet. White to move.',
    "ask_moves_from_black": 'Last moves: move 2, Black: knight to c6; move 3, White: bishop to b5.',
    "ask_square": 'White knight f3.',
    "ask_empty": 'e3 is empty.',
    "ask_rank": 'Rank 5: white bishop b5 and black pawn e5.',
    "ask_rank_empty": 'Rank 4 is empty.',
    "ask_file": 'File b: white knight b1, white pawn b2, white bishop b5 and black pawn b7.',
    "ask_file_empty": 'File c is empty.',
    "ask_clocks_running": 'White: 4 minutes 32 seconds. Black: 1 minute 1 second.',
    "ask_clocks_paused": 'White: 4 minutes 32 seconds. Black: 1 minute 1 second. The clock is paused.',
    "ask_clocks_online": 'White: 30 seconds. Black: 1 second.',
    "ask_material_king": 'White: a rook. Black: the king alone. White is ahead by 5 points.',
    "ask_material_black": 'White: a rook. Black: a queen. Black is ahead by 4 points.',
    "ask_square_now": 'Lift a piece and put it back: the board names it.',
    "ask_rank_now": 'Lift a piece and put it back: the board reads its rank.',
    "ask_file_now": 'Lift a piece and put it back: the board reads its file.',
    "repeat_last_move": 'White played bishop to b5.',
}

FR = {
    "knight": 'Cavalier f3.',
    "d5": 'd5.',
    "knight2": 'Cavalier d4.',
    "e5": 'e5.',
    "knight3": 'Cavalier b5.',
    "c6": 'c6.',
    "hint": 'Conseil : cavalier f3.',
    "pawn_takes": 'c prend b5.',
    "piece_takes": 'Cavalier prend d5.',
    "queen_takes": 'Dame prend d5.',
    "en_passant": 'e prend f6 en passant.',
    "castles_short": 'Petit roque.',
    "castles_long": 'Grand roque.',
    "promotion_check": 'e8, promotion en cavalier, échec.',
    "mate": 'Tour a8, échec et mat.',
    "check_alone": 'Les noirs sont en échec.',
    "to_play": 'Les noirs jouent cavalier f6 : déplacez le cavalier de g8 à f6.',
    "done": 'Fait.',
    "to_play_capture": "Les blancs jouent e prend d5 : retirez le pion en d5 de l'échiquier, puis déplacez le pion de e4 à d5.",
    "to_play_en_passant": "Les blancs jouent e prend f6 en passant : retirez le pion en f5 de l'échiquier, puis déplacez le pion de e5 à f6.",
    "to_play_castle": 'Les blancs jouent grand roque : déplacez le roi de e1 à c1, puis la tour de a1 à d1.',
    "to_play_promotion": 'Les blancs jouent e8, promotion en dame : déplacez le pion de e7 à e8, puis posez une dame en e8 à la place du pion.',
    "done_check": 'Fait, échec.',
    "engine_error": "Le moteur ne peut pas donner son coup pour l'instant ; il réessaie.",
    "end_checkmate": 'Échec et mat. Les blancs gagnent.',
    "end_stalemate_draw": 'Pat. Partie nulle.',
    "end_insufficient_material_draw": 'Partie nulle : aucun camp ne peut mater.',
    "end_dead_position_draw": 'Partie nulle : position morte, aucun camp ne pourra jamais mater.',
    "end_fivefold_repetition_draw": 'Partie nulle par quintuple répétition.',
    "end_seventyfive_moves_draw": 'Partie nulle par la règle des soixante-quinze coups.',
    "end_threefold_repetition_draw": 'Nulle réclamée par triple répétition.',
    "end_fifty_moves_draw": 'Nulle réclamée par la règle des cinquante coups.',
    "end_resignation": 'Les blancs abandonnent. Les noirs gagnent.',
    "end_agreement_draw": 'Partie nulle par accord mutuel.',
    "end_timeout": 'Le drapeau des blancs est tombé. Les noirs gagnent au temps.',
    "end_timeout_draw": 'Le drapeau des blancs est tombé, mais les noirs ne peuvent pas mater : partie nulle.',
    "end_rules_infraction": 'Deuxième coup illégal des noirs. Les blancs gagnent.',
    "end_rules_infraction_draw": 'Deuxième coup illégal des blancs, mais les noirs ne peuvent pas mater : partie nulle.',
    "end_abandoned": 'Partie abandonnée. Les blancs gagnent.',
    "end_abandoned_draw": 'Partie abandonnée.',
    "end_aborted_draw": 'Partie annulée.',
    "end_variant_end": 'Partie terminée : 1-0.',
    "illegal_cannot_go": 'Illégal : le pion en e2 ne peut pas aller en e5 ; remettez-le en e2.',
    "illegal_wrong_side": "Illégal : c'est aux blancs de jouer, pas aux noirs ; ramenez le pion de e5 en e7.",
    "illegal_cannot_capture": 'Illégal : on ne peut pas prendre le cavalier noir en g8 ; remettez le cavalier en g8.',
    "illegal_no_legal_move": "Illégal : la tour en a1 n'a aucun coup légal ; remettez la tour en a1.",
    "illegal_several_off": 'Illégal : plusieurs pièces ont quitté leur case : d2 et e2 ; remettez les pions en d2 et e2.',
    "illegal_several_moves": "Illégal : l'échiquier montre plus d'un coup ; retirez les pièces en d4 et e4 ; remettez les pions en d2 et e2.",
    "illegal_extra": "Illégal : une pièce est en e4, où il n'en faut pas ; retirez la pièce en e4.",
    "illegal_pinned": 'Illégal : le fou en e2 est cloué : le coup laisserait le roi en échec ; remettez-le en e2.',
    "illegal_in_check": 'Illégal : les blancs sont en échec, et le fou de d2 en c3 ne le pare pas ; remettez-le en d2.',
    "illegal_king": 'Illégal : le roi serait en échec en e2 ; remettez-le en e1.',
    "illegal_castling": "Illégal : le roque n'est pas permis ici ; ramenez le roi de g1 en e1.",
    "why_castling_unfinished": "le roque n'est pas terminé : la tour est encore en h1",
    "why_en_passant_back": 'le pion noir en f5, pris en passant, a été remis sur sa case',
    "why_unknown": "l'échiquier ne montre aucun coup légal",
    "illegal_touch_move_own": 'Illégal : pièce touchée : il faut jouer le cavalier en g1 ; ramenez le pion de e4 en e2.',
    "illegal_touch_move_capture": 'Illégal : pièce touchée : il faut prendre le pion noir en e5 ; ramenez le cavalier de c3 en b1.',
    "illegal_touch_move": 'Illégal : pièce touchée : la première pièce touchée doit être jouée ou prise ; ramenez le pion de e4 en e2.',
    "illegal_refused": "Illégal : e3 n'est pas le coup à jouer ici ; ramenez le pion de e3 en e2.",
    "setup_kind_and_wrong": "En g1, il y a la tour blanche, pas le cavalier blanc : retirez cette pièce. Cases pour la tour blanche : h1.",
    "setup_early": "g8 est pour le cavalier noir, pas encore : l'échiquier ne peut pas savoir quelle pièce s'y trouve.",
    "setup_unchecked": "L'échiquier ne peut pas savoir quelles pièces sont en g8 : vérifiez-les.",
    "puzzle": "Problème 3 : trait aux noirs. Placez la position comme les lumières l'indiquent.",
    "puzzle_rated": "Problème 1, classé 1450 : trait aux blancs. Placez la position comme les lumières l'indiquent.",
    "puzzle_right": "Bien joué.",
    "puzzle_hint_piece": "Conseil : la tour en a1.",
    "puzzle_hint_move": "Conseil : tour a7.",
    "puzzle_solved": "Résolu. Série : 4.",
    "puzzle_helped": "Résolu avec un conseil.",
    "puzzle_failed": "Problème manqué.",
    "puzzles_none_left": "Plus aucun problème : c'est fini.",
    "puzzles_over": "Les problèmes sont finis.",
    "illegal_expected": 'Illégal : le coup à jouer est cavalier c6 ; ramenez le cavalier de f6 en b8.',
    "illegal_not_chosen": "Illégal : les noirs n'ont pas encore choisi leur coup ; ramenez le cavalier de f6 en g8.",
    "fix_only": 'Retirez les pièces en e5 et d5 ; remettez les pions en e2 et d2.',
    "fix_fill": 'remettez une pièce en e4',
    "restored": "L'échiquier correspond de nouveau.",
    "touch_move_warn": "Pièce touchée : vous avez d'abord touché le cavalier en g1.",
    "adjust": "J'adoube.",
    "draw_offer": 'Les noirs proposent la nulle.',
    "claim_refused": 'Nulle refusée : ni triple répétition ni cinquante coups.',
    "refused_over": 'Impossible maintenant : la partie est terminée.',
    "refused_setup": 'Impossible maintenant : une nouvelle partie est en cours de mise en place.',
    "refused_no_offer": 'Impossible maintenant : aucune proposition de nulle.',
    "refused_other": "Impossible maintenant : ce n'est pas possible maintenant.",
    "takeback": 'Coup repris : cavalier f3. Trait aux blancs.',
    "low_time": 'Les noirs : plus que 20 secondes.',
    "low_time_long": 'Les blancs : plus que 1 heure 2 minutes 5 secondes.',
    "clock_pause": 'La pendule est arrêtée.',
    "clock_resume": 'La pendule repart.',
    "ready": "L'échiquier est prêt. Trait aux blancs.",
    "ready_over": "L'échiquier est prêt. La partie est terminée : 1-0.",
    "new_game": 'Nouvelle partie. Trait aux blancs.',
    "resumed": 'Partie reprise. Trait aux noirs.',
    "setup_few": 'Pour une nouvelle partie, posez la tour blanche en a1 et posez le cavalier noir en g8 ; retirez les pièces en e4 et d5.',
    "setup_many": 'Pour une nouvelle partie, placez les pièces sur leurs cases : il en manque encore 32, sur les rangées 1, 2, 7 et 8.',
    "state_link_lost": "La liaison avec l'échiquier est perdue ; la partie attend.",
    "state_fault": "L'échiquier ne peut pas être lu.",
    "state_store_failing": "La partie ne peut pas être enregistrée ; elle est gardée et l'enregistrement réessayé.",
    "state_ok": "L'échiquier fonctionne de nouveau.",
    "question": "Après le redémarrage, l'échiquier ne peut pas savoir ce qui s'est passé : 1 : rien encore, la pièce de g8 est dans la main ou 2 : dame prend g7, échec ou 3 : dame prend g7, échec, roi e8 ou 4 : dame g4, la pièce de e8 est dans la main. Remettez les pièces comme elles étaient et rejouez le coup, ou répondez sur la page.",
    "answered": 'Compris.',
    "ask_move": 'Les blancs ont joué fou b5.',
    "ask_moves": 'Derniers coups : coup 1, les blancs : e4 ; les noirs : e5 ; coup 2, les blancs : cavalier f3 ; les noirs : cavalier c6 ; coup 3, les blancs : fou b5.',
    "ask_material": 'Blancs : une dame, 2 tours, 2 fous, 2 cavaliers, 8 pions. Noirs : une dame, 2 tours, 2 fous, 2 cavaliers, 8 pions. Le matériel est égal.',
    "ask_clocks": 'Pas de pendule dans cette partie.',
    "ask_move_ply": 'Les noirs ont joué e5.',
    "ask_no_move": 'Aucun coup encore. Trait aux blancs.',
    "ask_moves_from_black": 'Derniers coups : coup 2, les noirs : cavalier c6 ; coup 3, les blancs : fou b5.',
    "ask_square": 'Cavalier blanc f3.',
    "ask_empty": 'La case e3 est vide.',
    "ask_rank": 'Rangée 5 : fou blanc b5 et pion noir e5.',
    "ask_rank_empty": 'La rangée 4 est vide.',
    "ask_file": 'Colonne b : cavalier blanc b1, pion blanc b2, fou blanc b5 et pion noir b7.',
    "ask_file_empty": 'La colonne c est vide.',
    "ask_clocks_running": 'Blancs : 4 minutes 32 secondes. Noirs : 1 minute 1 seconde.',
    "ask_clocks_paused": 'Blancs : 4 minutes 32 secondes. Noirs : 1 minute 1 seconde. La pendule est arrêtée.',
    "ask_clocks_online": 'Blancs : 30 secondes. Noirs : 1 seconde.',
    "ask_material_king": "Blancs : une tour. Noirs : le roi seul. Les blancs ont 5 points d'avance.",
    "ask_material_black": "Blancs : une tour. Noirs : une dame. Les noirs ont 4 points d'avance.",
    "ask_square_now": "Soulevez une pièce et reposez-la : l'échiquier la nomme.",
    "ask_rank_now": "Soulevez une pièce et reposez-la : l'échiquier lit sa rangée.",
    "ask_file_now": "Soulevez une pièce et reposez-la : l'échiquier lit sa colonne.",
    "repeat_last_move": 'Les blancs ont joué fou b5.',
}

DE = {
    "knight": 'Springer f3.',
    "d5": 'd5.',
    "pawn_takes": 'c schlägt b5.',
    "piece_takes": 'Springer schlägt d5.',
    "queen_takes": 'Dame schlägt d5.',
    "en_passant": 'e schlägt f6 en passant.',
    "castles_short": 'Kurze Rochade.',
    "castles_long": 'Lange Rochade.',
    "promotion_check": 'e8, Umwandlung in einen Springer, Schach.',
    "mate": 'Turm a8, schachmatt.',
    "to_play": 'Schwarz spielt Springer f6: ziehen Sie den Springer von g8 nach f6.',
    "done": 'Erledigt.',
    "to_play_capture": 'Weiß spielt e schlägt d5: nehmen Sie den Bauern auf d5 vom Brett und ziehen Sie den Bauern von e4 nach d5.',
    "to_play_en_passant": 'Weiß spielt e schlägt f6 en passant: nehmen Sie den Bauern auf f5 vom Brett und ziehen Sie den Bauern von e5 nach f6.',
    "to_play_castle": 'Weiß spielt lange Rochade: ziehen Sie den König von e1 nach c1 und den Turm von a1 nach d1.',
    "to_play_promotion": 'Weiß spielt e8, Umwandlung in eine Dame: ziehen Sie den Bauern von e7 nach e8, dann stellen Sie eine Dame statt des Bauern auf e8.',
    "done_check": 'Erledigt, Schach.',
    "end_checkmate": 'Schachmatt. Weiß gewinnt.',
    "illegal_cannot_go": 'Regelwidrig: der Bauer auf e2 kann nicht nach e5 ziehen; stellen Sie ihn zurück auf e2.',
    "restored": 'Das Brett stimmt wieder.',
    "ask_square": 'Weißer Springer f3.',
    "ask_moves": 'Letzte Züge: Zug 1, Weiß: e4; Schwarz: e5; Zug 2, Weiß: Springer f3; Schwarz: Springer c6; Zug 3, Weiß: Läufer b5.',
}

ES = {
    "knight": 'Caballo f3.',
    "d5": 'd5.',
    "pawn_takes": 'c captura en b5.',
    "piece_takes": 'Caballo captura en d5.',
    "queen_takes": 'Dama captura en d5.',
    "en_passant": 'e captura en f6 al paso.',
    "castles_short": 'Enroque corto.',
    "castles_long": 'Enroque largo.',
    "promotion_check": 'e8, promoción a caballo, jaque.',
    "mate": 'Torre a8, jaque mate.',
    "to_play": 'Las negras juegan caballo f6: mueva el caballo de g8 a f6.',
    "done": 'Hecho.',
    "to_play_capture": 'Las blancas juegan e captura en d5: retire el peón de d5 del tablero y mueva el peón de e4 a d5.',
    "to_play_en_passant": 'Las blancas juegan e captura en f6 al paso: retire el peón de f5 del tablero y mueva el peón de e5 a f6.',
    "to_play_castle": 'Las blancas juegan enroque largo: mueva el rey de e1 a c1 y la torre de a1 a d1.',
    "to_play_promotion": 'Las blancas juegan e8, promoción a dama: mueva el peón de e7 a e8, y ponga una dama en e8 en lugar del peón.',
    "done_check": 'Hecho, jaque.',
    "end_checkmate": 'Jaque mate. Ganan las blancas.',
    "illegal_cannot_go": 'Ilegal: el peón de e2 no puede ir a e5; devuélvalo a e2.',
    "restored": 'El tablero vuelve a coincidir.',
    "ask_square": 'Caballo blanco f3.',
    "ask_moves": 'Últimas jugadas: jugada 1, las blancas: e4; las negras: e5; jugada 2, las blancas: caballo f3; las negras: caballo c6; jugada 3, las blancas: alfil b5.',
}

EXPECTED = {"en": EN, "fr": FR, "de": DE, "es": ES}


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_kind_of_utterance_word_for_word(language):
    said, _ = catalogue(language)
    expected = EXPECTED[language]
    assert {k: said[k] for k in expected} == expected


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_sentence_of_the_table_is_said_and_filled(language):
    said, used = catalogue(language)
    assert used == set(table(language).WORDS)
    for name, text in said.items():
        assert text and "{" not in text and "}" not in text, (name, text)


def test_english_illegal_reasons_are_the_trackers_words():
    """The tracker says why in English (board_driver.arbiter.words); the spoken reasons are
    worked out again from the same position and squares, so every language can say them:
    in English they are the tracker's own words, for every single piece put anywhere it
    cannot go in a set of positions (a pawn to the last rank excepted: the tracker asks for
    a promotion piece, the spoken reason reads it as a queen)."""
    fens = [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "r3k2r/pp1q1ppp/2n2n2/2bpp3/4P3/2NP1N2/PPPB1PPP/R2QK2R w KQkq - 0 9",
        "4k3/4r3/8/8/8/8/4B3/4K3 w - - 0 1",
        "4k3/4r3/8/8/8/8/3B4/4K3 w - - 0 1",
        "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
        "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1",
    ]
    words = Words("en")
    compared = 0
    for fen in fens:
        position = Position.from_fen(fen)
        before = position.occupancy()
        own = position.occupancy(position.turn)
        for frm in range(64):
            if not own >> frm & 1:
                continue
            piece = position.piece_at(frm)
            for to in range(64):
                if before >> to & 1:
                    continue
                if piece.piece_type == 1 and to >> 3 in (0, 7):
                    continue
                board = before & ~(1 << frm) | 1 << to
                key, fields = why_illegal(position, board)
                theirs = trackers_why(position, board)
                if key == "why.unknown" and theirs == "the board shows no legal move":
                    continue  # a legal move: no reason on either side
                assert words.say(key, **fields) == theirs, (fen, frm, to)
                compared += 1
    assert compared > 1000
