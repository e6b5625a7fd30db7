// `maxLength` and `minLength` as the schema registry compiles them: the same verdicts and the same
// errors as Ajv's own keywords, for less work. JSON Schema counts a string's length in code points,
// so Ajv walks every string a length limit applies to (its `ucs2length`): about half of the time
// the native-execution schema took on a bundle, most of it on long texts far from their limits.
// A string of n UTF-16 units has between ⌈n/2⌉ and n code points, so n alone decides whenever it
// is within the limit (maxLength) or at least twice the limit (minLength); only a string between
// the two is counted, with Ajv's own function. The keywords replace Ajv's in place (same rule
// order, so errors come out in the same order), with Ajv's message and params; a differential test
// (test/schema-lengths.test.ts) holds both verdicts and errors equal to Ajv's over every corpus.
import { createRequire } from 'node:module';

import type * as AjvModule from 'ajv/dist/2020.js';
import type { Ajv2020, KeywordCxt, Name } from 'ajv/dist/2020.js';

// Ajv is CommonJS and loads only when something must be compiled (see schema-registry.ts).
const require = createRequire(import.meta.url);

/** Replaces Ajv's `maxLength` and `minLength` on `ajv` with the cheaper rule above. */
export function useLengthShortcut(ajv: Ajv2020): void {
  const { _, str } = require('ajv/dist/2020.js') as typeof AjvModule;
  // A runtime function by name: standalone code requires it as Ajv's own keyword does.
  const { useFunc } = require('ajv/dist/compile/util.js') as {
    useFunc: (gen: KeywordCxt['gen'], f: { code: string }) => Name;
  };
  const ucs2length = (
    require('ajv/dist/runtime/ucs2length.js') as { default: ((text: string) => number) & { code: string } }
  ).default;
  for (const keyword of ['maxLength', 'minLength'] as const) {
    ajv.removeKeyword(keyword);
    ajv.addKeyword({
      keyword,
      type: 'string',
      schemaType: 'number',
      before: 'pattern',
      error: {
        message: ({ schemaCode }) =>
          str`must NOT have ${keyword === 'maxLength' ? 'more' : 'fewer'} than ${schemaCode} characters`,
        params: ({ schemaCode }) => _`{limit: ${schemaCode}}`,
      },
      code(cxt: KeywordCxt) {
        const { data, schemaCode, gen } = cxt;
        const count = useFunc(gen, ucs2length);
        cxt.fail(
          keyword === 'maxLength'
            ? _`${data}.length > ${schemaCode} && ${count}(${data}) > ${schemaCode}`
            : _`${data}.length < ${schemaCode} || (${data}.length < 2 * ${schemaCode} && ${count}(${data}) < ${schemaCode})`,
        );
      },
    });
  }
}
