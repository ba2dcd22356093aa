"""The leads' authority as a queryable (issue 39): the register's 66 offices are listed,
so a page's authority filter offers every office, not only those of the leads it has
loaded, and `authority` filters the OGC items like any queryable (both stores)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.api.conftest import Api
from tests.storage.builders import lead

REGISTER = Path(__file__).parents[2] / "alerts" / "procedure" / "authorities.json"
RJ, SANTOS = "Capitania dos Portos do Rio de Janeiro", "Capitania dos Portos de São Paulo"


def test_the_offices_are_listed_and_filter_the_items(api: Api) -> None:
    h = api.h("viewer")
    props = api.client.get("/collections/leads/queryables", headers=h).json()["properties"]
    # read from the register's file itself, not from the code that serves it
    names = sorted(o["name"] for o in json.loads(REGISTER.read_text())["offices"])
    assert len(names) == 66 and props["authority"]["examples"] == names
    assert RJ in names and SANTOS in names
    api.repo.upsert_leads(
        [lead("A1", authority=RJ), lead("A2", authority=SANTOS), lead("A3", authority=RJ)]
    )
    for query in ({"authority": RJ}, {"filter": f"authority = '{RJ}'"}):
        if "authority" in query:  # the list route's parameter, then the OGC filter
            got = api.client.get("/leads", params=query, headers=h).json()["leads"]
            assert sorted(x["id"] for x in got) == ["A1", "A3"]
            continue
        r = api.client.get("/collections/leads/items", params=query, headers=h)
        assert r.status_code == 200, r.text
        assert sorted(f["id"] for f in r.json()["features"]) == ["A1", "A3"]
    # a name outside the register (a jurisdiction zone's) is a filter like any other
    r = api.client.get(
        "/collections/leads/items", params={"filter": "authority = 'Outra'"}, headers=h
    )
    assert r.status_code == 200 and r.json()["features"] == []
