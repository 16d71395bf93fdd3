/**
 * Imported first by the package's entry points and commands: an older Node.js stops here
 * with a message that names its version and the one required (core/node-version.ts).
 */
import { requireSupportedNode } from './core/node-version.js';

requireSupportedNode();
