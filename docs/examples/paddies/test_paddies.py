"""The Great Paddies' score breakdowns, every example item by item, as snapshots."""


def test_breakdown(ruleforge_example, breakdown_snapshot):
    assert ruleforge_example.breakdown() == breakdown_snapshot
