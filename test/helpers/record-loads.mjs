// `node --import ./record-loads.mjs bin/ship.js …`: appends the URL of every file of dist/ the process loads
// (statically or by a lazy import) to the file named by SHIP_TEST_LOADED. Used by test/e2e/startup-loads.test.ts.
import { register } from 'node:module';

register('./record-loads-hook.mjs', import.meta.url);
