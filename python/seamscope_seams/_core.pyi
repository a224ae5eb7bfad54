"""Type stubs of the Rust module: JSON text in, JSON text out, in the trace JSON's shapes.

Use the typed functions of :mod:`seamscope_seams` instead; these are what they call.
"""

from typing import Dict, Optional, Tuple

def fuse(lists_json: str, c: float, depth: Optional[int] = None) -> str:
    """Fuse ranked lists (``[{"source", "hits"}]``) by RRF; the fused ranking."""

def fire_test(fused_json: str, links: Dict[int, Tuple[int, int]], m: int) -> str:
    """The fire test at margin ``m``; one decision per seam, with ``arithmetic``."""

def side_drops(decisions_json: str, scores_json: str, threshold: float) -> str:
    """Side drop at ``threshold`` over fire decisions and seam half scores."""

def fill_budget(
    fused_json: str, decisions_json: str, budget: int, side_drops_json: Optional[str] = None
) -> str:
    """The budget fill in rank order, with each step's ``description``."""

def replan(
    input_json: str,
    settings_json: str,
    links: Dict[int, Tuple[int, int]],
    tokens: Optional[Dict[int, int]] = None,
) -> str:
    """Every stage from a query input and settings: the trace."""

def blake3_file(path: str) -> str:
    """The blake3 hash (hex) of a file's bytes."""

def defaults() -> str:
    """The crate's default query settings."""
