// ESLint entry point; the rules live in tools/lint (see its package.json for why).
export { default } from './tools/lint/eslint-config.js';
