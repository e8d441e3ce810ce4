"""The economy: the balance and its ledger (:mod:`~server.economy.ledger`), the Arena's
stakes and pot (:mod:`~server.economy.arena`), prize splits (:mod:`~server.economy.payouts`),
skill ratings (:mod:`~server.economy.ratings`), the leaderboards and the players'
profiles."""
