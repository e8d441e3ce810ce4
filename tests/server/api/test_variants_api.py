"""GET /api/variants: the rules' catalogue, whole and exact (server/rules/catalogue.py)."""

from __future__ import annotations

import httpx

from server.rules import VARIANTS
from server.rules.catalogue import LANGUAGES, catalogue


async def test_the_catalogue_is_the_rules_registry(client: httpx.AsyncClient) -> None:
    response = await client.get("/api/variants")
    assert response.status_code == 200
    body = response.json()
    assert body == {"variants": catalogue()}
    assert [v["id"] for v in body["variants"]] == list(VARIANTS)


async def test_the_facts_of_each_family(client: httpx.AsyncClient) -> None:
    by_id = {v["id"]: v for v in (await client.get("/api/variants")).json()["variants"]}
    remi45, etalat, rising = by_id["remi45"], by_id["etalat"], by_id["remi101-rising"]
    # A.2, A.8, A.9, A.12, §1
    assert remi45["family"] == "A" and remi45["faces"] == "cards"
    assert remi45["hand"] == [15, 14] and remi45["short_game"]["hand"] == [11, 10]
    assert remi45["opening"] == {
        "threshold": 45,
        "run_required": True,
        "doubles": None,
        "rising": False,
    }
    assert remi45["atu"] and remi45["row_break"] and remi45["first_turn_restricted"]
    assert remi45["take_actions"] == ["draw", "take_row"] and not remi45["joker_button"]
    # A.5, A.14: etalat's joker limits
    assert etalat["max_jokers_per_meld"] == 1 and etalat["joker_discard_restricted"]
    # B.1, B.3, B.6, B.8, B.9, B.14
    assert rising["family"] == "B" and rising["faces"] == "numbers"
    assert rising["hand"] == [22, 21] and rising["short_game"] is None
    assert rising["opening"] == {
        "threshold": 101,
        "run_required": False,
        "doubles": 5,
        "rising": True,
    }
    assert "take_row" not in rising["take_actions"] and rising["joker_button"]
    assert not rising["atu"] and not rising["row_break"] and rising["min_meld"] == 2
    assert rising["rack_rows"] == 3 and remi45["rack_rows"] == 2


async def test_every_variant_has_a_name_in_each_language_of_the_client(
    client: httpx.AsyncClient,
) -> None:
    # The web client keeps no variant list: the names it shows come from here.
    body = (await client.get("/api/variants")).json()["variants"]
    by_id = {v["id"]: v["names"] for v in body}
    assert set(by_id) == set(VARIANTS)
    for names in by_id.values():
        assert set(names) == set(LANGUAGES) and all(n.strip() for n in names.values())
    assert by_id["remi"] == {"ro": "Remi clasic", "en": "Classic Remi"}
    assert by_id["remi101-rising"]["ro"] == "Remi 101 cu barem crescător"
    assert len({n["ro"] for n in by_id.values()}) == len(by_id)  # no two read alike
