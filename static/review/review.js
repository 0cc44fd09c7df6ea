/* Review page: live diffs for edited and added references, add/remove boxes, active time,
   one submit per click, and keyboard shortcuts so a reviewer works at annotator speed:
   J/K move between corrections, C/W judge the focused one (then move on), E edits it,
   A adds a reference, 1/2/3 set the sentence status, Ctrl+Enter saves and opens the next. */
(function () {
  "use strict";
  var configEl = document.getElementById("page-config");
  var form = document.getElementById("review-form");
  if (!configEl || !form) return;
  var config = JSON.parse(configEl.textContent);
  var source = config.source;
  var elapsed = GEC.activeTimer();

  form.querySelectorAll(".edit-box").forEach(function (area) {
    var output = area.parentElement.querySelector(".live-diff");
    GEC.attachLiveDiff(area, output, source, undefined, config.language);
    // The diff above already shows the annotator's text; show this one once it is edited.
    area.addEventListener("input", function () { output.classList.remove("untouched"); });
  });

  function addReference(text) {
    var box = document.getElementById("added-template").content.firstElementChild.cloneNode(true);
    document.getElementById("added").appendChild(box);
    var area = box.querySelector("textarea");
    var prefilled = typeof text === "string";
    if (prefilled) area.value = text;
    GEC.attachLiveDiff(area, box.querySelector(".live-diff"), source, undefined, config.language);
    box.querySelector(".remove-added").addEventListener("click", function () { box.remove(); });
    if (!prefilled) area.focus();
  }
  document.getElementById("add-reference").addEventListener("click", function () { addReference(); });
  // Amending a saved review: its added references start in the form.
  (config.added || []).forEach(function (text) { addReference(text); });

  form.addEventListener("submit", function (event) {
    if (form.dataset.submitting) { event.preventDefault(); return; }
    form.dataset.submitting = "1";
    document.getElementById("review-submit").disabled = true;
    document.getElementById("time-input").value = String(elapsed());
  });

  // --- keyboard ---------------------------------------------------------------------------
  var corrections = Array.prototype.slice.call(form.querySelectorAll(".candidate.correction"));
  var focused = -1;

  function focusCorrection(index) {
    if (!corrections.length) return;
    index = Math.max(0, Math.min(corrections.length - 1, index));
    if (focused >= 0) {
      corrections[focused].classList.remove("focused");
      corrections[focused].removeAttribute("aria-current");
    }
    focused = index;
    var box = corrections[focused];
    box.classList.add("focused");
    box.setAttribute("aria-current", "true");
    box.focus({ preventScroll: true });
    box.scrollIntoView({ block: "nearest" });
  }

  function showVerdict(box) {
    var chosen = box.querySelector(".verdict-choice input:checked");
    box.classList.toggle("judged-correct", !!chosen && chosen.value === "correct");
    box.classList.toggle("judged-wrong", !!chosen && chosen.value === "wrong");
  }

  function judge(value) {
    if (focused < 0) return;
    var box = corrections[focused];
    var radio = box.querySelector('.verdict-choice input[value="' + value + '"]');
    radio.checked = true;
    showVerdict(box);
    // Move on to the next correction still without a verdict, if any.
    for (var step = 1; step <= corrections.length; step++) {
      var next = (focused + step) % corrections.length;
      if (!corrections[next].querySelector(".verdict-choice input:checked")) {
        focusCorrection(next);
        return;
      }
    }
  }

  function setStatus(value) {
    var radio = form.querySelector('input[name="judgement"][value="' + value + '"]');
    if (radio) radio.checked = true;
  }

  function save() {
    if (form.dataset.submitting) return;
    // requestSubmit runs the submit handler above (time, one submit) like a click would.
    form.requestSubmit(document.getElementById("review-submit"));
  }

  corrections.forEach(function (box, index) {
    box.addEventListener("click", function () { if (focused !== index) focusCorrection(index); });
    box.querySelectorAll(".verdict-choice input").forEach(function (radio) {
      radio.addEventListener("change", function () { showVerdict(box); });
    });
  });

  var STATUS_KEYS = { "1": "annotatable", "2": "error_free", "3": "not_annotatable" };

  document.addEventListener("keydown", function (event) {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      save();
      return;
    }
    var target = event.target;
    var typing = target && (target.tagName === "TEXTAREA" ||
      (target.tagName === "INPUT" && target.type === "text") || target.isContentEditable);
    if (typing) {
      if (event.key === "Escape") {
        target.blur();
        var owner = target.closest(".candidate.correction");
        if (owner) focusCorrection(corrections.indexOf(owner));
      }
      return;
    }
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    var key = event.key.length === 1 ? event.key.toLowerCase() : event.key;
    var handled = true;
    if (key === "j") focusCorrection(focused + 1);
    else if (key === "k") focusCorrection(focused - 1);
    else if (key === "c") judge("correct");
    else if (key === "w") judge("wrong");
    else if (key === "e" && focused >= 0) {
      var area = corrections[focused].querySelector(".edit-box");
      area.focus();
      area.setSelectionRange(area.value.length, area.value.length);
    }
    else if (key === "a") addReference();
    else if (STATUS_KEYS[key]) setStatus(STATUS_KEYS[key]);
    else handled = false;
    if (handled) event.preventDefault();
  });

  // The sticky action bar's height, so scrolling to a correction keeps it clear of the bar.
  var bar = document.querySelector("[data-testid=action-bar]");
  function measureBar() {
    if (bar) document.documentElement.style.setProperty("--action-bar", bar.offsetHeight + "px");
  }
  measureBar();
  window.addEventListener("resize", measureBar);

  focusCorrection(0);
})();
