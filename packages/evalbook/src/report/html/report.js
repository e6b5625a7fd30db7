// The HTML report's one script, inlined into the page by render-html.ts (its sha256 is the page's
// Content-Security-Policy script-src): the drill-down, grid cell → its attempts → one attempt's
// replay, from the attempts embedded as JSON (#report-data) and their replays rendered by
// attempt-page.ts (one <template data-attempt-index> each, cloned into the detail pane: one replay
// renderer for the report and the attempt pages). Builds every other node with textContent (never
// innerHTML), so attempt data is never markup; without JavaScript the page still shows everything
// but this. An attempt's own replay page inlines this script too, which only wires its clipped texts.
(() => {
  'use strict';
  // Text past the limit is laid out only when asked: its head, then a button that swaps in the whole.
  const wire = (button) => {
    const clip = button.parentElement;
    const part = clip.querySelector('.clip-head');
    const all = clip.querySelector('.clip-all');
    const label = button.textContent;
    button.hidden = false;
    button.addEventListener('click', () => {
      const showing = all.hidden;
      all.hidden = !showing;
      part.hidden = showing;
      button.textContent = showing ? 'show less' : label;
      button.setAttribute('aria-expanded', String(showing));
    });
    button.setAttribute('aria-expanded', 'false');
  };
  const wireAll = (root) => {
    for (const button of root.querySelectorAll('.clip > button.clip-more')) wire(button);
  };
  const source = document.getElementById('report-data');
  if (source === null) {
    wireAll(document); // an attempt's replay page: no report, only its clipped texts
    return;
  }
  const data = JSON.parse(source.textContent);
  const list = document.getElementById('cell-attempts');
  const detail = document.getElementById('attempt-detail');
  const LIMIT = data.textLimit;
  const head = (text) => text.slice(0, /[\ud800-\udbff]/.test(text.charAt(LIMIT - 1)) ? LIMIT - 1 : LIMIT);
  const clip = (text) => {
    const node = document.createElement('span');
    node.className = 'clip';
    const length = text.length - (text.match(/[\ud800-\udbff][\udc00-\udfff]/g) || []).length;
    node.dataset.length = String(length);
    const part = document.createElement('span');
    part.className = 'clip-head';
    part.textContent = head(text) + '\u2026';
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'clip-more';
    button.textContent = 'show all ' + length.toLocaleString('en-US') + ' characters';
    const all = document.createElement('span');
    all.className = 'clip-all';
    all.hidden = true;
    all.textContent = text;
    node.append(part, ' ', button, all);
    wire(button);
    return node;
  };
  // Every element of the drill-down is made here, and every text in it passes through clip().
  const h = (tag, attrs, ...children) => {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attrs || {})) node.setAttribute(name, value);
    for (const child of children.flat(Infinity))
      if (child !== null && child !== undefined) {
        const text = child instanceof Node ? null : String(child);
        node.append(text === null ? child : text.length > LIMIT ? clip(text) : text);
      }
    return node;
  };
  const pct = (rate) => (rate === null || rate === undefined ? 'n/a' : (rate * 100).toFixed(0) + '%');
  const usd = (n) => {
    if (n === null || n === undefined) return 'none';
    const text = String(n).padStart(10, '0');
    const fraction = text.slice(-9).replace(/0+$/, '').padEnd(2, '0');
    return '$' + text.slice(0, -9) + '.' + fraction + ' (' + n + ' nanodollars)';
  };
  const show = (value) => (value === null || value === undefined || value === '' ? '—' : String(value));
  const chip = (status) => h('span', { class: 'chip ' + status }, status.replace('_', ' '));

  // The attempt's replay, rendered (and escaped) by attempt-page.ts, cloned from its template.
  function showAttempt(index, row) {
    for (const other of list.querySelectorAll('tr.selected')) other.classList.remove('selected');
    row.classList.add('selected');
    const template = document.querySelector('template[data-attempt-index="' + index + '"]');
    if (template === null) {
      const attempt = data.attempts[index];
      detail.replaceChildren(
        h(
          'p',
          { class: 'note', 'data-attempt': attempt.attemptId },
          'This page carries the replays of its first ' +
            data.replayLimit +
            ' attempts; write this one with ',
          h('code', {}, 'evals report --attempt ', attempt.attemptId, ' --run ', attempt.runId),
          '.',
        ),
      );
      return;
    }
    const replay = template.content.cloneNode(true);
    wireAll(replay);
    detail.replaceChildren(replay);
    detail.scrollIntoView({ block: 'nearest' });
  }

  function showCell(td) {
    for (const other of document.querySelectorAll('td.cell.selected')) other.classList.remove('selected');
    td.classList.add('selected');
    const cell = data.cells[Number(td.dataset.cellIndex)];
    const indexes = data.attempts.flatMap((a, index) =>
      a.caseId === cell.caseId && a.configId === cell.configId ? [index] : [],
    );
    const attempts = indexes.map((index) => data.attempts[index]);
    const omitted = data.attemptsTotal > data.attempts.length;
    detail.replaceChildren();
    const rows = attempts.map((attempt, position) => {
      const row = h('tr', { 'data-attempt': attempt.attemptId });
      const open = h(
        'button',
        { type: 'button' },
        attempt.attemptId.length > LIMIT ? head(attempt.attemptId) + '\u2026' : attempt.attemptId,
      );
      open.addEventListener('click', () => showAttempt(indexes[position], row));
      const cost = attempt.cost || {};
      row.append(
        h('td', {}, attempt.runId),
        h('td', {}, open),
        h('td', {}, chip(attempt.status)),
        h('td', {}, show(attempt.statusReason)),
        h(
          'td',
          { class: 'n' },
          cost.effectiveNanodollars === null ? 'unpriced' : usd(cost.effectiveNanodollars).split(' ')[0],
        ),
      );
      return row;
    });
    const passes = (key, label) =>
      label + ': ' + cell.passAtK.map((p) => 'k=' + p.k + ' ' + pct(p[key])).join(' · ');
    list.replaceChildren(
      ...[
        h('h3', {}, cell.caseId, ' × ', cell.configId),
        h(
          'p',
          {},
          cell.solved +
            ' of ' +
            cell.denominator.counted +
            ' counted attempts solved (' +
            pct(cell.solveRate) +
            ', Wilson 95% ' +
            (cell.ci95 ? pct(cell.ci95[0]) + '–' + pct(cell.ci95[1]) : 'n/a') +
            '); cost: ' +
            cell.cost.text +
            '.',
        ),
        cell.passAtK.length === 0
          ? null
          : h(
              'p',
              { class: 'note' },
              passes('passAtK', 'pass@k (at least one of k solves)'),
              h('br'),
              passes('passHatK', 'pass^k (all k solve)'),
            ),
        attempts.length === 0
          ? h('p', { class: 'note' }, 'None of this cell\u2019s attempts is embedded in this page.')
          : h(
              'table',
              { class: 'attempts' },
              h(
                'thead',
                {},
                h(
                  'tr',
                  {},
                  ['run', 'attempt', 'status', 'reason', 'cost'].map((c) => h('th', { scope: 'col' }, c)),
                ),
              ),
              h('tbody', {}, rows),
            ),
        omitted
          ? h(
              'p',
              { class: 'note' },
              'This page embeds ' +
                data.attempts.length +
                ' of ' +
                data.attemptsTotal +
                ' attempts; the JSON report lists them all.',
            )
          : null,
      ].filter((node) => node !== null),
    );
    document.getElementById('drilldown').scrollIntoView({ block: 'start' });
  }

  wireAll(document);
  for (const td of document.querySelectorAll('td.cell[data-cell-index]')) {
    td.classList.add('js');
    td.tabIndex = 0;
    td.setAttribute('role', 'button');
    td.addEventListener('click', () => showCell(td));
    td.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' || event.key === ' ') {
        event.preventDefault();
        showCell(td);
      }
    });
  }
  document.getElementById('drill-hint').textContent =
    'Click a grid cell to list its attempts, then an attempt for its details.';
})();
