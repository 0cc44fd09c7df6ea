/* The correction form (annotation page and self-study page): text boxes with live diffs,
   add/delete boxes, ERROR FREE / NOT ANNOTATABLE tags, shortcuts, drafts, active time. */
(function () {
  "use strict";
  var configEl = document.getElementById("page-config");
  var form = document.getElementById("correction-form");
  if (!configEl || !form) return;
  var config = JSON.parse(configEl.textContent);
  var source = config.source;
  var boxes = document.getElementById("boxes");
  var tagInput = document.getElementById("tag-input");
  var timeInput = document.getElementById("time-input");
  var warnings = document.getElementById("client-warnings");
  var submitButton = document.getElementById("submit-button");
  var draftKey = config.draftKey || ("draft-assignment-" + config.assignmentId);
  var elapsed = GEC.activeTimer();
  var clock = document.getElementById("active-time");
  if (clock) {
    setInterval(function () {
      var s = elapsed();
      clock.textContent = Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0");
    }, 1000);
  }

  // The text rule of datasets/textrules.py: control (Cc), format (Cf: U+200B, U+FEFF ...),
  // private-use (Co) characters and lone surrogates (Cs) are refused. No maxlength on the
  // box: a browser would cut a longer paste silently; the length is reported instead.
  var REFUSED = /[\p{Cc}\p{Cf}\p{Co}\p{Cs}]/u;
  var touched = false;

  function allBoxes() { return Array.prototype.slice.call(boxes.querySelectorAll(".box")); }

  function renumber() {
    allBoxes().forEach(function (box, i) {
      box.querySelector(".box-label").textContent = "Correction " + (i + 1);
      box.querySelector(".delete-box").disabled = allBoxes().length === 1;
    });
    document.getElementById("add-box").disabled = allBoxes().length >= config.maxBoxes;
  }

  // The share of units a correction has in common with the source (words for spaced text,
  // else characters), as annotate.services.shared_with_source computes it.
  function sharedWithSource(text) {
    var spaced = source.trim().split(/\s+/).length >= 3;
    function units(value) {
      value = value.toLowerCase();
      var list = spaced ? value.split(/\s+/).filter(Boolean) : Array.from(value.replace(/\s+/g, ""));
      var counts = {};
      list.forEach(function (u) { counts[u] = (counts[u] || 0) + 1; });
      return { counts: counts, total: list.length };
    }
    var mine = units(source), theirs = units(text);
    var total = Math.max(mine.total, theirs.total);
    if (mine.total < 4 || !total) return null;
    var common = 0;
    Object.keys(mine.counts).forEach(function (u) { common += Math.min(mine.counts[u], theirs.counts[u] || 0); });
    return common / total;
  }

  function checkBoxes() {
    var seen = {};
    var problems = [];
    if (!tagInput.value) {
      allBoxes().forEach(function (box, i) {
        var text = box.querySelector("textarea").value.trim();
        if (!text) problems.push("Correction " + (i + 1) + " is empty: type the sentence or delete the box.");
        else if (text.length > config.maxChars) problems.push("Correction " + (i + 1) + " is " + text.length + " characters long, above the maximum of " + config.maxChars + ": shorten it (nothing is cut off for you).");
        else if (REFUSED.test(text)) problems.push("Correction " + (i + 1) + " holds a control or invisible character (such as U+200B) at character " + (text.search(REFUSED) + 1) + ": remove it.");
        else if (seen[text]) problems.push("Correction " + (i + 1) + " duplicates correction " + seen[text] + " and will be merged.");
        else seen[text] = i + 1;
        if (text === source.trim() && allBoxes().length > 1) problems.push("Correction " + (i + 1) + " is identical to the source.");
        var share = text ? sharedWithSource(text) : null;
        if (share !== null && share < 0.25) problems.push("Correction " + (i + 1) + " shares only " + Math.round(share * 100) + "% with the source: is it the right sentence?");
      });
      // Only once the person has typed: a page that opens with the source in the box (or the
      // self-study page) must not greet them with "Unchanged" before they did anything.
      if (touched && allBoxes().length === 1 && allBoxes()[0].querySelector("textarea").value.trim() === source.trim()) {
        problems.push("Unchanged: this will be recorded as ERROR FREE.");
      }
    }
    warnings.textContent = "";
    problems.forEach(function (text) {
      var li = document.createElement("li");
      li.textContent = text;
      warnings.appendChild(li);
    });
  }

  function saveDraft() {
    if (!config.open) return;
    try {
      localStorage.setItem(draftKey, JSON.stringify({
        texts: allBoxes().map(function (b) { return b.querySelector("textarea").value; }),
        tag: tagInput.value
      }));
    } catch (e) { /* private mode: drafts are a convenience only */ }
  }

  // A box grows to its text, up to half the window (a 230-character sentence scrolled inside
  // two rows, and its diff fell below the fold); a longer text scrolls inside the box.
  function fitBox(area) {
    area.style.height = "auto";
    var borders = area.offsetHeight - area.clientHeight;
    var most = Math.max(area.offsetHeight, Math.round(window.innerHeight * 0.5));
    area.style.height = Math.min(area.scrollHeight + borders, most) + "px";
  }

  // Post-edit mode: the box opened with a suggestion; its edits (asked once) are marked as
  // suggested in every box's live diff, however the box changes.
  var suggestedKeys = null;
  var refreshes = [];
  function suggested() { return suggestedKeys; }
  if (typeof config.suggestion === "string" && config.suggestion.trim() !== source.trim()) {
    GEC.fetchEdits(source, config.suggestion.trim(), config.language).then(function (result) {
      suggestedKeys = new Set(GEC.segmentKeys(result.segments).filter(function (key, i) {
        return result.segments[i].kind !== "eq";
      }));
      refreshes.forEach(function (refresh) { refresh(); });
    }).catch(function () { /* the boxes still show their plain diff */ });
  }

  function wireBox(box) {
    var area = box.querySelector("textarea");
    refreshes.push(GEC.attachLiveDiff(area, box.querySelector(".diff"), source, undefined, config.language, suggested));
    fitBox(area);
    area.addEventListener("input", function () { touched = true; fitBox(area); checkBoxes(); saveDraft(); });
    box.querySelector(".delete-box").addEventListener("click", function () {
      if (allBoxes().length > 1) { box.remove(); renumber(); checkBoxes(); saveDraft(); }
    });
  }

  function addBox(text) {
    if (allBoxes().length >= config.maxBoxes) return null;
    var template = document.getElementById("box-template");
    var box = template.content.firstElementChild.cloneNode(true);
    box.querySelector("textarea").value = text === undefined ? source : text;
    boxes.appendChild(box);
    wireBox(box);
    renumber();
    checkBoxes();
    return box;
  }

  function setTag(tag) {
    tagInput.value = tagInput.value === tag ? "" : tag;
    allBoxes().forEach(function (box) {
      box.querySelector("textarea").disabled = !!tagInput.value;
      box.classList.toggle("disabled", !!tagInput.value);
    });
    document.querySelectorAll("[data-tag]").forEach(function (button) {
      button.classList.toggle("active", button.dataset.tag === tagInput.value);
      button.setAttribute("aria-pressed", button.dataset.tag === tagInput.value ? "true" : "false");
    });
    checkBoxes();
    saveDraft();
  }

  allBoxes().forEach(wireBox);
  if (config.open) {
    try {
      var draft = JSON.parse(localStorage.getItem(draftKey) || "null");
      if (draft && draft.texts && draft.texts.length && !form.dataset.posted) {
        allBoxes().forEach(function (b) { b.remove(); });
        draft.texts.forEach(function (t) { addBox(t); });
        if (draft.tag) setTag(draft.tag);
        document.getElementById("draft-note").hidden = false;
      }
    } catch (e) { /* a broken draft is ignored */ }
  }
  renumber();
  checkBoxes();
  window.addEventListener("resize", function () {
    allBoxes().forEach(function (box) { fitBox(box.querySelector("textarea")); });
  });
  // A keyboard-only annotator types at once: the first open box has the focus,
  // with the caret after its text.
  if (config.open) {
    var firstArea = allBoxes().length ? allBoxes()[0].querySelector("textarea") : null;
    if (firstArea && !firstArea.disabled) {
      firstArea.focus();
      firstArea.setSelectionRange(firstArea.value.length, firstArea.value.length);
    }
  }

  // A new box starts from the correction being written (it used to start
  // from the source): the focused box, else the last one; the source only when there is none.
  function startText() {
    var active = document.activeElement;
    if (active && active.tagName === "TEXTAREA" && boxes.contains(active)) return active.value;
    var all = allBoxes();
    return all.length ? all[all.length - 1].querySelector("textarea").value : source;
  }

  document.getElementById("add-box").addEventListener("click", function () {
    var box = addBox(startText());
    if (box) box.querySelector("textarea").focus();
    saveDraft();
  });
  document.querySelectorAll("[data-tag]").forEach(function (button) {
    button.addEventListener("click", function () { setTag(button.dataset.tag); });
  });

  // Post-edit: submit the box as it opened (one box, the suggestion, no tag).
  function acceptSuggestion() {
    if (typeof config.suggestion !== "string") return;
    if (tagInput.value) setTag(tagInput.value);
    allBoxes().forEach(function (b, i) { if (i > 0) b.remove(); });
    var area = allBoxes()[0].querySelector("textarea");
    area.value = config.suggestion;
    form.requestSubmit(submitButton);
  }
  // Post-edit: the focused box (else the first) back to the source, to rewrite it.
  function resetToSource() {
    if (typeof config.suggestion !== "string") return;
    if (tagInput.value) setTag(tagInput.value);
    var active = document.activeElement;
    var area = active && active.tagName === "TEXTAREA" && boxes.contains(active)
      ? active : allBoxes()[0].querySelector("textarea");
    area.value = source;
    area.dispatchEvent(new Event("input", { bubbles: true }));
    area.focus();
    area.setSelectionRange(area.value.length, area.value.length);
  }
  var acceptButton = document.getElementById("accept-suggestion");
  if (acceptButton) acceptButton.addEventListener("click", acceptSuggestion);
  var resetButton = document.getElementById("reset-to-source");
  if (resetButton) resetButton.addEventListener("click", resetToSource);

  form.addEventListener("submit", function (event) {
    if (form.dataset.submitting) { event.preventDefault(); return; } // a double click sends once
    form.dataset.submitting = "1";
    submitButton.disabled = true;
    timeInput.value = String(elapsed());
    try { localStorage.removeItem(draftKey); } catch (e) { /* ignore */ }
  });

  document.addEventListener("keydown", function (event) {
    if (!config.open) {
      if (event.altKey && event.key === "ArrowRight" && config.nextUrl) window.location = config.nextUrl;
      return;
    }
    if ((event.ctrlKey || event.metaKey) && event.key === "Enter") {
      event.preventDefault();
      form.requestSubmit(submitButton);
    } else if (event.altKey && (event.key === "n" || event.key === "N")) {
      event.preventDefault();
      var box = addBox(startText());
      if (box) box.querySelector("textarea").focus();
    } else if (event.altKey && (event.key === "e" || event.key === "E")) {
      event.preventDefault();
      setTag("error_free");
    } else if (event.altKey && (event.key === "u" || event.key === "U")) {
      event.preventDefault();
      setTag("not_annotatable");
    } else if (event.altKey && (event.key === "a" || event.key === "A") && acceptButton) {
      event.preventDefault();
      acceptSuggestion();
    } else if (event.altKey && (event.key === "r" || event.key === "R") && resetButton) {
      event.preventDefault();
      resetToSource();
    } else if (event.altKey && event.key === "ArrowRight" && config.nextUrl) {
      event.preventDefault();
      window.location = config.nextUrl;
    }
  });
})();
