"""Our pages send `script-src 'self'` (config/settings.py), so a page may not evaluate strings
as code. Playwright's `wait_for_function` polls its predicate with `eval` in the page's own
world, which that policy blocks: a browser test that uses it breaks as soon as the predicate is
evaluated there. The browser tests wait with locators and `expect` instead, which run in
Playwright's isolated world; this keeps them that way.
"""

from __future__ import annotations

import re
from pathlib import Path

BROWSER_TESTS = Path(__file__).resolve().parents[1] / "browser"


def test_no_browser_test_waits_on_a_predicate_the_page_policy_forbids() -> None:
    uses = [
        f"{path.name}:{number}"
        for path in sorted(BROWSER_TESTS.glob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if re.search(r"\bwait_for_function\s*\(", line)
    ]
    assert uses == [], f"use a locator or expect(...) instead of wait_for_function: {uses}"
