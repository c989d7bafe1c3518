// Frontdesk dashboard: progressive enhancement only. Every action is a plain
// form that works without this file; it adds a copy button, confirmations,
// and dragging a card onto a stage column (which submits the card's own
// move form).
(function () {
  "use strict";
  // Today's now line (docs/today.md): the server places it; this moves it
  // down the grid's 5-minute rows each minute and hides it past the last.
  var now = document.getElementById("tg-now");
  if (now) {
    var minute = +now.getAttribute("data-minute"), rows = +now.getAttribute("data-rows");
    setInterval(function () {
      minute++;
      if (minute >= rows * 5) { now.hidden = true; return; }
      now.style.gridRowStart = String(2 + Math.floor(minute / 5));
      now.style.setProperty("--tg-frac", String((minute % 5) / 5));
    }, 60000);
  }
  document.addEventListener("click", function (ev) {
    var btn = ev.target.closest("[data-copy]");
    if (!btn) return;
    var src = document.querySelector(btn.getAttribute("data-copy"));
    if (!src) return;
    var text = src.value !== undefined ? src.value : src.textContent;
    // The texts are the page's, in its language: the button's own label,
    // and data-copied for the moment after copying.
    if (!btn.hasAttribute("data-label")) btn.setAttribute("data-label", btn.textContent);
    var label = btn.getAttribute("data-label"), copied = btn.getAttribute("data-copied") || label;
    var done = function () { btn.textContent = copied; setTimeout(function () { btn.textContent = label; }, 2000); };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(done, function () { src.select && src.select(); });
    } else if (src.select) {
      src.select();
      try { document.execCommand("copy"); done(); } catch (e) { /* the text stays selected for Ctrl+C */ }
    }
  });
  document.addEventListener("submit", function (ev) {
    var msg = ev.target.getAttribute("data-confirm");
    if (msg && !window.confirm(msg)) ev.preventDefault();
  });
  // Drag and drop on the board: dropping a card on a column picks that stage
  // in the card's move form and submits it; the server applies the stage
  // rules and answers with the board (and the reason when refused).
  var dragged = null;
  document.addEventListener("dragstart", function (ev) {
    var card = ev.target.closest && ev.target.closest(".card[draggable=true]");
    if (!card) return;
    dragged = card;
    ev.dataTransfer.effectAllowed = "move";
    ev.dataTransfer.setData("text/plain", card.id);
  });
  document.addEventListener("dragover", function (ev) {
    var col = dragged && ev.target.closest && ev.target.closest(".column[data-stage]");
    if (!col) return;
    ev.preventDefault();
    col.classList.add("drop");
  });
  document.addEventListener("dragleave", function (ev) {
    var col = ev.target.closest && ev.target.closest(".column[data-stage]");
    if (col && !col.contains(ev.relatedTarget)) col.classList.remove("drop");
  });
  document.addEventListener("drop", function (ev) {
    var col = dragged && ev.target.closest && ev.target.closest(".column[data-stage]");
    if (!col) return;
    ev.preventDefault();
    col.classList.remove("drop");
    var form = dragged.querySelector("form.move");
    dragged = null;
    if (!form) return;
    var sel = form.querySelector("select[name=target_stage_id]");
    if (sel.value === col.getAttribute("data-stage") && col.contains(form)) return;
    sel.value = col.getAttribute("data-stage");
    form.submit();
  });
  document.addEventListener("dragend", function () { dragged = null; });
})();
