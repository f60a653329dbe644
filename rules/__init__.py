"""The laws of chess, pure: position, legal moves, check, outcomes, FEN, SAN, UCI, PGN."""
