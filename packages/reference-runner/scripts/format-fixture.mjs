// Formats a fixture value as the repo's prettier would format its JSON file, so the generator and
// the fixtures-are-current test produce the same bytes.
import { format, resolveConfig } from 'prettier';

/** @param {string} path @param {unknown} value @returns {Promise<string>} */
export async function formatFixture(path, value) {
  const options = (await resolveConfig(path)) ?? {};
  return format(JSON.stringify(value), { ...options, filepath: path });
}
