/**
 * Writes docs/approval-states.md from the approval machines' tables (src/core/approval/states.ts).
 * Run it as `npm run states` after changing an event's moves; a test fails until you do.
 */
import { writeFileSync } from 'node:fs';
import { approvalStatesMarkdown } from '../src/core/approval/states.js';

const target = new URL('../docs/approval-states.md', import.meta.url);
writeFileSync(target, approvalStatesMarkdown());
console.log(`wrote ${target.pathname}`);
