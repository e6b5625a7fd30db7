// The one script of an attempt's replay page (attempt-page.ts): it wires the page's clipped texts:
// a text past the limit shows its head and a "show all" button that swaps in the whole text (the
// same markup and behaviour as report.js's clips in the report). Inlined, its sha256 in the page's
// CSP; without it the head still shows. It reads nothing and loads nothing.
(() => {
  'use strict';
  for (const button of document.querySelectorAll('.clip > button.clip-more')) {
    const clip = button.parentElement;
    const part = clip.querySelector('.clip-head');
    const all = clip.querySelector('.clip-all');
    const label = button.textContent;
    button.hidden = false;
    button.setAttribute('aria-expanded', 'false');
    button.addEventListener('click', () => {
      const showing = all.hidden;
      all.hidden = !showing;
      part.hidden = showing;
      button.textContent = showing ? 'show less' : label;
      button.setAttribute('aria-expanded', String(showing));
    });
  }
})();
