"""Creates that race on a unique name: the loser answers 409 naming the winner, never a 500.

Every create service checks its name first ("a campaign named 'x' exists already"), but two
requests can both pass that check before either commits; the database's unique constraint
then refuses the second insert with an IntegrityError. `create_unique` runs the insert in a
savepoint (the caller's transaction stays usable) and turns exactly that refusal - the
constraint on the named fields of that model, nothing else - into the project's Conflict,
with the object that won named in the message.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from django.db import IntegrityError, models, transaction

from core.exceptions import Conflict

M = TypeVar("M", bound=models.Model)

# PostgreSQL: 'Key (version_id, name)=(3, x) already exists.'
_PG_KEY = re.compile(r"Key \((?P<columns>[^)]*)\)=")
# SQLite: 'UNIQUE constraint failed: scoring_systemoutput.version_id, scoring_systemoutput.name'
_SQLITE_KEY = re.compile(r"UNIQUE constraint failed: (?P<columns>.+)$")


def _violated_columns(error: IntegrityError) -> tuple[str, frozenset[str]] | None:
    """(table, columns) of the unique constraint the error reports, when it is one."""
    cause = error.__cause__
    diag = getattr(cause, "diag", None)
    if diag is not None:  # psycopg
        if getattr(diag, "sqlstate", None) != "23505":  # unique_violation
            return None
        match = _PG_KEY.search(diag.message_detail or "")
        if match is None:
            return None
        columns = frozenset(c.strip().strip('"') for c in match["columns"].split(","))
        return diag.table_name or "", columns
    match = _SQLITE_KEY.search(str(error))
    if match is None:
        return None
    qualified = [c.strip() for c in match["columns"].split(",")]
    tables = {c.rsplit(".", 1)[0] for c in qualified}
    if len(tables) != 1:
        return None
    return tables.pop(), frozenset(c.rsplit(".", 1)[1] for c in qualified)


def create_unique(
    model: type[M],
    create: Callable[[], M],
    *,
    unique: Sequence[str],
    values: dict[str, Any],
    message: Callable[[M], str],
    field: str = "name",
) -> M:
    """`create()` (an insert of `model`) in a savepoint. When the database refuses it on the
    unique constraint over the fields `unique`, raise Conflict(message(existing), field),
    `existing` being the row that holds `values` (those fields' values) now; any other
    integrity error propagates unchanged."""
    try:
        with transaction.atomic():
            return create()
    except IntegrityError as error:
        violated = _violated_columns(error)
        columns = frozenset(model._meta.get_field(name).column for name in unique)  # type: ignore[union-attr]
        if violated != (model._meta.db_table, columns):
            raise
        # The winner committed before our insert was refused, so this read sees it.
        existing = model._default_manager.filter(**values).first()
        if existing is None:  # removed again in between: still a clash, worth a retry
            raise Conflict(
                f"another request created {values} at the same time; try again", field=field
            ) from None
        raise Conflict(message(existing), field=field) from None
