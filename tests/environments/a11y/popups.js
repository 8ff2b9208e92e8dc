// The visible pickers, menus and dialogs: each one's box, and whether it lies inside the viewport
// and inside every ancestor that clips (overflow other than visible).
() => {
  const found = [];
  const popups = document.querySelectorAll("[role=dialog], [role=listbox], [role=menu], .popover, dialog[open]");
  for (const el of popups) {
    if (el.closest("[hidden]")) continue;
    const rect = el.getBoundingClientRect();
    if (rect.width === 0 || rect.height === 0) continue;
    const problems = [];
    if (rect.left < -1 || rect.top < -1 || rect.right > innerWidth + 1 || rect.bottom > innerHeight + 1) {
      problems.push(`outside the ${innerWidth}x${innerHeight} viewport: ${Math.round(rect.left)},${Math.round(rect.top)} to ${Math.round(rect.right)},${Math.round(rect.bottom)}`);
    }
    for (let node = el.parentElement; node && node !== document.body && node !== document.documentElement; node = node.parentElement) {
      const style = getComputedStyle(node);
      if ([style.overflow, style.overflowX, style.overflowY].every((v) => v === "visible")) continue;
      const box = node.getBoundingClientRect();
      if (rect.left < box.left - 1 || rect.top < box.top - 1 || rect.right > box.right + 1 || rect.bottom > box.bottom + 1) {
        problems.push(`clipped by ${node.tagName.toLowerCase()}.${String(node.className).trim().split(/\s+/).join(".")} (overflow ${style.overflow})`);
      }
    }
    found.push({ label: el.getAttribute("aria-label") || el.className || el.tagName, problems });
  }
  return found;
}
