"""Balance statistics for many simulated games: records, summaries, comparisons, the HTML report."""
