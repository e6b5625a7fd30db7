// The setup file of both vitest projects (vitest.config.ts): registers the test kit's matchers.
import { expect } from 'vitest';

import { toThrowCode } from './to-throw-code.ts';

expect.extend({ toThrowCode });
