export { PageFile, type PageProblem } from './page-file.js';
export { CopyBatcher } from './copy-batch.js';
