"""The committed round diagrams are what ``python -m games.diagrams`` draws from the machines today."""

from __future__ import annotations

from games import diagrams, registry
from games.free_bet_blackjack.machine import STATES, definition


def test_committed_diagrams_match_the_machines():
    for game_id in registry.slugs():
        path = diagrams.path_of(game_id)
        assert path.exists() and path.read_text() == diagrams.render(game_id), (
            f"{path} is stale: run python -m games.diagrams"
        )


def test_the_diagram_shows_every_state_and_every_trigger():
    text = diagrams.render("free-bet-blackjack")
    assert "```mermaid" in text and "stateDiagram-v2" in text and "title: Free Bet Blackjack" in text
    for state in STATES:
        assert f'state "{state}" as {state}' in text
    for transition in definition()["transitions"]:
        assert transition["trigger"] in text


def test_check_mode_fails_on_a_stale_diagram_and_passes_once_redrawn(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(diagrams, "DIAGRAMS", tmp_path)
    assert diagrams.main(["--check"]) == 1
    assert diagrams.main([]) == 0
    assert diagrams.main(["--check"]) == 0
    diagrams.path_of("free-bet-blackjack").write_text("stale")
    assert diagrams.main(["--check"]) == 1
    assert "stale" in capsys.readouterr().out
