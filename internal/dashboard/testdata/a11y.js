// The dashboard's accessibility audit, run in the page by the browser tests
// (an axe-style subset of WCAG 2.1 AA): it returns a list of problems.
(() => {
  const problems = [];
  const short = el => el.outerHTML.replace(/\s+/g, " ").slice(0, 140);
  const visible = el => {
    const st = getComputedStyle(el);
    if (st.display === "none" || st.visibility === "hidden") return false;
    return !!(el.offsetWidth || el.offsetHeight || el.getClientRects().length);
  };
  const ariaName = el => {
    const label = (el.getAttribute("aria-label") || "").trim();
    if (label) return label;
    const by = el.getAttribute("aria-labelledby");
    if (by) return by.split(/\s+/).map(id => (document.getElementById(id) || {}).textContent || "").join(" ").trim();
    return "";
  };
  if (!document.documentElement.getAttribute("lang")) problems.push("<html> has no lang");
  if (!document.title.trim()) problems.push("the page has no title");

  // Form controls have a label.
  for (const el of document.querySelectorAll("input, select, textarea")) {
    const type = (el.getAttribute("type") || "").toLowerCase();
    if (["hidden", "submit", "button", "reset", "image"].includes(type)) continue;
    const labelled = ariaName(el) || (el.id && document.querySelector(`label[for="${CSS.escape(el.id)}"]`)) ||
      el.closest("label") || (el.getAttribute("title") || "").trim();
    if (!labelled) problems.push("form control without a label: " + short(el));
  }
  // Buttons and links have a name.
  for (const el of document.querySelectorAll("button, a[href], input[type=submit], input[type=button]")) {
    const name = (el.textContent || "").trim() || (el.value || "").trim() || ariaName(el) || (el.getAttribute("title") || "").trim() ||
      Array.from(el.querySelectorAll("img[alt]")).map(i => i.alt).join(" ").trim();
    if (!name) problems.push("button or link without a name: " + short(el));
  }
  for (const img of document.querySelectorAll("img")) {
    if (!img.hasAttribute("alt")) problems.push("image without alt: " + short(img));
  }
  // Ids are unique (labels and aria references depend on it).
  const ids = new Map();
  for (const el of document.querySelectorAll("[id]")) {
    if (ids.has(el.id)) problems.push("duplicate id " + JSON.stringify(el.id));
    ids.set(el.id, true);
  }
  // Text contrast (WCAG 1.4.3): 4.5:1, or 3:1 for large text.
  const parse = s => {
    const m = /rgba?\(([^)]+)\)/.exec(s);
    if (!m) return null;
    const p = m[1].split(",").map(x => parseFloat(x));
    return { rgb: p.slice(0, 3), a: p.length > 3 ? p[3] : 1 };
  };
  const lum = rgb => {
    const [r, g, b] = rgb.map(v => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const blend = (fg, bg) => fg.rgb.map((c, i) => c * fg.a + bg[i] * (1 - fg.a));
  const background = el => {
    const layers = [];
    for (let e = el; e; e = e.parentElement) {
      const c = parse(getComputedStyle(e).backgroundColor);
      if (c && c.a > 0) { layers.push(c); if (c.a >= 1) break; }
    }
    let rgb = [255, 255, 255];
    for (let i = layers.length - 1; i >= 0; i--) rgb = blend(layers[i], rgb);
    return rgb;
  };
  const seen = new Set();
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const node = walker.currentNode;
    const text = node.textContent.trim();
    const el = node.parentElement;
    if (!text || !el || seen.has(el) || !visible(el) || el.closest("[aria-hidden=true]")) continue; // decorative marks are hidden from AT
    seen.add(el);
    const st = getComputedStyle(el);
    if (el.closest("[disabled]")) continue; // WCAG exempts inactive controls
    const fg = parse(st.color);
    if (!fg) continue;
    const bg = background(el);
    const c = blend(fg, bg);
    const l1 = lum(c), l2 = lum(bg);
    const ratio = (Math.max(l1, l2) + 0.05) / (Math.min(l1, l2) + 0.05);
    const size = parseFloat(st.fontSize), bold = parseInt(st.fontWeight, 10) >= 700;
    const need = size >= 24 || (size >= 18.66 && bold) ? 3 : 4.5;
    if (ratio < need) {
      problems.push(`contrast ${ratio.toFixed(2)}:1 < ${need}:1 for "${text.slice(0, 40)}" (${st.color} on rgb(${bg.map(Math.round).join(",")}))`);
    }
  }
  return problems;
})()
