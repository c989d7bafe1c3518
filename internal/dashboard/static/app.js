// Frontdesk dashboard: progressive enhancement only. Every action is a plain
// form that works without this file; it adds a copy button, confirmations,
// dragging a card onto a stage column (which submits the card's own move
// form), dragging an appointment on Today's grid to the reschedule page's
// confirm step, and the header search's type-ahead.
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
  // Drag a booked appointment on Today's grid onto a professional's working
  // time: this opens the reschedule page's confirm step for that start and
  // professional (docs/moving-appointments.md), where the one move rule
  // answers; nothing moves on the drop itself. Without this, each
  // appointment's Reschedule link leads to the same page.
  var grid = document.querySelector(".tg[data-first]");
  if (grid) {
    var dragged = null, grabY = 0;
    var workAt = function (x, y) {
      var els = document.elementsFromPoint(x, y);
      for (var i = 0; i < els.length; i++) if (els[i].classList.contains("tg-work")) return els[i];
      return null;
    };
    grid.addEventListener("dragstart", function (ev) {
      var appt = ev.target.closest && ev.target.closest("[data-move]");
      if (!appt) return;
      dragged = appt;
      grabY = ev.clientY - appt.getBoundingClientRect().top;
      ev.dataTransfer.effectAllowed = "move";
      ev.dataTransfer.setData("text/plain", appt.getAttribute("data-move"));
    });
    grid.addEventListener("dragover", function (ev) {
      if (dragged && workAt(ev.clientX, ev.clientY)) { ev.preventDefault(); ev.dataTransfer.dropEffect = "move"; }
    });
    grid.addEventListener("drop", function (ev) {
      var work = dragged && workAt(ev.clientX, ev.clientY);
      if (!work) return;
      ev.preventDefault();
      var step = +grid.getAttribute("data-step"), first = +grid.getAttribute("data-first");
      var row = +work.getAttribute("data-row"), rows = +work.getAttribute("data-row-end") - row;
      var box = work.getBoundingClientRect(), rowPx = box.height / rows;
      var at = Math.max(0, Math.min(rows - 1, Math.round((ev.clientY - grabY - box.top) / rowPx)));
      var minute = first + (row - 2 + at) * step;
      var day = new Date(work.getAttribute("data-day") + "T00:00:00Z");
      day.setUTCMinutes(minute);
      var start = day.toISOString().slice(0, 16);
      var url = dragged.getAttribute("data-move") + "?return=today&date=" + start.slice(0, 10) +
        "&start=" + encodeURIComponent(start) + "&with=" + work.getAttribute("data-pro");
      dragged = null;
      window.location = url;
    });
    grid.addEventListener("dragend", function () { dragged = null; });
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
  // The header's patient search (partial_header_search.html): a type-ahead
  // listbox from clients/suggest, the ARIA combobox pattern (arrow keys
  // move, Enter opens the patient, Escape closes). Without this the form
  // goes to the Clients page.
  var combo = document.querySelector("form[data-suggest] input[role=combobox]");
  if (combo) {
    var form = combo.form, list = document.getElementById(combo.getAttribute("aria-controls"));
    var items = [], active = -1, timer = null, asked = "";
    var show = function (open) {
      list.hidden = !open;
      combo.setAttribute("aria-expanded", open ? "true" : "false");
      if (!open) { active = -1; combo.removeAttribute("aria-activedescendant"); }
    };
    var pick = function (i) {
      if (active >= 0) list.children[active].setAttribute("aria-selected", "false");
      active = i;
      if (i < 0) { combo.removeAttribute("aria-activedescendant"); return; }
      var li = list.children[i];
      li.setAttribute("aria-selected", "true");
      combo.setAttribute("aria-activedescendant", li.id);
      li.scrollIntoView && li.scrollIntoView({ block: "nearest" });
    };
    var render = function (clients) {
      items = clients;
      list.textContent = "";
      clients.forEach(function (c, i) {
        var li = document.createElement("li");
        li.id = "header-q-opt-" + i;
        li.setAttribute("role", "option");
        li.setAttribute("aria-selected", "false");
        li.textContent = c.name;
        if (c.phone) {
          var ph = document.createElement("span");
          ph.className = "hint";
          ph.textContent = c.phone;
          li.appendChild(ph);
        }
        li.addEventListener("mousedown", function (ev) { ev.preventDefault(); window.location = c.url; });
        list.appendChild(li);
      });
      active = -1;
      show(clients.length > 0);
    };
    var ask = function () {
      var q = combo.value.trim();
      if (q === asked) return;
      asked = q;
      if (q.length < 2) { render([]); return; }
      fetch(form.getAttribute("data-suggest") + "?q=" + encodeURIComponent(q), { credentials: "same-origin", headers: { Accept: "application/json" } })
        .then(function (r) { return r.ok ? r.json() : { clients: [] }; })
        .then(function (data) { if (combo.value.trim() === q) render(data.clients || []); })
        .catch(function () { render([]); });
    };
    combo.addEventListener("input", function () { clearTimeout(timer); timer = setTimeout(ask, 150); });
    combo.addEventListener("keydown", function (ev) {
      var open = !list.hidden && items.length > 0;
      if (ev.key === "ArrowDown" || ev.key === "ArrowUp") {
        if (!open) { if (items.length) show(true); else return; }
        ev.preventDefault();
        var n = items.length, next = ev.key === "ArrowDown" ? active + 1 : active - 1;
        pick(next < 0 ? n - 1 : next % n);
      } else if (ev.key === "Enter" && open && active >= 0) {
        ev.preventDefault();
        window.location = items[active].url;
      } else if (ev.key === "Escape" && open) {
        ev.preventDefault();
        show(false);
      }
    });
    combo.addEventListener("blur", function () { show(false); });
    combo.addEventListener("focus", function () { if (items.length && combo.value.trim() === asked) show(true); });
  }
  // A quick reply chosen in a patient's thread goes into the reply box at
  // once, after what is already typed (without JavaScript, its Insert
  // button asks the server for the page with the box filled).
  document.addEventListener("change", function (ev) {
    var sel = ev.target;
    if (!sel.matches || !sel.matches("select[data-insert-into]")) return;
    var opt = sel.options[sel.selectedIndex], box = document.querySelector(sel.getAttribute("data-insert-into"));
    if (!opt || !opt.value || !box) return;
    var text = opt.getAttribute("data-text") || "";
    box.value = box.value.trim() ? box.value.replace(/\s*$/, " ") + text : text;
    box.focus();
    sel.selectedIndex = 0;
  });
})();
