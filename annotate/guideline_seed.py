"""The platform's own short annotation guideline, seeded into the Guideline table.

Written by the platform team (not copied from any published guideline). Admins edit the
live copy in the browser; this text is only the starting point.
"""

GUIDELINE_SLUG = "main"
GUIDELINE_TITLE = "Annotation guideline"

GUIDELINE_BODY = """\
## 如何修改

* **直接改写。** 在文本框里修改句子，使它成为正确、通顺的中文。文本框下方的彩色差异
  显示的正是将被计分的修改。
* **尽量少改。** 学习者的用词和句式可以接受时就保留；只改正错误，不要润色文风。
* **多种改法。** 如果句子有明显不同的几种改法，每种改法新增一个文本框（`Alt+N`）。
  两个文本框的内容不能相同。
* **ERROR FREE**（`Alt+E`）：句子没有错误。文本框的内容与原句相同，也视为没有错误。
* **NOT ANNOTATABLE**（`Alt+U`）：句子的意思无法还原，任何修改都不可靠。
* 按 `Ctrl+Enter` 提交。第一次提交即为最终结果，之后不会被更改；审核以后，你可能会被要求
  学习这个句子并提交修订稿。

## 错误类型（5 个大类，14 个小类）

### 1. 标点
* **缺失**：缺少必要的标点：补上。
* **冗余**：多了一个标点：删除。
* **误用**：用错了标点（如句子已经结束却用了逗号而不是句号）：替换。

### 2. 错别字
* **音近**：读音相近但写错的字（在 / 再）：替换。
* **形近**：字形相近但写错的字（己 / 已）：替换。
* **字序颠倒**：同一个词里的字顺序颠倒：调整顺序。

### 3. 词语
* **缺失**：缺少必要的词（常见的是量词或助词）：补上。
* **冗余**：多余的词，如重复的"了"或"的"：删除。
* **误用**：用词不当或搭配不当：替换这个词。

### 4. 句法
* **语序**：短语的位置不对（如宾语放在了数量短语前面）：移动它；一次移动算一个语序修改。
* **句式杂糅**：两种句式混在一起（如用了"通过……使……"而句子没有主语）：只保留一种句式。

### 5. 语用
* **逻辑**：表述自相矛盾或推理不通：做最少的修改，使它前后一致。
* **歧义**：句子有两种理解：每种理解给出一个修改。
* **常识**：表述违背常识：只有原意清楚时才修改；否则标为 NOT ANNOTATABLE。
"""

# --- per task and language ---------------------------------------------------------------------
# The annotation guideline above is the Chinese one (its slug "main" predates per-language
# guidelines; it was seeded in English until annotate/0008 replaced that text, unless an admin
# had edited it). Each (task, language) has its own row once an admin saves it; until then the
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
