// Runs only the fixture beside it: requirement.test.ts starts vitest here, with and without CI set.
import { defineConfig } from 'vitest/config';

export default defineConfig({ test: { include: ['needs.fixture.ts'] } });
