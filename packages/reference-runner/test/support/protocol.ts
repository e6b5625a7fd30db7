// Test support: refreshes the package's generated protocol/ folder before any package module reads
// it. Import it first in a test file: ES modules evaluate their imports in order.
import { buildProtocol } from '../../scripts/build-protocol.mjs';

buildProtocol();
