"""Classification: what every file is (category), and the units people think in (artifacts,
checkpoint series, runs). Plain Python and numpy; reads records, never executes them."""

from mlspace.classify.categories import CATEGORY_INFO, ORDER, Category
from mlspace.classify.engine import EntryClassifier
from mlspace.classify.inventory import CategoryTotals, Inventory, classify
from mlspace.classify.model import Artifact, Run, Series
from mlspace.classify.rule_files import RuleError, load_rules

__all__ = [
    "CATEGORY_INFO",
    "ORDER",
    "Artifact",
    "Category",
    "CategoryTotals",
    "EntryClassifier",
    "Inventory",
    "Run",
    "RuleError",
    "Series",
    "classify",
    "load_rules",
]
