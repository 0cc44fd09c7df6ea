"""The platform's own short annotation guideline, seeded into the Guideline table.

Written by the platform team (not copied from any published guideline). Admins edit the
live copy in the browser; this text is only the starting point.
"""

GUIDELINE_SLUG = "main"
GUIDELINE_TITLE = "Annotation guideline"

GUIDELINE_BODY = """\
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

# --- per task and language (issue 28 D9) -------------------------------------------------------
# The annotation guideline above is the Chinese one (its slug "main" predates per-language
# guidelines). Each (task, language) has its own row once an admin saves it; until then the
# text below is shown. Tasks: annotation, review, ranking (judges rank outputs), edits
# (judges mark each edit correct or incorrect, then rank).

ANNOTATION_EN_BODY = """\
## How to correct

* **Rewrite directly.** Edit the text box so the sentence becomes correct, fluent English.
  The coloured diff under the box shows exactly the edits that will be scored (word by word,
  as ERRANT extracts them).
* **Change as little as needed.** Keep the writer's words and structure when they are
  acceptable; fix errors (grammar, spelling, word choice, punctuation), do not polish style.
* **Tokens.** Sentences may come tokenised (`do n't`, `, ` with spaces around punctuation):
  keep that spacing in your correction.
* **Several corrections.** If the sentence can be fixed in clearly different ways, add a
  box (`Alt+N`) for each one. Two boxes must not be the same text.
* **ERROR FREE** (`Alt+E`): the sentence has no error. A box left equal to the source means
  the same thing.
* **NOT ANNOTATABLE** (`Alt+U`): the meaning cannot be recovered, so no correction is safe.
* Submit with `Ctrl+Enter`. Your first submission is final; after the review you may be asked
  to study the sentence and hand in a revision.

## Common error types

* **Verb** form, tense, agreement (*he go* -> *he goes*).
* **Noun** number, **determiners** and **articles** (*a informations* -> *information*).
* **Prepositions** (*interested on* -> *interested in*).
* **Word choice**, **word order**, **spelling**, **punctuation**, **orthography** (case).
* A **missing** or **unnecessary** word: add or delete it; a move of one word is one edit.
"""

REVIEW_BODIES = {
    "zh": """\
## 审核 / Reviewing

* Mark each merged correction **Correct** (`C`) when it fixes the errors and keeps the
  writer's meaning, **Wrong** (`W`) otherwise. A correction that fixes some errors but adds a
  new one is Wrong; edit it (`E`) to make your version the reference.
* Add a reference (`A`) when a clearly different good correction is missing.
* Status: **annotatable** with at least one reference; **error free** (`2`) or **not
  annotatable** (`3`) with none. The annotators' majority is preselected.
* 每个修改：改正了错误且保留原意为"正确"，否则为"错误"；可以编辑修改作为参考答案。
""",
    "en": """\
## Reviewing

* Mark each merged correction **Correct** (`C`) when it fixes the errors and keeps the
  writer's meaning in fluent English, **Wrong** (`W`) otherwise. A correction that fixes
  some errors but adds a new one is Wrong; edit it (`E`) to make your version the reference.
* Keep the tokenisation of the source (spaces around punctuation, `do n't`).
* Add a reference (`A`) when a clearly different good correction is missing.
* Status: **annotatable** with at least one reference; **error free** (`2`) or **not
  annotatable** (`3`) with none. The annotators' majority is preselected.
""",
}

RANKING_BODIES = {
    "zh": """\
按照从好（1）到差的顺序给各个修改结果排名；同样好的结果可以并列。好的修改应当改正错误并保留原意，不要因为改得多就给高分。

Rank the corrections of the source sentence from best (1) to worst. Give equal ranks to
corrections that are equally good. A correction should fix the errors and keep the writer's
meaning; do not prefer a longer rewrite for its own sake.
""",
    "en": """\
Rank the corrections of the source sentence from best (1) to worst. Give equal ranks to
corrections that are equally good. A correction should fix the errors and keep the writer's
meaning; do not prefer a longer rewrite for its own sake. An unchanged output is as good as
the source: better than a correction that makes the sentence worse.
""",
}

EDITS_BODIES = {
    "zh": """\
## 第一步：判断每个修改 / Step 1: judge each edit

An edit counts as **correct** (`C`) when, applied to the source on its own, it
* fixes a real error (字词、标点、语序、搭配……) or makes the sentence clearly more natural, and
* keeps the writer's meaning, and
* is itself right (the new text has no new error).

It is **incorrect** (`X`) when it changes a correct part, changes the meaning, introduces an
error, or only half-fixes an error so that the result is still wrong. Judge each edit on its
own; a needed edit stays correct even if another edit of the same output is wrong.

修改正确：改正了真实的错误且不改变原意、不引入新错误；否则为不正确。每个修改单独判断。

## 第二步：排名 / Step 2: rank

Rank the outputs from best (1) to worst using your edit judgments: more correct edits and
fewer incorrect ones rank higher; an output with an incorrect edit ranks below an otherwise
equal one without it. Equal outputs get equal ranks.
""",
    "en": """\
## Step 1: judge each edit

An edit counts as **correct** (`C`) when, applied to the source on its own, it
* fixes a real error (grammar, spelling, word choice, punctuation, word order) or makes the
  sentence clearly more fluent, and
* keeps the writer's meaning, and
* is itself right (the new words contain no new error).

It is **incorrect** (`X`) when it changes something that was correct, changes the meaning,
introduces an error, or only half-fixes an error so that the result is still wrong (e.g.
*a informations* -> *a information*). Judge each edit on its own: a needed edit stays correct
even if another edit of the same output is wrong.

## Step 2: rank

Rank the outputs from best (1) to worst using your edit judgments: more correct edits and
fewer incorrect ones rank higher; an output with an incorrect edit ranks below an otherwise
equal one without it. Equal outputs get equal ranks.
""",
}

GUIDELINE_TASKS = {
    "annotation": "Annotation guideline",
    "review": "Review guideline",
    "ranking": "Ranking guideline",
    "edits": "Edit judging guideline",
}


def default_guideline(task: str, language: str) -> tuple[str, str]:
    """(title, Markdown body) shown for (task, language) until an admin saves one."""
    title = GUIDELINE_TASKS[task]
    language = language if language in ("zh", "en") else "zh"
    if task == "annotation":
        return title, GUIDELINE_BODY if language == "zh" else ANNOTATION_EN_BODY
    bodies = {"review": REVIEW_BODIES, "ranking": RANKING_BODIES, "edits": EDITS_BODIES}[task]
    return title, bodies[language]
