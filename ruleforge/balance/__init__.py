"""Balance statistics (issue 10): what a batch of games says about a rules file, and what a
variant changed. `records` (one game), `intervals`, `stats` (a batch's Summary), `runner` (one
process or many), `compare` (two batches on the same seeds), `report` and `plots` (the HTML
report a designer reads)."""
