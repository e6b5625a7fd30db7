// The screenshots docs/ shows (checkScreenshots, browser.ts): a browser test fails when one it
// names is not committed in docs/images/ (or, updating, was not taken), copies them there with
// UPDATE_SCREENSHOTS, and never compares pixels (a re-render on another machine, other fonts, other bytes, passes).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { checkScreenshots } from '../src/browser.ts';

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const png = (pixels: string): Buffer => Buffer.concat([PNG, Buffer.from(pixels)]);

let dir: string;
let shots: string;
let images: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'test-kit-shots-'));
  shots = join(dir, 'shots');
  images = join(dir, 'docs', 'images');
  mkdirSync(shots);
  mkdirSync(images, { recursive: true });
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('checkScreenshots', () => {
  it('fails when a named screenshot is not committed, naming it and what to run', () => {
    writeFileSync(join(shots, 'a.png'), png('new'));
    writeFileSync(join(shots, 'b.png'), png('new'));
    writeFileSync(join(images, 'a.png'), png('old'));
    expect(() => {
      checkScreenshots({ shots, images, names: ['a.png', 'b.png'], update: false });
    }).toThrow(
      /docs\/images\/b\.png is missing or not a PNG: run this browser test with UPDATE_SCREENSHOTS=1/,
    );
  });

  it('fails when a committed file is not a PNG, or (updating) a named screenshot was not taken', () => {
    writeFileSync(join(shots, 'a.png'), png('new'));
    writeFileSync(join(images, 'a.png'), 'version https://git-lfs.github.com/spec/v1\n');
    expect(() => {
      checkScreenshots({ shots, images, names: ['a.png'], update: false });
    }).toThrow(/a\.png is missing or not a PNG/);
    writeFileSync(join(images, 'c.png'), png('old'));
    // not taken (a run of one test): the committed one stands, unless asked to update it
    expect(() => {
      checkScreenshots({ shots, images, names: ['c.png'], update: false });
    }).not.toThrow();
    expect(() => {
      checkScreenshots({ shots, images, names: ['c.png'], update: true });
    }).toThrow(/c\.png was not taken by this run/);
  });

  it('passes when every one is committed, whatever its pixels (fonts differ between machines)', () => {
    writeFileSync(join(shots, 'a.png'), png('rendered here'));
    writeFileSync(join(images, 'a.png'), png('rendered elsewhere'));
    expect(() => {
      checkScreenshots({ shots, images, names: ['a.png'], update: false });
    }).not.toThrow();
    expect(readFileSync(join(images, 'a.png'))).toEqual(png('rendered elsewhere'));
  });

  it('with update, copies each taken one into docs/images/ (a missing one is then there)', () => {
    writeFileSync(join(shots, 'a.png'), png('new'));
    checkScreenshots({ shots, images, names: ['a.png'], update: true });
    expect(readFileSync(join(images, 'a.png'))).toEqual(png('new'));
  });
});
