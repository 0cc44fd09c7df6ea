/* Keyboard-first judging: arrows or Tab move between outputs, a digit ranks the focused
   output (and moves on; with Shift it stays), C / X mark the focused output's next unjudged
   edit correct / incorrect, Enter submits, S skips. The page works without this file: the
   selects and radio buttons post the same form. */
(function () {
  "use strict";

  var form = document.getElementById("judge-form");
  if (!form) return;
  var outputs = Array.prototype.slice.call(form.querySelectorAll(".judge-output"));
  if (!outputs.length) return;

  function currentIndex() {
    var active = document.activeElement;
    var card = active && active.closest ? active.closest(".judge-output") : null;
    var index = outputs.indexOf(card);
    return index < 0 ? 0 : index;
  }

  function focusOutput(index) {
    var clamped = Math.max(0, Math.min(outputs.length - 1, index));
    outputs[clamped].focus();
    outputs.forEach(function (card, i) { card.classList.toggle("current", i === clamped); });
  }

  function markRanked(card) {
    var select = card.querySelector(".rank-select");
    card.classList.toggle("ranked", Boolean(select && select.value));
  }

  function setRank(index, rank, stay) {
    var select = outputs[index].querySelector(".rank-select");
    if (!select || rank < 1 || rank > outputs.length) return;
    select.value = String(rank);
    markRanked(outputs[index]);
    if (!stay && index + 1 < outputs.length) focusOutput(index + 1);
  }

  function markEdit(index, correct) {
    var groups = outputs[index].querySelectorAll(".edit-verdict");
    for (var i = 0; i < groups.length; i++) {
      var radios = groups[i].querySelectorAll("input[type=radio]");
      var chosen = Array.prototype.some.call(radios, function (r) { return r.checked; });
      if (!chosen) {
        var wanted = correct ? "correct" : "incorrect";
        Array.prototype.forEach.call(radios, function (r) { if (r.value === wanted) r.checked = true; });
        groups[i].classList.add("judged");
        return;
      }
    }
  }

  function submitWith(name) {
    var button = form.querySelector("button[value=" + name + "]");
    if (typeof form.requestSubmit === "function") form.requestSubmit(button);
    else button.click();
  }

  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    var target = event.target;
    if (target && (target.tagName === "TEXTAREA" || (target.tagName === "INPUT" && target.type === "text"))) return;
    var digit = /^(?:Digit|Numpad)([0-9])$/.exec(event.code || "");
    if (digit) {
      event.preventDefault();
      setRank(currentIndex(), Number(digit[1]), event.shiftKey);
    } else if (event.key === "ArrowDown" || event.key === "j") {
      event.preventDefault();
      focusOutput(currentIndex() + 1);
    } else if (event.key === "ArrowUp" || event.key === "k") {
      event.preventDefault();
      focusOutput(currentIndex() - 1);
    } else if (event.key === "Enter" && !(target && target.tagName === "BUTTON")) {
      event.preventDefault();
      submitWith("submit");
    } else if (event.key === "s" || event.key === "S") {
      event.preventDefault();
      submitWith("skip");
    } else if (event.key === "c" || event.key === "C" || event.key === "x" || event.key === "X") {
      event.preventDefault();
      markEdit(currentIndex(), event.key === "c" || event.key === "C");
    }
  });

  outputs.forEach(function (card) {
    var select = card.querySelector(".rank-select");
    if (select) select.addEventListener("change", function () { markRanked(card); });
    card.addEventListener("focus", function () {
      outputs.forEach(function (other) { other.classList.toggle("current", other === card); });
    });
  });
  focusOutput(0);
})();
