/* Live diff: asks the server's edit extractor of the dataset's language (the one the scorer
   uses: char-level for Chinese, ERRANT for English) for the edits between the source and a
   text box, and draws them. No build step, no libraries. */
(function () {
  "use strict";

  function csrfToken() {
    var match = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
    if (match) return decodeURIComponent(match[1]);
    var input = document.querySelector("input[name=csrfmiddlewaretoken]");
    return input ? input.value : "";
  }

  function fetchEdits(source, target, language) {
    return fetch("/api/diff/", {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrfToken() },
      body: JSON.stringify({ source: source, target: target, language: language || "zh" })
    }).then(function (response) {
      return response.json().then(function (body) {
        if (!response.ok) throw new Error(body.detail || ("diff failed: " + response.status));
        return body;
      });
    });
  }

  function span(cls, text, title) {
    var el = document.createElement("span");
    el.className = cls;
    el.textContent = text;
    if (title) el.title = title;
    return el;
  }

  var TYPE_NAMES = { M: "missing (insert)", R: "redundant (delete)", S: "substitution", W: "word order" };

  /* Draws the segments computed on the server (annotate.edits.diff_segments), so the live
     view and the server-rendered pages cut the sentence the same way. */
  /* One key per edit: where it starts in the source and what it does, so an edit of the box
     can be recognised among the suggestion's edits (post-edit mode). */
  function segmentKeys(segments) {
    var offset = 0;
    return segments.map(function (s) {
      var key = offset + "|" + s.kind + "|" + s.source_text + "|" + s.target_text;
      offset += s.source_text.length;
      return key;
    });
  }

  /* `suggested`: the keys of the suggestion's edits; those edits are marked as suggested. */
  function renderDiff(container, result, suggested) {
    container.textContent = "";
    var changes = 0;
    var fromSuggestion = 0;
    var keys = segmentKeys(result.segments);
    result.segments.forEach(function (s, index) {
      var title = s.type + ": " + (TYPE_NAMES[s.type] || "") + " " + JSON.stringify(s.source_text) + " \u2192 " + JSON.stringify(s.target_text);
      if (s.kind === "eq") {
        container.appendChild(span("edit-eq", s.source_text));
        return;
      }
      changes += 1;
      var mark = suggested && suggested.has(keys[index]) ? " edit-suggested" : "";
      if (mark) { fromSuggestion += 1; title = "suggested " + title; }
      if (s.kind === "sub") {
        var group = span("edit-sub" + mark, "", title);
        group.appendChild(span("edit-del", s.source_text));
        group.appendChild(span("edit-ins", s.target_text));
        container.appendChild(group);
      } else if (s.kind === "ins") {
        container.appendChild(span("edit-ins" + mark, s.target_text, title));
      } else {
        container.appendChild(span("edit-del" + mark, s.source_text, title));
      }
    });
    container.dataset.edits = String(changes);
    container.dataset.suggestedEdits = String(fromSuggestion);
    var count = document.createElement("span");
    count.className = "edit-count muted";
    count.textContent = changes === 0 ? " (no edit)" : " (" + changes + " edit" + (changes > 1 ? "s" : "") + ")";
    container.appendChild(count);
  }

  /* Re-diff `input` against `source` into `output` after the typist pauses; `suggested()`,
     when given, returns the keys of the edits to mark as suggested. */
  function attachLiveDiff(input, output, source, delay, language, suggested) {
    var timer = null;
    var latest = 0;
    var slow = null;
    // A diff that takes long says so (the first English diff loads the language
    // model and the box showed a stale diff for over a second without a word).
    function showSlow(ticket) {
      clearTimeout(slow);
      slow = setTimeout(function () {
        if (ticket !== latest || !output.classList.contains("pending")) return;
        var note = document.createElement("span");
        note.className = "diff-loading muted";
        note.setAttribute("data-testid", "diff-loading");
        note.textContent = language === "en"
          ? " Working out the edits… (the first English diff loads the language model: a few seconds)"
          : " Working out the edits…";
        var old = output.querySelector(".diff-loading");
        if (old) old.remove();
        output.appendChild(note);
      }, 800);
    }
    function update() {
      var ticket = ++latest;
      var target = input.value.trim();
      output.classList.add("pending");
      if (!target) {
        output.classList.remove("pending");
        output.textContent = "(empty)";
        return;
      }
      showSlow(ticket);
      fetchEdits(source, target, language).then(function (result) {
        if (ticket !== latest) return; // an older answer arriving late must not win
        clearTimeout(slow);
        output.classList.remove("pending", "error");
        renderDiff(output, result, suggested ? suggested() : null);
      }).catch(function (error) {
        if (ticket !== latest) return;
        clearTimeout(slow);
        output.classList.remove("pending");
        output.classList.add("error");
        output.textContent = error.message;
      });
    }
    input.addEventListener("input", function () {
      clearTimeout(timer);
      timer = setTimeout(update, delay || 250);
    });
    update();
    return update;
  }

  /* Seconds of active work: the tab is visible and there was input in the last minute. */
  function activeTimer() {
    var seconds = 0;
    var lastActivity = Date.now();
    ["keydown", "mousedown", "input", "scroll"].forEach(function (name) {
      document.addEventListener(name, function () { lastActivity = Date.now(); }, true);
    });
    setInterval(function () {
      if (document.visibilityState === "visible" && Date.now() - lastActivity < 60000) seconds += 1;
    }, 1000);
    return function () { return seconds; };
  }

  window.GEC = { fetchEdits: fetchEdits, renderDiff: renderDiff, attachLiveDiff: attachLiveDiff,
                 segmentKeys: segmentKeys,
                 activeTimer: activeTimer, csrfToken: csrfToken };
})();
