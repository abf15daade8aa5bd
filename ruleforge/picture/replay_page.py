"""A replayed game as one self-contained HTML file: every step's pictures, a slider to move.

Each step's pictures (the whole table, and every seat's own view) and its scores are rendered
in Python and embedded as JSON in a `<script type="application/json">` block (every `<`, `>`
and `&` written as a JSON escape, so no text of the game can close the block); the inline
script only chooses which to show. A long game repeats most of a picture from one step to the
next, so the parts of the pictures (`view_sections`) are stored once each and the steps list
them by number. The file loads nothing: its own Content-Security-Policy forbids any request.
"""

from __future__ import annotations

import json
from typing import Any

from ..engine import Game, player_name
from .catalogue import Picture
from .page_view import picture_css, view_sections
from .svg import SIGNATURE
from .table import table_view
from .text import text

TABLE = "table"  # the mode showing everything
PAGE_POLICY = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:"


class ReplayBook:
    """The steps of a replay as they are added: a game's pictures after each move."""

    def __init__(self, picture: Picture, players: int) -> None:
        self.picture = picture
        self.modes = [(TABLE, "the whole table")] + [(player_name(p), f"{player_name(p)}'s view")
                                                     for p in range(players)]
        self.fragments: list[str] = []
        self._ids: dict[str, int] = {}
        self.steps: list[dict[str, Any]] = []

    def _id(self, fragment: str) -> int:
        found = self._ids.get(fragment)
        if found is None:
            found = self._ids[fragment] = len(self.fragments)
            self.fragments.append(fragment)
        return found

    def add(self, game: Game, move: str | None) -> None:
        """The game as it stands after `move` (None: the start)."""
        pictures = {}
        for mode, _ in self.modes:
            view = table_view(game) if mode == TABLE else game.view(int(mode[1:]) - 1, properties=True)
            pictures[mode] = [self._id(section) for section in view_sections(view, self.picture)]
        self.steps.append({"move": move or "start", "pictures": pictures, "scores": self._id(scores_html(game))})

    def html(self, title: str, first_mode: str = TABLE) -> str:
        """The whole file."""
        data = {"fragments": self.fragments, "steps": self.steps, "first": first_mode}
        embedded = json.dumps(data, ensure_ascii=True, separators=(",", ":"))
        embedded = embedded.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
        moves = "".join(f'<li data-step="{k}"><span class="rf-step">{k}</span> {text(step["move"])}</li>'
                        for k, step in enumerate(self.steps))
        modes = "".join(f'<option value="{text(mode)}"{" selected" if mode == first_mode else ""}>{text(name)}</option>'
                        for mode, name in self.modes)
        last = len(self.steps) - 1
        return f"""<!DOCTYPE html>
{SIGNATURE}
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{PAGE_POLICY}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{text(title)}: replay</title>
<style>{picture_css()}{PAGE_CSS}</style></head>
<body>
<header class="rf-bar"><h1>{text(title)}</h1>
<button type="button" id="rf-prev" title="previous step (left arrow)">&#9664;</button>
<input type="range" id="rf-slider" min="0" max="{last}" value="0" aria-label="step">
<button type="button" id="rf-next" title="next step (right arrow)">&#9654;</button>
<span id="rf-where">step 0 of {last}</span>
<label>show <select id="rf-mode">{modes}</select></label></header>
<div class="rf-main"><nav class="rf-moves"><h2>Moves</h2><ol start="0" id="rf-moves">{moves}</ol></nav>
<main><div id="rf-picture"></div>
<section class="rf-scores"><h2>Scores</h2><div id="rf-scores"></div></section></main></div>
<script type="application/json" id="rf-data">{embedded}</script>
<script>{SCRIPT}</script>
</body></html>
"""


def scores_html(game: Game) -> str:
    """The scores as they stand: a row per scoring item, a column per player, the total, and
    who wins (or leads)."""
    try:
        scores = game.scores()
        winners = set(game.winners())
    except Exception as err:  # a scoring that cannot be worked out at this step: say so, go on
        return f'<p class="rf-no-scores">no scores at this step: {text(err)}</p>'
    mark = "winner" if game.is_over else "leading"
    items: list[str] = []
    for s in scores:
        items.extend(k for k in s["breakdown"] if k not in items)
    head = "".join(f'<th scope="col">{text(player_name(s["player"]))}'
                   f'{f" <span class={chr(34)}rf-mark{chr(34)}>{mark}</span>" if s["player"] in winners else ""}</th>'
                   for s in scores)
    rows = [f'<tr><th scope="row">{text(item)}</th>'
            + "".join(f"<td>{text(s['breakdown'].get(item, 0))}</td>" for s in scores) + "</tr>" for item in items]
    other = [s["total"] - sum(v for v in s["breakdown"].values() if isinstance(v, int)) for s in scores]
    if any(other):
        rows.append('<tr><th scope="row">(not itemised)</th>' + "".join(f"<td>{text(x)}</td>" for x in other) + "</tr>")
    rows.append('<tr class="rf-total"><th scope="row">total</th>'
                + "".join(f"<td>{text(s['total'])}</td>" for s in scores) + "</tr>")
    state = "final scores" if game.is_over else "scores so far"
    return f'<p>{state}</p><table class="rf-var-table"><tr><th></th>{head}</tr>{"".join(rows)}</table>'


