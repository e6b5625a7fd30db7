// The HTML report's one script, inlined into the page by render-html.ts (its sha256 is the page's
// Content-Security-Policy script-src): the drill-down, grid cell → its attempts → one attempt's
// replay, from the attempts embedded as JSON (#report-data) and their replays rendered by
// attempt-page.ts (one <template data-attempt-index> each, cloned into the detail pane: one replay
// renderer for the report and the attempt pages); the grid's scope (newest run or all runs), the
// status filter and the search; sorting of every table by its headers. What is shown lives in the
// URL's hash (#scope=all&status=failures&q=auth&sort=<column>:<asc|desc>&cell=<case>/<config>&
// attempt=<run>/<case>/<config>/<attempt>, each part percent-encoded; the grid's sort column is
// `case` or a config id, and sorts both grids), so a link opens the same view, a reload keeps it and
// back/forward walk it. The page's default scope is the newest run (all runs with --all-runs). Builds every other node with textContent (never innerHTML), so attempt data
// is never markup; without JavaScript the page still shows everything but this. An attempt's own
// replay page wires its clipped texts with clip.js instead.
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
  const show = (value) => (value === null || value === undefined || value === '' ? '—' : String(value));
  const chip = (status) => h('span', { class: 'chip ' + status }, status.replace('_', ' '));

  // The attempt's replay, rendered (and escaped) by attempt-page.ts, cloned from its template.
  function showAttempt(index, row) {
    for (const other of list.querySelectorAll('tr.selected')) other.classList.remove('selected');
    row.classList.add('selected');
    const template = document.querySelector('template[data-attempt-index="' + index + '"]');
    if (template === null) {
      const attempt = data.attempts[index];
      // A site's page: the attempt has its own page (its replay, or its public projection).
      if (attempt.page) {
        detail.replaceChildren(
          h(
            'p',
            { class: 'note', 'data-attempt': attempt.attemptId },
            'Attempt ',
            h('code', {}, attempt.attemptId),
            ': ',
            h('a', { href: attempt.page, 'data-attempt-page': '' }, 'its page'),
            '.',
          ),
        );
        return;
      }
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

  // ——— Sorting: every table, by a click (or Enter/Space) on a column header ———
  const sortValue = (cell) => {
    if (!cell) return { number: null, text: '' };
    const raw = cell.dataset.sort !== undefined ? cell.dataset.sort : cell.textContent.trim();
    const cleaned = raw
      .replace(/^[+$]+/, '')
      .replace(/^\u2212/, '-')
      .replace(/,/g, '');
    const number = /^-?\d/.test(cleaned) ? parseFloat(cleaned) : NaN;
    return { number: Number.isNaN(number) ? null : number, text: raw.toLowerCase() };
  };
  const compareValues = (x, y) => {
    if (x.number !== null && y.number !== null) return x.number - y.number;
    if (x.number !== null) return -1;
    if (y.number !== null) return 1;
    return x.text < y.text ? -1 : x.text > y.text ? 1 : 0;
  };
  function sortBy(table, th, direction) {
    const body = table.tBodies[0];
    const ascending =
      direction === undefined ? th.getAttribute('aria-sort') !== 'ascending' : direction === 'asc';
    for (const other of th.parentElement.cells) other.setAttribute('aria-sort', 'none');
    th.setAttribute('aria-sort', ascending ? 'ascending' : 'descending');
    const index = th.cellIndex;
    const rows = [...body.rows].map((row, at) => ({ row, at, value: sortValue(row.cells[index]) }));
    rows.sort((x, y) => (ascending ? 1 : -1) * compareValues(x.value, y.value) || x.at - y.at);
    body.append(...rows.map((entry) => entry.row));
  }
  function sortable(table) {
    const thead = table.tHead;
    if (!thead || table.tBodies.length === 0 || thead.rows.length === 0) return;
    for (const th of thead.rows[thead.rows.length - 1].cells) {
      const button = document.createElement('button');
      button.type = 'button';
      button.className = 'sort';
      button.append(...th.childNodes);
      button.title = 'Sort by this column';
      th.append(button);
      th.setAttribute('aria-sort', 'none');
      // A grid's sort is part of the view (in the hash); any other table sorts in place.
      button.addEventListener('click', () => {
        if (!table.classList.contains('grid')) return sortBy(table, th);
        const column = columnOf(th);
        const again = current.sort !== null && current.sort[0] === column && current.sort[1] === 'asc';
        go({ ...current, sort: [column, again ? 'desc' : 'asc'] });
      });
    }
  }
  /** A grid header's sort key: its config id, or `case` for the first column. */
  const columnOf = (th) => (th.dataset.config !== undefined ? th.dataset.config : 'case');
  const SORT_DIRECTIONS = ['asc', 'desc'];
  // Each grid's rows in the page's order, so "no sort" (back to a link without one) restores it.
  const gridOrder = new Map();
  /** Sorts both grids as the state says (or back to the page's order). */
  function sortGrids(sort) {
    for (const table of document.querySelectorAll('table.grid')) {
      const headers = [...table.tHead.rows[table.tHead.rows.length - 1].cells];
      if (sort === null) {
        for (const th of headers) th.setAttribute('aria-sort', 'none');
        table.tBodies[0].append(...(gridOrder.get(table) || []));
        continue;
      }
      const th = headers.find((cell) => columnOf(cell) === sort[0]);
      if (th) sortBy(table, th, sort[1]);
    }
  }

  // ——— The view's state, in the hash ———
  const enc = encodeURIComponent;
  const keyOf = (...parts) => parts.map(enc).join('/');
  const runIndex = new Map(data.runs.map((run, index) => [run, index]));
  const pooledCells = new Map(data.cells.map((cell) => [keyOf(cell.caseId, cell.configId), cell]));
  const latestCells = new Map(data.latestCells.map((cell) => [keyOf(cell.caseId, cell.configId), cell]));
  const STATUSES = ['all', 'failures', 'errors', 'incomplete', 'flaky'];
  const SCOPES = ['latest', 'all'];
  const DEFAULT_SCOPE = data.defaultScope === 'all' ? 'all' : 'latest';
  // The embedded attempts per cell, newest run first and non-solved first (indexed on first use).
  let byCell = null;
  const attemptsOf = (key) => {
    if (byCell === null) {
      byCell = new Map();
      for (const attempt of data.attempts) {
        const cellKey = keyOf(attempt.caseId, attempt.configId);
        const found = byCell.get(cellKey);
        if (found) found.push(attempt);
        else byCell.set(cellKey, [attempt]);
      }
      const place = (attempt) => (runIndex.has(attempt.runId) ? runIndex.get(attempt.runId) : -1);
      for (const found of byCell.values())
        found.sort((x, y) => place(y) - place(x) || (x.status === 'solved') - (y.status === 'solved'));
    }
    return byCell.get(key) || [];
  };
  const split = (raw, parts) => {
    const pieces = raw.split('/');
    if (pieces.length !== parts) return null;
    try {
      return pieces.map(decodeURIComponent);
    } catch {
      return null;
    }
  };
  function readState() {
    const state = { scope: DEFAULT_SCOPE, status: 'all', q: '', sort: null, cell: null, attempt: null };
    for (const part of location.hash.replace(/^#/, '').split('&')) {
      const at = part.indexOf('=');
      if (at < 0) continue;
      const name = part.slice(0, at);
      const raw = part.slice(at + 1);
      if (name === 'cell') state.cell = split(raw, 2);
      else if (name === 'attempt') state.attempt = split(raw, 4);
      else {
        let value;
        try {
          value = decodeURIComponent(raw);
        } catch {
          continue;
        }
        if (name === 'scope' && SCOPES.includes(value)) state.scope = value;
        else if (name === 'sort') {
          const at = value.lastIndexOf(':');
          const column = value.slice(0, at);
          const direction = value.slice(at + 1);
          if (at > 0 && SORT_DIRECTIONS.includes(direction) && (column === 'case' || configText.has(column)))
            state.sort = [column, direction];
        } else if (name === 'status' && STATUSES.includes(value)) state.status = value;
        else if (name === 'q') state.q = value;
      }
    }
    if (state.attempt) state.cell = [state.attempt[1], state.attempt[2]];
    return state;
  }
  function hashOf(state) {
    const parts = [];
    if (state.scope !== DEFAULT_SCOPE) parts.push('scope=' + state.scope);
    if (state.status !== 'all') parts.push('status=' + state.status);
    if (state.q !== '') parts.push('q=' + enc(state.q));
    if (state.sort) parts.push('sort=' + enc(state.sort[0]) + ':' + state.sort[1]);
    if (state.attempt) parts.push('attempt=' + keyOf(...state.attempt));
    else if (state.cell) parts.push('cell=' + keyOf(...state.cell));
    return '#' + parts.join('&');
  }
  const same = (x, y) => (x === null || y === null ? x === y : x.join('\u0000') === y.join('\u0000'));
  /** A hash that is a section's id (the page's own links): it moves the view, not the state. */
  const isAnchor = (hash) =>
    hash.length > 1 && !hash.includes('=') && document.getElementById(hash.slice(1)) !== null;

  let current = { scope: DEFAULT_SCOPE, status: 'all', q: '', sort: null, cell: null, attempt: null };
  /**
   * Shows `next` at once, then records it in the address: a new history entry (so back returns), or
   * in place (typing a search).
   */
  function go(next, inPlace) {
    const hash = hashOf(next);
    const address = hash === '#' ? location.pathname + location.search : hash;
    const changed = hash !== hashOf(current);
    apply(next, !inPlace);
    if (inPlace) history.replaceState(null, '', address);
    else if (changed) history.pushState(null, '', address);
  }

  // ——— Filters: status and search ———
  const controls = document.getElementById('controls');
  const statusSelect = document.getElementById('status-filter');
  const search = document.getElementById('search');
  const counter = document.getElementById('filter-count');
  const grids = [...document.querySelectorAll('table.grid')];
  const lower = (text) => (text || '').toLowerCase();
  const caseText = new Map();
  const configText = new Map();
  for (const row of document.querySelectorAll('table.grid tbody tr[data-case]'))
    caseText.set(row.dataset.case, lower(row.dataset.case));
  for (const th of document.querySelectorAll('table.grid thead th[data-config]'))
    configText.set(th.dataset.config, lower(th.dataset.config));
  for (const entry of data.identity.cases)
    caseText.set(entry.caseId, lower([entry.caseId, entry.description, entry.prompt].join(' ')));
  for (const entry of data.identity.configs)
    configText.set(
      entry.configId,
      lower([entry.configId, entry.model, entry.driver, entry.description].join(' ')),
    );
  const statusMatches = (td, status) => {
    if (status === 'all') return true;
    if (td.dataset.empty === 'true') return false;
    const n = (name) => Number(td.dataset[name] || 0);
    if (status === 'failures') return n('unsolved') > 0;
    if (status === 'errors') return n('errored') + n('overBudget') > 0;
    if (status === 'incomplete') return n('incomplete') > 0;
    return td.dataset.flaky === 'true';
  };
  /** Which cases and configs the search keeps (null: all): it narrows whichever it matches. */
  function searchSets(q) {
    if (q === '') return { cases: null, configs: null };
    const cases = new Set([...caseText].filter(([, text]) => text.includes(q)).map(([id]) => id));
    const configs = new Set([...configText].filter(([, text]) => text.includes(q)).map(([id]) => id));
    return {
      cases: cases.size === 0 && configs.size > 0 ? null : cases,
      configs: configs.size === 0 && cases.size > 0 ? null : configs,
    };
  }
  function hideColumns(table, configOk) {
    const thead = table.tHead;
    if (!thead) return;
    for (const th of thead.querySelectorAll('th[data-config]')) {
      const shown = configOk(th.dataset.config);
      th.hidden = !shown;
      for (const row of table.tBodies[0] ? table.tBodies[0].rows : []) {
        const cell = row.cells[th.cellIndex];
        if (cell) cell.hidden = !shown;
      }
    }
  }
  function filter(state) {
    const sets = searchSets(state.q.trim().toLowerCase());
    const caseOk = (id) => sets.cases === null || sets.cases.has(id);
    const configOk = (id) => sets.configs === null || sets.configs.has(id);
    for (const table of grids) {
      hideColumns(table, configOk);
      let shown = 0;
      for (const row of table.tBodies[0].rows) {
        let match = false;
        for (const td of row.querySelectorAll('td.cell')) {
          const ok = configOk(td.dataset.config) && statusMatches(td, state.status);
          td.classList.toggle('dim', !ok && state.status !== 'all');
          if (ok) match = true;
        }
        row.hidden = !caseOk(row.dataset.case) || !match;
        if (!row.hidden) shown++;
      }
      if (table.dataset.scope === state.scope) {
        const configs = [...table.tHead.querySelectorAll('th[data-config]')];
        counter.textContent =
          'Showing ' +
          shown +
          ' of ' +
          table.tBodies[0].rows.length +
          ' cases and ' +
          configs.filter((th) => !th.hidden).length +
          ' of ' +
          configs.length +
          ' configs' +
          (shown === 0 ? ' \u2014 nothing matches' : '') +
          '.';
      }
    }
    // Every other table: rows of a case or config the search leaves out, and config columns.
    for (const table of document.querySelectorAll('main table:not(.grid)')) {
      if (table.closest('#drilldown')) continue;
      hideColumns(table, configOk);
      for (const row of table.tBodies[0] ? table.tBodies[0].rows : []) {
        const byCase = row.dataset.case === undefined || caseOk(row.dataset.case);
        const byConfig = row.dataset.config === undefined || configOk(row.dataset.config);
        row.hidden = !(byCase && byConfig);
      }
    }
  }

  // ——— The drill-down ———
  const drillNav = document.getElementById('drill-nav');
  const backLink = (label, state) => {
    const link = h('a', { href: hashOf(state), class: 'back' }, label);
    return link;
  };
  function renderCell(state, pooled, newest) {
    const [caseId, configId] = state.cell;
    const attempts = attemptsOf(keyOf(caseId, configId));
    const omitted = data.attemptsTotal > data.attempts.length;
    const rate = (cell) =>
      cell.solved +
      ' of ' +
      cell.denominator.counted +
      ' counted attempts solved (' +
      pct(cell.solveRate) +
      ', Wilson 95% ' +
      (cell.ci95 ? pct(cell.ci95[0]) + '\u2013' + pct(cell.ci95[1]) : 'n/a') +
      ')';
    const passes = (key, label) =>
      label + ': ' + pooled.passAtK.map((p) => 'k=' + p.k + ' ' + pct(p[key])).join(' \u00b7 ');
    let hidden = 0;
    const site = data.site;
    const casePage = site ? site.casePages[caseId] : undefined;
    const casePageLink = () => h('a', { href: casePage, 'data-case-page': '' }, 'the page of case ' + caseId);
    const rows = attempts.map((attempt) => {
      const row = h('tr', { 'data-attempt': attempt.attemptId, 'data-run': attempt.runId });
      const open = h(
        'button',
        { type: 'button' },
        attempt.attemptId.length > LIMIT ? head(attempt.attemptId) + '\u2026' : attempt.attemptId,
      );
      open.addEventListener('click', () =>
        go({ ...current, attempt: [attempt.runId, attempt.caseId, attempt.configId, attempt.attemptId] }),
      );
      const cost = attempt.cost || {};
      const costSort =
        cost.effectiveNanodollars === undefined || cost.effectiveNanodollars === null
          ? '-1'
          : String(cost.effectiveNanodollars);
      row.append(
        h(
          'td',
          { 'data-sort': String(runIndex.has(attempt.runId) ? runIndex.get(attempt.runId) : -1) },
          attempt.runId,
        ),
        h('td', {}, open),
        h('td', {}, chip(attempt.status)),
        h('td', {}, show(attempt.statusReason)),
        h('td', { class: 'n', 'data-sort': costSort }, show(attempt.shownCost)),
        site
          ? h(
              'td',
              {},
              attempt.page ? h('a', { href: attempt.page, 'data-attempt-page': '' }, 'page') : '\u2014',
            )
          : null,
      );
      const status = attempt.status;
      const keep =
        state.status === 'all' ||
        state.status === 'flaky' ||
        (state.status === 'failures' && status === 'unsolved') ||
        (state.status === 'errors' && (status === 'errored' || status === 'over_budget')) ||
        (state.status === 'incomplete' && status === 'incomplete');
      if (!keep) {
        row.hidden = true;
        hidden++;
      }
      return row;
    });
    const attemptTable =
      attempts.length === 0
        ? h(
            'p',
            { class: 'note' },
            'None of this cell\u2019s attempts is embedded in this page',
            casePage ? [': ', casePageLink(), ' lists every one, each linked to its page.'] : '.',
          )
        : h(
            'table',
            { class: 'attempts' },
            h(
              'thead',
              {},
              h(
                'tr',
                {},
                ['run', 'attempt', 'status', 'reason', 'cost']
                  .concat(site ? ['page'] : [])
                  .map((c) => h('th', { scope: 'col' }, c)),
              ),
            ),
            h('tbody', {}, rows),
          );
    if (attempts.length > 0) sortable(attemptTable);
    const attemptBlock =
      attempts.length === 0 ? attemptTable : h('div', { class: 'table-wrap' }, attemptTable);
    list.replaceChildren(
      ...[
        h('h3', {}, caseId, ' \u00d7 ', configId),
        newest
          ? h(
              'p',
              { 'data-newest': newest.runId },
              'Newest run ',
              h('code', {}, newest.runId),
              ': ' + rate(newest) + '.',
              newest.previous
                ? ' Previous run ' + newest.previous.runId + ': ' + pct(newest.previous.solveRate) + '.'
                : '',
            )
          : data.latestRun
            ? h('p', { class: 'note' }, 'No attempt in the newest run (', h('code', {}, data.latestRun), ').')
            : null,
        h('p', {}, 'All runs: ' + rate(pooled) + '; cost: ' + pooled.cost.text + '.'),
        pooled.passAtK.length === 0
          ? null
          : h(
              'p',
              { class: 'note' },
              passes('passAtK', 'pass@k (at least one of k solves)'),
              h('br'),
              passes('passHatK', 'pass^k (all k solve)'),
            ),
        attemptBlock,
        hidden > 0
          ? h(
              'p',
              { class: 'note', 'data-hidden-attempts': String(hidden) },
              hidden + ' attempt(s) hidden by the status filter.',
            )
          : null,
        omitted
          ? h(
              'p',
              { class: 'note' },
              'This page embeds ' +
                data.attempts.length +
                ' of ' +
                data.attemptsTotal +
                ' attempts (each cell its share, newest run and non-solved first); ',
              casePage ? [casePageLink(), ' lists them all.'] : 'the JSON report lists them all.',
            )
          : null,
        casePage && !omitted && attempts.length > 0
          ? h(
              'p',
              { class: 'note' },
              'Every attempt of case ' + caseId + ', by config: ',
              casePageLink(),
              '.',
            )
          : null,
      ].filter((node) => node !== null),
    );
  }
  function drill(state, previous, scroll) {
    for (const other of document.querySelectorAll('td.cell.selected')) other.classList.remove('selected');
    if (!state.cell) {
      list.replaceChildren();
      detail.replaceChildren();
      drillNav.hidden = true;
      if (scroll && previous.cell) {
        const td = document.querySelector(
          'table.grid[data-scope="' +
            state.scope +
            '"] td.cell[data-case="' +
            CSS.escape(previous.cell[0]) +
            '"][data-config="' +
            CSS.escape(previous.cell[1]) +
            '"]',
        );
        if (td) {
          td.scrollIntoView({ block: 'center' });
          td.focus({ preventScroll: true });
        }
      }
      return;
    }
    const [caseId, configId] = state.cell;
    const key = keyOf(caseId, configId);
    const pooled = pooledCells.get(key);
    drillNav.hidden = false;
    drillNav.replaceChildren(
      backLink('\u2190 Back to the grid', { ...state, cell: null, attempt: null }),
      state.attempt
        ? backLink('\u2190 Back to ' + caseId + ' \u00d7 ' + configId, { ...state, attempt: null })
        : '',
    );
    if (!pooled) {
      list.replaceChildren(
        h(
          'p',
          { class: 'note', 'data-missing': 'cell' },
          'This report has no cell ' + caseId + ' \u00d7 ' + configId + '.',
        ),
      );
      detail.replaceChildren();
      return;
    }
    for (const td of document.querySelectorAll('td.cell'))
      if (td.dataset.case === caseId && td.dataset.config === configId) td.classList.add('selected');
    renderCell(state, pooled, latestCells.get(key));
    if (state.attempt) {
      const [runId, , , attemptId] = state.attempt;
      const attempt = attemptsOf(key).find((a) => a.runId === runId && a.attemptId === attemptId);
      const row = [...list.querySelectorAll('tr[data-attempt]')].find(
        (r) => r.dataset.attempt === attemptId && r.dataset.run === runId,
      );
      if (attempt && row) {
        row.hidden = false;
        showAttempt(data.attempts.indexOf(attempt), row);
      } else {
        const casePage = data.site ? data.site.casePages[state.attempt[1]] : undefined;
        detail.replaceChildren(
          h(
            'p',
            { class: 'note', 'data-missing': 'attempt' },
            'Attempt ' + attemptId + ' of run ' + runId + ' is not embedded in this page; ',
            casePage
              ? [
                  h('a', { href: casePage, 'data-case-page': '' }, 'the page of case ' + state.attempt[1]),
                  ' lists every attempt of the case.',
                ]
              : 'the JSON report lists every attempt.',
          ),
        );
      }
    } else detail.replaceChildren();
    if (scroll)
      document
        .getElementById(state.attempt ? 'attempt-detail' : 'drilldown')
        .scrollIntoView({ block: 'start' });
  }

  function apply(state, scroll) {
    const previous = current;
    current = state;
    for (const block of document.querySelectorAll('[data-grid-scope]'))
      block.hidden = block.dataset.gridScope !== state.scope;
    for (const button of document.querySelectorAll('[data-scope-button]'))
      button.setAttribute('aria-pressed', String(button.dataset.scopeButton === state.scope));
    if (statusSelect) statusSelect.value = state.status;
    if (search && search.value !== state.q) search.value = state.q;
    if (controls) filter(state);
    if (!same(state.sort, previous.sort)) sortGrids(state.sort);
    const moved = !same(state.cell, previous.cell) || !same(state.attempt, previous.attempt);
    if (moved || state.status !== previous.status) drill(state, previous, scroll && moved);
  }

  wireAll(document);
  for (const table of document.querySelectorAll('table.grid'))
    gridOrder.set(table, [...table.tBodies[0].rows]);
  for (const table of document.querySelectorAll('main table')) sortable(table);
  for (const td of document.querySelectorAll('td.cell:not(.empty)')) {
    td.classList.add('js');
    td.tabIndex = 0;
    td.setAttribute('role', 'button');
    const open = () => go({ ...current, cell: [td.dataset.case, td.dataset.config], attempt: null });
    td.addEventListener('click', open);
    td.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' || event.key === ' ') {
        event.preventDefault();
        open();
      }
    });
  }
  if (controls) {
    controls.hidden = false;
    for (const button of controls.querySelectorAll('[data-scope-button]'))
      button.addEventListener('click', () => go({ ...current, scope: button.dataset.scopeButton }));
    statusSelect.addEventListener('change', () => go({ ...current, status: statusSelect.value }));
    search.addEventListener('input', () => go({ ...current, q: search.value }, true));
  }
  // Back/forward, an edited address, a link to a state (the back links): show what it says.
  const follow = () => {
    if (isAnchor(location.hash)) return;
    const state = readState();
    if (hashOf(state) !== hashOf(current)) apply(state, true);
  };
  window.addEventListener('popstate', follow);
  window.addEventListener('hashchange', follow);
  document.getElementById('drill-hint').textContent =
    'Click a grid cell to list its attempts, then an attempt for its details; the address keeps what is shown (copy it to link here).';
  apply(isAnchor(location.hash) ? current : readState(), true);
})();
