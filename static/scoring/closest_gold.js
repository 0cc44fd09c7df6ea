/* Keyboard-first verification of a closest-gold (templates/scoring/closest_gold_verify.html):
   A accepts the proposal, O marks the output already correct, E puts the proposal in the
   text box to edit, R rejects it and puts the output there to correct; in the text box
   Ctrl+Enter saves what was started (edit or correction) and Esc leaves it. The page works
   without this file: the buttons post the same form. */
(function () {
  "use strict";

  var form = document.getElementById("closest-gold-form");
  if (!form) return;
  var text = document.getElementById("cg-text");
  var mode = form.querySelector("[data-testid=cg-mode]");
  var hasProposal = form.getAttribute("data-has-proposal") === "1";
  var pending = null;

  function submitWith(decision) {
    var button = form.querySelector("button[value='" + decision + "']");
    if (!button || button.disabled) return;
    if (typeof form.requestSubmit === "function") form.requestSubmit(button);
    else button.click();
  }

  function startWriting(decision, start, label) {
    pending = decision;
    text.value = start;
    text.focus();
    text.setSelectionRange(text.value.length, text.value.length);
    if (mode) mode.textContent = label + ": Ctrl+Enter saves, Esc leaves the box";
  }

  text.addEventListener("keydown", function (event) {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      submitWith(pending || (hasProposal ? "edited" : "rewritten"));
    } else if (event.key === "Escape") {
      event.preventDefault();
      text.blur();
    }
  });

  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    var target = event.target;
    if (target && (target.tagName === "TEXTAREA" || target.tagName === "INPUT" || target.tagName === "SELECT")) return;
    var key = (event.key || "").toLowerCase();
    if (key === "a" && hasProposal) {
      event.preventDefault();
      submitWith("accepted");
    } else if (key === "o") {
      event.preventDefault();
      submitWith("output-correct");
    } else if (key === "e" && hasProposal) {
      event.preventDefault();
      startWriting("edited", form.getAttribute("data-proposal"), "Editing the proposal");
    } else if (key === "r") {
      event.preventDefault();
      startWriting("rewritten", form.getAttribute("data-output"), "Writing the correction from the output");
    }
  });
})();
