"""The Chinese annotation guideline (slug "main") gets the Chinese text of
annotate/guideline_seed.py where it still holds the English text it was seeded with
(review/0003); a text an admin edited is left as it is. Its version counts the change."""

from typing import Any

from django.db import migrations

# The text review/0003 seeded before the guideline was written in Chinese, frozen here.
ENGLISH_SEED = """\
## How to correct

* **Rewrite directly.** Edit the text box so the sentence becomes correct, fluent Chinese.
  The coloured diff under the box shows exactly the edits that will be scored.
* **Change as little as needed.** Keep the learner's words and structure when they are
  acceptable; fix errors, do not polish style.
* **Several corrections.** If the sentence can be fixed in clearly different ways, add a
  box (`Alt+N`) for each one. Two boxes must not be the same text.
* **ERROR FREE** (`Alt+E`): the sentence has no error. A box left equal to the source means
  the same thing.
* **NOT ANNOTATABLE** (`Alt+U`): the meaning cannot be recovered, so no correction is safe.
* Submit with `Ctrl+Enter`. Your first submission is final and is never changed; after the
  review you may be asked to study the sentence and hand in a revision.

## Error types (5 major, 14 minor)

### 1. Punctuation
* **Missing** – a needed mark is absent: add it.
* **Redundant** – an extra mark: delete it.
* **Misuse** – the wrong mark (e.g. a comma where a full stop ends the sentence): replace it.

### 2. Spelling
* **Phonetic** – a character that sounds alike but is wrong (在 / 再): replace it.
* **Glyph** – a character that looks alike but is wrong (己 / 已): replace it.
* **Character disorder** – characters of one word in the wrong order: reorder them.

### 3. Word
* **Missing** – a needed word is absent (often a measure word or particle): add it.
* **Redundant** – an extra word, e.g. a doubled 了 or 的: delete it.
* **Misuse** – a wrong word choice or collocation: replace the word.

### 4. Syntax
* **Word order** – a phrase in the wrong place (e.g. the object before the measure
  phrase): move it; a move is a single word-order edit.
* **Mixed patterns** – two constructions blended into one (e.g. "通过……使……" without a
  subject): keep one construction.

### 5. Pragmatics
* **Logic** – the statement contradicts itself or the reasoning is broken: fix the
  minimum that makes it coherent.
* **Ambiguity** – it can be read two ways: give one correction per reading.
* **Commonsense** – it states something impossible: correct only when the intended
  meaning is clear; otherwise mark NOT ANNOTATABLE.
"""


def chinese_text(apps: Any, schema_editor: Any) -> None:
    from annotate.guideline_seed import GUIDELINE_BODY

    Guideline = apps.get_model("annotate", "Guideline")
    for guideline in Guideline.objects.filter(slug="main", body=ENGLISH_SEED):
        guideline.body = GUIDELINE_BODY
        guideline.version += 1
        guideline.save(update_fields=["body", "version", "updated_at"])


def english_text(apps: Any, schema_editor: Any) -> None:
    from annotate.guideline_seed import GUIDELINE_BODY

    Guideline = apps.get_model("annotate", "Guideline")
    for guideline in Guideline.objects.filter(slug="main", body=GUIDELINE_BODY):
        guideline.body = ENGLISH_SEED
        guideline.version = max(1, guideline.version - 1)
        guideline.save(update_fields=["body", "version", "updated_at"])


class Migration(migrations.Migration):
    dependencies = [("annotate", "0007_guideline_archived")]
    operations = [migrations.RunPython(chinese_text, english_text)]