PAGE_CSS = """
body { margin: 0; font-family: system-ui, sans-serif; background: #fff; }
.rf-bar { position: sticky; top: 0; z-index: 5; display: flex; gap: 10px; align-items: center; padding: 6px 12px;
  background: #2f3b48; color: #fff; }
.rf-bar h1 { font-size: 17px; margin: 0 12px 0 0; }
#rf-slider { flex: 1; max-width: 600px; }
.rf-main { display: flex; gap: 12px; padding: 8px 12px; align-items: flex-start; }
.rf-moves { flex: 0 0 230px; max-height: calc(100vh - 70px); overflow-y: auto; position: sticky; top: 50px;
  font-size: 13px; }
.rf-moves h2, .rf-scores h2 { font-size: 15px; margin: 4px 0; }
.rf-moves ol { padding-left: 0; list-style: none; margin: 0; }
.rf-moves li { padding: 2px 4px; cursor: pointer; border-radius: 3px; }
.rf-moves li:hover { background: #eef2f6; }
.rf-moves li.rf-current { background: #3c78b4; color: #fff; }
.rf-step { display: inline-block; min-width: 2.2em; color: #888; }
.rf-current .rf-step { color: #dde; }
main { flex: 1; min-width: 0; }
.rf-total td, .rf-total th { font-weight: bold; }
.rf-scores { margin-top: 14px; border-top: 1px solid #ddd; }
.rf-mark { font-size: 11px; color: #2e7d32; }
"""

SCRIPT = r"""
(function () {
  var data = JSON.parse(document.getElementById('rf-data').textContent);
  var slider = document.getElementById('rf-slider'), mode = document.getElementById('rf-mode');
  var moves = document.querySelectorAll('#rf-moves li'), step = 0;
  function parts(ids) { return ids.map(function (i) { return data.fragments[i]; }).join(''); }
  function show(k, scroll) {
    step = Math.max(0, Math.min(data.steps.length - 1, k));
    var s = data.steps[step];
    document.getElementById('rf-picture').innerHTML =
      '<div class="rf-view">' + parts(s.pictures[mode.value] || s.pictures.table) + '</div>';
    document.getElementById('rf-scores').innerHTML = data.fragments[s.scores];
    document.getElementById('rf-where').textContent = 'step ' + step + ' of ' + (data.steps.length - 1);
    slider.value = step;
    moves.forEach(function (li, i) { li.classList.toggle('rf-current', i === step); });
    if (scroll && moves[step]) { moves[step].scrollIntoView({block: 'nearest'}); }
  }
  slider.addEventListener('input', function () { show(+slider.value, true); });
  mode.addEventListener('change', function () { show(step, false); });
  document.getElementById('rf-prev').addEventListener('click', function () { show(step - 1, true); });
  document.getElementById('rf-next').addEventListener('click', function () { show(step + 1, true); });
  moves.forEach(function (li) { li.addEventListener('click', function () { show(+li.dataset.step, false); }); });
  document.addEventListener('keydown', function (e) {
    if (e.target === mode) { return; }
    if (e.key === 'ArrowLeft') { show(step - 1, true); e.preventDefault(); }
    if (e.key === 'ArrowRight') { show(step + 1, true); e.preventDefault(); }
  });
  var asked = /^#step=(\d+)(?:&view=([A-Za-z0-9]+))?$/.exec(location.hash);  // a link to one step, one view
  if (asked && asked[2] && data.steps[0].pictures[asked[2]]) { mode.value = asked[2]; }
  show(asked ? +asked[1] : 0, true);
}());
"""


def single_page(title: str, fragment: str) -> str:
    """One view's fragment as a whole HTML file (a position drawn as a page)."""
    return f"""<!DOCTYPE html>
{SIGNATURE}
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<title>{text(title)}</title>
<style>{picture_css()}
body {{ margin: 12px; }}</style></head>
<body>{fragment}</body></html>
"""
