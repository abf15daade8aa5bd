"""Pictures of players' views: an HTML fragment for a page, an SVG document for a position.

A picture is drawn from a view (`game.view(seat, properties=True)`) and a `Picture` made once
per program (`make_picture`): the labels' kinds and agreed attributes from a new game, and the
rules' display hints (`ruleforge.display`). Since a view is all a drawing reads, a picture
shows a player exactly what their view does. `table_view(game)` is the whole table, every
zone shown, for replays and positions.

- `catalogue`: the label catalogue and initial property values (`make_picture`, `Picture`);
- `draw`: one component, or a hidden pile's back, as SVG;
- `layout`: a view's zones grouped and grids trimmed;
- `budget`: how much of a view is drawn, a fixed amount whatever the zones hold;
- `page_view`: a view as an HTML fragment, and its stylesheet;
- `svg`: a view as a standalone SVG document;
- `table`: the whole table's view;
- `replay_page`: a replay as one self-contained HTML file;
- `text`: escaping of everything that comes from a file.
"""

from __future__ import annotations

from .catalogue import Entry, Picture, make_picture
from .layout import targets_of
from .page_view import picture_css, render_view, view_sections
from .svg import render_position_svg
from .table import table_view

__all__ = ["Entry", "Picture", "make_picture", "picture_css", "render_position_svg", "render_view",
           "table_view", "targets_of", "view_sections"]
