/* ESA judging page: error spans on each output (prefilled "changed here" spans from the
   extractor's edits), a severity each, a 0-100 score per output; keyboard first, mouse too.
   The cursor moves by token: a character in Chinese, a word in English. The answer goes to
   the submit API as JSON; an error keeps everything on the page. Without this file the form
   posts its own fields (a decision per prefilled span and the scores). Keys: see the page. */
(function () {
  "use strict";

  var form = document.getElementById("esa-form");
  var configNode = document.getElementById("esa-config");
  if (!form || !configNode) return;
  var config = JSON.parse(configNode.textContent);
  var message = document.getElementById("esa-message");
  var guard = document.getElementById("esa-guard");
  var help = document.getElementById("esa-help");
  var cards = Array.prototype.slice.call(form.querySelectorAll(".esa-output"));
  var idleMs = config.idleSeconds * 1000;
  var active = 0;
  var last = Date.now();
  var guardOpen = false;

  form.classList.add("esa-scripted");

  function touch() {
    var now = Date.now();
    active += Math.min(now - last, idleMs);
    last = now;
  }
  ["keydown", "mousedown", "mousemove", "wheel", "input"].forEach(function (name) {
    document.addEventListener(name, touch, { passive: true, capture: true });
  });

  function say(text) {
    message.textContent = text;
    message.hidden = !text;
  }

  function tokensOf(text) {
    var tokens = [];
    var english = config.language === "en";
    var i = 0;
    while (i < text.length) {
      if (/\s/.test(text[i])) { i += 1; continue; }
      var end = i + 1;
      if (english) { while (end < text.length && !/\s/.test(text[end])) end += 1; }
      tokens.push([i, end]);
      i = end;
    }
    return tokens;
  }

  var states = cards.map(function (card, index) {
    var output = config.outputs[index];
    var state = {
      card: card,
      position: output.position,
      text: output.text,
      tokens: tokensOf(output.text),
      cursor: 0,
      anchor: null,
      dismissed: [],
      spans: output.prefilled.map(function (p) {
        return { start: p.start, end: p.end, severity: null, origin: "prefilled",
                 proposal: { start: p.start, end: p.end }, edit: p.edit };
      }),
      score: card.querySelector(".esa-score"),
      slider: card.querySelector(".esa-slider"),
      textNode: card.querySelector(".esa-text")
    };
    card.querySelector(".esa-tools").hidden = false;
    state.slider.hidden = false;
    state.slider.addEventListener("input", function () { state.score.value = state.slider.value; });
    state.score.addEventListener("input", function () {
      if (state.score.value !== "") state.slider.value = state.score.value;
    });
    state.score.addEventListener("keydown", function (event) { scoreKeys(event, state); });
    card.querySelectorAll(".esa-tools button").forEach(function (button) {
      button.addEventListener("click", function () { act(state, button.dataset.action); });
    });
    render(state);
    return state;
  });

  function tokenAt(state, charIndex) {
    for (var t = 0; t < state.tokens.length; t += 1) {
      if (state.tokens[t][1] > charIndex) return t;
    }
    return state.tokens.length - 1;
  }

  function spanAtCursor(state) {
    if (!state.tokens.length) return -1;
    var token = state.tokens[state.cursor];
    for (var s = 0; s < state.spans.length; s += 1) {
      if (state.spans[s].start < token[1] && token[0] < state.spans[s].end) return s;
    }
    return -1;
  }

  function selection(state) {
    if (state.anchor === null || !state.tokens.length) return null;
    var a = Math.min(state.anchor, state.cursor);
    var b = Math.max(state.anchor, state.cursor);
    return { start: state.tokens[a][0], end: state.tokens[b][1] };
  }

  function render(state) {
    var current = spanAtCursor(state);
    var chosen = selection(state);
    var cursorToken = state.tokens[state.cursor];
    var html = document.createDocumentFragment();
    for (var i = 0; i < state.text.length; i += 1) {
      var ch = document.createElement("span");
      ch.textContent = state.text[i];
      ch.dataset.i = String(i);
      ch.className = "esa-ch";
      for (var s = 0; s < state.spans.length; s += 1) {
        var span = state.spans[s];
        if (span.start <= i && i < span.end) {
          ch.classList.add(span.severity ? "esa-" + span.severity : "esa-proposed");
          if (span.start === i) ch.classList.add("esa-span-start");
          if (span.end === i + 1) ch.classList.add("esa-span-end");
          if (s === current) ch.classList.add("esa-current");
          ch.title = span.severity ? span.severity + " error" : "changed here: " + span.edit;
          ch.dataset.span = span.severity || "changed";
        }
      }
      if (chosen && chosen.start <= i && i < chosen.end) ch.classList.add("esa-selection");
      if (cursorToken && cursorToken[0] <= i && i < cursorToken[1]) ch.classList.add("esa-cursor");
      html.appendChild(ch);
    }
    state.textNode.replaceChildren(html);
    state.card.dataset.undecided = String(state.spans.filter(function (s) { return !s.severity; }).length);
  }

  function overlapsOther(state, start, end, skip) {
    return state.spans.some(function (s, i) { return i !== skip && s.start < end && start < s.end; });
  }

  function addSpan(state, severity) {
    var chosen = selection(state);
    if (!chosen) return false;
    if (overlapsOther(state, chosen.start, chosen.end, -1)) {
      say("The selection overlaps a span: remove or resize that span first.");
      return true;
    }
    state.spans.push({ start: chosen.start, end: chosen.end, severity: severity, origin: "added", proposal: null });
    state.spans.sort(function (a, b) { return a.start - b.start; });
    state.anchor = null;
    return true;
  }

  function act(state, action) {
    say("");
    if (action === "minor" || action === "major") {
      if (!addSpan(state, action)) {
        var index = spanAtCursor(state);
        if (index < 0) say("Select some text first (Shift+arrows or drag), or move the cursor onto a span.");
        else state.spans[index].severity = action;
      }
    } else if (action === "remove") {
      var at = spanAtCursor(state);
      if (at >= 0) {
        var removed = state.spans.splice(at, 1)[0];
        if (removed.proposal) state.dismissed.push(removed.proposal);
      }
    }
    render(state);
  }

  function setBounds(state, index, first, lastToken) {
    var span = state.spans[index];
    var start = state.tokens[first][0];
    var end = state.tokens[lastToken][1];
    if (overlapsOther(state, start, end, index)) return false;
    span.start = start;
    span.end = end;
    if (span.proposal) {
      var p = span.proposal;
      var overlapping = start < p.end && p.start < end;
      span.origin = p.start === start && p.end === end ? "prefilled" : "resized";
      if (!overlapping) {
        // moved off its edit: the edit's span is removed, this one is the judge's own
        state.dismissed.push(p);
        span.proposal = null;
        span.origin = "added";
      }
    }
    return true;
  }

  function resize(state, edge, step) {
    var index = spanAtCursor(state);
    if (index < 0) return;
    var span = state.spans[index];
    var first = tokenAt(state, span.start);
    var lastToken = tokenAt(state, span.end - 1);
    if (edge === "end") lastToken = Math.max(first, Math.min(state.tokens.length - 1, lastToken + step));
    else first = Math.min(lastToken, Math.max(0, first + step));
    if (!setBounds(state, index, first, lastToken)) return;
    state.cursor = edge === "end" ? lastToken : first;
    render(state);
  }

  // Shift+click with the cursor on a span: its nearer edge moves to the clicked token.
  function resizeTo(state, token) {
    var index = spanAtCursor(state);
    if (index < 0) return false;
    var span = state.spans[index];
    var first = tokenAt(state, span.start);
    var lastToken = tokenAt(state, span.end - 1);
    if (token < first || (token <= lastToken && token - first < lastToken - token)) first = token;
    else lastToken = token;
    if (setBounds(state, index, first, lastToken)) state.cursor = token;
    render(state);
    return true;
  }

  function focusCard(index) {
    var clamped = Math.max(0, Math.min(cards.length - 1, index));
    cards[clamped].focus();
    cards.forEach(function (card, i) { card.classList.toggle("current", i === clamped); });
  }

  function currentState() {
    var el = document.activeElement;
    var card = el && el.closest ? el.closest(".esa-output") : null;
    var index = cards.indexOf(card);
    return index < 0 ? null : states[index];
  }

  function scoreKeys(event, state) {
    var value = parseInt(state.score.value || "0", 10);
    if (event.key === "PageUp" || event.key === "PageDown") {
      event.preventDefault();
      value = Math.max(0, Math.min(100, value + (event.key === "PageUp" ? 10 : -10)));
      state.score.value = String(value);
      state.slider.value = String(value);
    } else if (event.key === "Enter" || event.key === "Escape") {
      event.preventDefault();
      event.stopPropagation();
      state.card.focus();
    }
  }

  function moveCursor(state, step, extend) {
    if (!state.tokens.length) return;
    if (extend && state.anchor === null) state.anchor = state.cursor;
    if (!extend) state.anchor = null;
    state.cursor = Math.max(0, Math.min(state.tokens.length - 1, state.cursor + step));
    render(state);
  }

  function jumpSpan(state, step) {
    if (!state.spans.length) return;
    var here = state.tokens.length ? state.tokens[state.cursor][0] : 0;
    var starts = state.spans.map(function (s) { return s.start; });
    var target = step > 0
      ? starts.filter(function (s) { return s > here; })[0]
      : starts.filter(function (s) { return s < here; }).pop();
    if (target === undefined) target = step > 0 ? starts[0] : starts[starts.length - 1];
    state.anchor = null;
    state.cursor = tokenAt(state, target);
    render(state);
  }

  document.addEventListener("keydown", function (event) {
    if (guardOpen || event.defaultPrevented) return;
    var state = currentState();
    var inScore = event.target && event.target.classList && event.target.classList.contains("esa-score");
    if (inScore || event.ctrlKey || event.metaKey) return;
    if (event.key === "?") { event.preventDefault(); help.open = !help.open; return; }
    if (!state) {
      if ((event.key === "ArrowDown" || event.key === "j") && event.target === document.body) {
        event.preventDefault();
        focusCard(0);
      }
      return;
    }
    var index = states.indexOf(state);
    var key = event.key;
    var handled = true;
    if (key === "ArrowDown" || key === "j" || key === "J") focusCard(index + 1);
    else if (key === "ArrowUp" || key === "k" || key === "K") focusCard(index - 1);
    else if ((key === "ArrowLeft" || key === "ArrowRight") && event.altKey) {
      resize(state, event.shiftKey ? "start" : "end", key === "ArrowRight" ? 1 : -1);
    } else if (key === "ArrowLeft" || key === "ArrowRight") {
      moveCursor(state, key === "ArrowRight" ? 1 : -1, event.shiftKey);
    } else if (key === "Home" || key === "End") {
      state.anchor = null;
      state.cursor = key === "Home" ? 0 : Math.max(0, state.tokens.length - 1);
      render(state);
    } else if (key === "]") jumpSpan(state, 1);
    else if (key === "[") jumpSpan(state, -1);
    else if (key === "1") act(state, "minor");
    else if (key === "2") act(state, "major");
    else if (key === "x" || key === "X" || key === "Delete" || key === "Backspace") act(state, "remove");
    else if (key === "g" || key === "G") { state.score.focus(); state.score.select(); }
    else if (key === "s" || key === "S") form.querySelector("[data-testid=skip]").click();
    else if (key === "Enter") submit();
    else handled = false;
    if (handled) event.preventDefault();
  });

  // Mouse: click a character to put the cursor there; drag across characters to select.
  states.forEach(function (state) {
    var dragging = false;
    state.textNode.addEventListener("mousedown", function (event) {
      var ch = event.target.closest ? event.target.closest(".esa-ch") : null;
      if (!ch) return;
      event.preventDefault();
      focusCard(states.indexOf(state));
      if (event.shiftKey && resizeTo(state, tokenAt(state, parseInt(ch.dataset.i, 10)))) return;
      state.cursor = tokenAt(state, parseInt(ch.dataset.i, 10));
      state.anchor = state.cursor;
      dragging = true;
      render(state);
    });
    state.textNode.addEventListener("mouseover", function (event) {
      var ch = event.target.closest ? event.target.closest(".esa-ch") : null;
      if (!dragging || !ch) return;
      state.cursor = tokenAt(state, parseInt(ch.dataset.i, 10));
      render(state);
    });
    document.addEventListener("mouseup", function () {
      if (!dragging) return;
      dragging = false;
      if (state.anchor === state.cursor) state.anchor = null;  // a click, not a drag
      render(state);
    });
  });

  function answer() {
    return states.map(function (state) {
      return {
        output: state.position,
        score: state.score.value === "" ? null : Number(state.score.value),
        spans: state.spans.map(function (s) {
          return { start: s.start, end: s.end, severity: s.severity, origin: s.origin };
        }),
        dismissed: state.dismissed.map(function (p) { return { start: p.start, end: p.end }; })
      };
    });
  }

  function problems() {
    for (var i = 0; i < states.length; i += 1) {
      var state = states[i];
      var raw = state.score.value;
      if (!/^\d+$/.test(raw) || Number(raw) > 100) {
        return { index: i, text: "Output " + (i + 1) + ": give a whole-number score from 0 to 100" + (raw ? " (not " + raw + ")" : "") + "." };
      }
      if (state.spans.some(function (s) { return !s.severity; })) {
        return { index: i, text: "Output " + (i + 1) + ": decide every dashed changed-here span (1 minor, 2 major, X remove)." };
      }
    }
    return null;
  }

  function lowScoresWithoutSpans() {
    return states.map(function (state, i) { return [state, i]; }).filter(function (pair) {
      return Number(pair[0].score.value) < config.lowScore && !pair[0].spans.length;
    }).map(function (pair) { return pair[1] + 1; });
  }

  function askGuard(outputs) {
    return new Promise(function (resolve) {
      document.getElementById("esa-guard-text").textContent =
        "Output " + outputs.join(", ") + ": a score under " + config.lowScore +
        " with no error marked. Save anyway?";
      guardOpen = true;
      guard.showModal();
      var buttons = guard.querySelectorAll("[data-guard]");
      function done(confirmed) {
        guardOpen = false;
        guard.close();
        guard.removeEventListener("keydown", onKey);
        buttons.forEach(function (b) { b.onclick = null; });
        resolve(confirmed);
      }
      function onKey(event) {
        if (event.key === "Enter") { event.preventDefault(); done(true); }
        else if (event.key === "Escape") { event.preventDefault(); done(false); }
      }
      guard.addEventListener("keydown", onKey);
      buttons.forEach(function (b) { b.onclick = function () { done(b.dataset.guard === "confirm"); }; });
      guard.querySelector("[data-guard=confirm]").focus();
    });
  }

  var sending = false;
  async function submit() {
    if (sending) return;
    var problem = problems();
    if (problem) { say(problem.text); focusCard(problem.index); return; }
    var low = lowScoresWithoutSpans();
    var confirmed = false;
    if (low.length) {
      confirmed = await askGuard(low);
      if (!confirmed) { focusCard(low[0] - 1); return; }
    }
    touch();
    sending = true;
    var token = form.querySelector("[name=csrfmiddlewaretoken]").value;
    try {
      var response = await fetch(config.submitUrl, {
        method: "POST",
        credentials: "same-origin",
        headers: { "Content-Type": "application/json", "X-CSRFToken": token },
        body: JSON.stringify({ esa: answer(), low_score_confirmed: confirmed,
                               active_seconds: Math.round(active / 100) / 10 })
      });
      if (response.ok) { window.location.assign(config.nextUrl); return; }
      var body = await response.json().catch(function () { return {}; });
      say(body.detail || ("Saving failed (" + response.status + "); your marks are still here."));
    } catch (error) {
      say("Saving failed: " + error + "; your marks are still here.");
    } finally {
      sending = false;
    }
  }

  form.addEventListener("submit", function (event) {
    var button = event.submitter;
    if (button && button.value === "skip") return;  // the form posts the skip
    event.preventDefault();
    submit();
  });

  focusCard(0);
})();
