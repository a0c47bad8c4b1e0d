"""Descriptions that are not English, in any script, are identified offline, flagged `Unsupported
Language` and scored on structure: the same content in German or Spanish scores within 0.5 of English."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from scoring import languages, score_snapshot
from scoring.languages import language_of
from tests.conftest import CORPUS, SHARED_DATA, make_snapshot, require
from tests.scoring.conftest import make_tool, snapshot_of

TRANSLATIONS = json.loads((Path(__file__).parent / "data" / "translations.json").read_text(encoding="utf-8"))
LANGUAGES = {"de": "German", "es": "Spanish"}


def corpus_servers() -> dict[str, dict[str, Any]]:
    require((CORPUS / "tools.json").exists(), f"the corpus is not at {CORPUS}", SHARED_DATA)
    servers = json.loads((CORPUS / "tools.json").read_text(encoding="utf-8"))
    return {
        key: make_snapshot(*entry["tools"], server={"name": key})
        for server in servers
        for key, entry in server["tools"].items()
    }


@pytest.fixture(scope="module")
def servers() -> dict[str, dict[str, Any]]:
    return corpus_servers()


def cases() -> list[Any]:
    found = []
    for entry in TRANSLATIONS["translations"]:
        for code in LANGUAGES:
            reason = entry.get("known", {}).get(code)
            # raises= keeps a known miss expected but lets a missing corpus fail in CI, not "xfail"
            marks = [pytest.mark.xfail(strict=True, raises=AssertionError, reason=reason)] if reason else []
            found.append(pytest.param(entry, code, id=f"{entry['tool']}-{code}", marks=marks))
    return found


def test_the_suite_covers_at_least_40_real_descriptions_in_each_language() -> None:
    entries = TRANSLATIONS["translations"]
    assert len({(entry["server"], entry["tool"]) for entry in entries}) >= 40
    for code in LANGUAGES:
        assert sum(code not in entry.get("known", {}) for entry in entries) >= 40


@pytest.mark.parametrize(("entry", "code"), cases())
def test_a_translation_is_flagged_and_scores_within_half_a_point(
    servers: dict[str, dict[str, Any]], entry: dict[str, Any], code: str
) -> None:
    snapshot = servers[entry["server"]]
    names = [tool["name"] for tool in snapshot["tools"]]
    index = names.index(entry["tool"])
    english = score_snapshot(snapshot)["tools"][index]
    assert "Unsupported Language" not in english["flags"]
    tools = [dict(tool) for tool in snapshot["tools"]]
    tools[index]["description"] = entry[code]
    translated = score_snapshot(make_snapshot(*tools, server=snapshot["server"]))["tools"][index]
    assert "Unsupported Language" in translated["flags"]
    language = LANGUAGES[code]
    for dimension in translated["dimensions"].values():
        assert f"Structure only (the description is in {language}" in dimension["justification"]
    finding = next(item for item in translated["findings"] if item["rule"] == "unsupported-language")
    assert language in finding["message"]
    assert abs(translated["total"] - english["total"]) <= 0.5, (english["total"], translated["total"])


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("根据提供的ID获取对应网页的内容，ID来自bing_search返回的结果", "Chinese or Japanese script"),
        ("Возвращает список открытых задач проекта с их статусом и исполнителем.", "Cyrillic script"),
        ("Επιστρέφει τη λίστα των ανοιχτών εργασιών του έργου.", "Greek script"),
        ("يعيد قائمة المهام المفتوحة في المشروع مع حالتها.", "Arabic script"),
        ("プロジェクトの未完了タスクの一覧を返します。", "Japanese script"),
        ("프로젝트의 열린 작업 목록을 상태와 함께 반환합니다.", "Korean script"),
        ("Renvoie la liste des tâches ouvertes du projet avec leur état et leur responsable.", "French"),
        ("Restituisce l'elenco delle attività aperte del progetto con il loro stato.", "Italian"),
        ("Retorna a lista de tarefas abertas do projeto com o seu estado e responsável.", "Portuguese"),
        ("Geeft de lijst met open taken van het project terug, met hun status en eigenaar.", "Dutch"),
    ],
)
def test_any_script_and_language_that_is_not_english_is_named(text: str, language: str) -> None:
    assert language_of(text) == language
    card = score_snapshot(snapshot_of(make_tool("list_tasks", text)))["tools"][0]
    assert "Unsupported Language" in card["flags"]
    assert f"the description is in {language}" in card["dimensions"]["purpose"]["justification"]


def test_no_english_description_of_the_corpus_is_taken_for_another_language(
    servers: dict[str, dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[str] = []
    detector = languages._detector()

    class Counting:
        def compute_language_confidence_values(self, text: str) -> Any:
            asked.append(text)
            return detector.compute_language_confidence_values(text)

    monkeypatch.setattr(languages, "_detector", Counting)
    languages._language_of.cache_clear()
    descriptions = [tool.get("description") or "" for server in servers.values() for tool in server["tools"]]
    named = {text: language_of(text) for text in descriptions}
    chinese = [text for text, language in named.items() if language != "English"]
    assert chinese and all(language == "Chinese or Japanese script" for language in map(named.get, chinese))
    # Cheap checks settle nearly all: the detector is asked about one description in 15 at most.
    assert len(asked) * 15 <= len(descriptions), asked
    languages._language_of.cache_clear()


def test_short_english_phrases_the_detector_cannot_place_stay_english() -> None:
    for text in (
        "Perform an HTTP PUT request",
        "Merge a pull request",
        "Valorant map meta data",
        "Screenshot",
    ):
        assert language_of(text) == "English", text


def test_english_words_the_trigram_detector_takes_for_german_stay_english() -> None:
    # lingua gives these German; by wordfreq their words are far commoner in English.
    text = "Send a Telegram message.\n\n### Usage\n### Output\n### Error handling"
    assert language_of(text) == "English"
    assert (
        language_of("Sendet eine Nachricht an einen Telegram-Chat und gibt ihre Nummer zurück.") == "German"
    )


@pytest.mark.parametrize(
    "text",
    [
        "Liest die Seiten einer PDF-Datei und gibt ihren Text zurück.",
        "Lee las páginas de un archivo PDF y devuelve su texto.",
    ],
)
def test_an_unusable_input_schema_scores_parameters_1_in_any_language(text: str) -> None:
    pages = {"type": "integer", "exclusiveMinimum": True, "minimum": 0, "description": "Seite."}
    card = score_snapshot(snapshot_of(make_tool("read_pdf", text, {"page": pages})))["tools"][0]
    assert "Unsupported Language" in card["flags"]
    assert card["dimensions"]["parameters"]["score"] == 1, card["dimensions"]["parameters"]


FILLER = {
    "de": (
        "Liest die Seiten einer PDF-Datei und gibt ihren Text zurück.",
        [
            "Dieses Werkzeug ist sehr nützlich für viele Aufgaben.",
            "Es hilft Ihnen bei Ihrer täglichen Arbeit.",
            "Sie können es jederzeit und überall verwenden.",
        ],
    ),
    "es": (
        "Lee las páginas de un archivo PDF y devuelve su texto.",
        [
            "Esta herramienta es muy útil para muchas tareas.",
            "Le ayuda en su trabajo de cada día.",
            "Puede usarla en cualquier momento y lugar.",
        ],
    ),
}


@pytest.mark.parametrize("code", FILLER)
def test_filler_sentences_never_raise_a_score_in_another_language(code: str) -> None:
    base, filler = FILLER[code]
    before = score_snapshot(snapshot_of(make_tool("read_pdf", base)))["tools"][0]
    for count in range(1, len(filler) + 1):
        text = " ".join([base, *filler[:count]])
        after = score_snapshot(snapshot_of(make_tool("read_pdf", text)))["tools"][0]
        assert "Unsupported Language" in after["flags"]
        for key, entry in after["dimensions"].items():
            assert entry["score"] <= before["dimensions"][key]["score"], (count, key, entry["justification"])


def test_statements_with_something_specific_count_in_another_language() -> None:
    base = "Legt eine neue Datei an oder überschreibt eine bestehende Datei mit neuem Inhalt."
    said = [
        "Bestehende Dateien werden ohne Warnung überschrieben.",
        "Verarbeitet Textinhalte mit der richtigen Kodierung.",
        "Funktioniert nur innerhalb der erlaubten Verzeichnisse.",
    ]
    before = score_snapshot(snapshot_of(make_tool("write_file", base)))["tools"][0]["dimensions"]
    after = score_snapshot(snapshot_of(make_tool("write_file", " ".join([base, *said]))))["tools"][0][
        "dimensions"
    ]
    assert after["behavior"]["score"] > before["behavior"]["score"], after["behavior"]["justification"]


@pytest.mark.parametrize(
    "text",
    [
        # A title in another script, the rest English boilerplate and a URL.
        "[Stocks] 股票报价 — $0.03/call (daily quota: 100/100 left) Docs: https://quotes.example.com/v1/stock-quote",
        "[Weather] 天気予報 — $0.01/call (free tier: 20/20 today) API: https://example.org/paid/forecast",
    ],
)
def test_a_url_or_a_word_of_another_script_is_not_read_as_latin_prose(text: str) -> None:
    assert language_of(text) == "English"
    card = score_snapshot(snapshot_of(make_tool("stock_quote", text)))["tools"][0]
    assert "Unsupported Language" not in card["flags"]
