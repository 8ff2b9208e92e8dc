// WCAG 2.1 AA contrast of every visible text and primary button on the page.
// Returns [{selector, text, ratio, needed, color, background}] for each element below the bar.
// The background is the first opaque background-color up the tree (a gradient or image counts
// as its first color stop's absence: such elements are skipped, since no single ratio applies).
() => {
  function parse(color) {
    const m = color.match(/rgba?\(([^)]+)\)/);
    if (!m) return null;
    const parts = m[1].split(",").map((v) => parseFloat(v));
    return { r: parts[0], g: parts[1], b: parts[2], a: parts.length > 3 ? parts[3] : 1 };
  }
  function luminance(c) {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * f(c.r) + 0.7152 * f(c.g) + 0.0722 * f(c.b);
  }
  function ratio(a, b) {
    const x = luminance(a), y = luminance(b);
    return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05);
  }
  function background(el) {
    for (let node = el; node && node.nodeType === 1; node = node.parentElement) {
      const style = getComputedStyle(node);
      if (style.backgroundImage && style.backgroundImage !== "none") return null;
      const c = parse(style.backgroundColor);
      if (c && c.a >= 0.99) return c;
      if (c && c.a > 0) return null; // translucent layers: no single answer
    }
    return { r: 255, g: 255, b: 255, a: 1 };
  }
  function visible(el) {
    const style = getComputedStyle(el);
    if (style.visibility === "hidden" || style.display === "none" || parseFloat(style.opacity) < 0.1) return false;
    const rect = el.getBoundingClientRect();
    return rect.width > 0 && rect.height > 0;
  }
  function describe(el) {
    return el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") + (el.className && typeof el.className === "string" ? "." + el.className.trim().split(/\s+/).join(".") : "");
  }
  const failures = [];
  const all = document.body.querySelectorAll("*");
  for (const el of all) {
    const ownText = Array.from(el.childNodes).some((n) => n.nodeType === 3 && n.textContent.trim());
    const primary = el.matches(".btn-primary, .btn-brand, button[type=submit], .primary");
    if ((!ownText && !primary) || !visible(el) || el.closest("[hidden], [aria-hidden=true]")) continue;
    if (el.matches("input, textarea, select, option")) continue; // placeholders and native widgets
    if (el.closest(":disabled")) continue; // WCAG exempts inactive controls
    const style = getComputedStyle(el);
    const fg = parse(style.color);
    const bg = background(el);
    if (!fg || !bg || fg.a < 0.99) continue;
    const size = parseFloat(style.fontSize);
    const bold = parseInt(style.fontWeight, 10) >= 700;
    const large = size >= 24 || (bold && size >= 18.66);
    const needed = large ? 3 : 4.5;
    const value = ratio(fg, bg);
    if (value + 0.005 < needed) {
      failures.push({ selector: describe(el), text: (el.textContent || "").trim().slice(0, 40), ratio: Math.round(value * 100) / 100,
                      needed, color: style.color, background: `rgb(${bg.r}, ${bg.g}, ${bg.b})` });
    }
  }
  return failures;
}
