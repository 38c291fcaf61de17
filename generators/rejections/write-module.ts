/** Writes the committed rejection module (see module-file.ts): `npx tsx generators/rejections/write-module.ts`. */
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { REJECTION_MODULE_FILE, rejectionModuleSource } from './module-file.js';

const root = resolve(import.meta.dirname, '..', '..');
writeFileSync(join(root, REJECTION_MODULE_FILE), rejectionModuleSource());
process.stdout.write(`wrote ${REJECTION_MODULE_FILE}\n`);
